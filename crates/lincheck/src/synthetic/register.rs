//! A compare-and-set register and Jepsen-shaped histories of it.

use crate::bitset::splitmix64;
use crate::history::Operation;
use crate::model::{Model, Next};

/// A request to the register.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RegisterInput {
    /// Read the value.
    Read,
    /// Set the value.
    Write(u64),
    /// Set the value to `to` if it is `from`.
    Cas {
        /// The value expected.
        from: u64,
        /// The value written if it was there.
        to: u64,
    },
}

/// The register's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RegisterOutput {
    /// A read's value; `None` if nothing was ever written.
    Value(Option<u64>),
    /// A write, or a compare-and-set that found its `from` and wrote.
    Ok,
    /// A compare-and-set that did not find its `from` and changed nothing.
    Failed,
}

/// One register with read, write and compare-and-set — the shape of
/// Jepsen's etcd and Knossos's `cas-register`. It starts empty (`None`).
///
/// A compare-and-set whose answer is unknown may have taken effect: if
/// the value was its `from` it wrote `to`, otherwise it changed nothing.
/// A read whose answer is unknown constrains nothing. A compare-and-set
/// answered "failed" is read-only ([`Model::is_read_only`]): it changed
/// nothing, it only says the value was not its `from`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CasRegister;

impl Model for CasRegister {
    type State = Option<u64>;
    type Input = RegisterInput;
    type Output = RegisterOutput;

    fn init(&self) -> Option<u64> {
        None
    }

    fn step(
        &self,
        state: &Option<u64>,
        input: &RegisterInput,
        output: Option<&RegisterOutput>,
    ) -> Next<Option<u64>> {
        use RegisterInput::{Cas, Read, Write};
        use RegisterOutput::{Failed, Ok, Value};
        match (*input, output.copied()) {
            (Read, None) => Next::Unchanged,
            (Read, Some(Value(seen))) if seen == *state => Next::Unchanged,
            (Write(value), None | Some(Ok)) => Next::To(Some(value)),
            (Cas { from, to }, None | Some(Ok)) if *state == Some(from) => Next::To(Some(to)),
            (Cas { .. }, None) => Next::Unchanged,
            (Cas { from, .. }, Some(Failed)) if *state != Some(from) => Next::Unchanged,
            _ => Next::Illegal,
        }
    }

    /// Reads, and compare-and-sets answered "failed", change nothing.
    fn is_read_only(&self, input: &RegisterInput, output: Option<&RegisterOutput>) -> bool {
        match input {
            RegisterInput::Read => true,
            RegisterInput::Cas { .. } => output == Some(&RegisterOutput::Failed),
            RegisterInput::Write(_) => false,
        }
    }

    fn describe_operation(&self, input: &RegisterInput, output: Option<&RegisterOutput>) -> String {
        let call = match input {
            RegisterInput::Read => "read".to_string(),
            RegisterInput::Write(value) => format!("write({value})"),
            RegisterInput::Cas { from, to } => format!("cas({from}, {to})"),
        };
        let answer = match output {
            None => "? (outcome unknown)".to_string(),
            Some(RegisterOutput::Value(value)) => describe_value(*value),
            Some(RegisterOutput::Ok) => "ok".to_string(),
            Some(RegisterOutput::Failed) => "failed".to_string(),
        };
        format!("{call} -> {answer}")
    }

    fn describe_state(&self, state: &Option<u64>) -> String {
        describe_value(*state)
    }
}

fn describe_value(value: Option<u64>) -> String {
    value.map_or_else(|| "nil".to_string(), |v| v.to_string())
}

/// The shape of a [`register_history`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegisterShape {
    /// Operations in the history.
    pub ops: usize,
    /// Workers running at once (Jepsen's concurrency).
    pub workers: usize,
    /// Values are drawn from `0..values`.
    pub values: u64,
    /// Of every 1,000 writes and compare-and-sets, how many time out.
    pub timeouts_per_mille: u64,
    /// Timeouts come this many consecutive writes at a time, as when a
    /// network partition cuts the workers off for a while (1: each on its
    /// own).
    pub burst: u64,
}

impl Default for RegisterShape {
    /// 10,000 operations by 5 workers, values 0–4, 1% of the writes timed
    /// out in bursts of 4 — the `lincheck-hard` workload of `cargo xtask
    /// bench` (with seed 3).
    fn default() -> Self {
        RegisterShape {
            ops: 10_000,
            workers: 5,
            values: 5,
            timeouts_per_mille: 10,
            burst: 4,
        }
    }
}

/// A timed-out write takes effect, if it does, up to this many times its
/// timeout after its call: like a request still queued at a server that a
/// partition cut off.
const LATE: u64 = 64;

/// A deterministic, linearizable history of a [`CasRegister`], shaped like
/// a Jepsen etcd test.
///
/// `shape.workers` workers run closed loops of reads, writes and
/// compare-and-sets (a third each) on values `0..shape.values`; an
/// operation lasts 1–16 ticks and a worker thinks 0–3 ticks between
/// operations. A write or compare-and-set times out with probability
/// `shape.timeouts_per_mille / 1000`: its client never hears back
/// (`ret: None`), and like a request still queued at a real server it
/// takes effect at some later tick (up to four times its timeout) half
/// the time, never the other half. The worker then goes on as a fresh
/// client, as a Jepsen process does after an indeterminate operation, so
/// client ids grow past `workers`. Ids run from 0 in call order. Every
/// unknown write stays a candidate for the rest of the search, so a few
/// of them make a history hard to check. With no workers or no values the
/// history is empty.
///
/// ```
/// use lincheck::synthetic::{CasRegister, RegisterShape, register_history};
/// use lincheck::{check, CheckOptions};
///
/// let shape = RegisterShape { ops: 300, ..RegisterShape::default() };
/// let history = register_history(3, shape);
/// assert_eq!(history.len(), 300);
/// assert_eq!(history, register_history(3, shape));
/// assert!(check(&CasRegister, &history, &CheckOptions::default())?.is_linearizable());
/// # Ok::<(), lincheck::HistoryError>(())
/// ```
pub fn register_history(
    seed: u64,
    shape: RegisterShape,
) -> Vec<Operation<RegisterInput, RegisterOutput>> {
    let RegisterShape {
        ops,
        workers,
        values,
        timeouts_per_mille,
        burst,
    } = shape;
    let burst = burst.max(1);
    if workers == 0 || values == 0 {
        return Vec::new();
    }
    let mut rng = seed;
    let mut below = |n: u64| splitmix64(&mut rng) % n;

    let mut free_at: Vec<u64> = (0..workers).map(|_| below(4)).collect();
    let mut client: Vec<u64> = (0..workers as u64).collect();
    let mut next_client = workers as u64;
    let mut burst_left = 0u64;
    // (operation, effect tick if it takes effect)
    let mut planned = Vec::with_capacity(ops.min(1 << 20));
    for id in 0..ops as u64 {
        let worker = (0..workers)
            .min_by_key(|&w| (free_at[w], w))
            .unwrap_or_default();
        let call = free_at[worker];
        let duration = 1 + below(16);
        let input = match below(3) {
            0 => RegisterInput::Read,
            1 => RegisterInput::Write(below(values)),
            _ => RegisterInput::Cas {
                from: below(values),
                to: below(values),
            },
        };
        // A burst starts with probability rate / burst, so that about
        // `timeouts_per_mille` of every 1,000 writes time out.
        let is_write = input != RegisterInput::Read;
        if is_write
            && burst_left == 0
            && below(1_000u64.saturating_mul(burst)) < timeouts_per_mille.min(1_000)
        {
            burst_left = burst;
        }
        let timed_out = is_write && burst_left > 0;
        burst_left = burst_left.saturating_sub(u64::from(timed_out));
        let (ret, effect) = if timed_out {
            let effect = (below(2) == 0).then(|| call + below(LATE * duration + 1));
            (None, effect)
        } else {
            (Some(call + duration), Some(call + below(duration + 1)))
        };
        let op = Operation {
            id,
            client: client[worker],
            call,
            ret,
            input,
            output: None,
        };
        free_at[worker] = call + duration + below(4);
        if timed_out {
            client[worker] = next_client;
            next_client += 1;
        }
        planned.push((op, effect));
    }

    let mut order: Vec<usize> = (0..planned.len())
        .filter(|&i| planned[i].1.is_some())
        .collect();
    order.sort_by_key(|&i| (planned[i].1, planned[i].0.id));
    let mut register = None;
    for i in order {
        let op = &mut planned[i].0;
        let output = match op.input {
            RegisterInput::Read => RegisterOutput::Value(register),
            RegisterInput::Write(value) => {
                register = Some(value);
                RegisterOutput::Ok
            }
            RegisterInput::Cas { from, to } if register == Some(from) => {
                register = Some(to);
                RegisterOutput::Ok
            }
            RegisterInput::Cas { .. } => RegisterOutput::Failed,
        };
        if op.ret.is_some() {
            op.output = Some(output);
        }
    }
    planned.into_iter().map(|(op, _)| op).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(
        state: Option<u64>,
        input: RegisterInput,
        output: Option<RegisterOutput>,
    ) -> Vec<Option<u64>> {
        CasRegister
            .step(&state, &input, output.as_ref())
            .into_states(&state)
    }

    #[test]
    fn a_compare_and_set_writes_only_over_its_expected_value() {
        let cas = RegisterInput::Cas { from: 1, to: 2 };
        assert_eq!(step(Some(1), cas, Some(RegisterOutput::Ok)), vec![Some(2)]);
        assert!(step(Some(3), cas, Some(RegisterOutput::Ok)).is_empty());
        assert_eq!(
            step(Some(3), cas, Some(RegisterOutput::Failed)),
            vec![Some(3)]
        );
        assert!(step(Some(1), cas, Some(RegisterOutput::Failed)).is_empty());
        assert_eq!(step(Some(1), cas, None), vec![Some(2)]);
        assert_eq!(step(None, cas, None), vec![None]);
    }

    #[test]
    fn a_read_must_see_the_current_value() {
        let seen = |v| Some(RegisterOutput::Value(v));
        assert_eq!(
            step(Some(4), RegisterInput::Read, seen(Some(4))),
            vec![Some(4)]
        );
        assert!(step(Some(4), RegisterInput::Read, seen(None)).is_empty());
        assert_eq!(step(None, RegisterInput::Read, seen(None)), vec![None]);
    }

    #[test]
    fn the_same_seed_gives_the_same_history_with_some_timed_out_writes() {
        let shape = RegisterShape {
            ops: 3_000,
            ..RegisterShape::default()
        };
        let history = register_history(5, shape);
        assert_eq!(history, register_history(5, shape));
        assert_ne!(history, register_history(6, shape));
        let timed_out = history.iter().filter(|op| op.ret.is_none()).count();
        assert!((5..=60).contains(&timed_out), "{timed_out} timed out");
        assert!(
            history
                .iter()
                .all(|op| op.ret.is_some() || op.input != RegisterInput::Read)
        );
        assert!(
            history.iter().any(|op| op.client >= 5),
            "a timed-out worker goes on as a new client"
        );
    }

    #[test]
    fn degenerate_shapes_give_empty_histories_not_panics() {
        let shape = RegisterShape::default();
        assert!(
            register_history(
                1,
                RegisterShape {
                    workers: 0,
                    ..shape
                }
            )
            .is_empty()
        );
        assert!(register_history(1, RegisterShape { values: 0, ..shape }).is_empty());
        assert!(register_history(1, RegisterShape { ops: 0, ..shape }).is_empty());
    }
}
