//! A node's key/value state: the last write of each key, applied record by
//! record (a WAL standby's `data`, an ISR replica's `data` and
//! `committed_data`).
//!
//! Every replica applies every write — an ISR replica twice, when it is
//! appended and when HW covers it — so a write costs one lookup per
//! replica and view. An ordered map compares the key at every level of
//! its tree (a `memcmp` call each); a hash map hashes it once. The hasher
//! is foldhash's with its fixed seed (already in the build through
//! `serde_json`), so the layout is the same in every run, and nothing
//! iterates the map where order shows: [`KvState::to_sorted`] and `Debug`
//! give the keys in order.

use bytes::Bytes;
use foldhash::fast::FixedState;
use std::collections::{BTreeMap, HashMap};
use std::fmt;

/// Key → value, the last write of each key winning.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct KvState {
    map: HashMap<Bytes, Bytes, FixedState>,
}

impl KvState {
    /// The value of `key`, if written.
    #[must_use]
    pub fn get(&self, key: &[u8]) -> Option<&Bytes> {
        self.map.get(key)
    }

    /// How many keys hold a value.
    #[must_use]
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// True when no key holds a value.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Every key and value, in key order.
    #[must_use]
    pub fn to_sorted(&self) -> BTreeMap<Bytes, Bytes> {
        self.map
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    /// `key = value`, without re-cloning a key already present.
    pub fn upsert(&mut self, key: &Bytes, value: &Bytes) {
        match self.map.get_mut(&key[..]) {
            Some(held) => held.clone_from(value),
            None => {
                self.map.insert(key.clone(), value.clone());
            }
        }
    }

    /// `key = value`, taking both.
    pub fn insert(&mut self, key: Bytes, value: Bytes) {
        self.map.insert(key, value);
    }

    /// Forgets every key.
    pub fn clear(&mut self) {
        self.map.clear();
    }

    /// Forgets `key`, returning its value.
    pub fn remove(&mut self, key: &[u8]) -> Option<Bytes> {
        self.map.remove(key)
    }
}

impl fmt::Debug for KvState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.to_sorted()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_write_of_a_key_wins_and_keys_come_out_in_order() {
        let mut kv = KvState::default();
        for (k, v) in [("b", "1"), ("a", "2"), ("b", "3")] {
            kv.upsert(&Bytes::from(k), &Bytes::from(v));
        }
        assert_eq!(kv.get(b"b"), Some(&Bytes::from("3")));
        assert_eq!(kv.get(b"c"), None);
        assert_eq!(kv.len(), 2);
        let sorted: Vec<_> = kv.to_sorted().into_iter().collect();
        assert_eq!(
            sorted,
            [
                (Bytes::from("a"), Bytes::from("2")),
                (Bytes::from("b"), Bytes::from("3"))
            ]
        );
        assert_eq!(format!("{kv:?}"), r#"{b"a": b"2", b"b": b"3"}"#);
    }

    #[test]
    fn states_are_equal_whatever_order_they_were_written_in() {
        let (mut x, mut y) = (KvState::default(), KvState::default());
        for k in ["a", "b", "c"] {
            x.upsert(&Bytes::from(k), &Bytes::from("v"));
        }
        for k in ["c", "a", "b"] {
            y.upsert(&Bytes::from(k), &Bytes::from("v"));
        }
        assert_eq!(x, y);
        y.upsert(&Bytes::from("a"), &Bytes::from("w"));
        assert_ne!(x, y);
    }
}
