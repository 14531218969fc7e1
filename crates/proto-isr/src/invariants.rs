//! The state-based safety invariants of SPEC §6, checkable at any tick.
//! (Monotonicity of HW / `applied_hw` and the survival of acknowledged
//! writes need history; the integration tests track those across probes.)

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::group::IsrGroup;
use crate::log::ReplicaLog;

/// Entries `1..=through` of both logs are identical. Replicated entries
/// are usually the same allocation, so pointer equality short-circuits the
/// field comparison.
fn same_prefix(a: &ReplicaLog, b: &ReplicaLog, through: u64) -> bool {
    let through = through as usize;
    a.entries[..through]
        .iter()
        .zip(&b.entries[..through])
        .all(|(x, y)| Arc::ptr_eq(x, y) || x == y)
}

/// `committed` is exactly the key/value state of `log`'s first `through`
/// entries: walking back from `through`, the first entry seen for each key
/// must be its committed value, and no other key may be committed. Checks
/// without copying a key or value.
fn committed_matches(log: &ReplicaLog, through: u64) -> bool {
    let prefix = log.entries[..through as usize].iter().rev();
    let committed = &log.committed;
    // Few keys (the common case): a linear list, no tree allocation.
    if committed.len() <= 32 {
        let mut seen: Vec<&[u8]> = Vec::with_capacity(committed.len());
        for e in prefix {
            let key = &e.key[..];
            if !seen.contains(&key) {
                if seen.len() == committed.len() || committed.get(key) != Some(&e.value) {
                    return false;
                }
                seen.push(key);
            }
        }
        return seen.len() == committed.len();
    }
    let mut seen: BTreeSet<&[u8]> = BTreeSet::new();
    for e in prefix {
        if seen.insert(&e.key[..]) && committed.get(&e.key) != Some(&e.value) {
            return false;
        }
    }
    seen.len() == committed.len()
}

impl IsrGroup {
    /// Checks, in O(log length × nodes²) (a test aid, not a hot path):
    /// 2. entries at or below both nodes' applied HW are identical, and
    ///    every node's `committed_data` is exactly its log through
    ///    `applied_hw`; every alive ISR member holds the leader's entries
    ///    through HW;
    /// 3. a follower confirmed in the current epoch holds exactly the
    ///    leader's entries up to its confirmed end;
    /// 4. the retained window lies inside the leader's own log;
    /// plus HW ≤ leader log end, `applied_hw` ≤ HW and `applied_hw` ≤ the
    /// node's own log end. After an unclean election, a replica not
    /// confirmed by a leader since is exempt from the cross-node checks
    /// (it still holds the committed view the election threw away) until it
    /// resynchronises. Returns the first violation found.
    pub fn check_invariants(&self) -> Result<(), String> {
        let hw = self.high_watermark;
        // After an unclean election a replica not confirmed since may still
        // hold the committed view the partition lost: it is exempt from the
        // cross-node checks until it resynchronises.
        let current = |n: &crate::node::IsrNode| {
            self.unclean_epoch == 0 || n.matched_epoch >= self.unclean_epoch
        };
        for (i, a) in self.nodes.iter().enumerate() {
            if a.log.applied_hw > a.log.end() {
                return Err(format!(
                    "{}: applied_hw {} above its log end {}",
                    a.id,
                    a.log.applied_hw,
                    a.log.end()
                ));
            }
            if !committed_matches(&a.log, a.log.applied_hw) {
                return Err(format!(
                    "{}: committed_data is not its log through applied_hw",
                    a.id
                ));
            }
            if !current(a) {
                continue;
            }
            if a.log.applied_hw > hw {
                return Err(format!(
                    "{}: applied_hw {} > HW {hw}",
                    a.id, a.log.applied_hw
                ));
            }
            // Each unordered pair once.
            for b in self.nodes[i + 1..].iter().filter(|b| current(b)) {
                let through = a
                    .log
                    .applied_hw
                    .min(b.log.applied_hw)
                    .min(a.log.end())
                    .min(b.log.end());
                if !same_prefix(&a.log, &b.log, through) {
                    return Err(format!(
                        "{} and {} disagree at or below their applied HW {through}",
                        a.id, b.id
                    ));
                }
            }
        }
        if !self.leader_available() {
            return Ok(());
        }
        let leader = &self.nodes[self.leader];
        if hw > leader.log.end() {
            return Err(format!("HW {hw} above leader log end {}", leader.log.end()));
        }
        for (i, n) in self.nodes.iter().enumerate() {
            if self.in_isr[i] && n.alive {
                if n.log.end() < hw {
                    return Err(format!(
                        "ISR member {} log end {} < HW {hw}",
                        n.id,
                        n.log.end()
                    ));
                }
                if !same_prefix(&n.log, &leader.log, hw) {
                    return Err(format!(
                        "ISR member {} differs from the leader at or below HW",
                        n.id
                    ));
                }
            }
            if i != self.leader && n.alive && n.matched_epoch == self.leader_epoch {
                if n.matched_end > leader.log.end() || n.matched_end > n.log.end() {
                    return Err(format!(
                        "{} confirmed end {} beyond a log",
                        n.id, n.matched_end
                    ));
                }
                if !same_prefix(&n.log, &leader.log, n.matched_end) {
                    return Err(format!(
                        "{} counted as matching the leader through {} but differs",
                        n.id, n.matched_end
                    ));
                }
            }
        }
        let (first, last) = self.retained_range();
        if last != leader.log.end() || first < 1 {
            return Err(format!(
                "retained window {first}..={last} is not the leader's log"
            ));
        }
        Ok(())
    }
}
