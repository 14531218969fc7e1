//! The durable and linearizable checks over a recorded history.

use std::collections::BTreeMap;

use lincheck::{CheckOptions, KvInput, KvModel, KvOutput, Limit, Operation, Verdict};
use replication::{AckLevel, Bytes, OutcomeStatus};

use crate::history::{HistoryOp, OpKind, text};
use crate::property::Check;

/// The final values, and why any could not be read.
pub(crate) struct FinalValues {
    pub(crate) values: BTreeMap<Bytes, Option<Bytes>>,
    pub(crate) unread: Vec<String>,
}

/// **durable**: every write acknowledged (*done*) at the configuration's
/// ack level is reflected in the final read of its key, or superseded: the
/// final value was written by a write that is not ordered before it in
/// real time (values are unique per write, so a value names its write).
pub(crate) fn durable(history: &[HistoryOp], finals: &FinalValues, ack: AckLevel) -> Check {
    let mut writer: BTreeMap<(&Bytes, &Bytes), &HistoryOp> = BTreeMap::new();
    for op in history {
        if let OpKind::Write { key, value } = &op.kind {
            writer.insert((key, value), op);
        }
    }
    for op in history {
        let OpKind::Write { key, value } = &op.kind else {
            continue;
        };
        if op.status != Some(OutcomeStatus::Done) {
            continue;
        }
        let Some(fin) = finals.values.get(key) else {
            continue;
        };
        let lost = match fin {
            Some(v) if v == value => None,
            None => Some("the key is absent".to_string()),
            Some(v) => match writer.get(&(key, v)) {
                None => Some(format!("it holds {}, which no client wrote", text(v))),
                Some(other) => match other.ret {
                    Some(ret) if ret < op.call => Some(format!(
                        "it holds {}, written before it ({})",
                        text(v),
                        other.describe()
                    )),
                    _ => None,
                },
            },
        };
        if let Some(why) = lost {
            return Check::Violated(format!(
                "{}={} acknowledged at {ack} ({}) is lost: the final read of {} shows {why}",
                text(key),
                text(value),
                op.describe(),
                text(key),
            ));
        }
    }
    if let Some(first) = finals.unread.first() {
        return Check::Undecided(first.clone());
    }
    Check::Holds
}

/// The history as lincheck checks it: one key/value operation per client
/// operation, ids their index in `history`, times the explorer's logical
/// clock. Failed operations are left out (definitely not applied); writes
/// with an unknown outcome, or still in flight when the run ended, may take
/// effect at any time after their call, or never; such reads constrain
/// nothing and are left out too.
pub fn lincheck_history(history: &[HistoryOp]) -> Vec<Operation<KvInput, KvOutput>> {
    let mut ops = Vec::with_capacity(history.len());
    for (id, op) in history.iter().enumerate() {
        let input = match &op.kind {
            OpKind::Write { key, value } => KvInput::put(text(key), text(value)),
            OpKind::Read { key } => KvInput::get(text(key)),
        };
        let id = id as u64;
        let client = u64::from(op.client);
        match (op.status, op.ret) {
            (Some(OutcomeStatus::Done), Some(ret)) => {
                let output = match &op.read_value {
                    Some(value) => KvOutput::Value(value.as_ref().map(text)),
                    None => KvOutput::Ok,
                };
                ops.push(Operation::completed(
                    id, client, op.call, ret, input, output,
                ));
            }
            // Definitely not applied: not an operation of the history.
            (Some(OutcomeStatus::Failed), _) => {}
            // Unknown, or still in flight when the run ended.
            _ => {
                if matches!(op.kind, OpKind::Write { .. }) {
                    ops.push(Operation::unknown(id, client, op.call, input));
                }
            }
        }
    }
    ops
}

/// **linearizable**: lincheck's key/value register model over the whole
/// history ([`lincheck_history`]).
pub(crate) fn linearizable(history: &[HistoryOp]) -> Check {
    let ops = lincheck_history(history);
    match lincheck::check(&KvModel, &ops, &CheckOptions::default()).map(|r| r.verdict) {
        Ok(Verdict::Linearizable) => Check::Holds,
        Ok(Verdict::Violation(why)) => {
            let text = why.to_string();
            let lines: Vec<&str> = text
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect();
            // Name the stuck operation in ticks, as `--replay` shows it
            // (lincheck's own times are the explorer's logical clock).
            let stuck = usize::try_from(why.unplaceable.id)
                .ok()
                .and_then(|i| history.get(i))
                .map(HistoryOp::describe)
                .unwrap_or_default();
            Check::Violated(format!(
                "{stuck} cannot be linearized — {}",
                lines.join("; ")
            ))
        }
        Ok(Verdict::Unknown {
            partition,
            steps,
            limit,
        }) => Check::Unknown(format!(
            "lincheck {} exhausted on key {} after {steps} steps",
            match limit {
                Limit::Steps => "budget",
                Limit::Memory => "memory budget",
                Limit::Time => "time budget",
            },
            partition.unwrap_or_default()
        )),
        Err(err) => Check::Unknown(format!("history rejected by lincheck: {err}")),
    }
}
