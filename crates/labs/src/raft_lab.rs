//! The seven experiments against `proto-raft`.
//!
//! Raft offers one write level (`QUORUM`), so the variants are mechanisms:
//! `default` is textbook Raft (every run); experiment 3 adds `prevote`
//! (PreVote with CheckQuorum, as etcd runs them) and experiment 7
//! `check_quorum`. Experiment 5 turns snapshots on (a compaction every
//! [`RETENTION`] applied entries), which is what gives Raft a retention
//! window. Each run builds one [`RaftGroup`] with a fixed seed, drives it
//! through [`ReplicationGroup`] plus the Raft helpers (`run_until_leader`,
//! `run_until_converged`, `write_at`, `probe`), and reads every observed
//! value from a read, the probe, the trace or the error an attempt returned.

use bytes::Bytes;
use proto_raft::{RaftConfig, RaftGroup};
use replication::{AckLevel, GroupError, NodeId, ReadLevel, ReplicationGroup};
use sim_core::Value;

use crate::observed::{
    CrashAfterAck, MinorityLeader, NormalReplication, Observed, Reconnect, SlowReplica,
    SplitBrainRead,
};
use crate::protocol::Protocol;
use crate::reads::{guard_outcome, read_levels};
use crate::run::Run;
use crate::script::partition_reads;

const BOUND: u64 = 400;

/// Experiment 5's snapshot threshold: a node compacts its log once it has
/// applied this many entries past its last snapshot (the other protocols'
/// retention is 8 records too).
pub const RETENTION: u64 = 8;

/// A run's mechanisms beyond textbook Raft.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RaftVariant {
    /// Textbook Raft (`default`).
    Default,
    /// PreVote with CheckQuorum (`prevote`): the isolated old leader steps
    /// down by itself, and campaigns without raising its term.
    PreVote,
    /// CheckQuorum (`check_quorum`): the isolated old leader steps down.
    CheckQuorum,
}

impl RaftVariant {
    /// The variant name in the matrix.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            RaftVariant::Default => "default",
            RaftVariant::PreVote => "prevote",
            RaftVariant::CheckQuorum => "check_quorum",
        }
    }

    fn config(self, seed: u64) -> RaftConfig {
        let config = RaftConfig::default().with_seed(seed);
        match self {
            RaftVariant::Default => config,
            RaftVariant::PreVote => config.with_pre_vote(true).with_check_quorum(true),
            RaftVariant::CheckQuorum => config.with_check_quorum(true),
        }
    }
}

fn key() -> Bytes {
    Bytes::from_static(b"k")
}

/// A default three-node group with `seed`, already past its first election.
fn elected(seed: u64) -> Result<(RaftGroup, NodeId), GroupError> {
    elected_with(RaftConfig::default().with_seed(seed))
}

/// A group of `config`, already past its first election.
fn elected_with(config: RaftConfig) -> Result<(RaftGroup, NodeId), GroupError> {
    let mut group = RaftGroup::new(config)?;
    let leader = group.run_until_leader(None, BOUND)?;
    Ok((group, leader))
}

fn first_follower(group: &RaftGroup, leader: &NodeId) -> Result<NodeId, GroupError> {
    group
        .node_ids()
        .into_iter()
        .find(|id| id != leader)
        .ok_or_else(|| GroupError::NoLeader("no follower in the group".into()))
}

fn local(group: &mut RaftGroup, node: &NodeId) -> Result<Option<Bytes>, GroupError> {
    Ok(group.client_read(b"k", ReadLevel::Local, Some(node))?.value)
}

fn run(observed: Observed, group: &RaftGroup) -> Run {
    run_variant(RaftVariant::Default, observed, group)
}

fn run_variant(variant: RaftVariant, observed: Observed, group: &RaftGroup) -> Run {
    Run::new(
        Protocol::Raft,
        variant.name(),
        observed,
        group.trace().clone(),
    )
}

/// Experiment 1: QUORUM write, a follower read at the ack, then converge.
pub fn exp1_normal() -> Result<Run, GroupError> {
    let (mut g, leader) = elected(1)?;
    let follower = first_follower(&g, &leader)?;
    let w = g.client_write(key(), Bytes::from_static(b"v"), AckLevel::Quorum)?;
    let follower_at_ack = local(&mut g, &follower)?;
    g.run_until_idle(BOUND)?;
    let follower_after = local(&mut g, &follower)?;
    let probe = g.probe();
    let offset = |id: &NodeId| probe.node(id).map_or(0, |n| n.commit_index);
    let observed = NormalReplication {
        acked: w.accepted,
        ack_offset: w.offset,
        follower_at_ack,
        follower_after,
        leader_offset: offset(&leader),
        follower_offset: offset(&follower),
    };
    Ok(run(Observed::Normal(observed), &g))
}

/// Experiment 2: ack, crash the leader before any tick, let the rest elect,
/// read linearizably on the new leader. (Not [`crate::crash_after_ack`]:
/// Raft can prove survival with a read-index read, so it does.)
pub fn exp2_crash_after_ack() -> Result<Run, GroupError> {
    let (mut g, old_leader) = elected(2)?;
    let value = Bytes::from_static(b"v");
    let w = g.client_write(key(), value.clone(), AckLevel::Quorum)?;
    let value_before = g.client_read(b"k", ReadLevel::Leader, None)?.value;
    g.crash(&old_leader, false)?;
    let new_leader = g.failover(None)?;
    let value_after = g
        .client_read(b"k", ReadLevel::Linearizable, Some(&new_leader))?
        .value;
    let observed = CrashAfterAck {
        acked: w.accepted,
        value_before,
        survived: value_after.as_ref() == Some(&value),
        old_leader,
        new_leader,
        value_after,
    };
    Ok(run(Observed::CrashAfterAck(observed), &g))
}

/// Experiment 3: the old leader isolated in a minority, writes on both
/// sides, heal, converge. With [`RaftVariant::PreVote`] the old leader
/// steps down by itself (CheckQuorum) and, cut off, campaigns with
/// pre-votes that never raise its term, so it rejoins without deposing the
/// new leader (fewer stale-term messages to fence).
pub fn exp3_minority_leader(variant: RaftVariant) -> Result<Run, GroupError> {
    let (mut g, old) = elected_with(variant.config(3))?;
    g.client_write(key(), Bytes::from_static(b"base"), AckLevel::Quorum)?;
    g.run_until_converged(BOUND)?;
    g.isolate(&old)?;
    let isolated_at = g.now();
    let new = g.failover(None)?;
    let old_write_acked = match g.write_at(&old, key(), Bytes::from_static(b"minority")) {
        Ok(w) => w.accepted,
        Err(GroupError::NotPermitted { .. }) => false,
        Err(other) => return Err(other),
    };
    let new_write = g.client_write(key(), Bytes::from_static(b"majority"), AckLevel::Quorum)?;
    // The minority stays cut off for at least three of its longest election
    // timeouts (textbook Raft already is, waiting on the old leader's
    // write), so a node that can time out there does, several times.
    let hold_until = isolated_at + 3 * g.config().election_timeout.1;
    while g.now() < hold_until {
        g.tick();
    }
    let (old_side_value, new_side_value) = partition_reads(&mut g, b"k", &old, &new)?;
    g.heal(&old)?;
    g.run_until_converged(BOUND)?;
    let fenced_messages = g.trace().count("raft_stale_term_rejected") as u64;
    let summary = g.summary();
    let leader_data = summary
        .leader
        .as_ref()
        .and_then(|l| summary.node(l))
        .map(|n| n.data.clone());
    let converged = summary.alive_nodes_agree()
        && summary
            .nodes
            .iter()
            .filter(|n| n.alive)
            .all(|n| Some(&n.data) == leader_data.as_ref());
    let probe = g.probe();
    let old_leader_role_after = probe
        .node(&old)
        .map_or_else(|| "unknown".to_owned(), |n| n.role.name().to_owned());
    let observed = MinorityLeader {
        old_leader: old.clone(),
        new_leader: new.clone(),
        old_side_value,
        new_side_value,
        old_write_acked,
        new_write_acked: new_write.accepted,
        fenced_messages,
        converged,
        old_leader_role_after,
        minority_value: local(&mut g, &old)?,
        majority_value: local(&mut g, &new)?,
    };
    Ok(run_variant(variant, Observed::Minority(observed), &g))
}

/// Experiment 4: one follower cut off, QUORUM write.
pub fn exp4_slow_replica() -> Result<Run, GroupError> {
    let (mut g, leader) = elected(4)?;
    let slow = first_follower(&g, &leader)?;
    g.isolate(&slow)?;
    let value = Bytes::from_static(b"v");
    let w = g.client_write(key(), value.clone(), AckLevel::Quorum)?;
    let slow_replica_stale = local(&mut g, &slow)? != Some(value);
    let probe = g.probe();
    let index = w.offset.unwrap_or(0);
    let term = probe
        .node(&leader)
        .and_then(|n| n.term_at(index))
        .unwrap_or(0);
    let holders = probe.replicas_of(index, term);
    let voters = probe.voters.len();
    let role = if probe.voters.contains(&slow) {
        "fixed voter"
    } else {
        "not a voter"
    };
    let majority = if holders > voters / 2 {
        "unaffected"
    } else {
        "lost"
    };
    let membership = format!("{role}; majority {majority} ({holders}/{voters} hold index {index})");
    let observed = SlowReplica {
        write_available: w.accepted,
        slow_replica_stale,
        membership,
    };
    Ok(run(Observed::Slow(observed), &g))
}

/// The catch-up modes the trace shows for `follower` from position `from`.
fn catch_up_mode(g: &RaftGroup, follower: &NodeId, from: usize) -> String {
    let mut modes: Vec<String> = Vec::new();
    for event in g.trace().since(from).filter(|e| e.kind == "raft_catch_up") {
        if event.field("follower") != Some(Value::Node(follower.clone())) {
            continue;
        }
        if let Some(mode) = event.str_field("mode")
            && !modes.iter().any(|m| m == mode)
        {
            modes.push(mode.to_string());
        }
    }
    if modes.is_empty() {
        "no catch-up".to_owned()
    } else {
        modes.join("+")
    }
}

fn reconnect_after(
    g: &mut RaftGroup,
    follower: &NodeId,
    writes: usize,
) -> Result<String, GroupError> {
    g.crash(follower, false)?;
    for i in 0..writes {
        g.client_write(
            Bytes::from(format!("k{i}")),
            Bytes::from(format!("v{i}")),
            AckLevel::Quorum,
        )?;
    }
    g.restart(follower)?;
    let mark = g.trace().len();
    g.run_until_idle(BOUND)?;
    Ok(catch_up_mode(g, follower, mark))
}

/// Experiment 5: a follower reconnects after missing 2 entries, then after
/// missing 20, with snapshots every [`RETENTION`] applied entries: inside
/// the retained log it gets log replay, outside it InstallSnapshot.
pub fn exp5_reconnect() -> Result<Run, GroupError> {
    let (mut g, leader) = elected_with(
        RaftConfig::default()
            .with_seed(5)
            .with_snapshot_threshold(RETENTION),
    )?;
    g.run_until_idle(BOUND)?;
    let follower = first_follower(&g, &leader)?;
    let inside_window = reconnect_after(&mut g, &follower, 2)?;
    let outside_window = reconnect_after(&mut g, &follower, 20)?;
    let observed = Reconnect {
        inside_window,
        outside_window,
    };
    Ok(run(Observed::Reconnect(observed), &g))
}

/// Experiment 6: at the ack, read LOCAL at a follower, LEADER, LINEARIZABLE.
pub fn exp6_read_levels() -> Result<Run, GroupError> {
    let (mut g, leader) = elected(6)?;
    g.run_until_idle(BOUND)?;
    let follower = first_follower(&g, &leader)?;
    let value = Bytes::from_static(b"v");
    g.client_write(key(), value.clone(), AckLevel::Quorum)?;
    let observed = read_levels(&mut g, b"k", &follower, &value)?;
    Ok(run(Observed::Reads(observed), &g))
}

/// Experiment 7: the isolated old leader still serves LOCAL; its
/// read-index round finds no quorum. With [`RaftVariant::CheckQuorum`] it
/// has stepped down by itself before the read, which is refused at once
/// (`not leader`).
pub fn exp7_split_brain(variant: RaftVariant) -> Result<Run, GroupError> {
    let (mut g, old) = elected_with(variant.config(7))?;
    g.client_write(key(), Bytes::from_static(b"before"), AckLevel::Quorum)?;
    g.run_until_converged(BOUND)?;
    g.isolate(&old)?;
    let new = g.failover(None)?;
    g.client_write(key(), Bytes::from_static(b"after"), AckLevel::Quorum)?;
    let old_local = local(&mut g, &old)?;
    let current = g
        .client_read(b"k", ReadLevel::Linearizable, Some(&new))?
        .value;
    let attempt = g.client_read(b"k", ReadLevel::Linearizable, Some(&old));
    let observed = SplitBrainRead {
        old_local,
        current,
        guard: guard_outcome(&attempt),
    };
    Ok(run_variant(variant, Observed::SplitBrain(observed), &g))
}

/// Every run of this protocol, in experiment order then variant order.
pub fn runs() -> Result<Vec<Run>, GroupError> {
    Ok(vec![
        exp1_normal()?,
        exp2_crash_after_ack()?,
        exp3_minority_leader(RaftVariant::Default)?,
        exp3_minority_leader(RaftVariant::PreVote)?,
        exp4_slow_replica()?,
        exp5_reconnect()?,
        exp6_read_levels()?,
        exp7_split_brain(RaftVariant::Default)?,
        exp7_split_brain(RaftVariant::CheckQuorum)?,
    ])
}
