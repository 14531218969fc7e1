//! The sequential specification a history is checked against.

use std::borrow::Cow;
use std::fmt::Debug;
use std::hash::Hash;

/// A sequential specification: what a single, atomic copy of the object
/// would do.
///
/// A history is linearizable with respect to a model if its operations can
/// be put in one order that (a) respects real time — an operation that
/// returned before another was called comes first — and (b) is accepted by
/// [`step`](Model::step) from [`init`](Model::init) onwards.
///
/// The checker treats states as opaque values it clones, hashes and
/// compares, so keep them small (a register holds one value, not a log).
///
/// ```
/// use lincheck::Model;
///
/// /// A counter with `inc` (returns nothing) and `read` (returns the count).
/// struct Counter;
///
/// #[derive(Debug)]
/// enum CounterOp { Inc, Read }
///
/// impl Model for Counter {
///     type State = u64;
///     type Input = CounterOp;
///     type Output = u64;
///
///     fn init(&self) -> u64 { 0 }
///
///     fn step(&self, count: &u64, input: &CounterOp, output: Option<&u64>) -> Vec<u64> {
///         match (input, output) {
///             (CounterOp::Inc, _) => vec![count + 1],
///             (CounterOp::Read, Some(seen)) if seen == count => vec![*count],
///             (CounterOp::Read, Some(_)) => vec![],
///             (CounterOp::Read, None) => vec![*count],
///         }
///     }
///
///     // Reads never change the count: a promise that speeds up the search.
///     fn is_read_only(&self, input: &CounterOp) -> bool {
///         matches!(input, CounterOp::Read)
///     }
/// }
///
/// assert_eq!(Counter.step(&2, &CounterOp::Read, Some(&3)), Vec::<u64>::new());
///
/// // Two concurrent increments, then a read of 2: linearizable.
/// use lincheck::{check, CheckOptions, Operation};
/// let history = [
///     Operation::completed(1, 0, 0, 5, CounterOp::Inc, 0),
///     Operation::completed(2, 1, 1, 4, CounterOp::Inc, 0),
///     Operation::completed(3, 0, 6, 7, CounterOp::Read, 2),
/// ];
/// assert!(check(&Counter, &history, &CheckOptions::default())?.is_linearizable());
/// # Ok::<(), lincheck::HistoryError>(())
/// ```
pub trait Model {
    /// The state of the object between operations. Cloned when the search
    /// moves forward, hashed into the cache of visited configurations.
    type State: Clone + Eq + Hash + Debug;
    /// What a client asked for (e.g. `put(k, v)`).
    type Input: Debug;
    /// What the client was told (e.g. `ok`, or the value read).
    type Output: Debug;

    /// The state before any operation.
    fn init(&self) -> Self::State;

    /// The states the object may be in after applying `input` in `state`
    /// and answering `output`.
    ///
    /// - An empty vector means the operation cannot take effect in `state`
    ///   with that answer (for a register: a read that returns anything but
    ///   the current value).
    /// - Several states make the model nondeterministic; the checker tries
    ///   each of them, in the order given.
    /// - `output: None` means the outcome is unknown: the client never saw
    ///   a reply (a timeout, a crash). The model says what the operation
    ///   may have done anyway — a write still writes, a read constrains
    ///   nothing. The checker separately allows such an operation to take
    ///   effect at any time after its call, or never.
    ///
    /// The checker calls `step` only with states it got from `init` and
    /// `step`, and expects the same answer for the same arguments.
    fn step(
        &self,
        state: &Self::State,
        input: &Self::Input,
        output: Option<&Self::Output>,
    ) -> Vec<Self::State>;

    /// The partition an operation belongs to, for P-compositionality.
    ///
    /// If the object is a collection of independent parts (a key/value map
    /// is one register per key), a history is linearizable iff each part's
    /// sub-history is; checking parts on their own is exponentially cheaper
    /// than checking the whole. Return the part's name, e.g. the key.
    ///
    /// The default, `None` for every input, checks the history as one
    /// piece. Operations that return `None` form one partition together; a
    /// model must only name parts that really are independent, and its
    /// [`State`](Model::State) then only describes one part.
    fn partition_key<'a>(&self, input: &'a Self::Input) -> Option<Cow<'a, str>> {
        let _ = input;
        None
    }

    /// Whether an operation with this input never changes the state: in
    /// every state, with any output, [`step`](Model::step) returns either
    /// nothing or exactly that state (a read).
    ///
    /// The answer is a promise the checker relies on, and it makes the
    /// search much faster:
    ///
    /// - a read-only operation whose outcome is unknown is dropped before
    ///   the search — it may never have happened, and if it did it changed
    ///   nothing;
    /// - a read-only operation that fits the current state is placed
    ///   without trying the alternatives (placing it now loses no order),
    ///   and read-only operations are tried first.
    ///
    /// `false`, the default, is always correct, only slower. `true` for an
    /// operation that can change the state (even one that sometimes
    /// leaves it as it is, like writing the current value) makes verdicts
    /// wrong.
    fn is_read_only(&self, input: &Self::Input) -> bool {
        let _ = input;
        false
    }

    /// A one-line, human-readable form of an operation for explanations.
    /// `output: None` means the outcome is unknown. Defaults to `Debug`.
    fn describe_operation(&self, input: &Self::Input, output: Option<&Self::Output>) -> String {
        match output {
            Some(output) => format!("{input:?} -> {output:?}"),
            None => format!("{input:?} -> ? (outcome unknown)"),
        }
    }

    /// A short, human-readable form of a state for explanations. Defaults
    /// to `Debug`.
    fn describe_state(&self, state: &Self::State) -> String {
        format!("{state:?}")
    }
}
