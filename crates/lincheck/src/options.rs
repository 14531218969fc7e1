//! What a check may spend, and what it reports beyond the verdict.

use std::time::Duration;

/// Limits on the search, and whether to keep a witness.
///
/// The default — 10 million steps per partition, no memory or time limit,
/// no witness — makes a verdict a function of the history alone: the same
/// on every machine, at any load. A memory limit keeps that property (the
/// checker counts the bytes it holds, it does not ask the system). A time
/// limit does not: with one set, a slow machine may answer `Unknown` where
/// a fast one finds the answer, so use it for interactive tools, not for
/// pinned verdicts.
///
/// ```
/// use std::time::Duration;
/// use lincheck::CheckOptions;
///
/// let options = CheckOptions::default()
///     .with_max_steps(1_000_000)
///     .with_max_memory(256 << 20)
///     .with_max_time(Duration::from_secs(10))
///     .with_witness(true);
/// assert_eq!(options.max_memory, Some(256 << 20));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckOptions {
    /// The most model steps (attempts to linearize one operation) spent on
    /// one partition before it gives up as
    /// [`Verdict::Unknown`](crate::Verdict::Unknown). Default: 10 million.
    pub max_steps: u64,
    /// The most bytes one partition's search may hold (its cache of
    /// visited configurations, its model states, its stack), as the
    /// checker counts them. Default: no limit.
    pub max_memory: Option<u64>,
    /// The most wall-clock time the whole check may take; partitions still
    /// searching then give up. Default: no limit (see above for why).
    pub max_time: Option<Duration>,
    /// Whether a linearizable partition reports its linearization order
    /// ([`PartitionReport::witness`](crate::PartitionReport::witness)).
    /// Default: no.
    pub witness: bool,
}

impl CheckOptions {
    /// The default step budget per partition.
    pub const DEFAULT_MAX_STEPS: u64 = 10_000_000;

    /// These options with a different step budget per partition.
    pub fn with_max_steps(self, max_steps: u64) -> Self {
        CheckOptions { max_steps, ..self }
    }

    /// These options with a memory budget of `bytes` per partition.
    pub fn with_max_memory(self, bytes: u64) -> Self {
        CheckOptions {
            max_memory: Some(bytes),
            ..self
        }
    }

    /// These options with a time budget for the whole check.
    pub fn with_max_time(self, time: Duration) -> Self {
        CheckOptions {
            max_time: Some(time),
            ..self
        }
    }

    /// These options asking (or not) for each linearizable partition's
    /// linearization order.
    pub fn with_witness(self, witness: bool) -> Self {
        CheckOptions { witness, ..self }
    }
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            max_steps: Self::DEFAULT_MAX_STEPS,
            max_memory: None,
            max_time: None,
            witness: false,
        }
    }
}
