//! The typed snapshot of a group.

use std::collections::BTreeMap;

use bytes::Bytes;
use sim_core::{NodeId, Tick};

use crate::group::AsyncPrimaryGroup;
use crate::role::{Role, SyncMode};

/// Everything observable about one node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AsyncNodeProbe {
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
    pub sync_mode: SyncMode,
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
    pub nodes: Vec<AsyncNodeProbe>,
}

impl AsyncProbe {
    /// The probe of `id`, if it is a node of the group.
    #[must_use]
    pub fn node(&self, id: &NodeId) -> Option<&AsyncNodeProbe> {
        self.nodes.iter().find(|n| n.id == *id)
    }
}

impl AsyncPrimaryGroup {
    /// A snapshot of every field of the protocol state.
    #[must_use]
    pub fn probe(&self) -> AsyncProbe {
        let primary = &self.nodes[self.current];
        AsyncProbe {
            tick: self.net.now(),
            leader: primary.alive.then(|| primary.id.clone()),
            primary: primary.id.clone(),
            generation: self.generation,
            replication_id: primary.replication_id.to_string(),
            primary_offset: primary.offset,
            backlog_offsets: primary.backlog.offsets(),
            nodes: self
                .config
                .node_ids()
                .iter()
                .filter_map(|id| self.nodes.iter().find(|n| n.id == *id))
                .map(|n| AsyncNodeProbe {
                    id: n.id.clone(),
                    alive: n.alive,
                    role: n.role,
                    following: n.following.clone(),
                    generation: n.generation,
                    replication_id: n.replication_id.to_string(),
                    offset: n.offset,
                    data: n.data.clone(),
                    sync_mode: n.sync_mode,
                    durable_offset: n.durable_offset,
                    resync_pending: n.resync_pending,
                })
                .collect(),
        }
    }

    /// Checks the protocol's structural invariants on the current state;
    /// the error says which one broke.
    ///
    /// - exactly the current primary is a primary of the current generation;
    /// - the backlog holds consecutive offsets ending at the primary's offset;
    /// - a replica in an alive current primary's history is never ahead of
    ///   it.
    pub fn check_invariants(&self) -> Result<(), String> {
        let primary = &self.nodes[self.current];
        if primary.role != Role::Primary || primary.generation != self.generation {
            return Err(format!(
                "current primary {} is not a primary of generation {}",
                primary.id, self.generation
            ));
        }
        let offsets = primary.backlog.offsets();
        for pair in offsets.windows(2) {
            if pair[1] != pair[0] + 1 {
                return Err(format!("backlog offsets not consecutive: {offsets:?}"));
            }
        }
        if offsets.last().is_some_and(|last| *last != primary.offset) {
            return Err(format!(
                "backlog {offsets:?} does not end at primary offset {}",
                primary.offset
            ));
        }
        for node in &self.nodes {
            if node.role == Role::Primary && node.generation > self.generation {
                return Err(format!("{} is ahead of the current generation", node.id));
            }
            if node.generation == self.generation
                && node.role == Role::Primary
                && node.id != primary.id
            {
                return Err(format!(
                    "two primaries in generation {}: {} and {}",
                    self.generation, node.id, primary.id
                ));
            }
            if node.role != Role::Replica || node.replication_id != primary.replication_id {
                continue;
            }
            // A crashed primary may have been rolled back by a power loss;
            // it starts a new history when it restarts.
            if primary.alive && node.offset > primary.offset {
                return Err(format!(
                    "replica {} at offset {} is ahead of primary at {}",
                    node.id, node.offset, primary.offset
                ));
            }
        }
        Ok(())
    }
}
