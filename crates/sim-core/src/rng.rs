//! The one seeded source of randomness.

/// A pinned pseudo-random generator: SplitMix64 (Steele, Lea & Flood, 2014).
///
/// The algorithm is written out here rather than taken from a crate so that
/// the sequence produced for a seed can never change under a dependency
/// upgrade: traces pinned by snapshot tests depend on it. Each group owns one
/// `Rng`; nothing else in a simulation draws random numbers.
///
/// ```
/// use sim_core::Rng;
/// let mut a = Rng::new(7);
/// let mut b = Rng::new(7);
/// assert_eq!(a.next_u64(), b.next_u64());
/// assert!((3..=5).contains(&a.range_inclusive(3, 5)));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A generator whose whole output is determined by `seed`.
    pub fn new(seed: u64) -> Self {
        Rng { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform integer in `lo..=hi` (unbiased, by rejection). If `hi < lo`
    /// the bounds are swapped rather than panicking.
    pub fn range_inclusive(&mut self, lo: u64, hi: u64) -> u64 {
        let (lo, hi) = if hi < lo { (hi, lo) } else { (lo, hi) };
        let span = hi - lo;
        if span == u64::MAX {
            return self.next_u64();
        }
        let n = span + 1;
        // Reject the top partial bucket so every value is equally likely:
        // keep `x` when its whole bucket `[x - x % n, x - x % n + n)` fits
        // below `u64::MAX` (one division per draw, not two).
        loop {
            let x = self.next_u64();
            let r = x % n;
            if x - r <= u64::MAX - n {
                return lo + r;
            }
        }
    }

    /// A uniform float in `[0, 1)` built from the top 53 bits.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// `true` with probability `p` (`p <= 0` never, `p >= 1` always; neither
    /// edge draws a number, so a zero rate leaves the sequence untouched).
    pub fn chance(&mut self, p: f64) -> bool {
        if p <= 0.0 || p.is_nan() {
            return false;
        }
        if p >= 1.0 {
            return true;
        }
        self.next_f64() < p
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    /// The textbook rejection zone: keep `x` below the largest multiple
    /// of `n` (two divisions per draw).
    fn reference(rng: &mut Rng, lo: u64, hi: u64) -> u64 {
        let n = hi - lo + 1;
        let zone = u64::MAX - (u64::MAX % n) - 1;
        loop {
            let x = rng.next_u64();
            if x <= zone {
                return lo + x % n;
            }
        }
    }

    #[test]
    fn range_inclusive_draws_what_the_two_division_rejection_draws() {
        // Small spans, and spans so wide that a draw is often rejected.
        let spans = [
            1,
            2,
            3,
            7,
            10,
            64,
            1000,
            1 << 40,
            (1 << 63) + 1,
            u64::MAX - 1,
        ];
        for seed in 0..50 {
            for &span in &spans {
                let (mut a, mut b) = (Rng::new(seed), Rng::new(seed));
                for _ in 0..20 {
                    let lo = if span < 1 << 40 { 5 } else { 0 };
                    assert_eq!(
                        a.range_inclusive(lo, lo + span - 1),
                        reference(&mut b, lo, lo + span - 1),
                        "seed {seed}, span {span}"
                    );
                }
            }
        }
    }
}
