//! The primary's bounded replication backlog.

use std::collections::VecDeque;
use std::sync::Arc;

use crate::message::Entry;

/// The most recent `capacity` entries of the primary's history (Redis
/// `repl-backlog`), from which a reconnecting replica can be served a
/// partial resynchronisation.
#[derive(Debug, Clone)]
pub(crate) struct Backlog {
    entries: VecDeque<Arc<Entry>>,
    capacity: usize,
}

impl Backlog {
    /// An empty backlog holding at most `capacity` entries.
    pub(crate) fn new(capacity: usize) -> Self {
        Backlog {
            entries: VecDeque::with_capacity(capacity.min(1024)),
            capacity,
        }
    }

    /// Appends `entry`, evicting the oldest one when full. O(1).
    pub(crate) fn push(&mut self, entry: Arc<Entry>) {
        if self.entries.len() == self.capacity {
            self.entries.pop_front();
        }
        self.entries.push_back(entry);
    }

    /// Forgets every entry (a new history starts).
    pub(crate) fn clear(&mut self) {
        self.entries.clear();
    }

    /// Drops every entry above `offset` (after a power loss).
    pub(crate) fn truncate_after(&mut self, offset: u64) {
        while self.entries.back().is_some_and(|e| e.offset > offset) {
            self.entries.pop_back();
        }
    }

    /// True when a replica whose next missing offset is `next` can be served
    /// from here by a primary at `primary_offset`: it is level, or every
    /// entry from `next` on is still retained.
    pub(crate) fn covers(&self, next: u64, primary_offset: u64) -> bool {
        if next == primary_offset + 1 {
            return true;
        }
        match self.entries.front() {
            Some(first) => next >= first.offset && next <= primary_offset,
            None => false,
        }
    }

    /// The retained entries from offset `next` on, in order.
    pub(crate) fn entries_from(&self, next: u64) -> Vec<Arc<Entry>> {
        let skip = self
            .entries
            .front()
            .map_or(0, |first| next.saturating_sub(first.offset));
        let skip = usize::try_from(skip).unwrap_or(usize::MAX);
        self.entries.iter().skip(skip).cloned().collect()
    }

    /// Offsets currently retained, oldest first.
    pub(crate) fn offsets(&self) -> Vec<u64> {
        self.entries.iter().map(|e| e.offset).collect()
    }

    /// The oldest retained offset.
    pub(crate) fn first_offset(&self) -> Option<u64> {
        self.entries.front().map(|e| e.offset)
    }
}
