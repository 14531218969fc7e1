//! The `lincheck*` workloads of `cargo xtask bench`: the checker on
//! histories generated from a seed by `lincheck::synthetic`, so anyone can
//! reproduce them.
//!
//! - `lincheck`: 10,000 key/value operations, 5 clients, 10 keys (seed 1);
//! - `lincheck-hard`: a Jepsen-shaped compare-and-set register, 5 workers,
//!   1% of the writes timed out in bursts of 4, 10,000 operations (seed 3) — millions of
//!   search steps;
//! - `lincheck-partitions`: 50 clients over 10 keys, one expensive key and
//!   one refuted (seed 1) — the answer is "not linearizable".

use std::time::Instant;

use lincheck::synthetic::{
    CasRegister, PartitionsShape, RegisterShape, partitions_history, register_history,
    synthetic_history,
};
use lincheck::{CheckOptions, CheckResult, KvModel, Model, Operation, Verdict, check};

use crate::args::Workload;

/// One lincheck measurement: the time of `check` alone, operations in the
/// history, search steps.
pub struct LincheckSample {
    /// Seconds in `check`, wall clock.
    pub seconds: f64,
    /// Seconds this thread ran on a CPU during `check` (Linux; `None`
    /// elsewhere): on a loaded machine the wall clock also counts the time
    /// other processes had the CPU.
    pub cpu_seconds: Option<f64>,
    /// Operations in the history.
    pub ops: u64,
    /// Model steps the search took.
    pub steps: u64,
}

fn timed<M: Model>(
    model: M,
    history: &[Operation<M::Input, M::Output>],
) -> Result<(LincheckSample, CheckResult), String> {
    let (start, cpu_start) = (Instant::now(), thread_cpu_ns());
    let result = check(&model, history, &CheckOptions::default()).map_err(|e| e.to_string())?;
    let seconds = start.elapsed().as_secs_f64();
    let cpu_seconds = cpu_start
        .zip(thread_cpu_ns())
        .map(|(from, to)| to.saturating_sub(from) as f64 / 1e9);
    let sample = LincheckSample {
        seconds,
        cpu_seconds,
        ops: history.len() as u64,
        steps: result.stats().steps,
    };
    Ok((sample, result))
}

/// Nanoseconds this thread has run on a CPU, from the kernel's scheduler
/// statistics (`/proc/thread-self/schedstat`, Linux only).
pub(crate) fn thread_cpu_ns() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    stat.split_whitespace().next()?.parse().ok()
}

/// Runs one lincheck workload once; `None` if `workload` is not one.
pub fn measure(workload: Workload) -> Option<Result<LincheckSample, String>> {
    let outcome = match workload {
        Workload::Lincheck => {
            let history = synthetic_history(1, 10_000, 5, 10);
            timed(KvModel, &history).and_then(|(sample, result)| match result.verdict {
                Verdict::Linearizable => Ok(sample),
                other => Err(format!("synthetic history not linearizable: {other}")),
            })
        }
        Workload::LincheckHard => {
            let history = register_history(3, RegisterShape::default());
            timed(CasRegister, &history).and_then(|(sample, result)| match result.verdict {
                Verdict::Linearizable => Ok(sample),
                other => Err(format!("register history not linearizable: {other}")),
            })
        }
        Workload::LincheckPartitions => {
            let history = partitions_history(1, PartitionsShape::default());
            timed(KvModel, &history).and_then(|(sample, result)| match result.verdict {
                Verdict::Violation(why) if why.partition.as_deref() == Some("k9") => Ok(sample),
                other => Err(format!("expected a violation on k9, got {other}")),
            })
        }
        _ => return None,
    };
    Some(outcome)
}
