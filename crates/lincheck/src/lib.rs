//! # lincheck — a linearizability checker for recorded histories
//!
//! Give it a history — which client called which operation when, when (or
//! whether) it returned, and what it was told — and a sequential model of
//! the object, and it says whether the history is **linearizable**: whether
//! every operation can be given one instant inside its call–return interval
//! so that, taken in that order, the answers are exactly what a single
//! atomic copy of the object would have given. If not, it explains where
//! every attempt got stuck.
//!
//! It knows nothing about how the history was produced: a simulator, a
//! Jepsen-style test against a real cluster, or a log scraped from
//! production all work, as JSON lines or as [`Operation`] values.
//!
//! ```
//! use lincheck::{check, parse_jsonl, CheckOptions, KvModel, Verdict};
//!
//! // Client 0 writes v1 and is acknowledged at tick 2; client 1 reads the
//! // key at tick 3..4, strictly later, and still finds it absent.
//! let history = parse_jsonl(r#"
//! {"id":1,"client":0,"call":0,"return":2,"op":"put","key":"k","value":"v1"}
//! {"id":2,"client":1,"call":3,"return":4,"op":"get","key":"k","value":null}
//! "#)?;
//! let result = check(&KvModel, &history, &CheckOptions::default())?;
//! let Verdict::Violation(explanation) = &result.verdict else { panic!("a stale read") };
//! assert_eq!(explanation.partition.as_deref(), Some("k"));
//! assert_eq!(explanation.unplaceable.id, 2);
//! assert_eq!(explanation.to_string(), r#"not linearizable: partition "k"
//! longest linearizable prefix: 1 of 2 operations, from initial state absent
//!     1. op 1 (client 0, ticks 0..2): put("k", "v1") -> ok  => "v1"
//! state reached: "v1"
//! cannot place next: op 2 (client 1, ticks 3..4): get("k") -> absent
//!   it returned at tick 4, so it must take effect before anything called after tick 4,
//!   but no order of the operations still pending lets it take effect here"#);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A longer, runnable example that checks a JSON-lines file (or a built-in
//! history) and draws it: `cargo run -p sim-lincheck --example check_jsonl --
//! history.jsonl --html out.html`. A model of your own — a compare-and-set
//! register with timed-out reads, written against this API alone — is
//! `examples/cas_register.rs`.
//!
//! ## The pieces
//!
//! | piece | what it is |
//! |---|---|
//! | [`Model`], [`Next`] | a sequential specification: `init`, `step(state, input, output) → Next` (illegal, unchanged, one state, or any of several), partition key, read-only operations, descriptions |
//! | [`KvModel`], [`KvInput`], [`KvOutput`] | the built-in key/value register model (string keys and values, partitioned by key) |
//! | [`Operation`] | one recorded operation: `id`, `client`, `call`, `ret`, `input`, `output` — answered, returned without an answer, or never returned |
//! | [`check`], [`CheckOptions`] | the checker; its budgets of steps, memory and time; whether to keep a witness |
//! | [`CheckResult`], [`Verdict`], [`PartitionReport`], [`SearchStats`] | the verdict, and per partition how its search ended, what it cost, and a linearization |
//! | [`Explanation`] | a violation in words: partition, longest linearizable prefix, the operation that cannot be placed |
//! | [`html`] | a picture of any history as a self-contained HTML/SVG page: a lane per client, the stuck point of a violation or the linearization points of a success |
//! | [`parse_jsonl`], [`to_jsonl`] | key/value histories as JSON lines |
//! | [`synthetic`] | generated histories (key/value, a Jepsen-shaped compare-and-set register, a many-key one with an expensive key), for benchmarks and tests |
//!
//! ## Time
//!
//! Ticks are integers from whatever clock recorded the history; only their
//! order matters. An operation that returned at tick `t` happened before
//! every operation called at a tick **strictly greater** than `t`.
//! Operations whose intervals merely touch (`a.ret == b.call`) are treated
//! as concurrent: at one tick the recorder could not tell which came first,
//! so the checker is permissive and allows either order. A recorder with a
//! coarse clock therefore never produces a false violation from ties.
//!
//! ## Unknown outcomes
//!
//! A recorded operation may not say everything. Two shapes:
//!
//! - **Never returned** (`ret: None`, [`Operation::unknown`]): the client
//!   never got an answer (a timeout, a crash), and the request may still
//!   be in flight. It may have taken effect at any time after its call —
//!   even long after the client gave up — or never. The checker models
//!   exactly that: the operation has no return event, so nothing forces it
//!   to be linearized before anything else, and the search succeeds once
//!   every operation *with* a return is placed; unknown ones left over
//!   never happened. (Unlike Porcupine, such an operation may also never
//!   take effect at all, even for a model in which it could not be placed
//!   last.)
//! - **Returned without an answer** (`ret: Some`, `output: None`,
//!   [`Operation::unanswered`]): a read that timed out at a known tick, a
//!   reply that was lost. It took effect inside its interval, so it
//!   constrains the real-time order like any other operation, but not the
//!   result.
//!
//! When either is placed, the model's [`step`](Model::step) is called with
//! `output: None` and decides what it did (an unknown put still writes its
//! value). Operations with no answer that cannot matter — read-only ones
//! ([`Model::is_read_only`], which sees the answer: a failed
//! compare-and-set is read-only too), for [`KvModel`] the gets — are
//! dropped up front, since each unknown operation left in multiplies the
//! search.
//!
//! ## The algorithm
//!
//! The search is the one of Wing & Gong (1993) with Lowe's improvements
//! ("Testing for linearizability", 2017), as used by Porcupine and Knossos:
//!
//! 1. The partition's call and return events are sorted by tick (calls
//!    before returns at equal ticks) into a doubly linked list.
//! 2. The candidates for the next place in the order are the operations
//!    called before the first pending return in the list — nothing called
//!    later may come first. The search tries them one at a time: if the
//!    model has a next state and the configuration (set of linearized
//!    operations, state) has not been seen before, the operation's events
//!    are lifted out of the list, the decision is pushed on a stack, and
//!    the search goes on from the shorter list.
//! 3. If no candidate can be placed the search is stuck: the operation of
//!    that first pending return had to be placed before anything called
//!    later, and nothing placed it. It pops the last decision (trying the
//!    model's other next states first, for nondeterministic models), puts
//!    the events back, and tries the next candidate of that level.
//! 4. Success is no pending return left (operations with unknown outcomes
//!    still in the list never took effect); failure is being stuck with
//!    nothing left to undo.
//!
//! The cache of visited configurations (set of linearized operations,
//! state) is what keeps this from being factorial: two orders that reach
//! the same set and state share one future. A step is cheap:
//!
//! - [`Model::step`] returns a small [`Next`], so a deterministic model
//!   allocates nothing per step, and a state that leaves the object as it
//!   is ([`Next::Unchanged`]) is not even cloned;
//! - model states are interned: the stack, the cache and the explanation's
//!   record hold 32-bit ids, so a state is cloned once per distinct value;
//! - the set of linearized operations is a bitset kept in two word-aligned
//!   zones (operations that returned, those that never did) and cached in
//!   a short form — full leading words counted, not stored, then each zone
//!   up to its last non-empty word — which nearly always fits inline in a
//!   32-byte slot of an open-addressing table, hashed from those few words
//!   to pick the slot and compared exactly there;
//! - one slot holds a set with every state it was reached in (among the
//!   first 32 state ids, a bit each), so the two or three states a
//!   register's set is reached in cost one slot and one cache line; a
//!   later state gets a slot of its own, hashed with its id, so the
//!   thousands of states one set of appends is reached in spread out;
//! - there is one such table per set size: a depth-first search moves one
//!   level at a time, so the tables in use stay in the processor's caches;
//! - lifting and undoing are O(1) list operations, and a level's window is
//!   the previous level's, minus the operation placed, unless that
//!   operation was the one whose return ended it.
//!
//! Candidates are tried in call order, as Porcupine walks its list, but
//! read-only ones ([`Model::is_read_only`]) first and those that never
//! returned last; no order changes a verdict. And, beyond Porcupine's
//! walk, a read-only
//! candidate that fits the current state is placed without trying that
//! level's alternatives: any order that places it later can place it now
//! instead, since it changes nothing and everything that must precede it
//! is already placed. For a register this leaves only the order of the
//! writes to search.
//!
//! Every model step counts against [`CheckOptions::max_steps`] (10 million
//! per partition by default); [`CheckOptions::max_memory`] bounds the bytes
//! one partition's search holds, as the checker counts them, and
//! [`CheckOptions::max_time`] the whole check's wall-clock time. A
//! partition that exhausts a budget makes the verdict [`Verdict::Unknown`]
//! rather than hanging — linearizability checking is NP-complete in
//! general, and histories with many long-overlapping or unknown operations
//! can be genuinely hard. Steps and memory are counted, not measured, so a
//! verdict under them is the same on any machine; a time budget is an
//! option for interactive use, never the default. As a guide, on generated
//! register histories ([`synthetic`]) 10,000 operations by 5 clients over
//! 10 keys check in a few milliseconds; with all of them on one key the
//! cost grows steeply with how many operations overlap — about a second
//! for 15 clients, and 20 clients exhaust the default budget.
//!
//! ## Statistics and a witness
//!
//! [`CheckResult::partitions`] reports, for every partition, how its search
//! ended ([`PartitionOutcome`]) and what it cost ([`SearchStats`]: steps,
//! cache hits, configurations, model states, memory). With
//! [`CheckOptions::witness`], a linearizable partition also gives one
//! linearization order ([`PartitionReport::witness`]), which
//! [`html::history_page`] draws as numbered linearization points.
//!
//! ## P-compositionality
//!
//! Linearizability is *local* (Herlihy & Wing): a history of a map of
//! independent registers is linearizable iff each register's sub-history
//! is. [`Model::partition_key`] names the part an operation touches, and
//! [`check`] searches each partition on its own. Splitting 10,000
//! operations over 10 keys turns one hard search into ten easy ones.
//!
//! Partitions are searched side by side, in rounds of [`SLICE_STEPS`]
//! steps each, in key order, and the check stops after the first round
//! that refutes one: a key refuted in a few thousand steps is reported in
//! milliseconds even next to a key whose search would exhaust the budget.
//! The partition reported is the first in key order refuted in that
//! round, so it, and every statistic, depend only on the history.
//!
//! ## JSON lines
//!
//! One object per line ([`parse_jsonl`] has the details):
//!
//! ```text
//! {"id":1,"client":0,"call":3,"return":7,"op":"put","key":"k","value":"v1"}
//! {"id":2,"client":1,"call":4,"return":9,"op":"get","key":"k","value":"v1"}
//! {"id":3,"client":1,"call":10,"return":12,"op":"get","key":"x","value":null}
//! {"id":4,"client":2,"call":5,"return":null,"op":"put","key":"k","value":"v2"}
//! {"id":5,"client":1,"call":13,"return":15,"outcome":"unknown","op":"get","key":"k"}
//! ```
//!
//! A get's `value` is what it returned (`null` = the key was absent). A
//! `"return": null` marks an operation that never returned, `"outcome":
//! "unknown"` one that returned without an answer: a put's `value` is what
//! it tried to write, a get's is ignored. Errors name the line.
//!
//! ## What it mirrors, simplifies, omits
//!
//! - **Mirrors** Porcupine's checker (linked-list search, cache keyed by
//!   bitset and state, P-compositional partitions, unknown outcomes as
//!   operations that may complete at any later time, a picture of every
//!   partition with its partial linearization) and the Knossos / Jepsen
//!   treatment of indeterminate operations. Unlike Porcupine, an unknown
//!   operation may also never take effect, even for a model in which it
//!   could not be placed last.
//! - **Simplifies** explanations to the single longest linearizable prefix
//!   and the operation that blocked it, rather than every partial
//!   linearization; time to integer ticks; and the picture to static SVG
//!   (the partition is chosen by opening its section, details appear on
//!   hover) rather than an interactive page.
//! - **Omits** searching partitions on several threads (they are
//!   interleaved on one, deterministically) and weaker consistency models
//!   (sequential consistency, serializability).

mod bitset;
mod cache;
mod check;
mod entries;
mod explain;
mod fxhash;
mod history;
pub mod html;
mod jsonl;
mod kv;
mod model;
mod options;
mod prefix;
mod result;
mod search;
mod states;
pub mod synthetic;

pub use check::{SLICE_STEPS, check};
pub use explain::{Explanation, OpSummary, PrefixStep};
pub use history::{HistoryError, Operation};
pub use jsonl::{ParseError, parse_jsonl, to_jsonl};
pub use kv::{KvInput, KvModel, KvOutput};
pub use model::{Model, Next};
pub use options::CheckOptions;
pub use result::{CheckResult, Limit, PartitionOutcome, PartitionReport, SearchStats, Verdict};

/// The README's example, compiled and run as a doctest so it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
