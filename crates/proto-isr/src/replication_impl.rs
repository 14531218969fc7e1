//! The shared driver surface.

use replication::{
    ClientOp, Completion, GroupError, GroupSummary, NodeId, OpId, ReplicationGroup, Tick, Trace,
};

use crate::group::IsrGroup;

impl ReplicationGroup for IsrGroup {
    fn protocol(&self) -> &'static str {
        "isr"
    }

    fn node_ids(&self) -> Vec<NodeId> {
        self.nodes.iter().map(|n| n.id.clone()).collect()
    }

    /// The controller's leader while it is alive and in the ISR.
    fn leader(&self) -> Option<NodeId> {
        self.leader_available()
            .then(|| self.nodes[self.leader].id.clone())
    }

    /// Starts a write or a read; no time passes.
    ///
    /// - **Writes** take `Leader` or `AllIsr` (`None` and `Quorum` are
    ///   [`GroupError::UnsupportedAck`]). Without a node the write goes to
    ///   the controller's leader ([`GroupError::NodeDown`] when it is
    ///   crashed, [`GroupError::NoLeader`] when it restarted without the
    ///   committed prefix). A named node ([`ClientOp::at`]) is a produce
    ///   request from a client whose metadata may be stale, as
    ///   [`IsrGroup::produce_to`]: the controller's leader serves it
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

    fn take_completions(&mut self) -> Vec<Completion> {
        self.client_ops.take_all()
    }

    fn take_completion(&mut self, id: OpId) -> Option<Completion> {
        self.client_ops.take(id)
    }

    fn tick(&mut self) {
        self.step_tick();
    }

    fn run_until_idle(&mut self, max_ticks: u64) -> Result<u64, GroupError> {
        self.run_idle(max_ticks)
    }

    fn crash(&mut self, node: &NodeId, lose_unfsynced: bool) -> Result<(), GroupError> {
        self.crash_node(node, lose_unfsynced)
    }

    fn restart(&mut self, node: &NodeId) -> Result<(), GroupError> {
        self.restart_node(node)
    }

    fn isolate(&mut self, node: &NodeId) -> Result<(), GroupError> {
        self.isolate_node(node)
    }

    fn heal(&mut self, node: &NodeId) -> Result<(), GroupError> {
        self.heal_node(node)
    }

    fn cut_link(&mut self, from: &NodeId, to: &NodeId) -> Result<(), GroupError> {
        self.cut_one_way(from, to)
    }

    fn restore_link(&mut self, from: &NodeId, to: &NodeId) -> Result<(), GroupError> {
        self.restore_one_way(from, to)
    }

    /// [`IsrGroup::set_replica_slow`]: refused for the leader.
    fn set_slow(&mut self, node: &NodeId, slow: bool) -> Result<(), GroupError> {
        self.set_replica_slow(node, slow)
    }

    fn check_invariants(&self) -> Result<(), String> {
        IsrGroup::check_invariants(self)
    }

    fn fsync(&mut self, node: &NodeId) -> Result<(), GroupError> {
        self.fsync_node(node)
    }

    /// `Some(n)` = [`IsrGroup::controller_elect`]`(n)`; `None` = the first
    /// live ISR member other than the leader, by id — or, with
    /// `unclean.leader.election.enable` on and no ISR member alive, the
    /// first live replica by id (an unclean election).
    fn failover(&mut self, candidate: Option<&NodeId>) -> Result<NodeId, GroupError> {
        let node = match candidate {
            Some(n) => n.clone(),
            None => match self.first_eligible().or_else(|| {
                self.unclean_permitted()
                    .then(|| self.first_unclean_candidate())
                    .flatten()
            }) {
                Some(j) => self.nodes[j].id.clone(),
                None => {
                    return Err(GroupError::NoLeader(format!(
                        "no live ISR member other than {} to elect (ISR {:?}; \
                         unclean.leader.election.enable is {})",
                        self.nodes[self.leader].id,
                        self.isr_sorted(),
                        if self.config.unclean_leader_election {
                            "on, but no replica is alive"
                        } else {
                            "off"
                        }
                    )));
                }
            },
        };
        self.controller_elect(&node)?;
        Ok(node)
    }

    fn trace(&self) -> &Trace {
        &self.trace
    }

    fn trace_mut(&mut self) -> &mut Trace {
        &mut self.trace
    }

    fn now(&self) -> Tick {
        self.tick_now()
    }

    fn summary(&self) -> GroupSummary {
        self.build_summary()
    }
}
