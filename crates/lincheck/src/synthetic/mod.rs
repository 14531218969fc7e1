//! Generated histories, for benchmarks and tests.
//!
//! Every generator simulates closed-loop clients against a real object:
//! each client calls, waits for its answer, thinks, and calls again, so the
//! operations of different clients overlap in time. Each operation takes
//! effect at a random tick inside its interval (or, for one that timed
//! out, at some later tick or never), and the answers are what the object
//! said at that moment — so a generated history is linearizable by
//! construction (the effect ticks are a witness) unless it is corrupted on
//! purpose.
//!
//! | generator | history | used by |
//! |---|---|---|
//! | [`synthetic_history`] | key/value puts and gets, every operation returns | `cargo xtask bench` workload `lincheck` |
//! | [`register_history`] | one compare-and-set register, Jepsen-shaped: workers, timed-out writes | workload `lincheck-hard` |
//! | [`partitions_history`] | many keys, one expensive key and one stale read | workload `lincheck-partitions` |
//!
//! The generators use their own SplitMix64, written out, so the history
//! for a seed never changes.

mod kv;
mod partitions;
mod register;

pub use kv::synthetic_history;
pub use partitions::{PartitionsShape, partitions_history};
pub use register::{CasRegister, RegisterInput, RegisterOutput, RegisterShape, register_history};
