//! A replica's log and the two key/value views derived from it: the data
//! plane every node behaviour shares (the entries with their leader epochs,
//! and the high watermark this replica has applied).

use std::sync::Arc;

use bytes::Bytes;
use replication::KvState;

/// One log entry. Offsets start at 1 and are contiguous.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogEntry {
    /// Position in the log (1-based).
    pub offset: u64,
    /// The leader epoch in which the entry originated (its *entry* epoch).
    pub epoch: u64,
    /// Key.
    pub key: Bytes,
    /// Value.
    pub value: Bytes,
}

/// A replica's log, `data` (every appended entry applied) and
/// `committed_data` (only entries at or below the high watermark this
/// replica has applied, `applied_hw`). Read-only outside the crate: a node
/// changes it only through its own steps.
///
/// Invariant: `entries[i].offset == i + 1`.
#[derive(Debug, Clone, Default)]
pub struct ReplicaLog {
    pub(crate) entries: Vec<Arc<LogEntry>>,
    pub(crate) data: KvState,
    pub(crate) committed: KvState,
    pub(crate) applied_hw: u64,
    /// Bumped whenever entries already held change (a truncation, a
    /// snapshot install) — appends keep it — so a checker may remember
    /// what it verified of a prefix while the version stays.
    pub(crate) version: u64,
}

impl ReplicaLog {
    /// The log end offset (offset of the last entry, 0 when empty).
    #[must_use]
    pub fn end(&self) -> u64 {
        self.entries.len() as u64
    }

    /// The entry at `offset`, if held.
    #[must_use]
    pub fn get(&self, offset: u64) -> Option<&Arc<LogEntry>> {
        if offset == 0 {
            return None;
        }
        self.entries.get((offset - 1) as usize)
    }

    /// Entry (leader) epoch at `offset` (0 for offset 0 or a missing entry).
    #[must_use]
    pub fn epoch_at(&self, offset: u64) -> u64 {
        self.get(offset).map_or(0, |e| e.epoch)
    }

    /// Every entry, in offset order.
    #[must_use]
    pub fn entries(&self) -> &[Arc<LogEntry>] {
        &self.entries
    }

    /// The high watermark this replica has applied: `committed_data` holds
    /// exactly entries `1..=applied_hw`.
    #[must_use]
    pub fn applied_hw(&self) -> u64 {
        self.applied_hw
    }

    /// Every appended entry applied, last write per key winning.
    #[must_use]
    pub fn data(&self) -> &KvState {
        &self.data
    }

    /// Only entries at or below `applied_hw` applied.
    #[must_use]
    pub fn committed_data(&self) -> &KvState {
        &self.committed
    }

    /// Appends the next entry and applies it to `data`.
    pub(crate) fn push(&mut self, entry: Arc<LogEntry>) {
        debug_assert_eq!(entry.offset, self.end() + 1, "log offsets are contiguous");
        self.data.upsert(&entry.key, &entry.value);
        self.entries.push(entry);
    }

    /// Drops every entry above `end` and rebuilds `data` from what is left
    /// (committed prefix first, so the rebuild costs the uncommitted tail).
    /// Returns true when something was dropped.
    ///
    /// A log never keeps `applied_hw` above its end: a truncation below it
    /// (a power loss that lost unfsynced entries, or an unclean election's
    /// divergent leader) lowers `applied_hw` to the new end and rebuilds
    /// `committed` from the entries that are left, so a later append at or
    /// below the old `applied_hw` cannot leave `committed` describing
    /// entries the log no longer holds.
    pub(crate) fn truncate_above(&mut self, end: u64) -> bool {
        if end >= self.end() {
            return false;
        }
        self.entries.truncate(end as usize);
        self.version += 1;
        self.clamp_applied();
        self.rebuild_data();
        true
    }

    /// Replaces the whole log (full snapshot install); as for
    /// [`ReplicaLog::truncate_above`], `applied_hw` is lowered to the new
    /// log's end (and `committed` rebuilt) if the snapshot is shorter or
    /// differs below it.
    pub(crate) fn replace(&mut self, entries: &[Arc<LogEntry>]) {
        let keep = (self.applied_hw.min(entries.len() as u64)) as usize;
        let same = self.entries.len() >= keep && self.entries[..keep] == entries[..keep];
        self.entries = entries.to_vec();
        self.version += 1;
        if !same {
            self.applied_hw = 0;
            self.committed.clear();
        }
        self.clamp_applied();
        self.rebuild_data();
    }

    /// Lowers `applied_hw` to the log end, rebuilding `committed`.
    fn clamp_applied(&mut self) {
        if self.applied_hw <= self.end() {
            return;
        }
        self.applied_hw = self.end();
        let mut committed = KvState::default();
        for entry in &self.entries {
            committed.upsert(&entry.key, &entry.value);
        }
        self.committed = committed;
    }

    fn rebuild_data(&mut self) {
        let from = self.applied_hw.min(self.end());
        let mut data = if from == self.applied_hw {
            self.committed.clone()
        } else {
            KvState::default()
        };
        let start = if from == self.applied_hw { from } else { 0 };
        for entry in &self.entries[start as usize..] {
            data.upsert(&entry.key, &entry.value);
        }
        self.data = data;
    }

    /// Copies entries `applied_hw+1 ..= target` into `committed` (never
    /// backwards; entries not held are not applied). Returns true on advance.
    pub(crate) fn apply_through(&mut self, target: u64) -> bool {
        let target = target.min(self.end());
        if target <= self.applied_hw {
            return false;
        }
        for entry in &self.entries[self.applied_hw as usize..target as usize] {
            self.committed.upsert(&entry.key, &entry.value);
        }
        self.applied_hw = target;
        true
    }

    /// The highest offset at which this log and `other` hold entries of the
    /// same epoch (the end of their shared prefix, by the log-matching rule).
    #[must_use]
    pub fn shared_prefix_with(&self, other: &ReplicaLog) -> u64 {
        let mut k = self.end().min(other.end());
        while k > 0 && self.epoch_at(k) != other.epoch_at(k) {
            k -= 1;
        }
        k
    }
}
