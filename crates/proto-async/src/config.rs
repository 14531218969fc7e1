//! Group configuration and its validation.

use std::collections::BTreeSet;

use replication::GroupError;
use sim_core::NodeId;

/// Settings of an [`AsyncPrimaryGroup`](crate::AsyncPrimaryGroup).
///
/// [`AsyncConfig::default`] gives the SPEC defaults: primary `primary`,
/// replicas `replica-1` and `replica-2`, a backlog of 8 entries, a
/// replication delay of 1 tick and seed 0.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AsyncConfig {
    /// The node that starts as primary (generation 1).
    pub primary: NodeId,
    /// The nodes that start as its replicas.
    pub replicas: Vec<NodeId>,
    /// How many of the most recent entries the primary keeps for partial
    /// resynchronisation (Redis `repl-backlog-size`, counted in entries).
    pub backlog_size: usize,
    /// Ticks every replication message spends on the wire.
    pub replication_delay: u64,
    /// Seed of the group's one random generator.
    pub seed: u64,
}

impl Default for AsyncConfig {
    fn default() -> Self {
        AsyncConfig {
            primary: NodeId::new("primary"),
            replicas: vec![NodeId::new("replica-1"), NodeId::new("replica-2")],
            backlog_size: 8,
            replication_delay: 1,
            seed: 0,
        }
    }
}

impl AsyncConfig {
    /// Checks every setting; the error names the one at fault.
    pub fn validate(&self) -> Result<(), GroupError> {
        if self.primary.as_str().is_empty() {
            return Err(GroupError::config("primary", "node ids must be non-empty"));
        }
        if self.replicas.is_empty() {
            return Err(GroupError::config(
                "replicas",
                "at least one replica is required",
            ));
        }
        let mut seen = BTreeSet::new();
        seen.insert(self.primary.clone());
        for replica in &self.replicas {
            if replica.as_str().is_empty() {
                return Err(GroupError::config("replicas", "node ids must be non-empty"));
            }
            if !seen.insert(replica.clone()) {
                return Err(GroupError::config(
                    "replicas",
                    format!("duplicate node id {replica}"),
                ));
            }
        }
        if self.backlog_size == 0 {
            return Err(GroupError::config(
                "backlog_size",
                "must be at least 1 entry",
            ));
        }
        if self.replication_delay == 0 {
            return Err(GroupError::config(
                "replication_delay",
                "must be at least 1 tick",
            ));
        }
        Ok(())
    }

    /// Every node id: the primary first, then the replicas in the given order.
    pub fn node_ids(&self) -> Vec<NodeId> {
        let mut ids = Vec::with_capacity(self.replicas.len() + 1);
        ids.push(self.primary.clone());
        ids.extend(self.replicas.iter().cloned());
        ids
    }
}
