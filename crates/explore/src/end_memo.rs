//! What a judged end found, remembered by the state it starts from.
//!
//! A judged end (the model checker's, on a steered run) heals and
//! restarts everything, settles, reads every key, and probes recovery: a
//! write and a read, every node converging, leases, the steady state, a
//! named failover, a follower crashed. Most of a check's time goes there,
//! and many distinct states of a search meet on the way:
//!
//! - **Ends.** Once every fault is healed and every node restarted, two
//!   states that differed only in a fault, or in a message a heal lets
//!   through, are often one (in a Raft check of every path of 5 steps, a
//!   third of the judged ends). What the rest of the end decides depends
//!   only on that healed run: the group's complete state with its
//!   messages in the order they will be delivered
//!   ([`replication::ordered_fingerprint`]) and the run's own account
//!   (the history, every client operation in flight, what the properties
//!   found so far, the tolerance of faults). The checker keys the five
//!   answers by it and judges each healed run once.
//! - **Probes.** The recovery probes see only the settled group (the
//!   history and the path that led there play no part), and more runs
//!   settle into one group still, so they are remembered by the settled
//!   group alone (its ordered fingerprint too).
//! - **Histories.** A search's states share a few histories: one found
//!   linearizable is not searched again.
//!
//! Only a steered run may use it: there every message takes one tick, so
//! the network's state is what the ordered fingerprint names.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::history::HistoryOp;
use crate::property::Check;

/// What *linearizable* reads of a history: every operation's client,
/// kind, key and value, logical call and return times, outcome and value
/// read, and whether the row's levels claim it (not its ticks, or the
/// words of a failure). A search's histories are few (a handful of
/// operations, most of them alike across its states).
pub(crate) fn history_key(history: &[HistoryOp]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = replication::StateHasher::default();
    h.write_usize(history.len());
    for op in history {
        let HistoryOp {
            client,
            kind,
            call,
            ret,
            call_tick: _,
            ret_tick: _,
            status,
            read_value,
            reason: _,
            claimed,
        } = op;
        (client, kind, call, ret, status, read_value, claimed).hash(&mut h);
    }
    h.finish()
}

/// What the probes found: **recovers**, and **available** and
/// **invariants** as the probes left them (both holding before).
#[derive(Debug, Clone)]
pub(crate) struct Probed {
    pub(crate) recovers: Check,
    pub(crate) available: Check,
    pub(crate) invariants: Check,
}

/// The judged ends' answers by healed run, and the probes' by settled
/// group, shared by the checker's workers.
#[derive(Debug, Default)]
pub struct EndMemo {
    /// Healed runs whose five properties all held (most: a key alone).
    held: Mutex<HashSet<u64>>,
    /// Healed runs where one did not, with the five answers.
    broken: Mutex<HashMap<u64, Box<[Check; 5]>>>,
    probes: Mutex<HashMap<u64, Probed>>,
    /// Histories found linearizable, by [`history_key`].
    linearizable: Mutex<HashSet<u64>>,
    end_hits: AtomicU64,
    probe_hits: AtomicU64,
}

impl EndMemo {
    /// An empty memo.
    pub fn new() -> Self {
        EndMemo::default()
    }

    /// The five answers of the end from the healed run of key `key`, if it
    /// was judged before.
    pub(crate) fn end(&self, key: u64) -> Option<[Check; 5]> {
        let found = if self.held.lock().ok()?.contains(&key) {
            Some(std::array::from_fn(|_| Check::Holds))
        } else {
            self.broken.lock().ok()?.get(&key).map(|c| (**c).clone())
        };
        if found.is_some() {
            self.end_hits.fetch_add(1, Ordering::Relaxed);
        }
        found
    }

    /// Remembers the five answers of the end from `key`.
    pub(crate) fn put_end(&self, key: u64, checks: &[Check; 5]) {
        if checks.iter().all(|c| *c == Check::Holds) {
            if let Ok(mut held) = self.held.lock() {
                held.insert(key);
            }
        } else if let Ok(mut broken) = self.broken.lock() {
            broken.insert(key, Box::new(checks.clone()));
        }
    }

    /// What the probes found from the settled group of fingerprint `key`,
    /// if they ran from it before.
    pub(crate) fn probe(&self, key: u64) -> Option<Probed> {
        let found = self.probes.lock().ok()?.get(&key).cloned();
        if found.is_some() {
            self.probe_hits.fetch_add(1, Ordering::Relaxed);
        }
        found
    }

    /// Remembers what the probes found from `key`.
    pub(crate) fn put_probe(&self, key: u64, probed: Probed) {
        if let Ok(mut probes) = self.probes.lock() {
            probes.insert(key, probed);
        }
    }

    /// *linearizable* on `history`: `Holds` when a history with the same
    /// [`history_key`] was found linearizable before, else `check`'s
    /// answer, remembered when it holds.
    pub(crate) fn linearizable(
        &self,
        history: &[HistoryOp],
        check: impl FnOnce() -> Check,
    ) -> Check {
        let key = history_key(history);
        if self
            .linearizable
            .lock()
            .is_ok_and(|known| known.contains(&key))
        {
            return Check::Holds;
        }
        let answer = check();
        if answer == Check::Holds
            && let Ok(mut known) = self.linearizable.lock()
        {
            known.insert(key);
        }
        answer
    }

    /// Healed runs judged and judged ends that reused their answers;
    /// settled groups probed and probes that reused theirs.
    #[cfg(test)]
    pub(crate) fn counts(&self) -> [u64; 4] {
        let held = self.held.lock().map_or(0, |h| h.len() as u64);
        let broken = self.broken.lock().map_or(0, |b| b.len() as u64);
        let probed = self.probes.lock().map_or(0, |p| p.len() as u64);
        [
            held + broken,
            self.end_hits.load(Ordering::Relaxed),
            probed,
            self.probe_hits.load(Ordering::Relaxed),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_end_is_answered_as_it_was_remembered() {
        let memo = EndMemo::new();
        let holds: [Check; 5] = std::array::from_fn(|_| Check::Holds);
        let mut broken = holds.clone();
        broken[1] = Check::Violated("a read saw an old value".into());
        memo.put_end(1, &holds);
        memo.put_end(2, &broken);
        assert_eq!(memo.end(1), Some(holds));
        assert_eq!(memo.end(2), Some(broken));
        assert_eq!(memo.end(3), None);
        assert_eq!(memo.counts()[..2], [2, 2]);
    }

    #[test]
    fn a_history_is_searched_again_only_until_it_is_found_linearizable() {
        let memo = EndMemo::new();
        let calls = std::cell::Cell::new(0);
        let answer = |check: Check| {
            calls.set(calls.get() + 1);
            check
        };
        let broken = || answer(Check::Violated("stale read".into()));
        assert!(matches!(memo.linearizable(&[], broken), Check::Violated(_)));
        assert!(matches!(memo.linearizable(&[], broken), Check::Violated(_)));
        assert_eq!(calls.get(), 2, "a violation is not remembered");
        assert_eq!(
            memo.linearizable(&[], || answer(Check::Holds)),
            Check::Holds
        );
        assert_eq!(memo.linearizable(&[], broken), Check::Holds);
        assert_eq!(
            calls.get(),
            3,
            "a history found linearizable is not searched again"
        );
    }

    #[test]
    fn a_history_key_reads_what_linearizable_reads_and_not_the_ticks() {
        use replication::{Bytes, OutcomeStatus};
        let op = HistoryOp {
            client: 0,
            kind: crate::history::OpKind::Write {
                key: Bytes::from_static(b"k0"),
                value: Bytes::from_static(b"v1"),
            },
            call: 1,
            ret: Some(2),
            call_tick: 30,
            ret_tick: Some(33),
            status: Some(OutcomeStatus::Done),
            read_value: None,
            reason: String::new(),
            claimed: true,
        };
        let key = history_key(std::slice::from_ref(&op));
        let later = HistoryOp {
            call_tick: 40,
            ret_tick: Some(45),
            ..op.clone()
        };
        assert_eq!(history_key(&[later]), key);
        let changes: [fn(&mut HistoryOp); 6] = [
            |o| o.client = 1,
            |o| o.call = 0,
            |o| o.ret = None,
            |o| o.status = Some(OutcomeStatus::Unknown),
            |o| o.read_value = Some(None),
            |o| o.claimed = false,
        ];
        for change in changes {
            let mut other = op.clone();
            change(&mut other);
            assert_ne!(history_key(&[other]), key);
        }
        assert_ne!(history_key(&[op.clone(), op]), key);
    }
}
