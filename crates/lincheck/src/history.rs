//! Recorded operations and the rules a history must follow.

use std::collections::HashSet;

/// One operation of a recorded history: who called what, when, and what
/// they were told.
///
/// Time is integer ticks of whatever clock recorded the history (a
/// simulator tick, a monotonic nanosecond counter). Only the order of
/// ticks matters:
///
/// - an operation that returned at tick `t` happened before every
///   operation called at a tick **strictly greater** than `t`;
/// - operations whose intervals touch (`a.ret == b.call`) are concurrent:
///   at one tick the recorder could not tell which came first, so the
///   checker lets them take effect in either order.
///
/// What is known of the outcome comes in three shapes:
///
/// | `ret` | `output` | meaning | constructor |
/// |---|---|---|---|
/// | `Some` | `Some` | returned with this answer | [`completed`](Operation::completed) |
/// | `Some` | `None` | returned, but its answer is unknown (a read that timed out at a known time): it took effect inside its interval, with whatever answer the model allows | [`unanswered`](Operation::unanswered) |
/// | `None` | `None` | never returned (the client timed out or crashed and the request may still be in flight): it may have taken effect at any time after its call, or never | [`unknown`](Operation::unknown) |
///
/// An output without a return tick is an error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operation<I, O> {
    /// Identifies the operation in explanations; unique within a history.
    pub id: u64,
    /// The client that issued it. Informational: the checker does not
    /// assume a client's operations are sequential, the ticks say so.
    pub client: u64,
    /// The tick at which it was invoked.
    pub call: u64,
    /// The tick at which it returned, `None` if it never did.
    pub ret: Option<u64>,
    /// What was asked.
    pub input: I,
    /// What was answered, `None` if it is unknown (always when `ret` is
    /// `None`).
    pub output: Option<O>,
}

impl<I, O> Operation<I, O> {
    /// An operation that was called at `call`, returned at `ret` and
    /// answered `output`.
    pub fn completed(id: u64, client: u64, call: u64, ret: u64, input: I, output: O) -> Self {
        Operation {
            id,
            client,
            call,
            ret: Some(ret),
            input,
            output: Some(output),
        }
    }

    /// An operation that was called at `call` and returned at `ret`, but
    /// whose answer is unknown — a read that timed out, a reply that was
    /// lost. It took effect somewhere inside its interval (it constrains
    /// the real-time order like any other) and the model decides what it
    /// may have answered ([`Model::step`](crate::Model::step) with
    /// `output: None`).
    pub fn unanswered(id: u64, client: u64, call: u64, ret: u64, input: I) -> Self {
        Operation {
            id,
            client,
            call,
            ret: Some(ret),
            input,
            output: None,
        }
    }

    /// An operation that was called at `call` and never returned: it may
    /// have taken effect at any later time, or never.
    pub fn unknown(id: u64, client: u64, call: u64, input: I) -> Self {
        Operation {
            id,
            client,
            call,
            ret: None,
            input,
            output: None,
        }
    }

    /// Whether the client never learned the answer (it never returned, or
    /// returned without one).
    pub fn is_unknown(&self) -> bool {
        self.output.is_none()
    }

    /// Whether the operation never returned.
    pub fn never_returned(&self) -> bool {
        self.ret.is_none()
    }
}

/// A history that breaks the rules of [`Operation`]; each variant names
/// the operation at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HistoryError {
    /// Two operations share an id, so explanations would be ambiguous.
    #[error("operation id {id} appears more than once")]
    DuplicateId {
        /// The repeated id.
        id: u64,
    },
    /// An operation returned before it was called.
    #[error("operation {id} returns at tick {ret}, before its call at tick {call}")]
    ReturnBeforeCall {
        /// The operation.
        id: u64,
        /// Its call tick.
        call: u64,
        /// Its return tick, smaller than `call`.
        ret: u64,
    },
    /// An operation has an output but no return tick.
    #[error(
        "operation {id} has an output but no return tick (an operation that never returned \
         has no answer)"
    )]
    OutputWithoutReturn {
        /// The operation.
        id: u64,
    },
}

/// Checks every rule of [`Operation`] over a whole history.
pub(crate) fn validate<I, O>(history: &[Operation<I, O>]) -> Result<(), HistoryError> {
    let mut ids = HashSet::with_capacity(history.len());
    for op in history {
        if !ids.insert(op.id) {
            return Err(HistoryError::DuplicateId { id: op.id });
        }
        validate_one(op)?;
    }
    Ok(())
}

/// Checks the rules that concern one operation alone.
pub(crate) fn validate_one<I, O>(op: &Operation<I, O>) -> Result<(), HistoryError> {
    match (op.ret, &op.output) {
        (Some(ret), _) if ret < op.call => Err(HistoryError::ReturnBeforeCall {
            id: op.id,
            call: op.call,
            ret,
        }),
        (None, Some(_)) => Err(HistoryError::OutputWithoutReturn { id: op.id }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_history_with_a_repeated_id_is_refused_naming_the_id() {
        let history = vec![
            Operation::completed(7, 0, 0, 1, (), ()),
            Operation::completed(7, 1, 2, 3, (), ()),
        ];
        assert_eq!(validate(&history), Err(HistoryError::DuplicateId { id: 7 }));
    }

    #[test]
    fn an_operation_returning_before_its_call_is_refused() {
        let history = vec![Operation::completed(1, 0, 5, 4, (), ())];
        assert_eq!(
            validate(&history),
            Err(HistoryError::ReturnBeforeCall {
                id: 1,
                call: 5,
                ret: 4
            })
        );
    }

    #[test]
    fn an_output_needs_a_return_tick_but_a_return_tick_needs_no_output() {
        let mut op: Operation<(), ()> = Operation::unknown(3, 0, 1, ());
        op.output = Some(());
        assert_eq!(
            validate(&[op]),
            Err(HistoryError::OutputWithoutReturn { id: 3 })
        );
        let unanswered: Operation<(), ()> = Operation::unanswered(3, 0, 1, 2, ());
        assert!(unanswered.is_unknown() && !unanswered.never_returned());
        assert_eq!(validate(&[unanswered]), Ok(()));
    }

    #[test]
    fn an_unanswered_operation_returning_before_its_call_is_refused() {
        let op: Operation<(), ()> = Operation::unanswered(4, 0, 5, 4, ());
        assert_eq!(
            validate(&[op]),
            Err(HistoryError::ReturnBeforeCall {
                id: 4,
                call: 5,
                ret: 4
            })
        );
    }

    #[test]
    fn an_instantaneous_operation_is_valid() {
        assert_eq!(
            validate(&[Operation::completed(1, 0, 4, 4, (), ())]),
            Ok(())
        );
    }
}
