//! [`FetchGroup`]: the fetch mode's replicas, its in-process controller and
//! the pending `acks=all` writes on one [`Cluster`]. The only place that
//! sends and delivers: every message goes through [`FetchGroup::step_tick`]'s
//! delivery loop into [`Replica::step`], every controller decision is
//! carried out here.

use std::fmt;

use replication::{ClientOp, Cluster, GroupError, NodeId, OpId, Tick};
use sim_core::{NetConfig, record};

use super::controller::{ElectionKind, PartitionController};
use super::replica::{Output, Replica, ReplicaEvent};
use super::rung::Rung;
use super::wire::FetchMessage;
use crate::config::{IsrConfig, IsrMode};

/// An `acks=all` write waiting for its leader's HW.
#[derive(Debug, Clone)]
pub(crate) struct Pending {
    pub(crate) id: OpId,
    pub(crate) op: ClientOp,
    pub(crate) submitted: Tick,
    pub(crate) leader: usize,
    pub(crate) epoch: u64,
    pub(crate) offset: u64,
    pub(crate) deadline: Tick,
}

/// A Kafka partition with fetch-driven replication: followers fetch from
/// the leader, the leader's HW follows the ISR's fetch offsets, and the
/// truncation rule is the configured [`Rung`] of the Kafka ladder. See the
/// [`fetch`](crate::fetch) module docs.
#[derive(Clone)]
pub struct FetchGroup {
    pub(crate) config: IsrConfig,
    pub(crate) rung: Rung,
    pub(crate) cluster: Cluster<FetchMessage>,
    pub(crate) replicas: Vec<Replica>,
    pub(crate) controller: PartitionController,
    pub(crate) pending: Vec<Pending>,
    out: Vec<Output>,
    /// The first broken invariant seen as it happened (a truncation below
    /// the committed prefix); reported by every later check.
    pub(crate) violation: Option<String>,
}

impl fmt::Debug for FetchGroup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FetchGroup")
            .field("rung", &self.rung)
            .field("tick", &self.cluster.now())
            .field("leader", &self.controller.leader())
            .field("leader_epoch", &self.controller.leader_epoch())
            .field("pending_writes", &self.pending.len())
            .finish_non_exhaustive()
    }
}

impl FetchGroup {
    /// A partition at tick 0 in epoch 1: every replica in the ISR, the
    /// configured leader leading, the followers' first fetches sent.
    /// `config.mode` must be [`IsrMode::Fetch`].
    pub fn new(config: IsrConfig) -> Result<Self, GroupError> {
        config.validate()?;
        let IsrMode::Fetch(rung) = config.mode else {
            return Err(GroupError::config(
                "mode",
                "FetchGroup runs the fetch mode; the chapter mode is IsrGroup",
            ));
        };
        let cluster = Cluster::new(
            config.nodes.clone(),
            NetConfig::default().with_delay(config.delay),
            config.seed,
        )?;
        let n = config.nodes.len();
        let leader = config
            .nodes
            .iter()
            .position(|id| *id == config.leader)
            .unwrap_or(0);
        let replicas = (0..n)
            .map(|i| Replica::new(i, rung, config.min_insync_replicas, config.flush_messages))
            .collect();
        let controller = PartitionController::new(
            rung,
            config.min_insync_replicas,
            config.unclean_leader_election,
            n,
            leader,
        );
        let mut group = FetchGroup {
            config,
            rung,
            cluster,
            replicas,
            controller,
            pending: Vec::new(),
            out: Vec::new(),
            violation: None,
        };
        let n = group.replicas.len();
        group.replicas[leader].become_leader(1, (0..n).collect(), 1, n, 0);
        for (i, r) in group.replicas.iter_mut().enumerate() {
            if i != leader {
                r.start_following(leader, 1);
            }
        }
        record!(
            group.cluster.trace,
            0,
            "isr_became_leader",
            node = group.cluster.id(leader).clone(),
            epoch = 1u64,
            log_end = 0u64,
            high_watermark = 0u64
        );
        Ok(group)
    }

    /// The configuration.
    pub fn config(&self) -> &IsrConfig {
        &self.config
    }

    /// The rung of the Kafka ladder this partition runs.
    pub fn rung(&self) -> Rung {
        self.rung
    }

    /// The controller's view: leader, epochs, ISR, ELR.
    pub fn controller(&self) -> &PartitionController {
        &self.controller
    }

    /// Every replica, in configuration order.
    pub fn replicas(&self) -> &[Replica] {
        &self.replicas
    }

    /// The replica of `node`.
    pub fn replica(&self, node: &NodeId) -> Option<&Replica> {
        self.cluster.index(node).ok().map(|i| &self.replicas[i])
    }

    pub(crate) fn now(&self) -> Tick {
        self.cluster.now()
    }

    /// Alive and reachable by the controller (not isolated), by position.
    pub(crate) fn up(&self) -> Vec<bool> {
        (0..self.replicas.len())
            .map(|i| self.cluster.is_alive(i) && !self.cluster.is_isolated(i))
            .collect()
    }

    /// Which replicas lost power and have not caught up since.
    pub(crate) fn unclean(&self) -> Vec<bool> {
        self.replicas.iter().map(Replica::unclean).collect()
    }

    /// Runs `f` on replica `i`, then sends and records what it output.
    pub(crate) fn on_replica(
        &mut self,
        i: usize,
        f: impl FnOnce(&mut Replica, Tick, &mut Vec<Output>),
    ) {
        let now = self.now();
        let mut out = std::mem::take(&mut self.out);
        f(&mut self.replicas[i], now, &mut out);
        for o in out.drain(..) {
            match o {
                Output::Send { to, msg } => {
                    self.cluster.send(i, to, msg);
                }
                Output::Event(e) => self.record_event(i, e),
            }
        }
        self.out = out;
    }

    fn record_event(&mut self, i: usize, e: ReplicaEvent) {
        let now = self.now();
        let node = self.cluster.id(i).clone();
        match e {
            ReplicaEvent::Truncated { from, to, reason } => {
                record!(
                    self.cluster.trace,
                    now,
                    "isr_log_truncated",
                    node = &node,
                    above = to,
                    from = from,
                    reason = reason
                );
                self.check_truncation(i, to);
            }
            ReplicaEvent::Refused { to, error } => {
                let to = self.cluster.id(to).clone();
                record!(
                    self.cluster.trace,
                    now,
                    "isr_request_refused",
                    node = &node,
                    to = &to,
                    error = error.name()
                );
            }
            ReplicaEvent::Fenced { from, epoch } => {
                let from = self.cluster.id(from).clone();
                record!(
                    self.cluster.trace,
                    now,
                    "isr_answer_fenced",
                    node = &node,
                    from = &from,
                    epoch = epoch
                );
            }
        }
    }

    /// "A follower never truncates below HW once it has acknowledged the
    /// epoch": an ISR member that knows the current epoch truncating below
    /// the current leader's HW throws away committed records.
    fn check_truncation(&mut self, i: usize, to: u64) {
        if self.violation.is_some() || self.replicas[i].unclean() {
            return;
        }
        let epoch = self.controller.leader_epoch();
        let Some(l) = self.controller.leader() else {
            return;
        };
        let leader = &self.replicas[l];
        if l != i
            && self.controller.isr().contains(&i)
            && self.replicas[i].epoch() == epoch
            && leader.leads_in(epoch)
            && to < leader.high_watermark()
        {
            self.violation = Some(format!(
                "{} (in the ISR, epoch {epoch}) truncated to {to}, below the leader {}'s HW {}: committed records thrown away",
                self.cluster.id(i),
                self.cluster.id(l),
                leader.high_watermark()
            ));
        }
    }

    /// `{node-1,node-3}`: the replicas at `positions`, for the trace.
    fn set_text(&self, positions: &[usize]) -> String {
        let ids = positions.iter().map(|&i| self.cluster.id(i));
        replication::StateField::set("set", ids).value
    }

    /// The controller's LeaderAndIsr to every replica it can reach.
    pub(crate) fn notify_all(&mut self) {
        for j in 0..self.replicas.len() {
            self.notify(j);
        }
    }

    /// The controller's LeaderAndIsr to replica `j`, if it can reach it
    /// and `j` is behind: the leader learns it leads (or its ISR), a
    /// follower whom to follow, everyone when the partition is offline.
    pub(crate) fn notify(&mut self, j: usize) {
        if !self.cluster.is_alive(j) || self.cluster.is_isolated(j) {
            return;
        }
        let epoch = self.controller.leader_epoch();
        let n = self.replicas.len();
        match self.controller.leader() {
            Some(l) if l == j => {
                let isr = self.controller.isr().to_vec();
                let pe = self.controller.partition_epoch();
                let now = self.now();
                let r = &mut self.replicas[j];
                if !r.leads_in(epoch) {
                    r.become_leader(epoch, isr, pe, n, now);
                    let node = self.cluster.id(j).clone();
                    record!(
                        self.cluster.trace,
                        now,
                        "isr_became_leader",
                        node = &node,
                        epoch = epoch,
                        log_end = r.log_end(),
                        high_watermark = r.high_watermark()
                    );
                } else if r.leading().is_some_and(|s| s.partition_epoch != pe) {
                    r.isr_changed(isr, pe);
                }
            }
            Some(l) => {
                let r = &self.replicas[j];
                if r.epoch() < epoch || r.leader() != Some(l) {
                    self.on_replica(j, |r, now, out| r.become_follower(l, epoch, now, out));
                }
            }
            None => {
                let r = &mut self.replicas[j];
                if r.leader().is_some() {
                    r.resign(epoch);
                }
            }
        }
    }

    /// Elects `r` as `kind` and tells every reachable replica.
    pub(crate) fn elect(&mut self, r: usize, kind: ElectionKind, reason: &'static str) {
        let up = self.up();
        let unclean = self.unclean();
        self.controller.elect(r, kind, &up, &unclean);
        let now = self.now();
        let node = self.cluster.id(r).clone();
        record!(
            self.cluster.trace,
            now,
            if kind == ElectionKind::Unclean {
                "isr_unclean_election"
            } else {
                "isr_leader_elected"
            },
            node = &node,
            epoch = self.controller.leader_epoch(),
            kind = kind.name(),
            reason = reason,
            log_end = self.replicas[r].log_end(),
            isr = self.set_text(self.controller.isr())
        );
        self.notify_all();
    }

    /// The leader is down or cut off from the controller: elect another,
    /// or take the partition offline.
    pub(crate) fn replace_leader(&mut self, reason: &'static str) {
        let up = self.up();
        let unclean = self.unclean();
        let old = self.controller.leader();
        match self.controller.candidate(&up, &unclean, old) {
            Some((r, kind)) => self.elect(r, kind, reason),
            None => {
                if old.is_some() {
                    self.controller.go_offline();
                    let now = self.now();
                    record!(
                        self.cluster.trace,
                        now,
                        "isr_partition_offline",
                        reason = reason
                    );
                    self.notify_all();
                }
            }
        }
    }

    /// One tick: deliver what is due, run the replicas' timers and the
    /// leader's ISR proposals, the controller's checks, then judge the
    /// pending writes.
    pub(crate) fn step_tick(&mut self) {
        self.cluster.advance();
        // Every reset comes from a fault (a crash, a cut): what it dropped
        // is asked for again when the link is back (heal, restore, a new
        // leader), or after the request timeout.
        self.cluster.take_resets();
        while let Some(d) = self.cluster.next_delivery() {
            self.on_replica(d.to, |r, now, out| r.step(d.from, d.msg, now, out));
        }
        let lag = self.config.replica_lag_timeout;
        for i in 0..self.replicas.len() {
            if !self.cluster.is_alive(i) {
                continue;
            }
            self.replicas[i].stalled = self.cluster.is_slow(i);
            let mut proposal = None;
            self.on_replica(i, |r, now, out| proposal = r.on_tick(now, lag, out));
            if let Some(isr) = proposal {
                self.alter_partition(i, isr);
            }
        }
        match self.controller.leader() {
            Some(l) if !self.cluster.is_alive(l) || self.cluster.is_isolated(l) => {
                self.replace_leader("leader unreachable")
            }
            None => self.replace_leader("offline partition"),
            _ => {}
        }
        self.notify_all();
        self.judge_pending();
    }

    /// The link between `a` and `b` was restored: a follower of the other
    /// end asks again (its request in flight may have been dropped).
    pub(crate) fn reconnected(&mut self, a: usize, b: usize) {
        for (f, l) in [(a, b), (b, a)] {
            if self.cluster.is_alive(f) && self.replicas[f].leader() == Some(l) && f != l {
                self.on_replica(f, |r, now, out| r.resend(now, out));
            }
        }
    }

    /// The leader at `i` proposes `isr`; the controller accepts it from
    /// the current leader when it can reach it.
    fn alter_partition(&mut self, i: usize, isr: Vec<usize>) {
        if self.cluster.is_isolated(i) {
            return;
        }
        let Some(state) = self.replicas[i].leading() else {
            return;
        };
        let old = state.isr.clone();
        let (epoch, pe) = (self.replicas[i].epoch(), state.partition_epoch);
        let mut seen: Vec<u64> = state.remote.iter().map(|r| r.broker_epoch).collect();
        seen[i] = self.replicas[i].broker_epoch();
        let unclean = self.unclean();
        let Ok(pe) = self
            .controller
            .alter_partition(i, epoch, pe, &isr, &seen, &unclean)
        else {
            return;
        };
        let now = self.now();
        for &r in old.iter().filter(|r| !isr.contains(r)) {
            let node = self.cluster.id(r).clone();
            record!(
                self.cluster.trace,
                now,
                "isr_member_removed",
                node = &node,
                isr_size = isr.len() as u64
            );
        }
        for &r in isr.iter().filter(|r| !old.contains(r)) {
            let node = self.cluster.id(r).clone();
            record!(
                self.cluster.trace,
                now,
                "isr_member_added",
                node = &node,
                isr_size = isr.len() as u64
            );
        }
        if self.rung.elr() && !self.controller.elr().is_empty() {
            record!(
                self.cluster.trace,
                now,
                "isr_elr",
                elr = self.set_text(self.controller.elr())
            );
        }
        self.replicas[i].isr_changed(isr, pe);
    }
}

/// A run you can steer: the fetch-mode partition's whole state is its
/// replicas, its controller, its pending `acks=all` writes and the first
/// broken invariant seen.
impl replication::Steer for FetchGroup {
    fn fork(&self) -> Box<dyn replication::Steer> {
        Box::new(self.clone())
    }

    fn write_state(&self, out: &mut dyn fmt::Write) -> fmt::Result {
        write!(
            out,
            "{:?}|{:?}|{:?}|{:?}",
            self.replicas, self.controller, self.pending, self.violation
        )
    }

    replication::steer_through_cluster!(cluster);
}
