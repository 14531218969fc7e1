//! The memo of configurations the search has already explored.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, DefaultHasher, Hash, Hasher};

use crate::bitset::Bitset;

/// Every (set of linearized operations, state) the search has reached.
///
/// Reaching the same configuration twice by different orders leads to the
/// same future, so the second arrival is pruned (Lowe's optimisation of
/// the Wing–Gong search). Entries are bucketed by a combined 64-bit hash;
/// a lookup compares sets and states only within its bucket, so nothing is
/// cloned unless it is new, and sets are stored in their short form
/// ([`Bitset::compact`]).
pub(crate) struct Cache<S> {
    buckets: HashMap<u64, Vec<Visited<S>>, BuildHasherDefault<PassThrough>>,
}

/// One visited configuration: a set in short form, and a state.
struct Visited<S> {
    full_words: usize,
    rest: Box<[u64]>,
    state: S,
}

impl<S: Eq + Hash + Clone> Cache<S> {
    /// An empty cache.
    pub(crate) fn new() -> Self {
        Cache {
            buckets: HashMap::default(),
        }
    }

    /// Records (`linearized`, `state`); `false` if it was already there.
    pub(crate) fn insert(&mut self, linearized: &Bitset, state: &S) -> bool {
        let mut hasher = DefaultHasher::new();
        state.hash(&mut hasher);
        let key = linearized.hash() ^ hasher.finish().rotate_left(17);
        let (full_words, rest) = linearized.compact();
        let bucket = self.buckets.entry(key).or_default();
        let seen = bucket
            .iter()
            .any(|v| v.full_words == full_words && *v.rest == *rest && v.state == *state);
        if !seen {
            bucket.push(Visited {
                full_words,
                rest: rest.into(),
                state: state.clone(),
            });
        }
        !seen
    }
}

/// A hasher for keys that are already well-mixed 64-bit hashes.
#[derive(Default)]
pub(crate) struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only `write_u64` is used by the cache; fold anything else in.
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01B3);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_configuration_is_new_once() {
        let mut cache = Cache::new();
        let mut set = Bitset::new(4);
        set.insert(2);
        assert!(cache.insert(&set, &"a"));
        assert!(!cache.insert(&set, &"a"));
        assert!(cache.insert(&set, &"b"));
        set.insert(3);
        assert!(cache.insert(&set, &"a"));
    }
}
