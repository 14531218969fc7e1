//! The shared driver surface.

use bytes::Bytes;
use replication::{
    AckLevel, GroupError, GroupSummary, NodeId, ReadLevel, ReadResult, ReplicationGroup, Tick,
    Trace, WriteResult,
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

    /// `Leader` or `AllIsr` at the controller's leader; `None` and `Quorum`
    /// are [`GroupError::UnsupportedAck`].
    fn client_write(
        &mut self,
        key: Bytes,
        value: Bytes,
        level: AckLevel,
    ) -> Result<WriteResult, GroupError> {
        self.write(key, value, level)
    }

    fn client_read(
        &mut self,
        key: &[u8],
        level: ReadLevel,
        node: Option<&NodeId>,
    ) -> Result<ReadResult, GroupError> {
        self.read(key, level, node)
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

    /// `Some(n)` = [`IsrGroup::controller_elect`]`(n)`; `None` = the first
    /// live ISR member other than the leader, by id.
    fn failover(&mut self, candidate: Option<&NodeId>) -> Result<NodeId, GroupError> {
        let node = match candidate {
            Some(n) => n.clone(),
            None => match self.first_eligible() {
                Some(j) => self.nodes[j].id.clone(),
                None => {
                    return Err(GroupError::NoLeader(format!(
                        "no live ISR member other than {} to elect (ISR {:?})",
                        self.nodes[self.leader].id,
                        self.isr_sorted()
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
