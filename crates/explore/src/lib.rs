//! # explore — every guarantee checked over thousands of fault schedules
//!
//! The matrix answers each question with one scripted run; this crate asks
//! it in general. For a [`Configuration`] (protocol × ack level × read
//! level × setting, with a factory from seed to a fresh
//! [`ReplicationGroup`](replication::ReplicationGroup)) it generates seeded
//! [`Schedule`]s — C concurrent clients writing and reading a few keys with
//! think times, interleaved with a nemesis that isolates and heals nodes,
//! cuts one-way links, crashes nodes (process crash or power loss),
//! restarts them, fsyncs, marks replicas slow and fails over (and, for a
//! protocol that elects its own leaders, strikes: awaits the next leader
//! and isolates or crashes it at once, a few ticks later or just after its
//! next commit, then heals the longest-isolated node if a majority is cut
//! off — a rolling partition; see [`FaultKind::Strike`]) — runs each on
//! a fresh group, then heals everything, restarts every node, quiesces and
//! reads every key at the strongest level the protocol offers. Five
//! properties are checked on every run:
//!
//! 1. **durable** — every write acknowledged at the configuration's level is
//!    in the final reads, or superseded by a write not ordered before it;
//! 2. **linearizable** — the whole history, checked by [`lincheck`];
//! 3. **invariants** — the protocol's own checker
//!    ([`check_invariants`](replication::ReplicationGroup::check_invariants))
//!    after every step and tick;
//! 4. **recovers** — the healed group goes quiet, serves the strongest
//!    write and read, converges on them, answers lease reads at its leader
//!    alone, keeps the steady state it states for the network (idle
//!    chatter, write and read latency, a rejoining follower), and makes a
//!    named follower lead when asked — unless it states why it cannot;
//! 5. **available** — while the faults in force are ones the protocol
//!    tolerates, operations at the leader complete; each run ends with one
//!    such fault on purpose (a follower crashed, the bound waited out).
//!
//! A violated property is [shrunk](shrink) by delta debugging over the
//! schedule's steps to a minimal schedule that still violates it, named by
//! a stable [`ReplayId`]. The same seed gives the same schedule and the
//! same verdict, whatever the number of threads.
//!
//! ## What it mirrors, simplifies, omits
//!
//! - **Mirrors** Jepsen's shape (clients + nemesis + checker over a
//!   recorded history) and QuickCheck-style shrinking, on a deterministic
//!   simulator where a failing run replays exactly.
//! - **Simplifies** clients: each has at most one operation in flight, and
//!   a step for a busy client is skipped; a client never retries.
//! - **Omits** crash-recovery of clients, multi-key transactions and
//!   corrupted messages (the networks drop, duplicate, reorder and stall
//!   them, by the protocol's transport, but never alter one).
//!
//! A runnable example: `cargo run -p sim-explore --example explore_one`.

#[cfg(test)]
mod altered;
mod check;
mod command;
mod config;
mod converges;
pub mod debugger;
mod end_memo;
pub mod exhaustive;
mod history;
mod lease;
mod literals;
mod minority;
pub mod model;
mod panics;
mod probe;
mod profile;
mod property;
mod registers;
mod replay;
mod run;
mod schedule;
pub mod shrink;
mod steady;
mod step_codes;
mod sweep;
pub mod table;
#[cfg(test)]
mod test_configs;

pub use check::lincheck_history;
pub use command::{command, set_command};
pub use config::{Build, Configuration, Factory, read_snake};
pub use history::{HistoryOp, OpKind};
pub use panics::{catch as catch_panic, panics_caught};
pub use profile::{AIMED_PROTOCOLS, FaultKind, Profile};
pub use property::{Check, Property, Status};
pub use replay::{ReplayId, parse_knob};
pub use run::{RunOptions, RunReport, run_schedule};
pub use schedule::{NodeRef, Schedule, Step};
pub use sweep::{
    Counterexample, SHRUNK_PER_PROPERTY, SweepOptions, Verdict, best_counterexample, replay,
    schedule_of, sweep,
};

/// The README's example, compiled and run as a doctest so it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
