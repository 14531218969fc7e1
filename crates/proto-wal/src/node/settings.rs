//! [`NodeSettings`]: what one node is configured with.

use crate::sync_names::SynchronousCommit;

/// The settings one node runs with (its part of a
/// [`WalConfig`](crate::WalConfig)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct NodeSettings {
    /// Records a primary retains for incremental catch-up
    /// (`wal_keep_size`, in records; at least 1).
    pub retention: usize,
    /// Listed in `synchronous_standby_names`: fsyncs on receipt (unless
    /// `remote_write`) and reports the position `synchronous_commit` waits
    /// for.
    pub synchronous: bool,
    /// The position a synchronous standby reports.
    pub synchronous_commit: SynchronousCommit,
    /// Ticks between receiving a record and replaying it
    /// (`recovery_min_apply_delay`).
    pub recovery_min_apply_delay: u64,
    /// A planted bug switched on ([`crate::planted`]).
    pub planted: Option<&'static str>,
}

impl Default for NodeSettings {
    /// Retention 8, asynchronous, `synchronous_commit = on`, no replay delay.
    fn default() -> Self {
        NodeSettings {
            retention: 8,
            synchronous: false,
            synchronous_commit: SynchronousCommit::On,
            recovery_min_apply_delay: 0,
            planted: None,
        }
    }
}

impl NodeSettings {
    /// Retains `records` records.
    #[must_use]
    pub fn with_retention(mut self, records: usize) -> Self {
        self.retention = records;
        self
    }

    /// Listed as a synchronous standby, or not.
    #[must_use]
    pub fn with_synchronous(mut self, synchronous: bool) -> Self {
        self.synchronous = synchronous;
        self
    }

    /// Reports `level`'s position when synchronous.
    #[must_use]
    pub fn with_synchronous_commit(mut self, level: SynchronousCommit) -> Self {
        self.synchronous_commit = level;
        self
    }

    /// Holds each received record back `ticks` ticks before replaying it.
    #[must_use]
    pub fn with_recovery_min_apply_delay(mut self, ticks: u64) -> Self {
        self.recovery_min_apply_delay = ticks;
        self
    }

    /// Runs with the planted bug `name` on ([`crate::planted`]; only in a
    /// build with the `planted` feature).
    #[must_use]
    pub fn with_planted(mut self, name: Option<&'static str>) -> Self {
        self.planted = name;
        self
    }
}
