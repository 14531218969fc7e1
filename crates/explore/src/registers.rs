//! The linearizability check's fast path: the same per-key register model
//! as lincheck's [`KvModel`](lincheck::KvModel), over numbers instead of
//! strings.
//!
//! Every distinct value in a history gets a number (the same bytes, the
//! same number), and every key its name, borrowed. A run's history then
//! becomes lincheck operations without one allocation per operation, and
//! the checker's states are `Option<u32>` instead of `Option<String>`. The
//! two histories are the same history renamed, so the verdicts agree; only
//! a history found *not* linearizable (or not decided) is checked again with
//! `KvModel`, whose explanation names the keys and values as the explorer
//! prints them.

use std::borrow::Cow;
use std::collections::BTreeMap;

use lincheck::{CheckOptions, Model, Next, Operation, Verdict};
use replication::{Bytes, OutcomeStatus};

use crate::history::{HistoryOp, OpKind};

/// One key's register, values by number (`None`: absent).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Registers<'k>(std::marker::PhantomData<&'k str>);

/// A `put` of value number `Some(v)`, or a `get`, on the key named `key`.
#[derive(Debug)]
pub(crate) struct Input<'k> {
    key: &'k str,
    put: Option<u32>,
}

/// `ok`, or the value number read (`None`: absent).
#[derive(Debug)]
pub(crate) enum Output {
    Ok,
    Value(Option<u32>),
}

impl<'k> Model for Registers<'k> {
    type State = Option<u32>;
    type Input = Input<'k>;
    type Output = Output;

    fn init(&self) -> Option<u32> {
        None
    }

    fn step(
        &self,
        state: &Option<u32>,
        input: &Input<'k>,
        output: Option<&Output>,
    ) -> Next<Option<u32>> {
        match (input.put, output) {
            (Some(value), None | Some(Output::Ok)) => Next::To(Some(value)),
            (None, None) => Next::Unchanged,
            (None, Some(Output::Value(seen))) if seen == state => Next::Unchanged,
            _ => Next::Illegal,
        }
    }

    fn partition_key<'a>(&self, input: &'a Input<'k>) -> Option<Cow<'a, str>> {
        Some(Cow::Borrowed(input.key))
    }

    fn is_read_only(&self, input: &Input<'k>, _output: Option<&Output>) -> bool {
        input.put.is_none()
    }
}

/// Numbers for values and names for keys, assigned in history order.
#[derive(Default)]
struct Names<'h> {
    values: BTreeMap<&'h [u8], u32>,
    keys: Vec<(&'h [u8], String)>,
}

/// Numbers from [`Names::value`]'s map start here; below it, a value
/// that reads `v<n>` (a schedule's own, [`crate::literals`]) is `n`.
const MAPPED: u32 = 1 << 31;

/// `n` for canonical `v<n>` (no sign, no leading zero) below [`MAPPED`]:
/// distinct such texts give distinct numbers, so the value needs no map.
fn own_value(value: &[u8]) -> Option<u32> {
    let digits = value.strip_prefix(b"v")?;
    if digits.is_empty() || digits.len() > 10 || (digits[0] == b'0' && digits.len() > 1) {
        return None;
    }
    let mut n: u64 = 0;
    for &d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        n = n * 10 + u64::from(d - b'0');
    }
    u32::try_from(n).ok().filter(|&n| n < MAPPED)
}

impl<'h> Names<'h> {
    fn value(&mut self, value: &'h Bytes) -> u32 {
        if let Some(n) = own_value(value) {
            return n;
        }
        let next = MAPPED + self.values.len() as u32;
        *self.values.entry(&value[..]).or_insert(next)
    }

    fn key(&mut self, key: &'h Bytes) -> usize {
        // Keys are slices of one static table: the same slice is the
        // same key, without reading it.
        let same = |k: &[u8]| std::ptr::eq(k, &key[..]) || k == &key[..];
        match self.keys.iter().position(|(k, _)| same(k)) {
            Some(i) => i,
            None => {
                self.keys.push((&key[..], crate::history::text(key)));
                self.keys.len() - 1
            }
        }
    }
}

/// Whether lincheck finds `history` linearizable by the fast path; `false`
/// for any other answer (the caller then asks
/// [`KvModel`](lincheck::KvModel), which explains it). The operations kept
/// and left out are those of [`lincheck_history`](crate::check::lincheck_history).
pub(crate) fn linearizable(history: &[HistoryOp]) -> bool {
    let mut names = Names::default();
    let observed: std::collections::BTreeSet<(&[u8], &[u8])> = history
        .iter()
        .filter(|op| op.status == Some(OutcomeStatus::Done))
        .filter_map(|op| match (&op.kind, &op.read_value) {
            (OpKind::Read { key }, Some(Some(value))) => Some((&key[..], &value[..])),
            _ => None,
        })
        .collect();
    // Keys and values numbered first, so the operations can borrow names.
    struct Plain {
        index: usize,
        key: usize,
        put: Option<u32>,
        output: Option<Output>,
    }
    let mut plain = Vec::with_capacity(history.len());
    for (index, op) in history.iter().enumerate() {
        let (key, put) = match &op.kind {
            OpKind::Write { key, value } => (names.key(key), Some(names.value(value))),
            OpKind::Read { key } => (names.key(key), None),
        };
        let output = match (op.status, op.ret) {
            (Some(OutcomeStatus::Done), Some(_)) => Some(match &op.read_value {
                Some(value) => Output::Value(value.as_ref().map(|v| names.value(v))),
                None => Output::Ok,
            }),
            (Some(OutcomeStatus::Failed), _) => continue,
            _ => match &op.kind {
                OpKind::Write { key, value } if observed.contains(&(&key[..], &value[..])) => None,
                _ => continue,
            },
        };
        plain.push(Plain {
            index,
            key,
            put,
            output,
        });
    }
    let ops: Vec<Operation<Input<'_>, Output>> = plain
        .into_iter()
        .map(|p| {
            let op = &history[p.index];
            let input = Input {
                key: &names.keys[p.key].1,
                put: p.put,
            };
            let (id, client) = (p.index as u64, u64::from(op.client));
            match (p.output, op.ret) {
                (Some(output), Some(ret)) => {
                    Operation::completed(id, client, op.call, ret, input, output)
                }
                _ => Operation::unknown(id, client, op.call, input),
            }
        })
        .collect();
    lincheck::check(&Registers::default(), &ops, &CheckOptions::default())
        .is_ok_and(|result| matches!(result.verdict, Verdict::Linearizable))
}

#[cfg(test)]
mod tests {
    use lincheck::{CheckOptions, KvModel, Verdict};
    use replication::{Bytes, OutcomeStatus, Rng};

    use crate::history::{HistoryOp, OpKind};

    /// A random history of a few operations on two keys, with values that
    /// repeat, unknown and failed outcomes, reads of unwritten values and
    /// overlapping intervals: the fast path and `KvModel` must agree.
    fn random_history(rng: &mut Rng) -> Vec<HistoryOp> {
        let n = rng.range_inclusive(1, 9);
        let mut clock = 0;
        (0..n)
            .map(|i| {
                let key = Bytes::from(format!("k{}", rng.range_inclusive(0, 1)));
                let value = Bytes::from(format!("v{}", rng.range_inclusive(0, 4)));
                clock += rng.range_inclusive(0, 2);
                let call = clock;
                let ret = call + rng.range_inclusive(1, 6);
                let status = match rng.range_inclusive(0, 9) {
                    0 => OutcomeStatus::Failed,
                    1 => OutcomeStatus::Unknown,
                    _ => OutcomeStatus::Done,
                };
                let (kind, read_value) = if rng.chance(0.5) {
                    (OpKind::Write { key, value }, None)
                } else {
                    let seen = rng.chance(0.8).then_some(value);
                    (OpKind::Read { key }, Some(seen))
                };
                HistoryOp {
                    client: (i % 3) as u8,
                    kind,
                    call,
                    ret: (status != OutcomeStatus::Unknown).then_some(ret),
                    call_tick: call,
                    ret_tick: None,
                    status: Some(status),
                    read_value,
                    reason: String::new(),
                    claimed: true,
                }
            })
            .collect()
    }

    #[test]
    fn the_numbered_registers_agree_with_kv_model_on_random_histories() {
        let mut rng = Rng::new(7);
        let (mut holds, mut broken) = (0, 0);
        for _ in 0..3000 {
            let history = random_history(&mut rng);
            let ops = crate::check::lincheck_history(&history);
            let slow = lincheck::check(&KvModel, &ops, &CheckOptions::default())
                .is_ok_and(|r| matches!(r.verdict, Verdict::Linearizable));
            assert_eq!(super::linearizable(&history), slow, "{history:#?}");
            if slow {
                holds += 1;
            } else {
                broken += 1;
            }
        }
        // Both answers were exercised.
        assert!(
            holds > 300 && broken > 300,
            "{holds} linearizable, {broken} not"
        );
    }

    #[test]
    fn own_values_are_their_numbers_and_anything_else_is_mapped() {
        use super::{MAPPED, own_value};
        assert_eq!(own_value(b"v0"), Some(0));
        assert_eq!(own_value(b"v1234"), Some(1234));
        for other in [
            &b"v"[..],
            b"v01",
            b"v-1",
            b"w1",
            b"v1x",
            b"v99999999999",
            b"v2147483648",
        ] {
            assert_eq!(own_value(other), None, "{other:?}");
        }
        assert_eq!(own_value(b"v2147483647"), Some(MAPPED - 1));
    }
}
