//! [`InvariantChecker`]: the Raft paper's Figure 3 properties, checked
//! against the live group after every step of a test.

use std::collections::BTreeMap;

use crate::group::RaftGroup;
use crate::message::LogEntry;
use crate::node::Role;

/// Remembers what it has seen across calls (leaders per term, every entry
/// ever committed) and checks, on each [`InvariantChecker::check`]:
///
/// 1. **Election safety** — at most one leader per term, ever.
/// 2. **Log matching** — if two logs hold an entry with the same index and
///    term, they are identical up to it.
/// 3. **Leader completeness** — a leader of term `T` holds every entry
///    committed by a leader of a term `≤ T`.
/// 4. **State machine safety** — no node's committed prefix ever differs
///    from what any node committed at that index; applied ≤ committed.
#[derive(Debug, Clone, Default)]
pub struct InvariantChecker {
    leaders: BTreeMap<u64, usize>,
    /// `committed[i - 1]` = the entry committed at index `i`, and the lowest
    /// current term of a node seen committing it.
    committed: Vec<(LogEntry, u64)>,
    verified: Vec<u64>,
}

impl InvariantChecker {
    /// A checker that has seen nothing yet.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Checks `group` now; the error describes the first violation found.
    pub fn check(&mut self, group: &RaftGroup) -> Result<(), String> {
        let nodes = &group.nodes;
        let name = |i: usize| group.ids[i].to_string();
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
                let (la, lb) = (&nodes[a].log, &nodes[b].log);
                let top = la.len().min(lb.len()) - 1;
                if let Some(k) = (1..=top).rev().find(|&k| la[k].term == lb[k].term) {
                    if let Some(j) = (1..=k).find(|&j| la[j] != lb[j]) {
                        return Err(format!(
                            "log matching: {} and {} agree on (index {k}, term {}) but differ at index {j}",
                            name(a),
                            name(b),
                            la[k].term
                        ));
                    }
                }
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
            let from = self.verified[n.me].min(n.commit_index) + 1;
            for index in from..=n.commit_index {
                let entry = &n.log[index as usize];
                match self.committed.get(index as usize - 1) {
                    Some((known, _)) if known != entry => {
                        return Err(format!(
                            "state machine safety: {} committed {entry:?} at index {index}, another node {known:?}",
                            name(n.me)
                        ));
                    }
                    Some(_) => {}
                    None => self.committed.push((entry.clone(), n.current_term)),
                }
            }
            self.verified[n.me] = n.commit_index;
        }
        for n in nodes.iter().filter(|n| n.alive && n.role == Role::Leader) {
            for (i, (entry, term)) in self.committed.iter().enumerate() {
                if *term <= n.current_term && n.log.get(i + 1) != Some(entry) {
                    return Err(format!(
                        "leader completeness: {} leads term {} without entry {} committed in term {term}",
                        name(n.me),
                        n.current_term,
                        i + 1
                    ));
                }
            }
        }
        Ok(())
    }
}

impl RaftGroup {
    /// The stateless part of [`InvariantChecker`] on the current state (one
    /// leader per term among current leaders, log matching, commit
    /// consistency); keep an [`InvariantChecker`] across steps for the
    /// history-dependent properties.
    pub fn check_invariants(&self) -> Result<(), String> {
        InvariantChecker::new().check(self)
    }
}
