//! The shared driver surface, and the two ISR operator calls behind its
//! `set_slow` and `failover`. Every fault goes through the harness
//! ([`replication::Cluster`]), then the ISR hook says what it means here: a
//! crashed replica leaves the ISR (and a power loss rolls its log back to
//! its last fsync), a restarted or healed follower catches up, a restarted
//! leader is re-elected in a new epoch, a healed displaced leader resends
//! its uncommitted suffix in its old epoch before it hears of the election.

use replication::{AckLevel, NodeState, ReadResult, ScenarioGroup, StateRecorder, WriteResult};
use replication::{
    ClientOp, Completion, GroupError, GroupSummary, NodeId, OpId, ReplicationGroup, Tick, Trace,
};
use sim_core::record;

use crate::controller::{ElectionReason, ElectionRefusal, RestartDecision};
use crate::group::IsrGroup;
use crate::inspect;

impl ReplicationGroup for IsrGroup {
    fn protocol(&self) -> &'static str {
        "isr"
    }

    fn node_ids(&self) -> Vec<NodeId> {
        self.cluster.ids().to_vec()
    }

    /// The controller's leader while it is alive and in the ISR.
    fn leader(&self) -> Option<NodeId> {
        self.leader_available()
            .then(|| self.cluster.id(self.controller.leader()).clone())
    }

    /// Starts a write or a read; no time passes.
    ///
    /// - **Writes** take `Leader` or `AllIsr` (`None` and `Quorum` are
    ///   [`GroupError::UnsupportedAck`]). Without a node the write goes to
    ///   the controller's leader ([`GroupError::NodeDown`] when it is
    ///   crashed, [`GroupError::NoLeader`] when it restarted without the
    ///   committed prefix). A named node ([`ClientOp::at`]) is a produce
    ///   request from a client whose metadata may be stale, as
    ///   [`IsrGroup::write_at`]: the controller's leader serves it
    ///   normally; a displaced leader that has not heard of the election
    ///   appends it in its old epoch; any other replica answers
    ///   [`GroupError::NotPermitted`].
    /// - A `Leader` write completes at once (*done*). An `AllIsr` write is
    ///   *failed* at once when the ISR is below `min.insync.replicas`
    ///   (refused before append); otherwise it is appended and completes
    ///   after a later tick: *done* once every current ISR member holds it
    ///   and HW covers it; *unknown* (with its offset) when the ISR shrinks
    ///   below min.insync, its leader crashes, the controller elects another
    ///   leader, or `ack_timeout` ticks pass. A write at a displaced leader
    ///   is never acknowledged at `AllIsr`: *unknown* once `ack_timeout`
    ///   passes or the node learns of the new epoch.
    /// - **Reads** are answered at submission: *done* with the value, or
    ///   *failed* with [`GroupError::ReadBlocked`] when a `Linearizable`
    ///   guard fails. The node matters only for `Local`.
    fn submit(&mut self, op: ClientOp) -> Result<OpId, GroupError> {
        self.submit_op(op)
    }

    /// As `submit` + `await_completion` (same events, op id and answer),
    /// without queueing the completion nobody else could take.
    fn client_write(
        &mut self,
        key: bytes::Bytes,
        value: bytes::Bytes,
        level: AckLevel,
    ) -> Result<WriteResult, GroupError> {
        self.write_blocking(key, value, level)
    }

    fn take_completions(&mut self) -> Vec<Completion> {
        self.cluster.take_completions()
    }

    fn take_completion(&mut self, id: OpId) -> Option<Completion> {
        self.cluster.take_completion(id)
    }

    fn tick(&mut self) {
        self.step_tick();
    }

    fn lease_read(&mut self, node: &NodeId, key: &[u8]) -> Option<Result<ReadResult, GroupError>> {
        Some(IsrGroup::lease_read(self, node, key))
    }

    /// `lease_duration`: the lease is renewed only while at least
    /// `min.insync.replicas` ISR members are reachable from the leader, so
    /// a leader that reaches no peer renews it no more — unless it alone
    /// is enough (`min.insync.replicas` 1: no promise).
    fn lease_lapse_bound(&self) -> Option<u64> {
        (self.config.min_insync_replicas > 1).then_some(self.config.lease_duration)
    }

    /// No timer of its own keeps it busy: healed, it goes idle.
    fn quiesces(&self) -> bool {
        true
    }

    fn run_until_idle(&mut self, max_ticks: u64) -> Result<u64, GroupError> {
        self.run_idle(max_ticks)
    }

    /// The harness's crash (everything in flight to or from the node is
    /// lost), then: the replica leaves the ISR and nothing of its log is
    /// confirmed any more; with `lose_unfsynced` its log is truncated to
    /// its last fsync.
    fn crash(&mut self, node: &NodeId, lose_unfsynced: bool) -> Result<(), GroupError> {
        let i = self.cluster.crash(node, lose_unfsynced)?;
        self.gather_facts();
        if let Some(removed) = self.controller.on_replica_crashed(i, &self.facts) {
            self.record_decided(std::slice::from_ref(&removed));
        }
        self.on_node(i, |n, out| n.crash(lose_unfsynced, out));
        Ok(())
    }

    /// The harness's restart, then: the controller tells the replica the
    /// leader and epoch (if it can reach it); a follower catches up; the
    /// leader is re-elected in a new epoch if it still holds HW, else it
    /// stays unavailable (`isr_leader_unavailable`).
    fn restart(&mut self, node: &NodeId) -> Result<(), GroupError> {
        let i = self.cluster.restart(node)?;
        self.notify(i);
        self.gather_facts();
        match self.controller.on_replica_restarted(i, &self.facts) {
            RestartDecision::Resync => self.resync(i),
            RestartDecision::Reelect => self.elect(i, ElectionReason::LeaderRestarted),
            RestartDecision::LeaderUnavailable {
                log_end,
                high_watermark,
            } => record!(
                self.cluster.trace,
                self.tick_now(),
                "isr_leader_unavailable",
                node = node,
                log_end = log_end,
                high_watermark = high_watermark
            ),
        }
        Ok(())
    }

    fn isolate(&mut self, node: &NodeId) -> Result<(), GroupError> {
        self.cluster.isolate(node).map(drop)
    }

    /// The harness's heal, then, for a live replica: a displaced leader
    /// that still believes it leads resends its uncommitted suffix in its
    /// old epoch (and is fenced); the controller tells it the leader and
    /// epoch; the leader resynchronises every follower, a follower is
    /// resynchronised.
    fn heal(&mut self, node: &NodeId) -> Result<(), GroupError> {
        let i = self.cluster.heal(node)?;
        if !self.cluster.is_alive(i) {
            return Ok(());
        }
        let leader = self.controller.leader();
        if i != leader {
            self.on_node(i, |n, out| n.resend_as_stale_leader(out));
        }
        self.notify(i);
        if i == leader {
            for j in 0..self.nodes.len() {
                self.resync(j);
            }
        } else {
            self.resync(i);
        }
        Ok(())
    }

    /// Cuts the one-way link `from → to` (kept across isolate / heal of
    /// other nodes; `heal` of either end restores it).
    fn cut_link(&mut self, from: &NodeId, to: &NodeId) -> Result<(), GroupError> {
        self.cluster.cut_link(from, to).map(drop)
    }

    /// Restores the one-way link `from → to`; the receiver catches up.
    fn restore_link(&mut self, from: &NodeId, to: &NodeId) -> Result<(), GroupError> {
        let (_, to) = self.cluster.restore_link(from, to)?;
        self.resync(to);
        Ok(())
    }

    /// [`IsrGroup::set_replica_slow`]: refused for the leader.
    fn set_slow(&mut self, node: &NodeId, slow: bool) -> Result<(), GroupError> {
        self.set_replica_slow(node, slow)
    }

    fn steerable(&self) -> Option<&dyn replication::Steer> {
        Some(self)
    }

    fn steerable_mut(&mut self) -> Option<&mut dyn replication::Steer> {
        Some(self)
    }

    fn check_invariants(&self) -> Result<(), String> {
        self.cluster.check_network()?;
        IsrGroup::check_invariants(self)
    }

    /// The trace's membership, high watermark, leader, log ends, durable
    /// marks and fenced counts, folded from `isr_group_started`, against
    /// the controller and the replicas (`trace_check.rs`).
    fn check_trace(&self) -> Result<(), String> {
        crate::trace_check::agrees(
            &self.cluster.trace,
            &self.controller,
            &self.nodes,
            &self.cluster,
        )
    }

    fn set_network(&mut self, net: replication::NetConfig) -> Result<(), GroupError> {
        self.cluster.set_network(net)
    }

    /// The controller's leader can serve (up, and still an ISR member: a
    /// leader that restarted without the committed prefix cannot, and in
    /// the chapter's model only a failover — `controller_elect` — replaces
    /// it) and is reachable, and at least `min.insync.replicas` replicas
    /// (the leader among them) are up, not slow and linked to it both
    /// ways: an `acks=all` write then commits once the lag timeout has
    /// dropped the others from the ISR.
    fn tolerates_current_faults(&self) -> bool {
        let l = self.controller.leader();
        if !self.controller.leader_available(self.cluster.is_alive(l))
            || self.cluster.is_isolated(l)
            || self.worst_delay_at_lag()
        {
            return false;
        }
        let healthy = (0..self.nodes.len())
            .filter(|&i| {
                self.cluster.is_alive(i)
                    && !self.cluster.is_slow(i)
                    && (i == l || self.cluster.linked(i, l))
            })
            .count();
        healthy >= self.controller.min_insync_replicas()
    }

    /// The lag timeout that shrinks the ISR to the healthy replicas, a
    /// lease, and a few ticks to catch up.
    fn recovery_bound(&self) -> u64 {
        self.config.replica_lag_timeout + self.config.lease_duration + 10
    }

    /// On a network that loses, duplicates, reorders and stalls nothing,
    /// inside the lag assumption: nothing is sent while idle (the leader
    /// pushes only what is appended; the controller is in-process); an
    /// `acks=all` write is acknowledged once its append reaches the
    /// followers (the controller sees their positions directly: one
    /// delay), costing one append per follower; a read is served at once.
    fn steady_state(&self) -> Option<replication::SteadyState> {
        let net = self.cluster.net_config();
        if !net.is_reliable() || self.outside_assumptions().is_some() {
            return None;
        }
        let followers = self.nodes.len().saturating_sub(1) as u64;
        Some(replication::SteadyState {
            write_latency: net.max_delay,
            read_latency: 0,
            // Long enough for a write's append to land; short, since the
            // explorer watches it at the end of every run.
            idle_ticks: (2 * net.max_delay).max(4),
            idle_messages: 0,
            rejoin_ticks: None,
            write_messages: Some(followers),
        })
    }

    fn messages_sent(&self) -> Option<u64> {
        Some(self.cluster.messages_sent())
    }

    /// The chapter's `Linearizable` guard refuses while the leader has
    /// appended above HW; this names that state (the other guards, a
    /// short ISR or an expired lease, are not excused).
    fn read_refused_by_design(&self) -> Option<String> {
        let l = self.controller.leader();
        let (log_end, hw) = (
            self.nodes[l].log_end_offset(),
            self.controller.high_watermark(),
        );
        (self.cluster.is_alive(l) && log_end > hw)
            .then(|| replication::message!["leader log end ", log_end, " is above HW ", hw])
    }

    /// An offline partition: the controller's leader is down or out of the
    /// ISR, no live ISR member is left to elect, and unclean leader
    /// election is off — Kafka keeps the partition offline rather than
    /// lose committed records.
    fn unavailable(&self) -> Option<String> {
        if let Some(why) = self.lag_outpaced() {
            return Some(why);
        }
        let l = self.controller.leader();
        if self.controller.leader_available(self.cluster.is_alive(l)) {
            return None;
        }
        let live_isr = self
            .controller
            .isr()
            .into_iter()
            .any(|i| i != l && self.cluster.is_alive(i));
        (!live_isr && !self.config.unclean_leader_election).then(|| {
            format!(
                "offline partition: leader {} is not a live ISR member, no other ISR member ({:?}) is alive, and unclean.leader.election.enable is off",
                self.cluster.id(l),
                self.controller
                    .isr()
                    .iter()
                    .map(|&i| self.cluster.id(i).to_string())
                    .collect::<Vec<_>>()
            )
        })
    }

    /// A network whose worst delay, a stall included, reaches
    /// `replica.lag.time.max.ms`: a follower may leave the ISR before the
    /// leader's entries reach it, so whether an `acks=all` write is
    /// acknowledged is chance (Kafka assumes the lag bound well above a
    /// replication round).
    fn outside_assumptions(&self) -> Option<String> {
        self.worst_delay_at_lag().then(|| {
            format!(
                "replica.lag.time.max.ms ({} ticks) is not above the network's worst delay ({} ticks): a follower may leave the ISR before it can catch up",
                self.config.replica_lag_timeout,
                self.worst_delay()
            )
        })
    }

    /// Both reasons last: a network slower than `replica.lag.time.max`
    /// is the configuration's, and an offline partition ends only when an
    /// operator enables unclean election (no tick brings an ISR member
    /// back: a replica rejoins by fetching from a serving leader).
    fn unavailable_lasts(&self) -> bool {
        true
    }

    /// Marks the replica's log durable through its end (`isr_fsync`).
    fn fsync(&mut self, node: &NodeId) -> Result<(), GroupError> {
        let i = self.cluster.alive_index(node)?;
        let end = self.nodes[i].fsync();
        record!(
            self.cluster.trace,
            self.tick_now(),
            "isr_fsync",
            node = node,
            durable_offset = end
        );
        Ok(())
    }

    /// `Some(n)` = [`IsrGroup::controller_elect`]`(n)`; `None` = the first
    /// live ISR member other than the leader, by id — or, with
    /// `unclean.leader.election.enable` on and no ISR member alive, the
    /// first live replica by id (an unclean election).
    fn failover(&mut self, candidate: Option<&NodeId>) -> Result<NodeId, GroupError> {
        let node = match candidate {
            Some(n) => n.clone(),
            None => self.failover_candidate()?,
        };
        self.controller_elect(&node)?;
        Ok(node)
    }

    fn trace(&self) -> &Trace {
        &self.cluster.trace
    }

    fn trace_mut(&mut self) -> &mut Trace {
        &mut self.cluster.trace
    }

    fn now(&self) -> Tick {
        self.tick_now()
    }

    fn summary(&self) -> GroupSummary {
        inspect::summary(&self.controller, &self.nodes, &self.cluster)
    }

    fn node_states(&self) -> Vec<NodeState> {
        crate::state_line::lines(&self.probe())
    }

    fn recorder(&self) -> Option<&dyn StateRecorder> {
        Some(&self.cluster)
    }

    fn recorder_mut(&mut self) -> Option<&mut dyn StateRecorder> {
        Some(&mut self.cluster)
    }
}

/// The operator calls behind `set_slow` and `failover`.
impl IsrGroup {
    /// Controller election of `node`: only a live ISR member other than the
    /// current leader. Both epochs + 1, the candidate truncated to HW, the
    /// old leader out of the ISR, a new lease, followers resynchronised.
    /// Returns the new leader epoch.
    ///
    /// With `unclean.leader.election.enable` on and no ISR member alive, a
    /// live out-of-sync replica (the leader itself, if it restarted without
    /// the committed prefix) may be elected instead: an *unclean* election
    /// ([`IsrConfig::unclean_leader_election`](crate::IsrConfig::unclean_leader_election)),
    /// traced as `isr_unclean_election`.
    pub fn controller_elect(&mut self, node: &NodeId) -> Result<u64, GroupError> {
        let idx = self.cluster.alive_index(node)?;
        self.gather_facts();
        match self.controller.check_election(idx, &self.facts) {
            Ok(reason) => {
                self.elect(idx, reason);
                Ok(self.controller.leader_epoch())
            }
            Err(ElectionRefusal::AlreadyLeader) => {
                Err(GroupError::not_permitted(node, "already the leader"))
            }
            Err(ElectionRefusal::NotInIsr { unclean_enabled }) => {
                let why = if unclean_enabled {
                    "a live ISR member can still be elected cleanly"
                } else {
                    "a clean election picks only ISR members \
                     (unclean.leader.election.enable is off)"
                };
                Err(GroupError::not_permitted(
                    node,
                    format!("not in the ISR {:?}; {why}", self.isr_ids()),
                ))
            }
        }
    }

    /// Marks follower `node` slow (the harness's slow mark: the leader
    /// sends it nothing and records `isr_replication_delayed`) or clears
    /// the mark (which starts its catch-up). Marking the leader is
    /// [`GroupError::NotPermitted`] and changes nothing.
    pub fn set_replica_slow(&mut self, node: &NodeId, slow: bool) -> Result<(), GroupError> {
        let idx = self.cluster.index(node)?;
        if idx == self.controller.leader() {
            return Err(GroupError::not_permitted(
                node,
                "the leader cannot be marked slow",
            ));
        }
        self.cluster.set_slow(idx, slow);
        if !slow {
            self.resync(idx);
        }
        Ok(())
    }

    /// The replica `failover(None)` elects, or why there is none.
    pub(crate) fn failover_candidate(&mut self) -> Result<NodeId, GroupError> {
        self.gather_facts();
        match self.controller.failover_candidate(&self.facts) {
            Some(j) => Ok(self.cluster.id(j).clone()),
            None => Err(GroupError::NoLeader(format!(
                "no live ISR member other than {} to elect (ISR {:?}; \
                 unclean.leader.election.enable is {})",
                self.cluster.id(self.controller.leader()),
                self.isr_ids(),
                if self.config.unclean_leader_election {
                    "on, but no replica is alive"
                } else {
                    "off"
                }
            ))),
        }
    }
}

impl IsrGroup {
    /// The network's worst one-way delay, a stall included.
    fn worst_delay(&self) -> u64 {
        self.cluster.net_config().worst_delay()
    }

    /// True when that delay reaches `replica.lag.time.max.ms`: a follower
    /// may then leave the ISR before the leader's entries reach it (see
    /// [`IsrGroup::lag_outpaced`] for when it must).
    fn worst_delay_at_lag(&self) -> bool {
        self.worst_delay() >= self.config.replica_lag_timeout
    }

    /// Why no follower can stay in the ISR on this network, if it cannot:
    /// Kafka assumes `replica.lag.time.max.ms` well above a replication
    /// round. When even the network's *shortest* one-way delay exceeds it,
    /// every follower leaves the ISR before the leader's entries reach it,
    /// and with `min.insync.replicas` above 1 no `acks=all` write can be
    /// acknowledged. (When only the worst delay, a stall included, reaches
    /// it, some writes are: the group then only does not claim to tolerate
    /// faults.)
    fn lag_outpaced(&self) -> Option<String> {
        let fastest = self.cluster.net_config().min_delay;
        let timeout = self.config.replica_lag_timeout;
        (fastest > timeout && self.config.min_insync_replicas > 1).then(|| {
            format!(
                "replica.lag.time.max.ms ({timeout} ticks) is below the network's shortest delay ({fastest} ticks) and min.insync.replicas is {}: every follower leaves the ISR before it can catch up",
                self.config.min_insync_replicas
            )
        })
    }
}

/// What a scenario reads from the group in the protocol's own words (see
/// [`ScenarioGroup`]).
impl ScenarioGroup for IsrGroup {
    fn catch_up(&self, node: &NodeId) -> Option<String> {
        let probe = self.probe();
        probe.node(node).map(|n| n.catch_up_mode.name().to_owned())
    }

    fn fenced(&self) -> u64 {
        self.trace()
            .of_kind("isr_append_rejected")
            .filter(|e| {
                e.str_field("reason").is_some_and(|r| {
                    r.contains("stale_leader_epoch") || r.contains("non_current_leader")
                })
            })
            .count() as u64
    }

    fn gate(&self, node: &NodeId, _level: AckLevel, _write: &WriteResult) -> String {
        let probe = self.probe();
        let mut text = if probe.in_isr(node) {
            "still in ISR".to_owned()
        } else {
            "removed from ISR".to_owned()
        };
        if probe.isr.len() < probe.min_insync_replicas {
            text.push_str(&format!(
                "; ISR {} below min.insync {}",
                probe.isr.len(),
                probe.min_insync_replicas
            ));
        }
        text
    }
}
