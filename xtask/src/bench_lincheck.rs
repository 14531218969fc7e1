//! The `lincheck*` workloads of `cargo xtask bench`: the checker on
//! histories generated from a seed by `lincheck::synthetic`, so anyone can
//! reproduce them.
//!
//! - `lincheck`: 10,000 key/value operations, 5 clients, 10 keys (seed 1);
//! - `lincheck-hard`: a Jepsen-shaped compare-and-set register, 5 workers,
//!   1% of the writes timed out, 2,000 operations (seed 2) — millions of
//!   search steps;
//! - `lincheck-partitions`: 50 clients over 10 keys, one expensive key and
//!   one refuted (seed 1) — the answer is "not linearizable".

use std::cell::Cell;
use std::time::Instant;

use lincheck::synthetic::{
    CasRegister, PartitionsShape, RegisterShape, partitions_history, register_history,
    synthetic_history,
};
use lincheck::{CheckOptions, CheckResult, KvModel, Model, Operation, check};

use crate::args::Workload;

/// One lincheck measurement: the time of `check` alone, operations in the
/// history, search steps.
pub struct LincheckSample {
    /// Seconds in `check`.
    pub seconds: f64,
    /// Operations in the history.
    pub ops: u64,
    /// Model steps the search took.
    pub steps: u64,
}

/// A model that counts its steps: the checker does not report them.
struct Counting<M> {
    model: M,
    steps: Cell<u64>,
}

impl<M: Model> Model for Counting<M> {
    type State = M::State;
    type Input = M::Input;
    type Output = M::Output;

    fn init(&self) -> M::State {
        self.model.init()
    }

    fn step(
        &self,
        state: &M::State,
        input: &M::Input,
        output: Option<&M::Output>,
    ) -> Vec<M::State> {
        self.steps.set(self.steps.get() + 1);
        self.model.step(state, input, output)
    }

    fn partition_key<'a>(&self, input: &'a M::Input) -> Option<std::borrow::Cow<'a, str>> {
        self.model.partition_key(input)
    }

    fn is_read_only(&self, input: &M::Input) -> bool {
        self.model.is_read_only(input)
    }
}

fn timed<M: Model>(
    model: M,
    history: &[Operation<M::Input, M::Output>],
) -> Result<(LincheckSample, CheckResult), String> {
    let counting = Counting {
        model,
        steps: Cell::new(0),
    };
    let start = Instant::now();
    let result = check(&counting, history, &CheckOptions::default()).map_err(|e| e.to_string())?;
    let seconds = start.elapsed().as_secs_f64();
    let sample = LincheckSample {
        seconds,
        ops: history.len() as u64,
        steps: counting.steps.get(),
    };
    Ok((sample, result))
}

/// Runs one lincheck workload once; `None` if `workload` is not one.
pub fn measure(workload: Workload) -> Option<Result<LincheckSample, String>> {
    let outcome = match workload {
        Workload::Lincheck => {
            let history = synthetic_history(1, 10_000, 5, 10);
            timed(KvModel, &history).and_then(|(sample, result)| match result {
                CheckResult::Linearizable => Ok(sample),
                other => Err(format!("synthetic history not linearizable: {other}")),
            })
        }
        Workload::LincheckHard => {
            let history = register_history(2, RegisterShape::default());
            timed(CasRegister, &history).and_then(|(sample, result)| match result {
                CheckResult::Linearizable => Ok(sample),
                other => Err(format!("register history not linearizable: {other}")),
            })
        }
        Workload::LincheckPartitions => {
            let history = partitions_history(1, PartitionsShape::default());
            timed(KvModel, &history).and_then(|(sample, result)| match result {
                CheckResult::Violation(why) if why.partition.as_deref() == Some("k9") => Ok(sample),
                other => Err(format!("expected a violation on k9, got {other}")),
            })
        }
        _ => return None,
    };
    Some(outcome)
}
