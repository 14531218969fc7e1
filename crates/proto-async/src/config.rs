//! Group configuration and its validation.

use std::collections::BTreeSet;

use replication::GroupError;
use sim_core::NodeId;

/// Settings of an [`AsyncPrimaryGroup`](crate::AsyncPrimaryGroup).
///
/// [`AsyncConfig::default`] gives the SPEC defaults: primary `primary`,
/// replicas `replica-1` and `replica-2`, a backlog of 8 entries, a
/// replication delay of 1 tick and seed 0. [`AsyncConfig::new`] names the
/// nodes and keeps the other defaults; the `with_*` builders change one
/// setting each:
///
/// ```
/// use proto_async::{AsyncConfig, AsyncPrimaryGroup, NodeId};
///
/// let config = AsyncConfig::new(NodeId::new("m"), [NodeId::new("r1"), NodeId::new("r2")])
///     .with_backlog_size(3)
///     .with_seed(7);
/// let group = AsyncPrimaryGroup::new(config).unwrap();
/// assert_eq!(group.current_primary(), &NodeId::new("m"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
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
    /// `WAIT numreplicas timeout` after every `Leader` write, or `None`
    /// (the default: a write is answered once the primary applied it).
    pub wait: Option<WaitSetting>,
    /// Redis `min-replicas-to-write`: a primary that has heard from fewer
    /// replicas than this within `min_replicas_max_lag` ticks refuses
    /// writes. 0 (the default) turns the check off.
    pub min_replicas_to_write: usize,
    /// Redis `min-replicas-max-lag`, in ticks: how recently a replica must
    /// have been heard from to count for `min_replicas_to_write`.
    pub min_replicas_max_lag: u64,
    /// A planted bug switched on ([`crate::planted`]); `None` always in a
    /// build without the `planted` feature.
    pub planted: Option<&'static str>,
}

/// `WAIT numreplicas timeout`, issued by the client right after each of its
/// `Leader` writes (see [`AsyncConfig::with_wait`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WaitSetting {
    /// Replicas that must acknowledge the write's offset (`REPLCONF ACK`).
    pub numreplicas: usize,
    /// Ticks the `WAIT` blocks at most (Redis' timeout; 0 = forever is not
    /// offered: every wait here is bounded).
    pub timeout: u64,
}

impl Default for AsyncConfig {
    fn default() -> Self {
        AsyncConfig {
            primary: NodeId::new("primary"),
            replicas: vec![NodeId::new("replica-1"), NodeId::new("replica-2")],
            backlog_size: 8,
            replication_delay: 1,
            seed: 0,
            wait: None,
            min_replicas_to_write: 0,
            min_replicas_max_lag: 10,
            planted: None,
        }
    }
}

impl AsyncConfig {
    /// `primary` followed by `replicas`, every other setting at its default
    /// (backlog 8, replication delay 1, seed 0). Validated when the group is
    /// built.
    #[must_use]
    pub fn new(primary: NodeId, replicas: impl IntoIterator<Item = NodeId>) -> AsyncConfig {
        AsyncConfig {
            primary,
            replicas: replicas.into_iter().collect(),
            ..AsyncConfig::default()
        }
    }

    /// The same configuration with seed `seed`.
    #[must_use]
    pub fn with_seed(mut self, seed: u64) -> AsyncConfig {
        self.seed = seed;
        self
    }

    /// The same configuration with a backlog of `entries` entries.
    #[must_use]
    pub fn with_backlog_size(mut self, entries: usize) -> AsyncConfig {
        self.backlog_size = entries;
        self
    }

    /// The same configuration with `ticks` of replication delay.
    #[must_use]
    pub fn with_replication_delay(mut self, ticks: u64) -> AsyncConfig {
        self.replication_delay = ticks;
        self
    }

    /// The same configuration with `WAIT numreplicas timeout` after every
    /// `Leader` write: the write is *done* only when `WAIT` returns at least
    /// `numreplicas` (replicas that acknowledged its offset within `timeout`
    /// ticks), otherwise *unknown* — it is applied at the primary either
    /// way. Validated when the group is built (`wait.numreplicas` 1..=replicas,
    /// `wait.timeout` ≥ 1).
    #[must_use]
    pub fn with_wait(mut self, numreplicas: usize, timeout: u64) -> AsyncConfig {
        self.wait = Some(WaitSetting {
            numreplicas,
            timeout,
        });
        self
    }

    /// The same configuration with `min-replicas-to-write n` and
    /// `min-replicas-max-lag max_lag` (ticks). Validated when the group is
    /// built (`n` ≤ replicas, `max_lag` ≥ 1 when `n` > 0).
    #[must_use]
    pub fn with_min_replicas(mut self, n: usize, max_lag: u64) -> AsyncConfig {
        self.min_replicas_to_write = n;
        self.min_replicas_max_lag = max_lag;
        self
    }

    /// True when some setting reads replica acknowledgements, so replicas
    /// send `REPLCONF ACK` (see the crate docs).
    #[must_use]
    pub fn replicas_ack(&self) -> bool {
        self.wait.is_some() || self.min_replicas_to_write > 0
    }

    /// Checks every setting; the error names the one at fault.
    pub fn validate(&self) -> Result<(), GroupError> {
        replication::check_planted(
            self.planted,
            &crate::planted::bugs(),
            cfg!(feature = "planted"),
            "proto-async",
        )?;
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
        if let Some(wait) = self.wait {
            if wait.numreplicas == 0 || wait.numreplicas > self.replicas.len() {
                return Err(GroupError::config(
                    "wait.numreplicas",
                    format!(
                        "WAIT {} can never be met or means nothing: expected 1..={} (the replicas)",
                        wait.numreplicas,
                        self.replicas.len()
                    ),
                ));
            }
            if wait.timeout == 0 {
                return Err(GroupError::config(
                    "wait.timeout",
                    "must be at least 1 tick (a WAIT that blocks forever is not offered)",
                ));
            }
        }
        if self.min_replicas_to_write > self.replicas.len() {
            return Err(GroupError::config(
                "min_replicas_to_write",
                format!(
                    "{} exceeds the {} replicas: every write would be refused",
                    self.min_replicas_to_write,
                    self.replicas.len()
                ),
            ));
        }
        if self.min_replicas_to_write > 0 && self.min_replicas_max_lag == 0 {
            return Err(GroupError::config(
                "min_replicas_max_lag",
                "must be at least 1 tick when min_replicas_to_write is set",
            ));
        }
        Ok(())
    }

    /// The same settings with the planted bug `name` on
    /// ([`crate::planted`]); [`AsyncConfig::validate`] refuses an unknown
    /// name, and any name in a build without the `planted` feature.
    #[must_use]
    pub fn with_planted(mut self, name: &str) -> Self {
        self.planted = Some(replication::planted_name(&crate::planted::bugs(), name));
        self
    }

    /// Every node id: the primary first, then the replicas in the given order.
    #[must_use]
    pub fn node_ids(&self) -> Vec<NodeId> {
        let mut ids = Vec::with_capacity(self.replicas.len() + 1);
        ids.push(self.primary.clone());
        ids.extend(self.replicas.iter().cloned());
        ids
    }
}

/// The settings a [`node::AsyncNode`](crate::node::AsyncNode) runs with (from
/// its group's [`AsyncConfig`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NodeSettings {
    /// Entries a primary keeps for partial resynchronisation.
    pub backlog_size: usize,
    /// Replicas send `REPLCONF ACK` after applying something (only when a
    /// setting reads acknowledgements).
    pub send_acks: bool,
    /// `min-replicas-to-write` (0: off; then replicas send no heartbeat).
    pub min_replicas_to_write: usize,
    /// `min-replicas-max-lag`, in ticks.
    pub min_replicas_max_lag: u64,
    /// A planted bug switched on ([`crate::planted`]).
    pub planted: Option<&'static str>,
}

impl Default for NodeSettings {
    /// The settings of [`AsyncConfig::default`].
    fn default() -> Self {
        NodeSettings::from(&AsyncConfig::default())
    }
}

impl From<&AsyncConfig> for NodeSettings {
    fn from(config: &AsyncConfig) -> Self {
        NodeSettings {
            backlog_size: config.backlog_size,
            send_acks: config.replicas_ack(),
            min_replicas_to_write: config.min_replicas_to_write,
            min_replicas_max_lag: config.min_replicas_max_lag,
            planted: config.planted,
        }
    }
}
