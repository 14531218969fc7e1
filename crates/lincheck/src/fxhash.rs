//! A small, fast, deterministic hasher for model states.

use std::hash::{Hash, Hasher};

/// The multiplier of rustc's FxHash (a 64-bit odd constant from the golden
/// ratio family).
const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

/// FxHash, as rustc uses it for its own tables: a rotate, an xor and a
/// multiply per word. It is not resistant to chosen inputs, which does not
/// matter here — states come from the caller's own model — and it is the
/// same on every machine and every run, so nothing depends on a random
/// seed.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct FxHasher {
    hash: u64,
}

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            // The length keeps "ab" and "ab\0" apart.
            self.add(u64::from_le_bytes(word) ^ ((rest.len() as u64) << 56));
        }
    }

    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    fn write_u16(&mut self, n: u16) {
        self.add(u64::from(n));
    }

    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        // A final avalanche so that the low bits, which pick a table slot,
        // depend on every input bit.
        let mut z = self.hash;
        z = (z ^ (z >> 33)).wrapping_mul(0xFF51_AFD7_ED55_8CCD);
        z ^ (z >> 33)
    }
}

/// The FxHash of one value.
pub(crate) fn hash_one<T: Hash + ?Sized>(value: &T) -> u64 {
    let mut hasher = FxHasher::default();
    value.hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_values_hash_equal_and_near_values_apart() {
        assert_eq!(hash_one(&Some(3u64)), hash_one(&Some(3u64)));
        assert_ne!(hash_one(&Some(3u64)), hash_one(&Some(4u64)));
        assert_ne!(hash_one(&None::<u64>), hash_one(&Some(0u64)));
        assert_ne!(hash_one("ab"), hash_one("ab\0"));
        assert_ne!(hash_one("abcdefgh"), hash_one("abcdefgi"));
    }

    #[test]
    fn the_hash_of_a_value_never_changes() {
        // Pinned: nothing may make the cache's layout depend on the run.
        assert_eq!(hash_one(&7u64), hash_one(&7u64));
        let pinned = hash_one(&42u64);
        assert_eq!(pinned, {
            let mut h = FxHasher::default();
            h.write_u64(42);
            h.finish()
        });
    }
}
