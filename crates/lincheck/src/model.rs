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
/// use lincheck::{Model, Next};
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
///     fn step(&self, count: &u64, input: &CounterOp, output: Option<&u64>) -> Next<u64> {
///         match (input, output) {
///             (CounterOp::Inc, _) => Next::To(count + 1),
///             (CounterOp::Read, Some(seen)) if seen == count => Next::Unchanged,
///             (CounterOp::Read, Some(_)) => Next::Illegal,
///             (CounterOp::Read, None) => Next::Unchanged,
///         }
///     }
///
///     // Reads never change the count: a promise that speeds up the search.
///     fn is_read_only(&self, input: &CounterOp, _output: Option<&u64>) -> bool {
///         matches!(input, CounterOp::Read)
///     }
/// }
///
/// assert_eq!(Counter.step(&2, &CounterOp::Read, Some(&3)), Next::Illegal);
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

    /// What applying `input` in `state` and answering `output` does.
    ///
    /// - [`Next::Illegal`]: the operation cannot take effect in `state`
    ///   with that answer (for a register: a read that returns anything
    ///   but the current value).
    /// - [`Next::Unchanged`]: it takes effect and leaves the state as it
    ///   is (a read that fits, a failed compare-and-set) — nothing is
    ///   cloned.
    /// - [`Next::To`]: it takes effect and the state becomes that one.
    /// - [`Next::AnyOf`]: the model is nondeterministic; the checker tries
    ///   each state in the order given.
    ///
    /// Only [`Next::AnyOf`] allocates, so a deterministic model costs no
    /// heap allocation per step.
    ///
    /// `output: None` means the answer is unknown: the client never saw a
    /// reply (a timeout, a crash), whether or not a return tick was
    /// recorded. The model says what the operation may have done anyway —
    /// a write still writes, a read constrains nothing. The checker
    /// separately allows an operation that never returned to take effect
    /// at any time after its call, or never.
    ///
    /// The checker calls `step` only with states it got from `init` and
    /// `step`, and expects the same answer for the same arguments.
    fn step(
        &self,
        state: &Self::State,
        input: &Self::Input,
        output: Option<&Self::Output>,
    ) -> Next<Self::State>;

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

    /// Whether an operation with this input and this answer never changes
    /// the state: in every state, [`step`](Model::step) with these
    /// arguments is [`Next::Illegal`], [`Next::Unchanged`], or leads back
    /// to the same state (a read; a compare-and-set answered "failed").
    ///
    /// The answer is a promise the checker relies on, and it makes the
    /// search much faster:
    ///
    /// - a read-only operation whose answer is unknown (`output: None`) is
    ///   dropped before the search — it constrains nothing: if it took
    ///   effect it changed nothing and could have answered anything. (So
    ///   `step` must accept it in every state.)
    /// - a read-only operation that fits the current state is placed
    ///   without trying the alternatives (placing it now loses no order),
    ///   and read-only operations are tried first.
    ///
    /// `false`, the default, is always correct, only slower. `true` for an
    /// operation that can change the state (even one that sometimes
    /// leaves it as it is, like writing the current value, or a
    /// compare-and-set whose answer is unknown) makes verdicts wrong.
    fn is_read_only(&self, input: &Self::Input, output: Option<&Self::Output>) -> bool {
        let _ = (input, output);
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

/// What an operation does in a state: the answer of [`Model::step`].
///
/// A small inline value rather than a collection, so that a deterministic
/// model — the common case — never allocates on the checker's hot path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Next<S> {
    /// The operation cannot take effect in this state with this answer.
    Illegal,
    /// It takes effect and leaves the state as it is.
    Unchanged,
    /// It takes effect and the state becomes this one.
    To(S),
    /// It takes effect and the state becomes any one of these, tried in
    /// this order (a nondeterministic model). An empty vector is
    /// [`Next::Illegal`].
    AnyOf(Vec<S>),
}

impl<S: Clone> Next<S> {
    /// The states the object may be in afterwards, from `current`: empty
    /// if illegal. Allocates; for tests and explanations, not for the
    /// search.
    ///
    /// ```
    /// use lincheck::Next;
    ///
    /// assert_eq!(Next::Unchanged.into_states(&3), vec![3]);
    /// assert_eq!(Next::To(4).into_states(&3), vec![4]);
    /// assert_eq!(Next::<u64>::Illegal.into_states(&3), Vec::<u64>::new());
    /// ```
    pub fn into_states(self, current: &S) -> Vec<S> {
        match self {
            Next::Illegal => Vec::new(),
            Next::Unchanged => vec![current.clone()],
            Next::To(state) => vec![state],
            Next::AnyOf(states) => states,
        }
    }
}
