//! The set of operations linearized so far, with its short form kept up
//! to date.

/// A fixed-size bitset over a partition's operations.
///
/// Members `0..split` are the operations with a return event, earliest
/// return first; members `split..` are
/// those that never returned. The two kinds live in two word-aligned
/// **zones**, because they fill up differently: the search linearizes
/// returned operations roughly in order, so zone A is nearly always "all
/// words up to some point, a few bits after"; operations that never
/// returned stay candidates to the end, and any of them may be placed at
/// any depth, so zone B has a few scattered bits.
///
/// Besides the words it keeps, updated in O(1) (amortised) on every insert
/// and removal, how many leading words of zone A are full, and where the
/// last non-empty word of each zone is. The cache stores (and hashes) the
/// set in that short form ([`Bitset::short_form`]) — the count of full
/// words and the words after them up to the last non-empty one, in each
/// zone — so its memory and its hashing do not grow with history length ×
/// configurations, and an operation that never returned placed early does
/// not stretch the stored form over the whole history.
#[derive(Debug, Clone)]
pub(crate) struct Bitset {
    words: Vec<u64>,
    /// How many members the set has.
    len: usize,
    /// Members below `split` are in zone A, the others in zone B.
    split: usize,
    /// The first word of zone B.
    zone_b: usize,
    /// `words[..full]` are all ones; `full <= zone_b`.
    full: usize,
    /// `words[top_a..zone_b]` are all zeros; `full <= top_a <= zone_b`.
    top_a: usize,
    /// `words[top_b..]` are all zeros; `zone_b <= top_b`.
    top_b: usize,
}

/// A set in short form: `full` leading full words, then the words of zone
/// A up to its last non-empty one, then those of zone B likewise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ShortForm<'a> {
    /// Leading full words of zone A.
    pub(crate) full: usize,
    /// Zone A's words after them, up to its last non-empty word.
    pub(crate) zone_a: &'a [u64],
    /// Zone B's words up to its last non-empty word.
    pub(crate) zone_b: &'a [u64],
}

impl Bitset {
    /// An empty set able to hold members `0..len`, of which `split..len`
    /// go to zone B.
    pub(crate) fn new(len: usize, split: usize) -> Self {
        let split = split.min(len);
        let zone_b = split.div_ceil(64);
        let words = zone_b + (len - split).div_ceil(64);
        Bitset {
            words: vec![0; words],
            len: 0,
            split,
            zone_b,
            full: 0,
            top_a: 0,
            top_b: zone_b,
        }
    }

    /// The word and bit of `member`.
    #[inline]
    fn place(&self, member: usize) -> (usize, u64) {
        let bit = if member < self.split {
            member
        } else {
            self.zone_b * 64 + (member - self.split)
        };
        (bit / 64, 1u64 << (bit % 64))
    }

    /// Adds `member`; a no-op if it is already in.
    #[inline]
    pub(crate) fn insert(&mut self, member: usize) {
        let (word, bit) = self.place(member);
        if self.words[word] & bit != 0 {
            return;
        }
        self.words[word] |= bit;
        self.len += 1;
        if word < self.zone_b {
            self.top_a = self.top_a.max(word + 1);
            while self.full < self.zone_b && self.words[self.full] == u64::MAX {
                self.full += 1;
            }
        } else {
            self.top_b = self.top_b.max(word + 1);
        }
    }

    /// Removes `member`; a no-op if it is not in.
    #[inline]
    pub(crate) fn remove(&mut self, member: usize) {
        let (word, bit) = self.place(member);
        if self.words[word] & bit == 0 {
            return;
        }
        self.words[word] &= !bit;
        self.len -= 1;
        if word < self.zone_b {
            self.full = self.full.min(word);
            while self.top_a > self.full && self.words[self.top_a - 1] == 0 {
                self.top_a -= 1;
            }
        } else {
            while self.top_b > self.zone_b && self.words[self.top_b - 1] == 0 {
                self.top_b -= 1;
            }
        }
    }

    /// The members, as words, zone A then zone B.
    #[cfg(test)]
    pub(crate) fn words(&self) -> &[u64] {
        &self.words
    }

    /// The set in short form. Two sets of the same capacity and split are
    /// equal iff their short forms are.
    #[inline]
    pub(crate) fn short_form(&self) -> ShortForm<'_> {
        ShortForm {
            full: self.full,
            zone_a: &self.words[self.full..self.top_a],
            zone_b: &self.words[self.zone_b..self.top_b],
        }
    }

    /// How many members the set has.
    pub(crate) fn len(&self) -> usize {
        self.len
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
    fn the_words_depend_on_the_members_not_the_order_they_came_in() {
        let (mut a, mut b) = (Bitset::new(130, 130), Bitset::new(130, 130));
        for m in [0, 64, 129] {
            a.insert(m);
        }
        for m in [129, 0, 5, 64] {
            b.insert(m);
        }
        b.remove(5);
        assert_eq!(a.words(), b.words());
        assert_eq!(a.short_form(), b.short_form());
        b.remove(0);
        assert_ne!(a.short_form(), b.short_form());
        assert_eq!(b.words(), &[0, 1, 2]);
    }

    #[test]
    fn the_short_form_skips_full_leading_words_and_empty_trailing_ones() {
        let mut set = Bitset::new(300, 300);
        let form = |set: &Bitset| {
            let f = set.short_form();
            (f.full, f.zone_a.to_vec())
        };
        assert_eq!(form(&set), (0, vec![]));
        for m in 0..130 {
            set.insert(m);
        }
        assert_eq!(form(&set), (2, vec![0b11]));
        set.insert(200);
        assert_eq!(form(&set), (2, vec![0b11, 1 << 8]));
        set.remove(200);
        set.remove(3);
        assert_eq!(form(&set), (0, vec![!0b1000, u64::MAX, 0b11]));
        for m in 0..130 {
            set.remove(m);
        }
        assert_eq!(form(&set), (0, vec![]));
        let mut all = Bitset::new(128, 128);
        for m in (0..128).rev() {
            all.insert(m);
        }
        assert_eq!(form(&all), (2, vec![]));
    }

    #[test]
    fn members_that_never_returned_are_kept_in_their_own_zone() {
        // 70 returned operations (two words, the second partial), 3 that
        // never returned.
        let mut set = Bitset::new(73, 70);
        assert_eq!(set.words().len(), 3);
        set.insert(72);
        let form = set.short_form();
        assert_eq!(
            (form.full, form.zone_a, form.zone_b),
            (0, &[][..], &[0b100][..])
        );
        for m in 0..70 {
            set.insert(m);
        }
        // The partial last word of zone A is never full.
        let form = set.short_form();
        assert_eq!(form.full, 1);
        assert_eq!(form.zone_a, &[(1 << 6) - 1]);
        set.remove(72);
        assert_eq!(set.short_form().zone_b, &[] as &[u64]);
        set.remove(0);
        assert_eq!(set.short_form().full, 0);
        assert_eq!(set.short_form().zone_a.len(), 2);
    }

    #[test]
    fn inserting_twice_or_removing_an_absent_member_changes_nothing() {
        let mut set = Bitset::new(3, 3);
        set.insert(1);
        set.insert(1);
        set.remove(2);
        assert_eq!(set.len(), 1);
        assert_eq!(set.words(), &[2]);
    }
}
