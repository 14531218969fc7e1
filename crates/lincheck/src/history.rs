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
/// `ret` and `output` are `None` together when the outcome is unknown —
/// the client never got an answer (it timed out, or crashed). Such an
/// operation may have taken effect at any time after its call, or never.
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
    /// What was answered, `None` iff `ret` is `None`.
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

    /// Whether the client never learned the outcome.
    pub fn is_unknown(&self) -> bool {
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
    #[error("operation {id} has an output but no return tick (an unknown outcome has neither)")]
    OutputWithoutReturn {
        /// The operation.
        id: u64,
    },
    /// An operation has a return tick but no output.
    #[error(
        "operation {id} has a return tick but no output; if the client never learned the \
         outcome, record it with no return tick, since it may still take effect later"
    )]
    ReturnWithoutOutput {
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
        (Some(ret), Some(_)) if ret < op.call => Err(HistoryError::ReturnBeforeCall {
            id: op.id,
            call: op.call,
            ret,
        }),
        (Some(_), None) => Err(HistoryError::ReturnWithoutOutput { id: op.id }),
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
    fn return_tick_and_output_must_be_known_together() {
        let mut op: Operation<(), ()> = Operation::unknown(3, 0, 1, ());
        op.output = Some(());
        assert_eq!(
            validate(&[op.clone()]),
            Err(HistoryError::OutputWithoutReturn { id: 3 })
        );
        op.output = None;
        op.ret = Some(2);
        assert_eq!(
            validate(&[op]),
            Err(HistoryError::ReturnWithoutOutput { id: 3 })
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
