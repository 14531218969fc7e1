//! Group configuration and its validation.

use std::collections::BTreeSet;

use replication::GroupError;
use sim_core::NodeId;

use crate::sync_names::{SyncQuorum, SynchronousCommit, SynchronousStandbyNames};

/// Settings of a [`WalShippingGroup`](crate::WalShippingGroup).
///
/// `Default` follows the SPEC: primary `primary`, standbys `standby-1` and
/// `standby-2`, no synchronous standbys, retention 8 records, delay 1,
/// ack timeout 32 ticks, seed 0; `synchronous_commit = on` and no replay
/// delay. [`WalConfig::new`] names the nodes and
/// keeps the other defaults; the `with_*` builders change one setting each.
///
/// ```
/// use proto_wal::{NodeId, WalConfig};
/// let cfg = WalConfig::default()
///     .with_synchronous_standbys([NodeId::new("standby-1")])
///     .with_seed(7);
/// assert!(cfg.validate().is_ok());
/// let bad = WalConfig::default().with_retention(0);
/// assert!(bad.validate().unwrap_err().to_string().contains("retention"));
/// let named = WalConfig::new(NodeId::new("pg-a"), [NodeId::new("pg-b")]);
/// assert_eq!(named.node_ids(), vec![NodeId::new("pg-a"), NodeId::new("pg-b")]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct WalConfig {
    /// The node that starts as primary on timeline 1.
    pub primary: NodeId,
    /// The standbys, streaming from the primary.
    pub standbys: Vec<NodeId>,
    /// The standbys listed in PostgreSQL's `synchronous_standby_names`, in
    /// priority order: the candidates a `QUORUM` write waits for. Each must
    /// be one of `standbys`.
    pub synchronous_standbys: Vec<NodeId>,
    /// How many of `synchronous_standbys` must confirm, and which:
    /// every one (the default), `FIRST n` or `ANY n`.
    pub sync_quorum: SyncQuorum,
    /// How far a synchronous standby must have got: received
    /// (`remote_write`), flushed (`on`, the default) or replayed
    /// (`remote_apply`).
    pub synchronous_commit: SynchronousCommit,
    /// Ticks a standby waits after receiving a record before replaying it
    /// (`recovery_min_apply_delay`); 0 (the default) replays on receipt.
    pub recovery_min_apply_delay: u64,
    /// How many of its most recent records the primary retains for
    /// incremental catch-up (`wal_keep_size`, in records).
    pub retention: usize,
    /// Network delay of every message, in ticks.
    pub delay: u64,
    /// Most ticks a `QUORUM` write waits for its synchronous standbys.
    pub ack_timeout: u64,
    /// Seed of the group's one random generator.
    pub seed: u64,
    /// A planted bug switched on ([`crate::planted`]); `None` always in a
    /// build without the `planted` feature.
    pub planted: Option<&'static str>,
}

impl Default for WalConfig {
    fn default() -> Self {
        WalConfig {
            primary: NodeId::new("primary"),
            standbys: vec![NodeId::new("standby-1"), NodeId::new("standby-2")],
            synchronous_standbys: Vec::new(),
            sync_quorum: SyncQuorum::Every,
            synchronous_commit: SynchronousCommit::On,
            recovery_min_apply_delay: 0,
            retention: 8,
            delay: 1,
            ack_timeout: 32,
            seed: 0,
            planted: None,
        }
    }
}

impl WalConfig {
    /// `primary` streaming to `standbys` (none synchronous), every other
    /// setting at its default.
    #[must_use]
    pub fn new(primary: NodeId, standbys: impl IntoIterator<Item = NodeId>) -> WalConfig {
        WalConfig {
            primary,
            standbys: standbys.into_iter().collect(),
            ..WalConfig::default()
        }
    }

    /// The same settings with every one of `sync` (each one of the
    /// standbys) gating `QUORUM` writes: [`SyncQuorum::Every`], which is
    /// `FIRST len(sync) (sync…)` except that a confirmation already
    /// reported still counts after its standby disconnects.
    #[must_use]
    pub fn with_synchronous_standbys(mut self, sync: impl IntoIterator<Item = NodeId>) -> Self {
        self.synchronous_standbys = sync.into_iter().collect();
        self.sync_quorum = SyncQuorum::Every;
        self
    }

    /// The same settings with `synchronous_standby_names` given in
    /// PostgreSQL's text form — `FIRST n (a, b)`, `ANY n (a, b)`,
    /// `n (a, b)` (= `FIRST n`), `a, b` (= `FIRST 1`, as in PostgreSQL) or
    /// empty — or a [`GroupError::Config`] naming
    /// `synchronous_standby_names`. Whether `n` and the names fit the
    /// standbys is checked by [`WalConfig::validate`].
    ///
    /// ```
    /// use proto_wal::{SyncQuorum, WalConfig};
    /// let cfg = WalConfig::default().with_synchronous_standby_names("ANY 1 (standby-1, standby-2)")?;
    /// assert_eq!(cfg.sync_quorum, SyncQuorum::Any(1));
    /// assert!(cfg.validate().is_ok());
    /// let err = WalConfig::default().with_synchronous_standby_names("SOME 1 (standby-1)");
    /// assert!(err.unwrap_err().to_string().contains("synchronous_standby_names"));
    /// # Ok::<(), proto_wal::GroupError>(())
    /// ```
    pub fn with_synchronous_standby_names(self, text: &str) -> Result<Self, GroupError> {
        Ok(self.with_standby_names(text.parse()?))
    }

    /// The same settings with an already parsed `synchronous_standby_names`.
    #[must_use]
    pub fn with_standby_names(mut self, names: SynchronousStandbyNames) -> Self {
        self.synchronous_standbys = names.names;
        self.sync_quorum = names.quorum;
        self
    }

    /// The configured `synchronous_standby_names`.
    #[must_use]
    pub fn synchronous_standby_names(&self) -> SynchronousStandbyNames {
        SynchronousStandbyNames {
            quorum: self.sync_quorum,
            names: self.synchronous_standbys.clone(),
        }
    }

    /// The same settings with `synchronous_commit` = `level`.
    #[must_use]
    pub fn with_synchronous_commit(mut self, level: SynchronousCommit) -> Self {
        self.synchronous_commit = level;
        self
    }

    /// The same settings with standbys replaying each record `ticks` after
    /// receiving it (`recovery_min_apply_delay`).
    #[must_use]
    pub fn with_recovery_min_apply_delay(mut self, ticks: u64) -> Self {
        self.recovery_min_apply_delay = ticks;
        self
    }

    /// Whether every synchronous-replication setting is at its original
    /// meaning (every listed standby, `synchronous_commit = on`, no replay
    /// delay): such a group records no extra decision events.
    pub(crate) fn is_classic_sync(&self) -> bool {
        self.sync_quorum == SyncQuorum::Every
            && self.synchronous_commit == SynchronousCommit::On
            && self.recovery_min_apply_delay == 0
    }

    /// The same settings retaining `records` records for incremental catch-up.
    #[must_use]
    pub fn with_retention(mut self, records: usize) -> Self {
        self.retention = records;
        self
    }

    /// The same settings with every message taking `ticks`.
    #[must_use]
    pub fn with_delay(mut self, ticks: u64) -> Self {
        self.delay = ticks;
        self
    }

    /// The same settings with `QUORUM` writes waiting at most `ticks`.
    #[must_use]
    pub fn with_ack_timeout(mut self, ticks: u64) -> Self {
        self.ack_timeout = ticks;
        self
    }

    /// The same settings with the random generator seeded by `seed`.
    #[must_use]
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// The same settings with the planted bug `name` on
    /// ([`crate::planted`]); [`WalConfig::validate`] refuses an unknown
    /// name, and any name in a build without the `planted` feature.
    #[must_use]
    pub fn with_planted(mut self, name: &str) -> Self {
        self.planted = Some(replication::planted_name(&crate::planted::bugs(), name));
        self
    }

    /// Every node id in configuration order: the primary, then the
    /// standbys as listed.
    #[must_use]
    pub fn node_ids(&self) -> Vec<NodeId> {
        std::iter::once(self.primary.clone())
            .chain(self.standbys.iter().cloned())
            .collect()
    }

    /// Checks every setting; the error names the one at fault.
    pub fn validate(&self) -> Result<(), GroupError> {
        replication::check_planted(
            self.planted,
            &crate::planted::bugs(),
            cfg!(feature = "planted"),
            "proto-wal",
        )?;
        if self.primary.as_str().is_empty() {
            return Err(GroupError::config("primary", "node ids must be non-empty"));
        }
        let mut seen = BTreeSet::new();
        seen.insert(&self.primary);
        for standby in &self.standbys {
            if standby.as_str().is_empty() {
                return Err(GroupError::config("standbys", "node ids must be non-empty"));
            }
            if standby == &self.primary {
                return Err(GroupError::config(
                    "standbys",
                    format!("{standby} is the primary and cannot also be a standby"),
                ));
            }
            if !seen.insert(standby) {
                return Err(GroupError::config(
                    "standbys",
                    format!("duplicate standby {standby}"),
                ));
            }
        }
        let mut sync = BTreeSet::new();
        for standby in &self.synchronous_standbys {
            if !self.standbys.contains(standby) {
                return Err(GroupError::config(
                    "synchronous_standbys",
                    format!("{standby} is not one of the standbys"),
                ));
            }
            if !sync.insert(standby) {
                return Err(GroupError::config(
                    "synchronous_standbys",
                    format!("duplicate synchronous standby {standby}"),
                ));
            }
        }
        if let SyncQuorum::First(n) | SyncQuorum::Any(n) = self.sync_quorum {
            let listed = self.synchronous_standbys.len();
            if n == 0 || n > listed {
                return Err(GroupError::config(
                    "synchronous_standby_names",
                    format!(
                        "{} needs between 1 and the {listed} listed standbys, not {n}",
                        if matches!(self.sync_quorum, SyncQuorum::Any(_)) {
                            "ANY n"
                        } else {
                            "FIRST n"
                        }
                    ),
                ));
            }
        }
        for (setting, value) in [
            ("retention", self.retention as u64),
            ("delay", self.delay),
            ("ack_timeout", self.ack_timeout),
        ] {
            if value == 0 {
                return Err(GroupError::config(setting, "must be at least 1"));
            }
        }
        Ok(())
    }
}
