//! The set of operations linearized so far, with a hash kept up to date.

/// A fixed-size bitset over a partition's operations.
///
/// Besides the words it keeps, updated in O(1) (amortised) on every insert
/// and removal:
///
/// - an order-independent hash (the XOR of a pseudo-random salt per
///   member), so the search cache never rehashes the whole set;
/// - how many leading words are full and where the last non-empty word
///   is. The search linearizes operations roughly in index order, so a
///   set is nearly always "all of `0..m`, plus a few": the cache stores
///   only the count of full words and the short middle, not the whole set
///   — otherwise memory would grow with history length × steps.
#[derive(Debug, Clone)]
pub(crate) struct Bitset {
    words: Vec<u64>,
    salts: Vec<u64>,
    hash: u64,
    /// `words[..full]` are all ones.
    full: usize,
    /// `words[top..]` are all zeros.
    top: usize,
}

impl Bitset {
    /// An empty set able to hold members `0..len`.
    pub(crate) fn new(len: usize) -> Self {
        let mut seed = 0x5EED_1A7C_4EC4_0000_u64;
        let salts = (0..len).map(|_| splitmix64(&mut seed)).collect();
        Bitset {
            words: vec![0; len.div_ceil(64)],
            salts,
            hash: 0,
            full: 0,
            top: 0,
        }
    }

    /// Adds `member`; a no-op if it is already in.
    pub(crate) fn insert(&mut self, member: usize) {
        let (word, bit) = (member / 64, 1u64 << (member % 64));
        if self.words[word] & bit == 0 {
            self.words[word] |= bit;
            self.hash ^= self.salts[member];
            self.top = self.top.max(word + 1);
            while self.words.get(self.full) == Some(&u64::MAX) {
                self.full += 1;
            }
        }
    }

    /// Removes `member`; a no-op if it is not in.
    pub(crate) fn remove(&mut self, member: usize) {
        let (word, bit) = (member / 64, 1u64 << (member % 64));
        if self.words[word] & bit != 0 {
            self.words[word] &= !bit;
            self.hash ^= self.salts[member];
            self.full = self.full.min(word);
            while self.top > 0 && self.words[self.top - 1] == 0 {
                self.top -= 1;
            }
        }
    }

    /// The members, as words (bit `i % 64` of word `i / 64`).
    #[cfg(test)]
    pub(crate) fn words(&self) -> &[u64] {
        &self.words
    }

    /// The members in short form: the number of leading full words, and
    /// the words after them up to the last non-empty one. Two sets of the
    /// same capacity are equal iff their short forms are.
    pub(crate) fn compact(&self) -> (usize, &[u64]) {
        (self.full, &self.words[self.full..self.top])
    }

    /// A hash of the members, independent of insertion order.
    pub(crate) fn hash(&self) -> u64 {
        self.hash
    }
}

/// One SplitMix64 step (Steele, Lea & Flood, 2014).
pub(crate) fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_depends_on_the_members_not_the_order_they_came_in() {
        let (mut a, mut b) = (Bitset::new(130), Bitset::new(130));
        for m in [0, 64, 129] {
            a.insert(m);
        }
        for m in [129, 0, 5, 64] {
            b.insert(m);
        }
        b.remove(5);
        assert_eq!(a.words(), b.words());
        assert_eq!(a.hash(), b.hash());
        b.remove(0);
        assert_ne!(a.hash(), b.hash());
        assert_eq!(b.words(), &[0, 1, 2]);
    }

    #[test]
    fn the_short_form_skips_full_leading_words_and_empty_trailing_ones() {
        let mut set = Bitset::new(300);
        assert_eq!(set.compact(), (0, &[][..]));
        for m in 0..130 {
            set.insert(m);
        }
        assert_eq!(set.compact(), (2, &[0b11][..]));
        set.insert(200);
        assert_eq!(set.compact(), (2, &[0b11, 1 << 8][..]));
        set.remove(200);
        set.remove(3);
        assert_eq!(set.compact(), (0, &[!0b1000, u64::MAX, 0b11][..]));
        for m in 0..130 {
            set.remove(m);
        }
        assert_eq!(set.compact(), (0, &[][..]));
        let mut all = Bitset::new(128);
        for m in (0..128).rev() {
            all.insert(m);
        }
        assert_eq!(all.compact(), (2, &[][..]));
    }

    #[test]
    fn inserting_twice_or_removing_an_absent_member_changes_nothing() {
        let mut set = Bitset::new(3);
        set.insert(1);
        let hash = set.hash();
        set.insert(1);
        set.remove(2);
        assert_eq!(set.hash(), hash);
        assert_eq!(set.words(), &[2]);
    }
}
