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
    // Which write wrote a value is asked only when a final value differs
    // from an acknowledged write's: the map is built at the first such ask.
    let mut writers: Option<BTreeMap<(&Bytes, &Bytes), &HistoryOp>> = None;
    for op in history {
        let OpKind::Write { key, value } = &op.kind else {
            continue;
        };
        if op.status != Some(OutcomeStatus::Done) || !op.claimed {
            continue;
        }
        let Some(fin) = finals.values.get(key) else {
            continue;
        };
        let lost = match fin {
            Some(v) if v == value => None,
            None => Some("the key is absent".to_string()),
            Some(v) => match writers
                .get_or_insert_with(|| writer_of_each(history))
                .get(&(key, v))
            {
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

/// Each write of `history` by its key and value (values are unique, so
/// the pair names one write).
fn writer_of_each(history: &[HistoryOp]) -> BTreeMap<(&Bytes, &Bytes), &HistoryOp> {
    history
        .iter()
        .filter_map(|op| match &op.kind {
            OpKind::Write { key, value } => Some(((key, value), op)),
            OpKind::Read { .. } => None,
        })
        .collect()
}

/// The history as lincheck checks it: one key/value operation per client
/// operation, ids their index in `history`, times the explorer's logical
/// clock. Failed operations are left out (definitely not applied); writes
/// with an unknown outcome, or still in flight when the run ended, may take
/// effect at any time after their call, or never; such reads constrain
/// nothing and are left out too.
///
/// An unknown write whose value no read of its key returned is left out as
/// well: in any linearization that places it, no read sits between it and
/// the next write of the key (that read would return its value), so taking
/// it out leaves a linearization — the verdict is the same, and a history
/// of many unknown writes (a leader replaced again and again) no longer
/// exhausts the search on orders of writes nobody saw.
pub fn lincheck_history(history: &[HistoryOp]) -> Vec<Operation<KvInput, KvOutput>> {
    let observed: std::collections::BTreeSet<(&Bytes, &Bytes)> = history
        .iter()
        .filter(|op| op.status == Some(OutcomeStatus::Done) && op.claimed)
        .filter_map(|op| match (&op.kind, &op.read_value) {
            (OpKind::Read { key }, Some(Some(value))) => Some((key, value)),
            _ => None,
        })
        .collect();
    let mut ops = Vec::with_capacity(history.len());
    for (id, op) in history.iter().enumerate() {
        let input = match &op.kind {
            OpKind::Write { key, value } => KvInput::put(text(key), text(value)),
            OpKind::Read { key } => KvInput::get(text(key)),
        };
        let id = id as u64;
        let client = u64::from(op.client);
        // An operation at a level the row does not claim: a read says
        // nothing, a write may or may not have taken effect.
        let status = match (op.claimed, &op.kind) {
            (true, _) => op.status,
            (false, OpKind::Read { .. }) => continue,
            (false, OpKind::Write { .. }) if op.status == Some(OutcomeStatus::Failed) => op.status,
            (false, OpKind::Write { .. }) => Some(OutcomeStatus::Unknown),
        };
        match (status, op.ret) {
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
                if let OpKind::Write { key, value } = &op.kind
                    && observed.contains(&(key, value))
                {
                    ops.push(Operation::unknown(id, client, op.call, input));
                }
            }
        }
    }
    ops
}

/// **linearizable**: lincheck's key/value register model over the whole
/// history ([`lincheck_history`]). The numbered registers of
/// [`crate::registers`] decide a linearizable history without building
/// strings; any other answer comes from `KvModel`, with its explanation.
pub(crate) fn linearizable(history: &[HistoryOp]) -> Check {
    if crate::registers::linearizable(history) {
        return Check::Holds;
    }
    let ops = lincheck_history(history);
    match lincheck::check(&KvModel, &ops, &CheckOptions::default()).map(|r| r.verdict) {
        Ok(Verdict::Linearizable) => Check::Holds,
        Ok(Verdict::Violation(mut why)) => {
            // lincheck's times are its logical clock; say them in ticks,
            // as the history and `--replay` do.
            let in_ticks = |op: &mut lincheck::OpSummary| {
                if let Some(h) = usize::try_from(op.id).ok().and_then(|i| history.get(i)) {
                    op.call = h.call_tick;
                    op.ret = op.ret.and(h.ret_tick);
                }
            };
            why.prefix.iter_mut().for_each(|s| in_ticks(&mut s.op));
            in_ticks(&mut why.unplaceable);
            let text = why.to_string();
            let lines: Vec<&str> = text
                .lines()
                .map(|l| l.trim().trim_end_matches(','))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn op(kind: OpKind, call: u64, ret: Option<u64>, status: OutcomeStatus) -> HistoryOp {
        HistoryOp {
            client: 0,
            kind,
            call,
            ret,
            call_tick: call,
            ret_tick: ret,
            status: Some(status),
            read_value: None,
            reason: String::new(),
            claimed: true,
        }
    }

    fn write(value: &str, call: u64, ret: Option<u64>, status: OutcomeStatus) -> HistoryOp {
        let kind = OpKind::Write {
            key: Bytes::from("k"),
            value: Bytes::copy_from_slice(value.as_bytes()),
        };
        op(kind, call, ret, status)
    }

    fn read(value: Option<&str>, call: u64, ret: u64) -> HistoryOp {
        let mut r = op(
            OpKind::Read {
                key: Bytes::from("k"),
            },
            call,
            Some(ret),
            OutcomeStatus::Done,
        );
        r.read_value = Some(value.map(|v| Bytes::copy_from_slice(v.as_bytes())));
        r
    }

    /// Forty overlapping unknown writes nobody read, around a write and a
    /// read of it: the unread ones leave the history, the verdict stands.
    fn with_unread_unknowns(mut core: Vec<HistoryOp>) -> Vec<HistoryOp> {
        for i in 0..40 {
            core.push(write(&format!("u{i}"), i, None, OutcomeStatus::Unknown));
        }
        core
    }

    #[test]
    fn unknown_writes_nobody_read_are_left_out_and_the_verdict_stands() {
        let holds = with_unread_unknowns(vec![
            write("v1", 0, Some(1), OutcomeStatus::Done),
            read(Some("v1"), 50, 51),
        ]);
        assert_eq!(lincheck_history(&holds).len(), 2);
        assert_eq!(linearizable(&holds), Check::Holds);
        let lost = with_unread_unknowns(vec![
            write("v1", 0, Some(1), OutcomeStatus::Done),
            read(None, 50, 51),
        ]);
        assert!(
            linearizable(&lost).is_violated(),
            "{:?}",
            linearizable(&lost)
        );
    }

    #[test]
    fn an_unknown_write_a_read_returned_stays_in_the_history() {
        let history = vec![
            write("v1", 0, Some(1), OutcomeStatus::Done),
            write("v2", 2, None, OutcomeStatus::Unknown),
            read(Some("v2"), 5, 6),
            read(Some("v1"), 7, 8),
        ];
        assert_eq!(lincheck_history(&history).len(), 4);
        assert!(linearizable(&history).is_violated());
    }
}
