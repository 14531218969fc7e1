//! The safety invariants of SPEC §6, checkable at any tick: the
//! state-based ones, what each replica answers about itself ([`view`]),
//! and monotonicity between one passed check and the next (the group
//! keeps what the last one saw): the epochs, HW, each replica's known
//! epoch, and its `applied_hw` while its log was not truncated. (The
//! survival of acknowledged writes needs the client history; the
//! integration tests and the explorer's history checks track it.)

use std::sync::Arc;

use replication::{Cluster, KvState};

use crate::controller::Controller;
use crate::log::{LogEntry, ReplicaLog};
use crate::message::IsrMessage;
use crate::node::IsrNode;

mod monotonic;
mod view;

/// Entries `from+1..=through` of both logs are identical. Replicated
/// entries are usually the same allocation, so pointer equality
/// short-circuits the field comparison.
fn same_range(a: &ReplicaLog, b: &ReplicaLog, from: u64, through: u64) -> bool {
    let (from, through) = (from.min(through) as usize, through as usize);
    a.entries[from..through]
        .iter()
        .zip(&b.entries[from..through])
        .all(|(x, y)| Arc::ptr_eq(x, y) || x == y)
}

/// What the checker already verified, so a check after a tick compares
/// only what changed: per node, the committed state it verified and at
/// which log version and `applied_hw` ([`Committed`]); per pair of logs, the versions and the prefix
/// found identical. Entries a log holds never change while its version
/// stays (appends only add), so a verified prefix stays verified.
///
/// Also the inputs of the last check that passed ([`fingerprint`]): a
/// check whose inputs are all unchanged (a quiet tick) passes at once.
#[derive(Debug, Default, Clone)]
pub(crate) struct Verified {
    committed: Vec<Option<Committed>>,
    prefixes: Vec<(u64, u64, u64)>,
    /// The [`fingerprint`] of the last check that passed (empty before
    /// the first): also what the monotonicity check compares with.
    passed: Vec<u64>,
    scratch: Vec<u64>,
}

/// A replica's committed key/value state as last verified: that of its
/// first `through` entries while its log was at `version`.
#[derive(Debug, Clone)]
struct Committed {
    version: u64,
    through: u64,
    state: KvState,
}

/// Everything [`check_with`] reads besides what the version of a log
/// pins (a log's entries while its version stays, and its committed state
/// while its version and `applied_hw` stay — the caches above rely on the
/// same): the controller's HW, epochs, leader and ISR, and per replica
/// ([`PER_NODE`] values, laid out as the `AT_*` indices say) its log's
/// version, end and `applied_hw`, its confirmation, whether it is up, and
/// what it answers as its leader epoch, leader and leadership ([`view`]).
/// It starts with [`MONOTONIC`] values.
fn fingerprint(
    controller: &Controller,
    nodes: &[IsrNode],
    cluster: &Cluster<IsrMessage>,
    out: &mut Vec<u64>,
) {
    // Sized once and filled in place (this runs after every step and
    // tick the explorer makes).
    out.clear();
    out.resize(NODES_FROM + PER_NODE * nodes.len(), 0);
    let (head, rest) = out.split_at_mut(NODES_FROM);
    let l = controller.leader();
    head.copy_from_slice(&[
        controller.leader_epoch(),
        controller.controller_epoch(),
        controller.high_watermark(),
        controller.unclean_epoch(),
        l as u64,
        u64::from(controller.leader_available(cluster.is_alive(l))),
    ]);
    for ((i, n), slot) in nodes
        .iter()
        .enumerate()
        .zip(rest.chunks_exact_mut(PER_NODE))
    {
        slot.copy_from_slice(&[
            n.log.version,
            n.log.end(),
            n.log.applied_hw,
            n.matched_epoch,
            n.matched_end,
            u64::from(cluster.is_alive(i)) | u64::from(controller.in_isr(i)) << 1,
            n.leader_epoch(),
            n.leader() as u64
                | u64::from(n.is_leader()) << 32
                | u64::from(n.awaiting_controller()) << 33,
        ]);
    }
}

impl Verified {
    /// `log.committed` is the key/value state of its first `applied_hw`
    /// entries. While the log's version stays (its entries only grow), the
    /// state last verified is carried forward over the newly applied
    /// entries and compared (a few keys) instead of refolding the prefix.
    fn committed_ok(&mut self, i: usize, log: &ReplicaLog) -> bool {
        if self.committed.len() <= i {
            self.committed.resize_with(i + 1, || None);
        }
        let slot = &mut self.committed[i];
        let mut state = match slot.take() {
            Some(mut c) if c.version == log.version && c.through <= log.applied_hw => {
                if c.through == log.applied_hw {
                    *slot = Some(c);
                    return true;
                }
                fold(
                    &mut c.state,
                    &log.entries[c.through as usize..log.applied_hw as usize],
                );
                c
            }
            reused => {
                let mut state = reused.map(|c| c.state).unwrap_or_default();
                state.clear();
                fold(&mut state, &log.entries[..log.applied_hw as usize]);
                Committed {
                    version: log.version,
                    through: 0,
                    state,
                }
            }
        };
        if state.state != log.committed {
            return false;
        }
        state.through = log.applied_hw;
        *slot = Some(state);
        true
    }

    /// Entries `1..=through` identical, for the logs of nodes `i` and `j`
    /// (`n` nodes), comparing only beyond what was verified.
    fn same(
        &mut self,
        n: usize,
        (i, a): (usize, &ReplicaLog),
        (j, b): (usize, &ReplicaLog),
        through: u64,
    ) -> bool {
        let slot = i * n + j;
        if self.prefixes.len() < n * n {
            self.prefixes.resize(n * n, (u64::MAX, u64::MAX, 0));
        }
        let (va, vb, done) = self.prefixes[slot];
        let from = if (va, vb) == (a.version, b.version) {
            done.min(through)
        } else {
            0
        };
        let ok = same_range(a, b, from, through);
        if ok {
            self.prefixes[slot] = (
                a.version,
                b.version,
                through.max(if from == 0 { 0 } else { done }),
            );
        }
        ok
    }
}

/// Applies `entries` in order to `state`, the last write of a key winning.
fn fold(state: &mut KvState, entries: &[Arc<LogEntry>]) {
    for e in entries {
        state.upsert(&e.key, &e.value);
    }
}

/// The checks of [`IsrGroup::check_invariants`](crate::IsrGroup::check_invariants):
/// the SPEC §6 invariants over the controller and the replicas; the error
/// names the first one broken. `verified` remembers what was already
/// verified (the group keeps one across ticks, so a check compares only
/// what changed).
pub(crate) fn check_with(
    controller: &Controller,
    nodes: &[IsrNode],
    cluster: &Cluster<IsrMessage>,
    verified: &mut Verified,
) -> Result<(), String> {
    let mut inputs = std::mem::take(&mut verified.scratch);
    fingerprint(controller, nodes, cluster, &mut inputs);
    if inputs == verified.passed {
        verified.scratch = inputs;
        return Ok(());
    }
    let monotonic = if verified.passed.len() == inputs.len() {
        monotonic::check_monotonic(&verified.passed, &inputs, cluster)
    } else {
        Ok(())
    };
    let result = monotonic
        .and_then(|()| check_state(controller, nodes, cluster, verified))
        .and_then(|()| view::check_views(controller, nodes, cluster));
    if result.is_ok() {
        verified.scratch = std::mem::replace(&mut verified.passed, inputs);
    } else {
        verified.scratch = inputs;
    }
    result
}

/// How many values a [`fingerprint`] starts with that must not go back:
/// the leader epoch, the controller epoch, HW and the unclean epoch.
const MONOTONIC: usize = 4;
/// Where the controller's leader is in a [`fingerprint`].
const AT_LEADER: usize = 4;
/// Where the per-replica values start in a [`fingerprint`].
const NODES_FROM: usize = 6;
/// How many values a [`fingerprint`] holds per replica.
const PER_NODE: usize = 8;
/// A replica's log version, `applied_hw` and known leader epoch, within
/// its [`PER_NODE`] values.
const AT_VERSION: usize = 0;
const AT_APPLIED_HW: usize = 2;
const AT_KNOWN_EPOCH: usize = 6;

/// The state-based checks of [`check_with`].
fn check_state(
    controller: &Controller,
    nodes: &[IsrNode],
    cluster: &Cluster<IsrMessage>,
    verified: &mut Verified,
) -> Result<(), String> {
    let n = nodes.len();
    let hw = controller.high_watermark();
    let unclean_epoch = controller.unclean_epoch();
    let id = |n: &IsrNode| cluster.id(n.me()).clone();
    // After an unclean election a replica not confirmed since may still
    // hold the committed view the partition lost: it is exempt from the
    // cross-node checks until it resynchronises.
    let current = |n: &IsrNode| unclean_epoch == 0 || n.matched_epoch >= unclean_epoch;
    for (i, a) in nodes.iter().enumerate() {
        if a.log.applied_hw > a.log.end() {
            return Err(format!(
                "{}: applied_hw {} above its log end {}",
                id(a),
                a.log.applied_hw,
                a.log.end()
            ));
        }
        if !verified.committed_ok(i, &a.log) {
            return Err(format!(
                "{}: committed_data is not its log through applied_hw",
                id(a)
            ));
        }
        if !current(a) {
            continue;
        }
        if a.log.applied_hw > hw {
            return Err(format!(
                "{}: applied_hw {} > HW {hw}",
                id(a),
                a.log.applied_hw
            ));
        }
        // Each unordered pair once.
        for (j, b) in nodes
            .iter()
            .enumerate()
            .skip(i + 1)
            .filter(|(_, b)| current(b))
        {
            let through = a
                .log
                .applied_hw
                .min(b.log.applied_hw)
                .min(a.log.end())
                .min(b.log.end());
            if !verified.same(n, (i, &a.log), (j, &b.log), through) {
                return Err(format!(
                    "{} and {} disagree at or below their applied HW {through}",
                    id(a),
                    id(b)
                ));
            }
        }
    }
    let l = controller.leader();
    if !controller.leader_available(cluster.is_alive(l)) {
        return Ok(());
    }
    let leader = &nodes[l];
    if hw > leader.log.end() {
        return Err(format!("HW {hw} above leader log end {}", leader.log.end()));
    }
    // Its own appends are confirmed in its epoch (what it knows of itself
    // as a replica of that epoch).
    let own = leader.confirmed_log_end(controller.leader_epoch());
    if own != Some(leader.log.end()) {
        return Err(format!(
            "leader {} confirmed through {own:?} in its epoch {}, but its log ends at {}",
            id(leader),
            controller.leader_epoch(),
            leader.log.end()
        ));
    }
    for (i, n) in nodes.iter().enumerate() {
        let alive = cluster.is_alive(i);
        if controller.in_isr(i) && alive {
            if n.log.end() < hw {
                return Err(format!(
                    "ISR member {} log end {} < HW {hw}",
                    id(n),
                    n.log.end()
                ));
            }
            if i != l && !verified.same(nodes.len(), (i, &n.log), (l, &leader.log), hw) {
                return Err(format!(
                    "ISR member {} differs from the leader at or below HW",
                    id(n)
                ));
            }
        }
        if i != l && alive && n.matched_epoch == controller.leader_epoch() {
            if n.matched_end > leader.log.end() || n.matched_end > n.log.end() {
                return Err(format!(
                    "{} confirmed end {} beyond a log",
                    id(n),
                    n.matched_end
                ));
            }
            if !verified.same(nodes.len(), (i, &n.log), (l, &leader.log), n.matched_end) {
                return Err(format!(
                    "{} counted as matching the leader through {} but differs",
                    id(n),
                    n.matched_end
                ));
            }
        }
    }
    let (first, last) = leader.retained_range();
    if last != leader.log.end() || first < 1 {
        return Err(format!(
            "retained window {first}..={last} is not the leader's log"
        ));
    }
    Ok(())
}
