//! Group configuration, its SPEC §6 defaults and its validation.

use replication::{GroupError, NodeId, validate_node_ids};

use crate::fetch::Rung;

/// Which data plane a partition runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum IsrMode {
    /// The source chapter's model ([`IsrGroup`](crate::IsrGroup)): an
    /// omniscient controller pushes entries and computes HW.
    #[default]
    Chapter,
    /// Kafka's fetch-driven replication ([`FetchGroup`](crate::fetch::FetchGroup))
    /// with the truncation rule of one rung of the Kafka ladder.
    Fetch(Rung),
}

impl IsrMode {
    /// `chapter`, or the rung's name (`hw`, `kip101`, …).
    pub fn name(self) -> &'static str {
        match self {
            IsrMode::Chapter => "chapter",
            IsrMode::Fetch(r) => r.name(),
        }
    }
}

/// Settings of one ISR partition. Start from [`IsrConfig::default`] (SPEC
/// defaults, `node-1..3` led by `node-1`) or [`IsrConfig::with_nodes`] (the
/// same defaults over your nodes, led by the first) and override with the
/// `with_*` builders; [`IsrConfig::validate`] (called by
/// [`IsrGroup::new`](crate::IsrGroup::new)) names the first bad setting.
///
/// ```
/// use proto_isr::{IsrConfig, NodeId};
///
/// let config = IsrConfig::with_nodes(["a", "b", "c"])
///     .with_min_insync_replicas(3)
///     .with_seed(7);
/// assert_eq!(config.leader, NodeId::new("a"));
/// config.validate().unwrap();
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct IsrConfig {
    /// Every replica, in id order of appearance (at least two, no duplicates).
    pub nodes: Vec<NodeId>,
    /// The initial leader (must be one of `nodes`).
    pub leader: NodeId,
    /// `min.insync.replicas`: the ISR size an `AllIsr` write needs to be
    /// admitted and acknowledged (1..=nodes).
    pub min_insync_replicas: usize,
    /// Ticks a follower may stay behind the leader before it leaves the ISR.
    pub replica_lag_timeout: u64,
    /// Entries the leader retains for incremental catch-up.
    pub retention: usize,
    /// Network delay of every message, in ticks.
    pub delay: u64,
    /// Ticks an `AllIsr` write waits before it is refused.
    pub ack_timeout: u64,
    /// Ticks a leader lease lasts after its last renewal.
    pub lease_duration: u64,
    /// Seed of the group's one random generator.
    pub seed: u64,
    /// `unclean.leader.election.enable`: when no ISR member is alive, the
    /// controller may elect an out-of-sync replica (and acknowledged
    /// `AllIsr` writes it lacks are lost). Off by default, as in Kafka:
    /// the partition then stays leaderless.
    pub unclean_leader_election: bool,
    /// A planted bug switched on ([`crate::planted`]); `None` always in a
    /// build without the `planted` feature.
    pub planted: Option<&'static str>,
    /// The chapter's rules the group runs ([`crate::decisions`]): this
    /// crate's [`Reference`](crate::decisions::Reference) unless a lab
    /// plugs in a student's.
    pub decisions: crate::decisions::Decisions,
    /// The data plane: the chapter's model (the default) or Kafka's fetch
    /// protocol at one rung of the ladder.
    pub mode: IsrMode,
    /// `flush.messages` (fetch mode): flush the log once this many records
    /// are unflushed; `None` (the default, as in Kafka) flushes only on an
    /// explicit `fsync`, so a power loss loses the unflushed tail.
    pub flush_messages: Option<u64>,
}

impl Default for IsrConfig {
    /// `node-1..3`, leader `node-1`, min.insync 2, lag timeout 3,
    /// retention 8, delay 1, ack timeout 32, lease 4, seed 0.
    fn default() -> Self {
        IsrConfig {
            nodes: vec![
                NodeId::new("node-1"),
                NodeId::new("node-2"),
                NodeId::new("node-3"),
            ],
            leader: NodeId::new("node-1"),
            min_insync_replicas: 2,
            replica_lag_timeout: 3,
            retention: 8,
            delay: 1,
            ack_timeout: 32,
            lease_duration: 4,
            seed: 0,
            unclean_leader_election: false,
            planted: None,
            decisions: crate::decisions::REFERENCE,
            mode: IsrMode::Chapter,
            flush_messages: None,
        }
    }
}

impl IsrConfig {
    /// The SPEC defaults over `nodes`, led by the first of them (an empty
    /// list keeps the default leader and fails validation on `nodes`).
    #[must_use]
    pub fn with_nodes<I>(nodes: I) -> IsrConfig
    where
        I: IntoIterator,
        I::Item: Into<NodeId>,
    {
        let nodes: Vec<NodeId> = nodes.into_iter().map(Into::into).collect();
        let defaults = IsrConfig::default();
        IsrConfig {
            leader: nodes.first().cloned().unwrap_or(defaults.leader),
            nodes,
            ..defaults
        }
    }

    /// The same settings with `leader` as the initial leader.
    #[must_use]
    pub fn with_leader(mut self, leader: impl Into<NodeId>) -> IsrConfig {
        self.leader = leader.into();
        self
    }

    /// The same settings with `min.insync.replicas = n`.
    #[must_use]
    pub fn with_min_insync_replicas(mut self, n: usize) -> IsrConfig {
        self.min_insync_replicas = n;
        self
    }

    /// The same settings with a replica lag timeout of `ticks`.
    #[must_use]
    pub fn with_replica_lag_timeout(mut self, ticks: u64) -> IsrConfig {
        self.replica_lag_timeout = ticks;
        self
    }

    /// The same settings retaining `entries` for incremental catch-up.
    #[must_use]
    pub fn with_retention(mut self, entries: usize) -> IsrConfig {
        self.retention = entries;
        self
    }

    /// The same settings with a network delay of `ticks`.
    #[must_use]
    pub fn with_delay(mut self, ticks: u64) -> IsrConfig {
        self.delay = ticks;
        self
    }

    /// The same settings with an `AllIsr` ack timeout of `ticks`.
    #[must_use]
    pub fn with_ack_timeout(mut self, ticks: u64) -> IsrConfig {
        self.ack_timeout = ticks;
        self
    }

    /// The same settings with `unclean.leader.election.enable = enabled`.
    #[must_use]
    pub fn with_unclean_leader_election(mut self, enabled: bool) -> IsrConfig {
        self.unclean_leader_election = enabled;
        self
    }

    /// The same settings with a lease of `ticks`.
    #[must_use]
    pub fn with_lease_duration(mut self, ticks: u64) -> IsrConfig {
        self.lease_duration = ticks;
        self
    }

    /// The same settings on the data plane `mode`.
    #[must_use]
    pub fn with_mode(mut self, mode: IsrMode) -> IsrConfig {
        self.mode = mode;
        self
    }

    /// The same settings with `flush.messages = n` (fetch mode).
    #[must_use]
    pub fn with_flush_messages(mut self, n: u64) -> IsrConfig {
        self.flush_messages = Some(n);
        self
    }

    /// The same settings with `seed`.
    #[must_use]
    pub fn with_seed(mut self, seed: u64) -> IsrConfig {
        self.seed = seed;
        self
    }

    /// The same settings, deciding by `decisions` ([`crate::decisions`]) —
    /// a lab's student implementation — instead of this crate's rules.
    #[must_use]
    pub fn with_decisions(
        mut self,
        decisions: &'static dyn crate::decisions::IsrDecisions,
    ) -> IsrConfig {
        self.decisions = replication::Plugged(decisions);
        self
    }

    /// The same settings with the planted bug `name` on
    /// ([`crate::planted`]); [`IsrConfig::validate`] refuses an unknown
    /// name, and any name in a build without the `planted` feature.
    #[must_use]
    pub fn with_planted(mut self, name: &str) -> IsrConfig {
        self.planted = Some(replication::planted_name(&crate::planted::bugs(), name));
        self
    }

    /// Checks every setting; the error names the one at fault.
    pub fn validate(&self) -> Result<(), GroupError> {
        validate_node_ids("nodes", &self.nodes, 2)?;
        replication::check_planted(
            self.planted,
            &crate::planted::bugs(),
            cfg!(feature = "planted"),
            "proto-isr",
        )?;
        if !self.nodes.contains(&self.leader) {
            return Err(GroupError::config(
                "leader",
                format!("leader {} is not one of the nodes", self.leader),
            ));
        }
        if self.min_insync_replicas == 0 || self.min_insync_replicas > self.nodes.len() {
            return Err(GroupError::config(
                "min_insync_replicas",
                format!(
                    "must be in 1..={}, got {}",
                    self.nodes.len(),
                    self.min_insync_replicas
                ),
            ));
        }
        if self.flush_messages == Some(0) {
            return Err(GroupError::config(
                "flush_messages",
                "must be positive, got 0",
            ));
        }
        if self.mode != IsrMode::Chapter {
            if self.planted.is_some() {
                return Err(GroupError::config(
                    "planted",
                    "planted bugs are in the chapter mode only",
                ));
            }
        } else if self.flush_messages.is_some() {
            return Err(GroupError::config(
                "flush_messages",
                "the chapter mode fsyncs only on an explicit fsync; flush.messages needs mode=fetch",
            ));
        }
        for (setting, value) in [
            ("replica_lag_timeout", self.replica_lag_timeout),
            ("retention", self.retention as u64),
            ("delay", self.delay),
            ("ack_timeout", self.ack_timeout),
            ("lease_duration", self.lease_duration),
        ] {
            if value == 0 {
                return Err(GroupError::config(setting, "must be positive, got 0"));
            }
        }
        Ok(())
    }
}
