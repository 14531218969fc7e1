//! The recovery probes of a judged end, remembered by the state they start
//! from.
//!
//! A judged end heals and restarts everything, settles, reads every key,
//! and then probes recovery: a write and a read, every node converging,
//! leases, the steady state, a named failover, a follower crashed (most of
//! a judged end's ticks). Those probes see only the group: the history
//! and the path that led there play no part. Many distinct states of a
//! model check settle into the same group (a heartbeat delivered before or
//! after a vote, a crash undone by the heal), so the checker remembers
//! what the probes found, keyed by the group's complete fingerprint
//! ([`replication::state_fingerprint`]: every node, the clock, the rng,
//! every message in flight), and runs them once per settled group.
//!
//! Only a steered run may use it: there every message takes one tick, so
//! a message in flight is named by its sender, receiver, send tick and
//! content alone, as the fingerprint names it.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::property::Check;

/// What the probes found: **recovers**, and **available** and
/// **invariants** as the probes left them (both holding before).
#[derive(Debug, Clone)]
pub(crate) struct Probed {
    pub(crate) recovers: Check,
    pub(crate) available: Check,
    pub(crate) invariants: Check,
}

/// The probes' answers by settled group, shared by the checker's workers.
#[derive(Debug, Default)]
pub struct ProbeMemo {
    answers: Mutex<HashMap<u64, Probed>>,
    hits: AtomicU64,
}

impl ProbeMemo {
    /// An empty memo.
    pub fn new() -> Self {
        ProbeMemo::default()
    }

    /// What the probes found from the group of fingerprint `key`, if they
    /// ran from it before.
    pub(crate) fn get(&self, key: u64) -> Option<Probed> {
        let found = self.answers.lock().ok()?.get(&key).cloned();
        if found.is_some() {
            self.hits.fetch_add(1, Ordering::Relaxed);
        }
        found
    }

    /// Remembers what the probes found from `key`.
    pub(crate) fn put(&self, key: u64, probed: Probed) {
        if let Ok(mut answers) = self.answers.lock() {
            answers.insert(key, probed);
        }
    }

    /// Settled groups probed, and judged ends that reused their answer.
    #[cfg(test)]
    pub(crate) fn counts(&self) -> (u64, u64) {
        let probed = self.answers.lock().map_or(0, |a| a.len() as u64);
        (probed, self.hits.load(Ordering::Relaxed))
    }
}
