//! [`InvariantChecker`]: the Raft paper's Figure 3 properties, checked
//! against the live group after every step of a test.

use sim_core::{NodeId, Tick};

use crate::message::LogEntry;
use crate::node::{RaftNode, Role};

/// Remembers what it has seen across calls (leaders per term, every entry
/// ever committed) and checks, on each [`InvariantChecker::check`]:
///
/// 1. **Election safety** — at most one leader per term, ever.
/// 2. **Log matching** — if two logs hold an entry with the same index and
///    term, they are identical up to it (over the indices both still hold).
/// 3. **Leader completeness** — a leader of term `T` holds every entry
///    committed by a leader of a term `≤ T` (in its log, or covered by its
///    snapshot).
/// 4. **State machine safety** — no node's committed prefix ever differs
///    from what any node committed at that index; applied ≤ committed; no
///    node ever truncated an entry it held as committed (each node keeps
///    that observation, so the stateless check of every step sees it too).
/// 5. **Snapshot consistency** (§7) — a snapshot covers a committed, applied
///    prefix (`snapshot index ≤ applied ≤ commit`), its term is the term of
///    the entry committed at its index, and every log that still holds that
///    index holds it with that term.
/// 6. **Compaction bound** (§7) — with a `snapshot_threshold` of `T`, no
///    live node holds `T` or more applied entries past its snapshot: it
///    compacts as soon as it applies the `T`-th.
/// 7. **CheckQuorum** (§6.2 of Ongaro's thesis) — a live leader with
///    CheckQuorum on has its next majority check scheduled after now and at
///    most one lowest election timeout ahead, so it re-confirms a majority
///    (or steps down) at least that often.
/// 8. **Replication progress** (etcd's `Progress`: `Match < Next`) — a
///    live leader's view of each follower is ordered: what it knows the
///    follower holds is below what it will send next, which is at most one
///    past its own log end (`match_index < next_index ≤ last index + 1`).
///    A `next_index` that falls to the acknowledged `match_index` resends
///    what the follower has; one past the log end names entries that do
///    not exist.
#[derive(Debug, Clone, Default)]
pub struct InvariantChecker {
    leaders: SortedMap<u64, usize>,
    /// Index → the entry committed there, and the lowest current term of a
    /// node seen committing it.
    committed: SortedMap<u64, (LogEntry, u64)>,
    /// Index → the term of the entry committed there, learnt from snapshots
    /// of entries the checker never saw in a log.
    snapshot_terms: SortedMap<u64, u64>,
    verified: Vec<u64>,
}

impl InvariantChecker {
    /// A checker that has seen nothing yet.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Forgets everything seen, keeping the memory it used (a checker of
    /// the current state alone, run after every step, allocates nothing).
    pub(crate) fn forget(&mut self) {
        self.leaders.0.clear();
        self.committed.0.clear();
        self.snapshot_terms.0.clear();
        self.verified.clear();
    }

    /// Checks `nodes` (named `ids`) at tick `now`; the error describes the
    /// first violation found.
    pub(crate) fn check_nodes(
        &mut self,
        ids: &[NodeId],
        nodes: &[RaftNode],
        now: Tick,
        timers_may_be_overdue: bool,
    ) -> Result<(), String> {
        let name = |i: usize| ids[i].to_string();
        self.verified.resize(nodes.len(), 0);
        for n in nodes.iter().filter(|n| n.alive && n.role == Role::Leader) {
            match self.leaders.get(&n.current_term) {
                Some(&other) if other != n.me => {
                    return Err(format!(
                        "election safety: {} and {} both leaders of term {}",
                        name(other),
                        name(n.me),
                        n.current_term
                    ));
                }
                _ => {
                    self.leaders.insert(n.current_term, n.me);
                }
            }
        }
        for a in 0..nodes.len() {
            for b in a + 1..nodes.len() {
                let (na, nb) = (&nodes[a], &nodes[b]);
                let low = na.snapshot.index.max(nb.snapshot.index) + 1;
                let top = na.last_index().min(nb.last_index());
                if top < low {
                    continue;
                }
                if let Some(k) = (low..=top).rev().find(|&k| na.term_at(k) == nb.term_at(k))
                    && let Some(j) = (low..=k).find(|&j| na.entry(j) != nb.entry(j))
                {
                    return Err(format!(
                        "log matching: {} and {} agree on (index {k}, term {}) but differ at index {j}",
                        name(a),
                        name(b),
                        na.term_at(k).unwrap_or(0)
                    ));
                }
            }
        }
        for n in nodes {
            if let Some((index, commit)) = n.truncated_committed {
                return Err(format!(
                    "state machine safety: {} truncated its entry {index} while its commit index was {commit} (committed entries are never truncated)",
                    name(n.me)
                ));
            }
        }
        for n in nodes.iter().filter(|n| n.alive) {
            if n.last_applied > n.commit_index || n.commit_index > n.last_index() {
                return Err(format!(
                    "{}: applied {} / commit {} / log end {} out of order",
                    name(n.me),
                    n.last_applied,
                    n.commit_index,
                    n.last_index()
                ));
            }
            if n.snapshot.index > n.last_applied {
                return Err(format!(
                    "snapshot: {} compacted through {} but applied only {} (a compacted prefix must be committed and applied)",
                    name(n.me),
                    n.snapshot.index,
                    n.last_applied
                ));
            }
            if n.term_at(n.snapshot.index) != Some(n.snapshot.term) {
                return Err(format!(
                    "snapshot: {} has snapshot (index {}, term {}) but its log sentinel has term {:?}",
                    name(n.me),
                    n.snapshot.index,
                    n.snapshot.term,
                    n.term_at(n.snapshot.index)
                ));
            }
            let from = self.verified[n.me].min(n.commit_index) + 1;
            for index in from..=n.commit_index {
                // Entries inside the snapshot are checked by its term below.
                let Some(entry) = n.entry(index) else {
                    continue;
                };
                match self.committed.get(&index) {
                    Some((known, _)) if known != entry => {
                        return Err(format!(
                            "state machine safety: {} committed {entry:?} at index {index}, another node {known:?}",
                            name(n.me)
                        ));
                    }
                    Some(_) => {}
                    None => {
                        self.committed
                            .insert(index, (entry.clone(), n.current_term));
                    }
                }
            }
            self.verified[n.me] = n.commit_index;
        }
        for n in nodes.iter().filter(|n| n.alive) {
            let (index, term) = (n.snapshot.index, n.snapshot.term);
            if index == 0 {
                continue;
            }
            let known = self
                .committed
                .get(&index)
                .map(|(e, _)| e.term)
                .or_else(|| self.snapshot_terms.get(&index).copied());
            match known {
                Some(t) if t != term => {
                    return Err(format!(
                        "snapshot: {} snapshot ends at (index {index}, term {term}) but the entry committed there has term {t}",
                        name(n.me)
                    ));
                }
                Some(_) => {}
                None => {
                    self.snapshot_terms.insert(index, term);
                }
            }
            for other in nodes.iter().filter(|o| o.me != n.me) {
                if let Some(t) = other.term_at(index)
                    && index > other.snapshot.index
                    && t != term
                    && index <= other.commit_index
                {
                    return Err(format!(
                        "snapshot: {} snapshot ends at (index {index}, term {term}) but {} committed term {t} there",
                        name(n.me),
                        name(other.me)
                    ));
                }
            }
        }
        for n in nodes.iter().filter(|n| n.alive) {
            if let Some(threshold) = n.timing.snapshot_threshold
                && n.last_applied >= n.snapshot.index.saturating_add(threshold)
            {
                return Err(format!(
                    "compaction: {} applied through {} but its snapshot ends at {} (snapshot_threshold {threshold})",
                    name(n.me),
                    n.last_applied,
                    n.snapshot.index
                ));
            }
            let period = n.timing.election_timeout.0;
            if n.role == Role::Leader
                && n.timing.check_quorum
                // (Overdue only while a steered run holds the timers, the
                // check then running when a chooser fires it, or until the
                // tick after the hold ends.)
                && ((n.quorum_check_at <= now && !timers_may_be_overdue)
                    || n.quorum_check_at > now.saturating_add(period))
            {
                return Err(format!(
                    "check quorum: {} leads term {} at tick {now} with its next majority check at tick {} (due every {period} ticks)",
                    name(n.me),
                    n.current_term,
                    n.quorum_check_at
                ));
            }
        }
        for n in nodes.iter().filter(|n| n.alive && n.role == Role::Leader) {
            for p in (0..nodes.len()).filter(|&p| p != n.me) {
                let (matched, next) = (n.match_index[p], n.next_index[p]);
                if matched >= next || next > n.last_index() + 1 {
                    return Err(format!(
                        "replication progress: {} leads term {} with {}'s match index {matched} and next index {next} (log end {})",
                        name(n.me),
                        n.current_term,
                        name(p),
                        n.last_index()
                    ));
                }
            }
            for (&index, (entry, term)) in self.committed.iter() {
                if *term > n.current_term || index <= n.snapshot.index {
                    continue;
                }
                if n.entry(index) != Some(entry) {
                    return Err(format!(
                        "leader completeness: {} leads term {} without entry {index} committed in term {term}",
                        name(n.me),
                        n.current_term,
                    ));
                }
            }
        }
        Ok(())
    }
}

/// A map kept as a vector sorted by key: the checker's maps hold a few
/// terms and indices, and cleared they keep their memory.
#[derive(Debug, Clone)]
struct SortedMap<K, V>(Vec<(K, V)>);

impl<K, V> Default for SortedMap<K, V> {
    fn default() -> Self {
        SortedMap(Vec::new())
    }
}

impl<K: Ord + Copy, V> SortedMap<K, V> {
    fn get(&self, key: &K) -> Option<&V> {
        let at = self.0.binary_search_by_key(key, |(k, _)| *k).ok()?;
        Some(&self.0[at].1)
    }

    fn insert(&mut self, key: K, value: V) {
        match self.0.binary_search_by_key(&key, |(k, _)| *k) {
            Ok(at) => self.0[at].1 = value,
            Err(at) => self.0.insert(at, (key, value)),
        }
    }

    /// In key order.
    fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.0.iter().map(|(k, v)| (k, v))
    }
}

#[cfg(test)]
mod tests {
    use replication::{AckLevel, ReplicationGroup};

    use crate::node::Role;
    use crate::{InvariantChecker, RaftConfig, RaftGroup};

    /// A group whose nodes have all compacted (threshold 2, five writes).
    fn compacted() -> RaftGroup {
        let mut g =
            RaftGroup::new(RaftConfig::default().with_snapshot_threshold(2)).expect("group");
        g.run_until_leader(None, 100).expect("leader");
        for i in 0..5 {
            g.client_write(format!("k{i}").into(), "v".into(), AckLevel::Quorum)
                .expect("write");
        }
        g.run_until_idle(100).expect("idle");
        assert!(g.nodes.iter().all(|n| n.snapshot.index > 0));
        g
    }

    #[test]
    fn the_groups_own_check_remembers_nothing_from_the_last_one() {
        // Two groups whose leaders of one term are different nodes: each
        // alone is safe. The check of the second must not see the first's
        // leader (its checker is reused, forgotten between checks).
        let led_by = |seed: u64| {
            let mut g = RaftGroup::new(RaftConfig::default().with_seed(seed)).expect("group");
            g.run_until_leader(None, 100).expect("leader");
            let l = g
                .nodes
                .iter()
                .position(|n| n.role == Role::Leader)
                .expect("a leader");
            (g.nodes[l].current_term, l, g)
        };
        let first = led_by(1);
        let second = (2..50)
            .map(led_by)
            .find(|(term, l, _)| *term == first.0 && *l != first.1)
            .expect("another leader of the same term");
        first.2.check_invariants().expect("safe alone");
        second
            .2
            .check_invariants()
            .expect("safe alone, after the first");
        // A checker kept across them sees two leaders of one term.
        let mut kept = InvariantChecker::new();
        kept.check(&first.2).expect("safe");
        let err = kept.check(&second.2).expect_err("remembered");
        assert!(err.starts_with("election safety: "), "{err}");
    }

    #[test]
    fn consistent_snapshots_pass() {
        let g = compacted();
        InvariantChecker::new().check(&g).expect("consistent");
    }

    #[test]
    fn snapshot_past_the_applied_prefix_is_a_violation() {
        let mut g = compacted();
        let n = &mut g.nodes[0];
        n.last_applied = n.snapshot.index - 1;
        n.commit_index = n.snapshot.index - 1;
        let err = InvariantChecker::new().check(&g).expect_err("violation");
        assert!(err.contains("compacted through"), "{err}");
    }

    #[test]
    fn snapshot_term_differing_from_the_committed_entry_is_a_violation() {
        let mut g = compacted();
        let mut checker = InvariantChecker::new();
        // The checker first sees node-2's log still holding what node-1's
        // snapshot will claim a different term for.
        g.nodes[1].snapshot.term += 1;
        g.nodes[1].log[0].term += 1;
        let err = checker.check(&g).expect_err("violation");
        assert!(err.contains("snapshot"), "{err}");
    }

    #[test]
    fn applied_entries_left_uncompacted_are_a_violation() {
        let mut g = compacted();
        // Node 0 applies one more entry without compacting, then is held to
        // a threshold that entry has reached.
        g.nodes[0].timing.snapshot_threshold = None;
        g.client_write("late".into(), "v".into(), AckLevel::Quorum)
            .expect("write");
        g.run_until_idle(100).expect("idle");
        let n = &mut g.nodes[0];
        assert!(n.last_applied > n.snapshot.index);
        n.timing.snapshot_threshold = Some(n.last_applied - n.snapshot.index);
        let err = InvariantChecker::new().check(&g).expect_err("violation");
        assert!(err.starts_with("compaction: "), "{err}");
    }

    #[test]
    fn a_check_quorum_leader_whose_check_is_overdue_or_too_far_is_a_violation() {
        let mut g = RaftGroup::new(RaftConfig::default().with_check_quorum(true)).expect("group");
        g.run_until_leader(None, 100).expect("leader");
        for _ in 0..40 {
            g.tick();
        }
        InvariantChecker::new()
            .check(&g)
            .expect("a leader that keeps checking passes");
        let now = g.now();
        let l = g
            .nodes
            .iter()
            .position(|n| n.role == Role::Leader)
            .expect("a leader");
        let period = g.nodes[l].timing.election_timeout.0;
        for due in [now, now + period + 1] {
            g.nodes[l].quorum_check_at = due;
            let err = InvariantChecker::new().check(&g).expect_err("violation");
            assert!(err.starts_with("check quorum: "), "{err}");
        }
    }

    #[test]
    fn a_leader_whose_next_index_falls_to_the_match_index_or_past_its_log_is_a_violation() {
        let mut g = RaftGroup::new(RaftConfig::default()).expect("group");
        g.run_until_leader(None, 100).expect("leader");
        g.client_write("k".into(), "v".into(), AckLevel::Quorum)
            .expect("write");
        g.run_until_idle(100).expect("idle");
        InvariantChecker::new()
            .check(&g)
            .expect("a leader with caught-up followers passes");
        let l = g
            .nodes
            .iter()
            .position(|n| n.role == Role::Leader)
            .expect("a leader");
        let p = (l + 1) % g.nodes.len();
        let (matched, last) = (g.nodes[l].match_index[p], g.nodes[l].last_index());
        for next in [matched, last + 2] {
            g.nodes[l].next_index[p] = next;
            let err = InvariantChecker::new().check(&g).expect_err("violation");
            assert!(err.starts_with("replication progress: "), "{err}");
        }
    }
}
