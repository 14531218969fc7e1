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
/// two to a cache line: a header word and three words of set. A slot
/// holds one set with *every* state it was reached in among the first
/// [`MASK_STATES`] state ids (a bit each), so the two or three states a
/// register's set is typically reached in share one slot; a state id
/// beyond those gets a slot of its own, with the id in place of the bits.
/// The header holds that mask or id, the count of full words and the
/// lengths of the set's two zones ([`Bitset::short_form`]). A set whose
/// short form fits in three words — nearly every one, since the search
/// linearizes returned operations roughly in order and a history has few
/// that never returned — is stored in the slot itself, so a lookup, hit
/// or miss, touches one cache line; a longer one goes to an arena of
/// words and the slot holds its offset. The slot keeps no hash: the probe
/// compares the words themselves, and the hash that picks the first slot
/// is computed from the set's words and, for a slot of one state id, that
/// id ([`content_hash`], [`hashed_header`]), so growing a table rehashes
/// without the search's bitset, and the thousands of states one set may be
/// reached in (an append-only log's) spread over the table. A lookup compares sets and
/// states exactly; nothing is allocated per configuration, and nothing is
/// cloned.
pub(crate) struct Cache {
    /// One table per set size (number of linearized operations), created
    /// when the search first reaches that depth; see [`Cache::insert`].
    tables: Vec<Table>,
    arena: Vec<u64>,
    /// Configurations (set, state) recorded.
    len: usize,
    /// Slots over every table, for the memory count.
    slots: usize,
}

/// An open-addressing table of configurations whose sets have one size.
#[derive(Debug, Clone, Default)]
struct Table {
    slots: Vec<Slot>,
    /// Occupied slots.
    len: usize,
}

/// Words of set a slot holds inline.
const INLINE_WORDS: usize = 3;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[repr(C, align(32))]
struct Slot {
    /// [`OCCUPIED`], [`SINGLE`], the form's kind, full words, and the
    /// states: a mask of state ids below [`MASK_STATES`], or one id; see
    /// [`Key`]. Zero in an empty slot.
    header: u64,
    /// The set's words (inline, zero-padded), or the arena offset and
    /// zeros.
    words: [u64; INLINE_WORDS],
}

/// The header bit of an occupied slot.
const OCCUPIED: u64 = 1 << 63;
/// The header bit of a slot whose low 32 bits are one state id, not a
/// mask.
const SINGLE: u64 = 1 << 62;
/// State ids below this share their set's slot, a bit each.
const MASK_STATES: StateId = 32;
/// The header bits that name the set: all but the states and [`SINGLE`].
const SET_BITS: u64 = !(SINGLE | 0xFFFF_FFFF);
/// Header bits 58–61: how the set is stored. 0–9 are the inline shapes of
/// [`INLINE`]; this one means "in the arena".
const IN_ARENA: u64 = 15;
/// (zone A words, zone B words) of each inline kind.
const INLINE: [(usize, usize); 10] = [
    (0, 0),
    (1, 0),
    (0, 1),
    (2, 0),
    (1, 1),
    (0, 2),
    (3, 0),
    (2, 1),
    (1, 2),
    (0, 3),
];
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
    fn new(state: StateId, form: &ShortForm<'_>) -> Self {
        let (a, b) = (form.zone_a.len(), form.zone_b.len());
        let kind = INLINE.iter().position(|&shape| shape == (a, b));
        let states = if state < MASK_STATES {
            1 << state
        } else {
            SINGLE | u64::from(state)
        };
        let header = |kind: u64, full: u64| OCCUPIED | kind << 58 | full << 32 | states;
        match kind {
            Some(kind) if form.full <= MAX_INLINE_FULL => {
                let mut words = [0; INLINE_WORDS];
                for (word, &set) in words.iter_mut().zip(form.zone_a.iter().chain(form.zone_b)) {
                    *word = set;
                }
                Key {
                    slot: Slot {
                        header: header(kind as u64, form.full as u64),
                        words,
                    },
                    in_arena: false,
                }
            }
            _ => Key {
                slot: Slot {
                    header: header(IN_ARENA, 0),
                    words: [0; INLINE_WORDS],
                },
                in_arena: true,
            },
        }
    }

    /// Whether `slot` holds this key's set with this key's kind of state
    /// field (a mask, or the same single id).
    fn same_slot(
        &self,
        slot: &Slot,
        arena: &[u64],
        arena_header: [u64; 2],
        form: &ShortForm<'_>,
    ) -> bool {
        let wanted = self.slot.header;
        let header_fits = if wanted & SINGLE == 0 {
            slot.header & (SET_BITS | SINGLE) == wanted & SET_BITS
        } else {
            slot.header == wanted
        };
        header_fits
            && if self.in_arena {
                arena_holds(arena, slot.words[0] as usize, arena_header, form)
            } else {
                slot.words == self.slot.words
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
        let key = Key::new(state, &form);
        let Some(arena_header) = arena_header(&form) else {
            return Insert::Full;
        };
        let hashed = hashed_header(key.slot.header);
        let hash = if key.in_arena {
            let words = arena_header.iter().chain(form.zone_a).chain(form.zone_b);
            content_hash(hashed, words.copied())
        } else {
            content_hash(hashed, key.slot.words)
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
            let slot = &mut table.slots[index];
            if slot.header == 0 {
                break;
            }
            if key.same_slot(slot, &self.arena, arena_header, &form) {
                let states = key.slot.header & 0xFFFF_FFFF;
                if key.slot.header & SINGLE != 0 || slot.header & states != 0 {
                    return Insert::Seen;
                }
                slot.header |= states;
                self.len += 1;
                return Insert::New;
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
        // Grown past three quarters full: the probes beyond the first
        // slot read neighbouring slots, cheap next to the first read of a
        // table too large for the processor's caches, which a smaller
        // table makes less likely.
        if table.len * 4 > table.slots.len() * 3 {
            self.slots += table.slots.len();
            table.grow(&self.arena);
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
    fn grow(&mut self, arena: &[u64]) {
        let mut slots = vec![Slot::default(); self.slots.len() * 2];
        let mask = slots.len() - 1;
        for slot in self.slots.iter().filter(|s| s.header != 0) {
            let mut index = slot.hash(arena) as usize & mask;
            while slots[index].header != 0 {
                index = (index + 1) & mask;
            }
            slots[index] = *slot;
        }
        self.slots = slots;
    }
}

impl Slot {
    /// The [`content_hash`] [`Cache::insert`] gave this occupied slot.
    fn hash(&self, arena: &[u64]) -> u64 {
        let hashed = hashed_header(self.header);
        if hashed >> 58 & 0xF == IN_ARENA {
            let at = self.words[0] as usize;
            let lengths = arena[at + 1];
            let len = 2 + (lengths & 0xFFFF_FFFF) as usize + (lengths >> 32) as usize;
            content_hash(hashed, arena[at..at + len].iter().copied())
        } else {
            content_hash(hashed, self.words)
        }
    }
}

/// The header bits a slot's hash covers: those naming the set, and for a
/// slot of one state id beyond the mask ([`SINGLE`]) that id too. A set
/// reached in thousands of states (an append-only log's every order is a
/// state of its own) would otherwise pile them all on one probe chain.
fn hashed_header(header: u64) -> u64 {
    if header & SINGLE != 0 {
        header
    } else {
        header & SET_BITS
    }
}

/// The hash of a set as a slot stores it: the header's set bits, then its
/// words (the inline ones, or the arena entry's). A multiply-rotate chain
/// (FxHash's step) with a final avalanche, so the low bits that pick the
/// slot depend on every bit of every word. Every masked state of a set
/// starts its probe at the same slot (it shares that slot).
fn content_hash(header: u64, words: impl IntoIterator<Item = u64>) -> u64 {
    const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;
    let mut h = header.wrapping_mul(SEED);
    for word in words {
        h = (h.rotate_left(23) ^ word).wrapping_mul(SEED);
    }
    h ^= h >> 32;
    h = h.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    h ^ (h >> 29)
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

/// The header of an arena entry: its full words, and (zone A length,
/// zone B length) as two 32-bit halves; `None` if a length does not fit.
fn arena_header(form: &ShortForm<'_>) -> Option<[u64; 2]> {
    let half = |n: usize| u32::try_from(n).ok().map(u64::from);
    Some([
        form.full as u64,
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
    fn states_of_one_set_share_a_slot_up_to_the_mask_and_get_their_own_beyond() {
        let mut cache = Cache::new();
        let mut sets = Vec::new();
        // Enough sets of one size to grow the table several times, each
        // reached in states on both sides of the mask's last bit.
        for m in 0..200 {
            let mut set = Bitset::new(400, 300);
            set.insert(m);
            set.insert(399 - m % 100);
            sets.push(set);
        }
        let states = [
            0,
            5,
            MASK_STATES - 1,
            MASK_STATES,
            MASK_STATES + 7,
            StateId::MAX - 1,
        ];
        for set in &sets {
            for &state in &states {
                assert_eq!(cache.insert(set, state), Insert::New, "{state}");
            }
        }
        assert_eq!(cache.len(), sets.len() * states.len());
        // One slot per set for the masked states, one per set and state
        // beyond the mask.
        assert_eq!(cache.tables[2].len, sets.len() * 4);
        for set in &sets {
            for &state in &states {
                assert_eq!(cache.insert(set, state), Insert::Seen, "{state}");
            }
            for state in [1, MASK_STATES - 2, MASK_STATES + 1] {
                assert_eq!(cache.insert(set, state), Insert::New, "{state}");
            }
        }
        assert_eq!(cache.len(), sets.len() * (states.len() + 3));
    }

    #[test]
    fn the_cache_answers_as_a_set_of_configurations_would() {
        use crate::bitset::splitmix64;
        use std::collections::BTreeSet;
        // A random walk over a 300-member set (200 returned, 100 never
        // returned) and up to 40 states, so every inline shape, the arena, the
        // masked states and the single ones all occur, half the lookups
        // going back to a set met before; the reference is the set of
        // (members, state) pairs seen so far.
        let mut rng = 27;
        let mut below = |n: usize| (splitmix64(&mut rng) % n as u64) as usize;
        let mut cache = Cache::new();
        let mut seen = BTreeSet::new();
        let mut met: Vec<Vec<usize>> = Vec::new();
        let mut members = BTreeSet::new();
        let (mut hits, mut arena_used) = (0, false);
        for _ in 0..20_000 {
            let lookup = if met.is_empty() || below(2) == 0 {
                let member = if below(4) == 0 {
                    200 + below(100)
                } else {
                    below(60) + members.len().min(140)
                };
                if !members.remove(&member) {
                    members.insert(member);
                }
                met.push(members.iter().copied().collect());
                met[met.len() - 1].clone()
            } else {
                met[below(met.len())].clone()
            };
            let mut set = Bitset::new(300, 200);
            for &m in &lookup {
                set.insert(m);
            }
            // Mostly a few states, as a register's search meets them.
            let state = if below(4) == 0 { below(40) } else { below(3) } as StateId;
            let expected = if seen.insert((lookup.clone(), state)) {
                Insert::New
            } else {
                hits += 1;
                Insert::Seen
            };
            assert_eq!(cache.insert(&set, state), expected, "{lookup:?} {state}");
            arena_used |= !cache.arena.is_empty();
        }
        assert_eq!(cache.len(), seen.len());
        assert!(hits > 1_000, "{hits}");
        assert!(arena_used);
    }

    #[test]
    fn the_states_of_one_set_beyond_the_mask_do_not_share_a_probe_chain() {
        // An append-only log reaches one set of operations in a state per
        // order: thousands of states of one set. Each gets a slot of its
        // own; hashed on the set alone they would all start at one slot
        // and every lookup would walk all of them.
        let mut cache = Cache::new();
        let mut set = Bitset::new(100, 100);
        for m in [3, 17, 64] {
            set.insert(m);
        }
        let states = MASK_STATES..MASK_STATES + 20_000;
        for state in states.clone() {
            assert_eq!(cache.insert(&set, state), Insert::New);
        }
        for state in states {
            assert_eq!(cache.insert(&set, state), Insert::Seen);
        }
        let table = &cache.tables[3];
        let mask = table.slots.len() - 1;
        let longest = table
            .slots
            .iter()
            .enumerate()
            .filter(|(_, slot)| slot.header != 0)
            .map(|(at, slot)| at.wrapping_sub(slot.hash(&cache.arena) as usize) & mask)
            .max();
        assert!(longest.is_some_and(|probe| probe < 64), "{longest:?}");
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
