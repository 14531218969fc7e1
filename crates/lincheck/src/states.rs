//! The model states a search has met, each stored once under a small id.

use std::hash::Hash;

use crate::fxhash::hash_one;

/// A model state's id in its [`States`] table.
pub(crate) type StateId = u32;

/// Every distinct model state of one partition's search, interned.
///
/// The search moves state ids around (on its stack, in the cache, in the
/// explanation's record) instead of states: a step that reaches a state
/// seen before costs one hash and one probe here, and no clone. A register
/// has a handful of states however long the history is.
pub(crate) struct States<S> {
    states: Vec<S>,
    hashes: Vec<u64>,
    /// Open addressing, linear probing: `id + 1`, 0 for an empty slot.
    slots: Vec<u32>,
}

impl<S: Eq + Hash> States<S> {
    /// A table holding `initial`, as id 0.
    pub(crate) fn new(initial: S) -> Self {
        let mut states = States {
            states: Vec::new(),
            hashes: Vec::new(),
            slots: vec![0; 16],
        };
        states.intern(initial);
        states
    }

    /// The state with id `id`.
    pub(crate) fn get(&self, id: StateId) -> &S {
        &self.states[id as usize]
    }

    /// The id of `state`, adding it if it is new; `None` once the table
    /// holds `u32::MAX` states (the search reports that as out of memory).
    pub(crate) fn intern(&mut self, state: S) -> Option<StateId> {
        let hash = hash_one(&state);
        let mask = self.slots.len() - 1;
        let mut slot = hash as usize & mask;
        loop {
            match self.slots[slot] {
                0 => break,
                at => {
                    let id = at - 1;
                    if self.hashes[id as usize] == hash && self.states[id as usize] == state {
                        return Some(id);
                    }
                }
            }
            slot = (slot + 1) & mask;
        }
        let id = u32::try_from(self.states.len())
            .ok()
            .filter(|&id| id < u32::MAX)?;
        self.states.push(state);
        self.hashes.push(hash);
        self.slots[slot] = id + 1;
        if self.states.len() * 2 > self.slots.len() {
            self.grow();
        }
        Some(id)
    }

    fn grow(&mut self) {
        let mut slots = vec![0u32; self.slots.len() * 2];
        let mask = slots.len() - 1;
        for (id, &hash) in self.hashes.iter().enumerate() {
            let mut slot = hash as usize & mask;
            while slots[slot] != 0 {
                slot = (slot + 1) & mask;
            }
            // `intern` never lets an id reach `u32::MAX`.
            slots[slot] = id as u32 + 1;
        }
        self.slots = slots;
    }

    /// How many distinct states the table holds.
    pub(crate) fn len(&self) -> usize {
        self.states.len()
    }

    /// The bytes the table accounts for: its slots, hashes and the states'
    /// inline size (not what a state owns on the heap).
    pub(crate) fn memory_bytes(&self) -> u64 {
        (self.slots.len() * 4 + self.states.len() * (8 + std::mem::size_of::<S>())) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_is_stored_once_and_keeps_its_id() {
        let mut states = States::new("init".to_string());
        assert_eq!(states.intern("init".to_string()), Some(0));
        let ids: Vec<_> = (0..100).map(|i| states.intern(format!("s{i}"))).collect();
        assert_eq!(states.len(), 101);
        for (i, id) in ids.iter().enumerate() {
            assert_eq!(states.intern(format!("s{i}")), *id);
            assert_eq!(states.get(id.unwrap_or_default()), &format!("s{i}"));
        }
        assert_eq!(states.len(), 101);
    }
}
