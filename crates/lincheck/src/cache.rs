//! The memo of configurations the search has already explored.

use crate::bitset::{Bitset, ShortForm};
use crate::states::StateId;

/// What [`Cache::insert`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Insert {
    /// The configuration is new, and now recorded.
    New,
    /// It was already there: its future has been explored.
    Seen,
    /// It is new but cannot be recorded: a size no longer fits the
    /// stored form (the search reports this as out of memory).
    Full,
}

/// Every (set of linearized operations, state) the search has reached.
///
/// Reaching the same configuration twice by different orders leads to the
/// same future, so the second arrival is pruned (Lowe's optimisation of
/// the Wing–Gong search).
///
/// Each table is open addressing with linear probing over 32-byte slots,
/// two to a cache line: the configuration's 64-bit hash, a header word
/// (state id, count of full words, the lengths of the set's two zones —
/// [`Bitset::short_form`]) and two words of set. A set whose short form
/// fits in those two words — nearly every one, since the search
/// linearizes operations roughly in order — is stored in the slot itself,
/// so a lookup, hit or miss, touches one cache line; a longer one goes to
/// an arena of words and the slot holds its offset. A lookup compares sets
/// and states exactly, but only in slots whose full hash matches; nothing
/// is allocated per configuration, and nothing is cloned.
pub(crate) struct Cache {
    /// One table per set size (number of linearized operations), created
    /// when the search first reaches that depth; see [`Cache::insert`].
    tables: Vec<Table>,
    arena: Vec<u64>,
    len: usize,
    /// Slots over every table, for the memory count.
    slots: usize,
}

/// An open-addressing table of configurations whose sets have one size.
#[derive(Debug, Clone, Default)]
struct Table {
    slots: Vec<Slot>,
    len: usize,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[repr(C, align(32))]
struct Slot {
    hash: u64,
    /// [`OCCUPIED`], the form's kind, full words and state id; see
    /// [`Key`].
    header: u64,
    /// The set's words (inline), or the arena offset and zero.
    words: [u64; 2],
}

/// The header bit of an occupied slot.
const OCCUPIED: u64 = 1 << 63;
/// Header bits 58–60: how the set is stored. 0–5 are the inline shapes of
/// [`INLINE`]; this one means "in the arena".
const IN_ARENA: u64 = 7;
/// (zone A words, zone B words) of each inline kind.
const INLINE: [(usize, usize); 6] = [(0, 0), (1, 0), (0, 1), (2, 0), (1, 1), (0, 2)];
/// Full-word counts up to this are kept in the header (bits 32–57).
const MAX_INLINE_FULL: usize = (1 << 26) - 1;

/// Slots of a table when its depth is first reached (256 bytes).
const INITIAL_SLOTS: usize = 8;

/// A configuration as the table compares it: the slot it would occupy.
struct Key {
    slot: Slot,
    /// For the arena form: the words to store and compare there.
    in_arena: bool,
}

impl Key {
    fn new(hash: u64, state: StateId, form: &ShortForm<'_>) -> Self {
        let (a, b) = (form.zone_a.len(), form.zone_b.len());
        let kind = INLINE.iter().position(|&shape| shape == (a, b));
        let header = |kind: u64, full: u64| OCCUPIED | kind << 58 | full << 32 | u64::from(state);
        match kind {
            Some(kind) if form.full <= MAX_INLINE_FULL => {
                let mut words = [0; 2];
                for (word, &set) in words.iter_mut().zip(form.zone_a.iter().chain(form.zone_b)) {
                    *word = set;
                }
                Key {
                    slot: Slot {
                        hash,
                        header: header(kind as u64, form.full as u64),
                        words,
                    },
                    in_arena: false,
                }
            }
            _ => Key {
                slot: Slot {
                    hash,
                    header: header(IN_ARENA, 0),
                    words: [0; 2],
                },
                in_arena: true,
            },
        }
    }
}

impl Cache {
    /// An empty cache.
    pub(crate) fn new() -> Self {
        Cache {
            tables: Vec::new(),
            arena: Vec::new(),
            len: 0,
            slots: 0,
        }
    }

    /// Records (`linearized`, `state`) unless it is already there.
    ///
    /// Configurations are kept in one table per set size. A depth-first
    /// search moves one level at a time, so consecutive lookups go to the
    /// tables of neighbouring sizes: in a hard search of millions of
    /// configurations the few tables in use stay in the processor's
    /// caches, where one table of everything would make nearly every
    /// lookup a trip to main memory.
    pub(crate) fn insert(&mut self, linearized: &Bitset, state: StateId) -> Insert {
        let form = linearized.short_form();
        let hash = linearized.hash() ^ u64::from(state).wrapping_add(1).wrapping_mul(MIX);
        let key = Key::new(hash, state, &form);
        let Some(arena_header) = arena_header(state, &form) else {
            return Insert::Full;
        };
        let depth = linearized.len();
        if self.tables.len() <= depth {
            self.tables.resize_with(depth + 1, Table::default);
        }
        let table = &mut self.tables[depth];
        if table.slots.is_empty() {
            table.slots = vec![Slot::default(); INITIAL_SLOTS];
            self.slots += INITIAL_SLOTS;
        }
        let mask = table.slots.len() - 1;
        let mut index = hash as usize & mask;
        loop {
            let slot = &table.slots[index];
            if slot.header == 0 {
                break;
            }
            if slot.hash == key.slot.hash && slot.header == key.slot.header {
                let same = if key.in_arena {
                    arena_holds(&self.arena, slot.words[0] as usize, arena_header, &form)
                } else {
                    slot.words == key.slot.words
                };
                if same {
                    return Insert::Seen;
                }
            }
            index = (index + 1) & mask;
        }
        let mut slot = key.slot;
        if key.in_arena {
            slot.words[0] = self.arena.len() as u64;
            self.arena.extend_from_slice(&arena_header);
            self.arena.extend_from_slice(form.zone_a);
            self.arena.extend_from_slice(form.zone_b);
        }
        table.slots[index] = slot;
        table.len += 1;
        self.len += 1;
        if table.len * 8 > table.slots.len() * 5 {
            self.slots += table.slots.len();
            table.grow();
        }
        Insert::New
    }

    /// How many configurations are recorded.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The bytes the cache holds: its tables' slots and its arena.
    pub(crate) fn memory_bytes(&self) -> u64 {
        (self.slots * std::mem::size_of::<Slot>()
            + self.tables.len() * std::mem::size_of::<Table>()
            + self.arena.len() * 8) as u64
    }
}

impl Table {
    /// Doubles the slots.
    fn grow(&mut self) {
        let mut slots = vec![Slot::default(); self.slots.len() * 2];
        let mask = slots.len() - 1;
        for slot in self.slots.iter().filter(|s| s.header != 0) {
            let mut index = slot.hash as usize & mask;
            while slots[index].header != 0 {
                index = (index + 1) & mask;
            }
            slots[index] = *slot;
        }
        self.slots = slots;
    }
}

/// Whether the set stored at arena offset `at` is `header` and `form`.
fn arena_holds(arena: &[u64], at: usize, header: [u64; 2], form: &ShortForm<'_>) -> bool {
    let stored = &arena[at..];
    let (a, b) = (form.zone_a.len(), form.zone_b.len());
    stored[..2] == header
        && same_words(&stored[2..2 + a], form.zone_a)
        && same_words(&stored[2 + a..2 + a + b], form.zone_b)
}

/// Word-by-word equality, inlined: the slices are a few words long, too
/// short for a call to `memcmp` to pay.
fn same_words(a: &[u64], b: &[u64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// Spreads a state id over the 64 bits before it is mixed with the set's
/// hash (the golden-ratio multiplier of Fibonacci hashing).
const MIX: u64 = 0x9E37_79B9_7F4A_7C15;

/// The header of an arena entry: (state id, full words), (zone A length,
/// zone B length), each pair as two 32-bit halves; `None` if one does not
/// fit.
fn arena_header(state: StateId, form: &ShortForm<'_>) -> Option<[u64; 2]> {
    let half = |n: usize| u32::try_from(n).ok().map(u64::from);
    Some([
        u64::from(state) | half(form.full)? << 32,
        half(form.zone_a.len())? | half(form.zone_b.len())? << 32,
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_configuration_is_new_once() {
        let mut cache = Cache::new();
        let mut set = Bitset::new(4, 4);
        set.insert(2);
        assert_eq!(cache.insert(&set, 0), Insert::New);
        assert_eq!(cache.insert(&set, 0), Insert::Seen);
        assert_eq!(cache.insert(&set, 1), Insert::New);
        set.insert(3);
        assert_eq!(cache.insert(&set, 0), Insert::New);
        assert_eq!(cache.len(), 3);
    }

    #[test]
    fn many_configurations_survive_the_table_growing_inline_or_in_the_arena() {
        let mut cache = Cache::new();
        let mut set = Bitset::new(600, 500);
        let mut members = Vec::new();
        // Every 7th member: the short form soon spans more than two
        // words, so both storage forms are exercised.
        for m in (0..600).step_by(7) {
            set.insert(m);
            members.push(m);
            for state in 0..5 {
                assert_eq!(cache.insert(&set, state), Insert::New);
            }
        }
        assert_eq!(cache.len(), members.len() * 5);
        assert!(!cache.arena.is_empty());
        while let Some(m) = members.pop() {
            for state in 0..5 {
                assert_eq!(cache.insert(&set, state), Insert::Seen, "{m} {state}");
            }
            set.remove(m);
        }
        assert!(cache.memory_bytes() > 0);
    }

    #[test]
    fn sets_equal_in_one_zone_differ_in_the_other() {
        let mut cache = Cache::new();
        let mut set = Bitset::new(10, 5);
        set.insert(1);
        assert_eq!(cache.insert(&set, 0), Insert::New);
        set.insert(7);
        assert_eq!(cache.insert(&set, 0), Insert::New);
        set.remove(1);
        assert_eq!(cache.insert(&set, 0), Insert::New);
        set.remove(7);
        assert_eq!(cache.insert(&set, 0), Insert::New);
        assert_eq!(cache.len(), 4);
    }
}
