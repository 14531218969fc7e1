//! The group: owns the simulator, the trace, the durable images, the
//! replicas and the in-process controller. The only place that sends and
//! delivers.

use std::fmt;

use replication::{ClientOps, GroupError, NodeId, Tick};
use sim_core::{DurableImages, Envelope, NetConfig, Rng, SimNet, Trace, record};

use crate::config::IsrConfig;
use crate::message::IsrMessage;
use crate::node::{IsrNode, StepOutcome};
use crate::pending::PendingWrite;

/// A Kafka-shaped partition: replicas, an in-process controller (leader,
/// leader epoch, controller epoch, ISR), a high watermark, and one
/// deterministic simulator. See the crate docs for the mechanism.
pub struct IsrGroup {
    pub(crate) config: IsrConfig,
    pub(crate) net: SimNet<IsrMessage>,
    pub(crate) rng: Rng,
    pub(crate) trace: Trace,
    /// Per node: log length at the last fsync (an O(1) marker).
    pub(crate) durable: DurableImages<u64>,
    /// Replicas in configuration order.
    pub(crate) nodes: Vec<IsrNode>,
    /// Index of the controller's leader.
    pub(crate) leader: usize,
    pub(crate) leader_epoch: u64,
    pub(crate) controller_epoch: u64,
    pub(crate) in_isr: Vec<bool>,
    pub(crate) high_watermark: u64,
    /// Leader epoch of the last unclean election (0: none). Replicas not
    /// confirmed since then may hold a committed view the partition lost.
    pub(crate) unclean_epoch: u64,
    pub(crate) lease_expiry: Tick,
    pub(crate) slow: Vec<bool>,
    pub(crate) isolated: Vec<bool>,
    /// One-way cuts `(from, to)`, in the order they were made.
    pub(crate) cut_links: Vec<(usize, usize)>,
    /// Per node: last tick at which it was caught up with the leader.
    pub(crate) last_caught_up: Vec<Tick>,
    /// Run [`IsrGroup::check_invariants`] after every tick (a test aid).
    pub(crate) tick_checks: bool,
    /// The first violation seen by a per-tick check.
    pub(crate) violation: Option<String>,
    /// Op ids, client trace events, completions not yet taken.
    pub(crate) client_ops: ClientOps,
    /// Appended writes waiting for their verdict, in submission order.
    pub(crate) pending: Vec<PendingWrite>,
}

impl fmt::Debug for IsrGroup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IsrGroup")
            .field("tick", &self.tick_now())
            .field("leader", &self.nodes[self.leader].id)
            .field("leader_epoch", &self.leader_epoch)
            .field("nodes", &self.nodes.len())
            .field("pending_writes", &self.pending.len())
            .finish_non_exhaustive()
    }
}

impl IsrGroup {
    /// Builds a group at tick 0: every node in the ISR, HW 0, leader epoch
    /// and controller epoch 1, lease valid for `lease_duration` ticks.
    pub fn new(config: IsrConfig) -> Result<Self, GroupError> {
        config.validate()?;
        let net = SimNet::new(NetConfig::default().with_delay(config.delay))?;
        let n = config.nodes.len();
        let leader = config
            .nodes
            .iter()
            .position(|id| id == &config.leader)
            .ok_or_else(|| GroupError::config("leader", "leader is not one of the nodes"))?;
        let nodes = config
            .nodes
            .iter()
            .map(|id| IsrNode::new(id.clone(), config.leader.clone()))
            .collect();
        let mut trace = Trace::new();
        record!(
            trace,
            0,
            "isr_group_started",
            nodes = config.nodes.clone(),
            leader = &config.leader,
            leader_epoch = 1u64,
            controller_epoch = 1u64,
            min_insync_replicas = config.min_insync_replicas,
            replica_lag_timeout = config.replica_lag_timeout,
            retention = config.retention,
            seed = config.seed
        );
        Ok(IsrGroup {
            rng: Rng::new(config.seed),
            lease_expiry: config.lease_duration,
            net,
            trace,
            durable: DurableImages::new(),
            nodes,
            leader,
            leader_epoch: 1,
            controller_epoch: 1,
            in_isr: vec![true; n],
            high_watermark: 0,
            unclean_epoch: 0,
            slow: vec![false; n],
            isolated: vec![false; n],
            cut_links: Vec::new(),
            last_caught_up: vec![0; n],
            tick_checks: false,
            violation: None,
            client_ops: ClientOps::new(),
            pending: Vec::new(),
            config,
        })
    }

    /// The configuration the group was built from.
    #[must_use]
    pub fn config(&self) -> &IsrConfig {
        &self.config
    }

    /// The current tick.
    pub(crate) fn tick_now(&self) -> Tick {
        self.net.now()
    }

    /// Index of `node`, or `UnknownNode`.
    pub(crate) fn index_of(&self, node: &NodeId) -> Result<usize, GroupError> {
        self.nodes
            .iter()
            .position(|n| &n.id == node)
            .ok_or_else(|| GroupError::UnknownNode(node.clone()))
    }

    /// Index of `node` when it is alive.
    pub(crate) fn alive_index(&self, node: &NodeId) -> Result<usize, GroupError> {
        let idx = self.index_of(node)?;
        if !self.nodes[idx].alive {
            return Err(GroupError::NodeDown(node.clone()));
        }
        Ok(idx)
    }

    /// True when the controller's leader is alive and in the ISR.
    pub(crate) fn leader_available(&self) -> bool {
        self.nodes[self.leader].alive && self.in_isr[self.leader]
    }

    /// Number of ISR members.
    pub(crate) fn isr_len(&self) -> usize {
        self.in_isr.iter().filter(|&&m| m).count()
    }

    /// ISR members sorted by id (for traces and probes).
    pub(crate) fn isr_sorted(&self) -> Vec<NodeId> {
        let mut isr: Vec<NodeId> = self
            .nodes
            .iter()
            .zip(&self.in_isr)
            .filter(|(_, m)| **m)
            .map(|(n, _)| n.id.clone())
            .collect();
        isr.sort();
        isr
    }

    /// True when packets flow both ways between `a` and `b`.
    pub(crate) fn linked(&self, a: usize, b: usize) -> bool {
        let (x, y) = (&self.nodes[a].id, &self.nodes[b].id);
        !self.net.is_cut(x, y) && !self.net.is_cut(y, x)
    }

    /// Sends `msg` from node `src` to node `dst`.
    pub(crate) fn send(&mut self, src: usize, dst: usize, msg: IsrMessage) {
        self.net.send(
            &self.nodes[src].id,
            &self.nodes[dst].id,
            msg,
            &mut self.rng,
            &mut self.trace,
        );
    }

    /// Re-derives every cut link: a crashed or isolated node is cut from
    /// every peer both ways.
    pub(crate) fn recompute_links(&mut self) {
        self.net.heal_all();
        let ids: Vec<NodeId> = self.nodes.iter().map(|n| n.id.clone()).collect();
        for (i, node) in self.nodes.iter().enumerate() {
            if !node.alive || self.isolated[i] {
                self.net.isolate(&node.id, ids.iter());
            }
        }
        for &(from, to) in &self.cut_links {
            self.net.partition(&ids[from], &ids[to]);
        }
    }

    /// One tick: deliver everything due, refresh ISR, HW and lease, then
    /// re-evaluate every pending write.
    pub(crate) fn step_tick(&mut self) {
        self.net.advance();
        while let Some(env) = self.net.next_delivery(&mut self.trace) {
            self.deliver(env);
        }
        self.refresh();
        self.settle_pending();
        if self.tick_checks
            && self.violation.is_none()
            && let Err(v) = self.check_invariants()
        {
            self.violation = Some(format!("tick {}: {v}", self.tick_now()));
        }
    }

    /// Turns on (or off) running [`IsrGroup::check_invariants`] after every
    /// tick, including the ticks an `AllIsr` write drives while it waits.
    /// Costs O(log) per tick: a test aid, off by default.
    pub fn set_invariant_checks(&mut self, on: bool) {
        self.tick_checks = on;
    }

    /// The first invariant violation a per-tick check found, if any.
    #[must_use]
    pub fn invariant_violation(&self) -> Option<&str> {
        self.violation.as_deref()
    }

    /// Ticks until no message is in flight, at most `max_ticks` times.
    pub(crate) fn run_idle(&mut self, max_ticks: u64) -> Result<u64, GroupError> {
        let mut ticks = 0;
        while self.net.in_flight() > 0 {
            if ticks >= max_ticks {
                return Err(GroupError::NotIdle {
                    ticks: max_ticks,
                    waiting_for: format!("{} messages in flight", self.net.in_flight()),
                });
            }
            self.step_tick();
            ticks += 1;
        }
        Ok(ticks)
    }

    fn deliver(&mut self, env: Envelope<IsrMessage>) {
        let Some(dst) = self.nodes.iter().position(|n| n.id == env.dst) else {
            return;
        };
        if !self.nodes[dst].alive {
            self.net.record_discard(&env, "node_down", &mut self.trace);
            return;
        }
        let src = self.nodes.iter().position(|n| n.id == env.src);
        let now = self.tick_now();
        let (packet_epoch, outcome) = match &env.msg {
            IsrMessage::Append {
                kind,
                leader_epoch,
                source,
                prev_offset,
                prev_epoch,
                entries,
                leader_log_end,
                high_watermark,
            } => (
                *leader_epoch,
                self.nodes[dst].step_append(
                    *kind,
                    *leader_epoch,
                    source,
                    *prev_offset,
                    *prev_epoch,
                    entries,
                    *leader_log_end,
                    *high_watermark,
                ),
            ),
            IsrMessage::Snapshot {
                leader_epoch,
                source,
                log,
                high_watermark,
            } => (
                *leader_epoch,
                self.nodes[dst].step_snapshot(*leader_epoch, source, log, *high_watermark),
            ),
            IsrMessage::Fetch {
                leader_epoch,
                log_end,
            } => {
                let current = dst == self.leader && *leader_epoch == self.leader_epoch;
                record!(
                    self.trace,
                    now,
                    "isr_fetch_received",
                    leader = &env.dst,
                    node = &env.src,
                    log_end = *log_end,
                    served = current
                );
                if let (true, Some(src)) = (current, src) {
                    self.sync(src);
                }
                return;
            }
        };
        let node = &self.nodes[dst];
        match outcome {
            StepOutcome::Rejected { reason } => {
                record!(
                    self.trace,
                    now,
                    "isr_append_rejected",
                    node = &node.id,
                    source = &env.src,
                    reason = reason,
                    packet_epoch = packet_epoch,
                    known_epoch = node.known_epoch
                );
                if let (true, Some(src)) = (reason == "log_mismatch", src) {
                    let msg = IsrMessage::Fetch {
                        leader_epoch: node.known_epoch,
                        log_end: node.log.end(),
                    };
                    self.send(dst, src, msg);
                }
            }
            StepOutcome::Accepted {
                first,
                last,
                truncated_to,
            } => {
                if let Some(to) = truncated_to {
                    record!(
                        self.trace,
                        now,
                        "isr_log_truncated",
                        node = &node.id,
                        above = to,
                        reason = "divergence"
                    );
                    self.clamp_durable(dst, to);
                }
                let node = &self.nodes[dst];
                if self.trace.is_enabled() {
                    for offset in first..=last {
                        let epoch = node.log.epoch_at(offset);
                        record!(
                            self.trace,
                            now,
                            "isr_entry_appended",
                            node = &node.id,
                            offset = offset,
                            epoch = epoch,
                            leader_epoch = packet_epoch
                        );
                    }
                }
            }
            StepOutcome::Installed { dropped } => {
                if dropped {
                    self.clamp_durable(dst, 0);
                }
                let node = &self.nodes[dst];
                record!(
                    self.trace,
                    now,
                    "isr_snapshot_installed",
                    node = &node.id,
                    log_end = node.log.end(),
                    applied_hw = node.log.applied_hw,
                    leader_epoch = packet_epoch
                );
            }
        }
    }

    /// After a truncation to `end`, the durable marker cannot exceed it.
    pub(crate) fn clamp_durable(&mut self, idx: usize, end: u64) {
        let id = self.nodes[idx].id.clone();
        if let Some(d) = self.durable.image_mut(&id) {
            *d = (*d).min(end);
        }
    }
}
