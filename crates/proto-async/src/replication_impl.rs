//! The shared driver surface.

use bytes::Bytes;
use replication::{
    AckLevel, GroupError, GroupSummary, NodeSummary, ReadLevel, ReadResult, ReplicationGroup,
    WriteResult,
};
use sim_core::{NodeId, Tick, Trace, record};

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

    /// `None` / `Leader` at the current primary; `Quorum` / `AllIsr` are
    /// unsupported; a crashed primary is [`GroupError::NodeDown`].
    fn client_write(
        &mut self,
        key: Bytes,
        value: Bytes,
        level: AckLevel,
    ) -> Result<WriteResult, GroupError> {
        Self::check_ack_level(level)?;
        let p = self.current;
        if !self.nodes[p].alive {
            return Err(GroupError::NodeDown(self.nodes[p].id.clone()));
        }
        self.write_at(p, key, value, level)
    }

    /// `Local` at `node` (default the current primary), `Leader` at the
    /// current primary; `Linearizable` is unsupported.
    fn client_read(
        &mut self,
        key: &[u8],
        level: ReadLevel,
        node: Option<&NodeId>,
    ) -> Result<ReadResult, GroupError> {
        let i = match level {
            ReadLevel::Linearizable => {
                return Err(GroupError::UnsupportedRead {
                    protocol: PROTOCOL,
                    level,
                });
            }
            ReadLevel::Local => match node {
                Some(node) => self.alive_index(node)?,
                None => self.alive_index(&self.nodes[self.current].id.clone())?,
            },
            ReadLevel::Leader => {
                let primary = &self.nodes[self.current];
                if !primary.alive {
                    return Err(GroupError::NoLeader(format!(
                        "primary {} is down and no replica has been promoted",
                        primary.id
                    )));
                }
                self.current
            }
        };
        let node = &self.nodes[i];
        let value = node.data.get(key).cloned();
        record!(
            self.trace,
            self.net.now(),
            "async_read_served",
            node = &node.id,
            level = level.name(),
            key = Bytes::copy_from_slice(key),
            offset = node.offset,
            found = value.is_some()
        );
        Ok(ReadResult {
            value,
            node: node.id.clone(),
            offset: node.offset,
        })
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
