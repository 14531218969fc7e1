//! The shared driver surface.

use replication::{
    ClientOp, Completion, GroupError, GroupSummary, NodeSummary, OpId, ReplicationGroup,
};
use sim_core::{NodeId, Tick, Trace};

use crate::group::{AsyncPrimaryGroup, PROTOCOL};
use crate::role::Role;

impl ReplicationGroup for AsyncPrimaryGroup {
    fn protocol(&self) -> &'static str {
        PROTOCOL
    }

    fn node_ids(&self) -> Vec<NodeId> {
        self.nodes.iter().map(|n| n.id.clone()).collect()
    }

    fn leader(&self) -> Option<NodeId> {
        let primary = &self.nodes[self.current];
        primary.alive.then(|| primary.id.clone())
    }

    /// Starts `op`; in async it also completes in this call (no tick
    /// passes), so its completion is ready at once — except a `Leader`
    /// write in a group configured with `wait`, which completes when its
    /// `WAIT` returns (see the crate docs).
    ///
    /// - **Writes** (`None` / `Leader`) are applied by the primary and
    ///   complete *done* with their offset; replicas are not waited for.
    ///   Without a node they go to the current primary (crashed:
    ///   [`GroupError::NodeDown`]). With [`ClientOp::at`] they go to that
    ///   node, as [`client_write_at`](AsyncPrimaryGroup::client_write_at)
    ///   does: any node that believes it is primary accepts them — an old
    ///   primary cut off in a minority acknowledges a dirty write — and a
    ///   replica refuses with [`GroupError::NotPermitted`] (`READONLY`).
    ///   `Quorum` / `AllIsr` are [`GroupError::UnsupportedAck`].
    /// - **Reads**: `Local` at the named node (default the current
    ///   primary), `Leader` at the current primary whatever node is named
    ///   (crashed: [`GroupError::NoLeader`]); `Linearizable` is
    ///   [`GroupError::UnsupportedRead`]. A read completes *done* with the
    ///   node's value now.
    ///
    /// Every refusal is an `Err` here, before anything happens: no id, no
    /// trace event, no state change — except `min-replicas-to-write`, which
    /// completes the write *failed* (refused before it is applied). Only a
    /// write whose `WAIT` did not reach `numreplicas` completes *unknown*.
    fn submit(&mut self, op: ClientOp) -> Result<OpId, GroupError> {
        self.submit_op(op)
    }

    fn take_completions(&mut self) -> Vec<Completion> {
        self.ops.take_all()
    }

    fn take_completion(&mut self, id: OpId) -> Option<Completion> {
        self.ops.take(id)
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

    fn fsync(&mut self, node: &NodeId) -> Result<(), GroupError> {
        self.fsync_node(node)
    }

    /// Drops every message from `from` to `to` until `heal` of either
    /// node (or [`restore_link`](ReplicationGroup::restore_link)).
    fn cut_link(&mut self, from: &NodeId, to: &NodeId) -> Result<(), GroupError> {
        self.cut_one_way(from, to)
    }

    /// Restores `from → to`; a replica that missed stream output resyncs
    /// when `heal` runs, as after any partition.
    fn restore_link(&mut self, from: &NodeId, to: &NodeId) -> Result<(), GroupError> {
        self.restore_one_way(from, to)
    }

    fn check_invariants(&self) -> Result<(), String> {
        AsyncPrimaryGroup::check_invariants(self)
    }

    /// `Some(n)` promotes `n`; `None` promotes the first alive replica in
    /// id order.
    fn failover(&mut self, candidate: Option<&NodeId>) -> Result<NodeId, GroupError> {
        let chosen = match candidate {
            Some(node) => node.clone(),
            None => self
                .nodes
                .iter()
                .enumerate()
                .find(|(i, n)| *i != self.current && n.alive && n.role == Role::Replica)
                .map(|(_, n)| n.id.clone())
                .ok_or_else(|| GroupError::NoLeader("no alive replica to promote".into()))?,
        };
        self.promote(&chosen)?;
        Ok(chosen)
    }

    fn trace(&self) -> &Trace {
        &self.trace
    }

    fn trace_mut(&mut self) -> &mut Trace {
        &mut self.trace
    }

    fn now(&self) -> Tick {
        self.net.now()
    }

    fn summary(&self) -> GroupSummary {
        GroupSummary {
            protocol: PROTOCOL,
            tick: self.net.now(),
            leader: self.leader(),
            nodes: self
                .nodes
                .iter()
                .map(|n| NodeSummary {
                    id: n.id.clone(),
                    alive: n.alive,
                    role: n.role.name(),
                    applied_offset: n.offset,
                    data: n.data.clone(),
                })
                .collect(),
        }
    }
}
