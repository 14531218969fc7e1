//! The [`ReplicationGroup`] impl: the shared driver surface.

use replication::{AckLevel, NodeState, ScenarioGroup, StateRecorder, SteadyState, WriteResult};
use replication::{
    ClientOp, Completion, GroupError, GroupSummary, NodeSummary, OpId, ReplicationGroup,
};
use sim_core::{NodeId, Tick, Trace, record};

use crate::group::RaftGroup;

impl ReplicationGroup for RaftGroup {
    fn protocol(&self) -> &'static str {
        "raft"
    }

    fn node_ids(&self) -> Vec<NodeId> {
        self.cluster.ids().to_vec()
    }

    /// The alive leader with the highest term (a deposed leader in a
    /// minority may still believe it leads a lower term).
    fn leader(&self) -> Option<NodeId> {
        self.leader_index().map(|i| self.cluster.id(i).clone())
    }

    /// Starts `op` (see the crate docs, *Operations in flight*).
    ///
    /// - **Write**: `Quorum` only (else [`GroupError::UnsupportedAck`]).
    ///   Proposed at the alive highest-term leader, or — when the op names a
    ///   node — at that node, which must be alive and believe it leads (a
    ///   deposed leader in a minority still does; otherwise
    ///   [`GroupError::NotPermitted`]), as [`RaftGroup::write_at`]. The entry
    ///   is appended at once and sent at the next tick together with every
    ///   other entry proposed before it. *Done* once that node has committed
    ///   it in its term; *unknown* (with its index) when that node crashes,
    ///   loses leadership or sees the entry overwritten first, or after
    ///   [`RaftConfig::client_timeout`](crate::RaftConfig::client_timeout)
    ///   ticks. A write is never *failed*: everything refused before
    ///   appending is refused here.
    /// - **Read** `Local`: the named node (default the leader) answers from
    ///   its applied state machine; `Leader`: the alive highest-term
    ///   leader's state machine, no authority proof (a named node is only
    ///   checked to exist). Both are *done* at once.
    /// - **Read** `Linearizable`: a read-index round run **at the named node
    ///   if given** (the node that must prove its leadership), else at the
    ///   leader. *Failed* with [`GroupError::ReadBlocked`]: `not leader` at
    ///   once; `no current-term commit` when the leader has not committed in
    ///   its term within `client_timeout` ticks; `read-index fenced (no
    ///   quorum)` when no majority echoes its round within `client_timeout`
    ///   ticks; `read-index fenced (deposed)` when the node crashes or stops
    ///   leading first. Reads that arrive while a round of their leader is in
    ///   flight share the next round.
    ///
    /// `Err` (nothing recorded, no id): unknown node, unsupported level, a
    /// named node that is down, no leader.
    fn submit(&mut self, op: ClientOp) -> Result<OpId, GroupError> {
        self.clients.submit(&mut self.cluster, &mut self.nodes, op)
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

    /// Ticks until [`RaftGroup::is_idle`] (checked first), at most
    /// `max_ticks`.
    fn run_until_idle(&mut self, max_ticks: u64) -> Result<u64, GroupError> {
        let mut ticks = 0;
        while !self.is_idle() {
            if ticks >= max_ticks {
                return Err(GroupError::NotIdle {
                    ticks: max_ticks,
                    waiting_for: "uncommitted entries, a lagging reachable follower or non-heartbeat messages".into(),
                });
            }
            self.step_tick();
            ticks += 1;
        }
        Ok(ticks)
    }

    /// Keeps term, vote and log; loses role, commit index, applied state and
    /// the leader state. In-flight messages to and from the node are lost
    /// (the harness's crash). `lose_unfsynced` changes nothing: Raft
    /// persists before it answers.
    fn crash(&mut self, node: &NodeId, lose_unfsynced: bool) -> Result<(), GroupError> {
        let i = self.cluster.crash(node, lose_unfsynced)?;
        self.nodes[i].crash();
        Ok(())
    }

    /// Rejoins as a follower with a fresh election deadline.
    fn restart(&mut self, node: &NodeId) -> Result<(), GroupError> {
        let i = self.cluster.restart(node)?;
        let now = self.now_tick();
        self.nodes[i].restart(now, &mut self.cluster.rng);
        Ok(())
    }

    fn isolate(&mut self, node: &NodeId) -> Result<(), GroupError> {
        self.cluster.isolate(node).map(drop)
    }

    fn heal(&mut self, node: &NodeId) -> Result<(), GroupError> {
        self.cluster.heal(node).map(drop)
    }

    /// Drops every message from `from` to `to` (e.g. a leader whose
    /// heartbeats no longer reach one follower, whose answers still do).
    fn cut_link(&mut self, from: &NodeId, to: &NodeId) -> Result<(), GroupError> {
        self.cluster.cut_link(from, to).map(drop)
    }

    /// Restores the one-way link `from → to`.
    fn restore_link(&mut self, from: &NodeId, to: &NodeId) -> Result<(), GroupError> {
        self.cluster.restore_link(from, to).map(drop)
    }

    fn steerable(&self) -> Option<&dyn replication::Steer> {
        Some(self)
    }

    fn steerable_mut(&mut self) -> Option<&mut dyn replication::Steer> {
        Some(self)
    }

    fn check_invariants(&self) -> Result<(), String> {
        self.cluster.check_network()?;
        RaftGroup::check_invariants(self)
    }

    /// Each node's log, snapshot and commit index, folded from
    /// `raft_group_started`, against the nodes (`trace_check.rs`).
    fn check_trace(&self) -> Result<(), String> {
        crate::trace_check::agrees(&self.cluster.trace, &self.nodes, &self.cluster)
    }

    fn set_network(&mut self, net: sim_core::NetConfig) -> Result<(), GroupError> {
        self.cluster.set_network(net)
    }

    /// A majority of the nodes is up and every link among them carries
    /// messages both ways, on a network within Raft's timing assumption,
    /// and (without PreVote) every other node up unable to send to it:
    /// Raft elects and commits within that majority.
    fn tolerates_current_faults(&self) -> bool {
        // Raft's liveness assumes broadcast time ≪ election timeout: with
        // a network whose delays (plus reordering) let a heartbeat round
        // take longer than the lowest election timeout, a healthy leader
        // is deposed by timeouts alone, and no availability is promised.
        if self.outside_timing().is_some() {
            return false;
        }
        let n = self.nodes.len();
        let majority = n / 2 + 1;
        let up: Vec<usize> = (0..n).filter(|&i| self.cluster.is_alive(i)).collect();
        if up.len() < majority {
            return false;
        }
        // Any majority clique among the nodes that are up (n ≤ 7 here:
        // every subset is tried).
        (0u32..(1 << up.len())).any(|mask| {
            let chosen: Vec<usize> = (0..up.len())
                .filter(|b| mask & (1 << b) != 0)
                .map(|b| up[b])
                .collect();
            chosen.len() >= majority
                && chosen
                    .iter()
                    .all(|&a| chosen.iter().all(|&b| a == b || self.cluster.linked(a, b)))
                // Without PreVote, a node that can still send to the
                // majority but no longer hears it (a one-way cut) keeps
                // starting elections in higher terms and deposes every
                // leader: only nodes cut off from sending to the majority
                // are tolerated outside it.
                && (self.config.pre_vote
                    || up.iter().filter(|o| !chosen.contains(o)).all(|&o| {
                        chosen.iter().all(|&b| !self.cluster.can_send(o, b))
                    }))
        })
    }

    /// No leader, on a network outside Raft's timing assumption: elections
    /// may keep splitting or timing out (the paper promises progress only
    /// when broadcast time ≪ election timeout).
    fn unavailable(&self) -> Option<String> {
        if self.leader().is_some() {
            return None;
        }
        self.outside_timing()
    }

    /// Inside its timing assumption (a heartbeat round shorter than the
    /// lowest election timeout); outside it, elections may churn forever.
    fn quiesces(&self) -> bool {
        self.outside_timing().is_none()
    }

    /// On a reliable network inside Raft's timing assumption: a write
    /// leaves with the flush that starts the next tick and commits when
    /// the answers come back (a round trip at the network's delay);
    /// idle, the leader sends each follower one heartbeat per heartbeat
    /// interval and each answers it; with PreVote, a follower rejoining
    /// after a partition does not depose the leader.
    fn steady_state(&self) -> Option<SteadyState> {
        let net = self.cluster.net_config();
        if !net.is_reliable() || self.outside_timing().is_some() {
            return None;
        }
        let heartbeat = self.config.heartbeat.max(1);
        let idle_ticks = 8 * heartbeat;
        let followers = self.nodes.len().saturating_sub(1) as u64;
        Some(SteadyState {
            write_latency: 2 * net.max_delay,
            // A read-index round leaves at once and is confirmed by the
            // answers.
            read_latency: 2 * net.max_delay,
            idle_ticks,
            // Heartbeats and answers of every interval the window touches.
            idle_messages: 2 * followers * (idle_ticks / heartbeat + 1),
            // Long enough for the cut-off follower's election timer to fire.
            rejoin_ticks: self
                .config
                .pre_vote
                .then(|| 3 * self.config.election_timeout.1),
            // With one fixed delay, two windows of whole heartbeat
            // intervals hold the same heartbeats and answers, whatever
            // their phase.
            write_messages: (net.min_delay == net.max_delay).then_some(2 * followers),
        })
    }

    fn messages_sent(&self) -> Option<u64> {
        Some(self.cluster.messages_sent())
    }

    /// Six of the highest election timeout: an election, with split votes
    /// retried, and a commit in the new term. Raft's liveness is
    /// probabilistic, so this is a measured bound: with three, 2 of 2,000
    /// explorer schedules (one node down, the other two splitting terms
    /// 1–3) outlast it; with six, none of 20,000 per explorer row.
    fn recovery_bound(&self) -> u64 {
        self.config.election_timeout.1.saturating_mul(6)
    }

    /// A no-op beyond validation: every Raft node persists term, vote and
    /// log before answering, so its durable index is always its log end.
    fn fsync(&mut self, node: &NodeId) -> Result<(), GroupError> {
        let i = self.alive_index(node)?;
        let now = self.now_tick();
        record!(
            self.cluster.trace,
            now,
            "raft_fsync",
            node = node,
            durable_index = self.nodes[i].last_index()
        );
        Ok(())
    }

    /// `None`: waits (at most 10 × the highest election timeout) until the
    /// nodes elect a leader other than the current one — crash or isolate it
    /// first. `Some(node)`: leadership transfer to `node`
    /// ([`RaftGroup::transfer_leadership`]: refused for an unknown, down or
    /// cut-off target, or when transfer is off), then waits until `node`
    /// leads; [`GroupError::NotIdle`] when the leader abandons the transfer
    /// after an election timeout.
    fn failover(&mut self, candidate: Option<&NodeId>) -> Result<NodeId, GroupError> {
        if let Some(node) = candidate {
            return self.transfer_and_wait(node);
        }
        let old = self.leader();
        let bound = self.config.election_timeout.1.saturating_mul(10);
        self.run_until_leader(old.as_ref(), bound)
    }

    fn trace(&self) -> &Trace {
        &self.cluster.trace
    }

    fn trace_mut(&mut self) -> &mut Trace {
        &mut self.cluster.trace
    }

    fn now(&self) -> Tick {
        self.now_tick()
    }

    fn summary(&self) -> GroupSummary {
        let mut summary = GroupSummary {
            protocol: "raft",
            tick: self.now_tick(),
            leader: self.leader(),
            nodes: self
                .nodes
                .iter()
                .map(|n| NodeSummary {
                    id: self.cluster.id(n.me).clone(),
                    alive: n.alive,
                    role: n.role.name(),
                    applied_offset: n.last_applied,
                    data: n.data.clone(),
                })
                .collect(),
        };
        summary.nodes.sort_by(|a, b| a.id.cmp(&b.id));
        summary
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

/// What a scenario reads from the group in the protocol's own words (see
/// [`ScenarioGroup`]).
impl ScenarioGroup for RaftGroup {
    fn catch_up(&self, node: &NodeId) -> Option<String> {
        if !self.node_ids().contains(node) {
            return None;
        }
        let trace = self.trace();
        let is_node = |e: &sim_core::EventRef<'_>, key: &str| e.node_field(key) == Some(node);
        let restarted = trace
            .of_kind("node_restarted")
            .filter(|e| is_node(e, "node"))
            .last()
            .map_or(0, |e| e.seq + 1);
        let mut modes: Vec<String> = Vec::new();
        for e in trace.of_kind("raft_catch_up") {
            if e.seq < restarted || !is_node(&e, "follower") {
                continue;
            }
            if let Some(mode) = e.str_field("mode")
                && !modes.iter().any(|m| m == mode)
            {
                modes.push(mode.to_owned());
            }
        }
        Some(if modes.is_empty() {
            "never".to_owned()
        } else {
            modes.join("+")
        })
    }

    fn fenced(&self) -> u64 {
        self.trace().count("raft_stale_term_rejected") as u64
    }

    fn gate(&self, node: &NodeId, _level: AckLevel, write: &WriteResult) -> String {
        let probe = self.probe();
        let index = write.offset.unwrap_or(0);
        let term = probe
            .leader
            .as_ref()
            .and_then(|l| probe.node(l))
            .and_then(|n| n.term_at(index))
            .unwrap_or(0);
        let holders = probe.replicas_of(index, term);
        let voters = probe.voters.len();
        let role = if probe.voters.contains(node) {
            "fixed voter"
        } else {
            "not a voter"
        };
        let majority = if holders > voters / 2 {
            "unaffected"
        } else {
            "lost"
        };
        format!("{role}; majority {majority} ({holders}/{voters} hold index {index})")
    }
}
