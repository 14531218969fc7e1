//! The driver surface every protocol implements.

use bytes::Bytes;
use sim_core::{NodeId, Tick, Trace};

use crate::error::GroupError;
use crate::level::{AckLevel, ReadLevel};
use crate::outcome::{ReadResult, WriteResult};
use crate::summary::GroupSummary;

/// One replication protocol instance on its own simulator.
///
/// Every method that names a node returns [`GroupError::UnknownNode`] for a
/// name outside the group, and [`GroupError::NodeDown`] where the operation
/// needs the node alive. An `Err` leaves the group's state unchanged.
pub trait ReplicationGroup {
    /// Protocol name: `async`, `wal`, `isr` or `raft`.
    fn protocol(&self) -> &'static str;

    /// Every node id, in order.
    fn node_ids(&self) -> Vec<NodeId>;

    /// The current leader / primary, if one is known and alive.
    fn leader(&self) -> Option<NodeId>;

    /// Writes `key = value` and waits (driving ticks, bounded) for `level`.
    fn client_write(
        &mut self,
        key: Bytes,
        value: Bytes,
        level: AckLevel,
    ) -> Result<WriteResult, GroupError>;

    /// Reads `key` at `level`; `node` picks the node for `Local` reads (the
    /// leader when `None`) and is ignored by the other levels unless the
    /// protocol documents otherwise.
    fn client_read(
        &mut self,
        key: &[u8],
        level: ReadLevel,
        node: Option<&NodeId>,
    ) -> Result<ReadResult, GroupError>;

    /// Advances the simulation one tick.
    fn tick(&mut self);

    /// Ticks until no protocol work is pending, at most `max_ticks`; returns
    /// the ticks taken or [`GroupError::NotIdle`].
    fn run_until_idle(&mut self, max_ticks: u64) -> Result<u64, GroupError>;

    /// Crashes `node`. With `lose_unfsynced`, it also loses everything it had
    /// not fsynced (a power loss); without, it keeps what the protocol
    /// persists (a process crash).
    fn crash(&mut self, node: &NodeId, lose_unfsynced: bool) -> Result<(), GroupError>;

    /// Restarts a crashed node.
    fn restart(&mut self, node: &NodeId) -> Result<(), GroupError>;

    /// Cuts `node` from every peer, both ways.
    fn isolate(&mut self, node: &NodeId) -> Result<(), GroupError>;

    /// Restores every link of `node`.
    fn heal(&mut self, node: &NodeId) -> Result<(), GroupError>;

    /// Makes `node`'s current state durable.
    fn fsync(&mut self, node: &NodeId) -> Result<(), GroupError>;

    /// The protocol's way of replacing the leader: a manual promotion of
    /// `candidate` (async, wal), a controller election of `candidate` (isr),
    /// or waiting until the nodes elect a leader other than the current one
    /// (raft). `None` lets the protocol pick the first eligible node in id
    /// order; a protocol that cannot honour a named candidate (raft) answers
    /// [`GroupError::NotPermitted`]. Returns the new leader.
    fn failover(&mut self, candidate: Option<&NodeId>) -> Result<NodeId, GroupError>;

    /// The run's trace.
    fn trace(&self) -> &Trace;

    /// Mutable trace access, e.g. to switch recording off.
    fn trace_mut(&mut self) -> &mut Trace;

    /// The current tick.
    fn now(&self) -> Tick;

    /// A protocol-neutral snapshot.
    fn summary(&self) -> GroupSummary;
}
