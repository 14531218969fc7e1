//! The typed snapshot of a group.

use std::collections::BTreeMap;

use bytes::Bytes;
use sim_core::{NodeId, Tick};

use crate::node::AsyncNode;
use crate::role::{CatchUpMode, Role};

/// Everything observable about one node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeProbe {
    /// The node.
    pub id: NodeId,
    /// False while crashed.
    pub alive: bool,
    /// What the node believes it is (an old primary cut off from the
    /// sentinel still says `Primary`).
    pub role: Role,
    /// The primary a replica follows.
    pub following: Option<NodeId>,
    /// The generation the node believes current.
    pub generation: u64,
    /// The replication id of the history its data set belongs to.
    pub replication_id: String,
    /// Its offset in that history.
    pub offset: u64,
    /// Its key/value data set.
    pub data: BTreeMap<Bytes, Bytes>,
    /// How it most recently received data.
    pub catch_up_mode: CatchUpMode,
    /// The offset of its last fsync.
    pub durable_offset: u64,
    /// A `PSYNC` is outstanding.
    pub resync_pending: bool,
}

/// A snapshot of the whole group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AsyncProbe {
    /// Current tick.
    pub tick: Tick,
    /// The current primary while it is alive (what
    /// [`leader`](crate::ReplicationGroup::leader) answers).
    pub leader: Option<NodeId>,
    /// The node the sentinel names primary, alive or not: `leader` while it
    /// is alive. The fields below are its.
    pub primary: NodeId,
    /// The current generation.
    pub generation: u64,
    /// The current primary's replication id.
    pub replication_id: String,
    /// The current primary's offset.
    pub primary_offset: u64,
    /// Offsets held in the current primary's backlog, oldest first.
    pub backlog_offsets: Vec<u64>,
    /// One entry per node, in configuration order (the configured primary
    /// first, then the replicas as listed in [`AsyncConfig`](crate::AsyncConfig)).
    pub nodes: Vec<NodeProbe>,
}

impl AsyncProbe {
    /// The probe of `id`, if it is a node of the group.
    #[must_use]
    pub fn node(&self, id: &NodeId) -> Option<&NodeProbe> {
        self.nodes.iter().find(|n| n.id == *id)
    }
}

impl NodeProbe {
    /// The probe of `node` (whose peers are named `ids`), up when `alive`.
    pub(crate) fn of(node: &AsyncNode, ids: &[NodeId], alive: bool) -> Self {
        NodeProbe {
            id: ids[node.id()].clone(),
            alive,
            role: node.role(),
            following: node.following().map(|p| ids[p].clone()),
            generation: node.generation(),
            replication_id: node.replication_id().to_string(),
            offset: node.offset(),
            data: node.data().clone(),
            catch_up_mode: node.catch_up_mode(),
            durable_offset: node.durable_offset(),
            resync_pending: node.resync_pending(),
        }
    }
}

impl AsyncProbe {
    /// The probe at `tick` of a group whose sentinel names `primary` (named
    /// `id`, up when `alive`) in `generation`, with `nodes` in configuration
    /// order.
    pub(crate) fn of(
        tick: Tick,
        primary: &AsyncNode,
        id: &NodeId,
        alive: bool,
        generation: u64,
        nodes: Vec<NodeProbe>,
    ) -> Self {
        AsyncProbe {
            tick,
            leader: alive.then(|| id.clone()),
            primary: id.clone(),
            generation,
            replication_id: primary.replication_id().to_string(),
            primary_offset: primary.offset(),
            backlog_offsets: primary.backlog_offsets(),
            nodes,
        }
    }
}
