//! `cargo xtask bench`: the simulator's own speed, in an optimized build.
//!
//! The parent process makes sure an optimized `xtask` exists (building it
//! with `cargo build --release -p xtask` when it is itself a debug build),
//! then runs every workload in a fresh child process (`bench-worker`) so each
//! one's peak RSS is its own. Each child runs its workload three times on a
//! fresh group and reports the median time.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

use bytes::Bytes;
use replication::{AckLevel, GroupError, NodeId, ReplicationGroup};
use serde_json::{Value as Json, json};

use crate::args::Workload;
use crate::output::{self, Failure};
use crate::{bench_lincheck, bench_porcupine, bench_report};

/// The most writes a write workload may be asked for (`--writes`).
pub const MAX_WRITES: u64 = 10_000_000;

/// Every workload, in report order.
pub const WORKLOADS: [Workload; 14] = [
    Workload::Matrix,
    Workload::WritesAsync,
    Workload::WritesWal,
    Workload::WritesIsr,
    Workload::WritesRaft,
    Workload::PipelinedWal,
    Workload::PipelinedIsr,
    Workload::PipelinedRaft,
    Workload::ExploreIsr,
    Workload::CheckRaft,
    Workload::Lincheck,
    Workload::LincheckHard,
    Workload::LincheckPartitions,
    Workload::LincheckPorcupine,
];

/// Runs per worker; the worker reports the median.
pub const REPEATS: usize = 3;

/// One workload's measurement.
struct Sample {
    seconds: f64,
    ops: u64,
    /// Events recorded, or `None` when the trace was switched off (a group
    /// may record its start event before the switch, which is no trace).
    trace_events: Option<u64>,
    /// Search steps, for the lincheck workloads.
    steps: Option<u64>,
    /// CPU seconds of the measured thread, for the lincheck workloads.
    cpu_seconds: Option<f64>,
}

fn key_value(i: u64) -> (Bytes, Bytes) {
    (
        Bytes::from(format!("k{}", i % 64)),
        Bytes::from(format!("v{i}")),
    )
}

/// N writes at `level`, each asserted accepted; times only the writes.
fn timed_writes<G: ReplicationGroup>(
    group: &mut G,
    writes: u64,
    level: AckLevel,
) -> Result<Sample, String> {
    let start = Instant::now();
    for i in 0..writes {
        let (key, value) = key_value(i);
        let result = group
            .client_write(key, value, level)
            .map_err(|e| format!("write {i} failed: {e}"))?;
        if !result.accepted {
            return Err(format!("write {i} was refused: {}", result.message));
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    let trace = group.trace();
    Ok(Sample {
        seconds,
        ops: writes,
        trace_events: trace.is_enabled().then_some(trace.len() as u64),
        steps: None,
        cpu_seconds: None,
    })
}

/// `writes` writes at `level`, keeping `clients` of them in flight: submit
/// until `clients` are pending, tick, take the completions, repeat.
fn timed_pipelined(
    group: &mut dyn ReplicationGroup,
    writes: u64,
    level: AckLevel,
    clients: u64,
) -> Result<Sample, String> {
    let start = Instant::now();
    let (mut submitted, mut done, mut in_flight) = (0u64, 0u64, 0u64);
    let mut idle_ticks = 0u64;
    while done < writes {
        while in_flight < clients && submitted < writes {
            let (key, value) = key_value(submitted);
            group
                .submit(replication::ClientOp::write(key, value, level))
                .map_err(|e| format!("write {submitted} failed: {e}"))?;
            submitted += 1;
            in_flight += 1;
        }
        let completions = group.take_completions();
        if completions.is_empty() {
            group.tick();
            idle_ticks += 1;
            if idle_ticks > 10_000 {
                return Err("no completion in 10,000 ticks".into());
            }
            continue;
        }
        idle_ticks = 0;
        for c in completions {
            if c.outcome.status() != replication::OutcomeStatus::Done {
                return Err(format!("{} was not acknowledged: {:?}", c.id, c.outcome));
            }
            done += 1;
            in_flight -= 1;
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    let trace = group.trace();
    Ok(Sample {
        seconds,
        ops: writes,
        trace_events: trace.is_enabled().then_some(trace.len() as u64),
        steps: None,
        cpu_seconds: None,
    })
}

fn wal_sync() -> Result<proto_wal::WalShippingGroup, String> {
    proto_wal::WalShippingGroup::new(
        proto_wal::WalConfig::default().with_synchronous_standbys([NodeId::new("standby-1")]),
    )
    .map_err(err)
}

fn raft_five() -> Result<proto_raft::RaftGroup, String> {
    let config =
        proto_raft::RaftConfig::new((1..=5).map(|i| NodeId::new(format!("n{i}")))).with_seed(7);
    let mut group = proto_raft::RaftGroup::new(config).map_err(err)?;
    group.run_until_leader(None, 1_000).map_err(err)?;
    Ok(group)
}

fn err(e: GroupError) -> String {
    e.to_string()
}

fn measure_once(
    workload: Workload,
    writes: u64,
    trace: bool,
    clients: u64,
) -> Result<Sample, String> {
    match workload {
        Workload::PipelinedWal => {
            let mut group = wal_sync()?;
            group.trace_mut().set_enabled(trace);
            timed_pipelined(&mut group, writes, AckLevel::Quorum, clients)
        }
        Workload::PipelinedIsr => {
            let mut group =
                proto_isr::IsrGroup::new(proto_isr::IsrConfig::default()).map_err(err)?;
            group.trace_mut().set_enabled(trace);
            timed_pipelined(&mut group, writes, AckLevel::AllIsr, clients)
        }
        Workload::PipelinedRaft => {
            let mut group = raft_five()?;
            group.trace_mut().set_enabled(trace);
            timed_pipelined(&mut group, writes, AckLevel::Quorum, clients)
        }
        Workload::ExploreIsr => {
            let config = labs::explore_configs()
                .into_iter()
                .find(|c| c.key() == "isr.all_isr.linearizable.default")
                .ok_or("no isr explore configuration")?;
            let options = explore::SweepOptions {
                schedules: writes,
                jobs: std::thread::available_parallelism().map_or(1, usize::from),
                ..explore::SweepOptions::default()
            };
            let start = Instant::now();
            let verdicts = explore::sweep(&config, &options).map_err(err)?;
            let seconds = start.elapsed().as_secs_f64();
            // Its safety verdicts hold (only safety is checked here: the
            // bench measures speed, not the whole table).
            let safety = [
                explore::Property::Durable,
                explore::Property::Linearizable,
                explore::Property::Invariants,
            ];
            if verdicts
                .iter()
                .any(|v| v.status == explore::Status::Violated && safety.contains(&v.property))
            {
                return Err("the isr all_isr/linearizable sweep found a safety violation".into());
            }
            Ok(Sample {
                seconds,
                ops: writes,
                trace_events: None,
                steps: None,
                cpu_seconds: None,
            })
        }
        Workload::CheckRaft => {
            let config = labs::explore_configs()
                .into_iter()
                .find(|c| c.key() == "raft.quorum.linearizable.default")
                .ok_or("no raft explore configuration")?;
            let bounds = explore::model::Bounds {
                depth: 64,
                faults: 2,
                writes: 2,
                reads: 1,
                pinned_reads: false,
                // N x 750, at most every path of 6 steps: `--writes
                // 200000` would otherwise ask for every path of 8 (tens of
                // millions of states, many GB).
                max_states: writes.saturating_mul(750).min(1_500_000),
                jobs: std::thread::available_parallelism().map_or(1, usize::from),
                dedup: true,
                view: explore::model::StateView::Complete,
            };
            let start = Instant::now();
            let verdict = explore::model::check(&config, &bounds, &|_, _| {}).map_err(err)?;
            let seconds = start.elapsed().as_secs_f64();
            if verdict
                .properties
                .iter()
                .any(|(_, status, _)| *status == explore::Status::Violated)
            {
                return Err("the raft quorum/linearizable check found a violation".into());
            }
            Ok(Sample {
                seconds,
                ops: verdict.distinct,
                trace_events: None,
                steps: None,
                cpu_seconds: None,
            })
        }
        Workload::LincheckPorcupine => Err("lincheck-porcupine needs DIR".into()),
        Workload::Lincheck | Workload::LincheckHard | Workload::LincheckPartitions => {
            let sample = bench_lincheck::measure(workload).ok_or("not a lincheck workload")??;
            Ok(Sample {
                seconds: sample.seconds,
                ops: sample.ops,
                trace_events: None,
                steps: Some(sample.steps),
                cpu_seconds: sample.cpu_seconds,
            })
        }
        Workload::Matrix => {
            let start = Instant::now();
            let runs = labs::all_runs().map_err(err)?;
            let seconds = start.elapsed().as_secs_f64();
            Ok(Sample {
                seconds,
                ops: runs.len() as u64,
                // The experiments always record their traces (`--trace` is
                // for the write workloads).
                trace_events: Some(runs.iter().map(|r| r.trace.len() as u64).sum()),
                steps: None,
                cpu_seconds: None,
            })
        }
        Workload::WritesAsync => {
            let mut group =
                proto_async::AsyncPrimaryGroup::new(proto_async::AsyncConfig::default())
                    .map_err(err)?;
            group.trace_mut().set_enabled(trace);
            timed_writes(&mut group, writes, AckLevel::Leader)
        }
        Workload::WritesWal => {
            let mut group = wal_sync()?;
            group.trace_mut().set_enabled(trace);
            timed_writes(&mut group, writes, AckLevel::Quorum)
        }
        Workload::WritesIsr => {
            let mut group =
                proto_isr::IsrGroup::new(proto_isr::IsrConfig::default()).map_err(err)?;
            group.trace_mut().set_enabled(trace);
            timed_writes(&mut group, writes, AckLevel::AllIsr)
        }
        Workload::WritesRaft => {
            let mut group = raft_five()?;
            group.trace_mut().set_enabled(trace);
            timed_writes(&mut group, writes, AckLevel::Quorum)
        }
    }
}

/// Peak resident set size of this process in KiB (Linux `VmHWM`).
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// `bench-worker`: one workload, median of three runs, one JSON line
/// (`trace_events` is `null` when the trace was off).
pub fn worker(
    workload: Workload,
    writes: u64,
    trace: bool,
    clients: u64,
    data: Option<&Path>,
) -> Result<ExitCode, Failure> {
    if workload == Workload::LincheckPorcupine {
        let dir =
            data.ok_or_else(|| Failure::Failed("lincheck-porcupine needs --data DIR".into()))?;
        let mut row = bench_porcupine::measure(dir, REPEATS)
            .map_err(|e| Failure::Failed(format!("{}: {e}", workload.name())))?;
        let (seconds, steps) = (row["seconds"].as_f64(), row["steps"].as_u64());
        let per_step = |s: Option<f64>| s.zip(steps).map(|(s, n)| s * 1e9 / n.max(1) as f64);
        row["workload"] = json!(workload.name());
        row["ops_per_sec"] =
            json!(seconds.map(|s| row["ops"].as_u64().unwrap_or(0) as f64 / s.max(1e-9)));
        row["trace_events"] = Json::Null;
        row["peak_rss_kib"] = json!(peak_rss_kib());
        row["ns_per_step"] = json!(per_step(seconds));
        row["cpu_ns_per_step"] = json!(per_step(row["cpu_seconds"].as_f64()));
        output::println(&row.to_string())?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut samples = Vec::with_capacity(REPEATS);
    for _ in 0..REPEATS {
        samples.push(
            measure_once(workload, writes, trace, clients)
                .map_err(|e| Failure::Failed(format!("{}: {e}", workload.name())))?,
        );
    }
    samples.sort_by(|a, b| a.seconds.total_cmp(&b.seconds));
    let median = &samples[REPEATS / 2];
    let line = json!({
        "workload": workload.name(),
        "seconds": median.seconds,
        "ops": median.ops,
        "ops_per_sec": median.ops as f64 / median.seconds.max(1e-9),
        "trace_events": median.trace_events,
        "peak_rss_kib": peak_rss_kib(),
        "steps": median.steps,
        "ns_per_step": median.steps.map(|steps| median.seconds * 1e9 / steps.max(1) as f64),
        "cpu_seconds": median.cpu_seconds,
        "cpu_ns_per_step": median
            .steps
            .zip(median.cpu_seconds)
            .map(|(steps, cpu)| cpu * 1e9 / steps.max(1) as f64),
    });
    output::println(&line.to_string())?;
    Ok(ExitCode::SUCCESS)
}

/// The optimized xtask binary, built if this process is not one. Cargo's
/// progress goes to stderr, so the build (about half a minute the first
/// time) is visible and stdout stays the report's.
pub fn release_binary() -> Result<PathBuf, Failure> {
    if !cfg!(debug_assertions) {
        return std::env::current_exe()
            .map_err(|e| Failure::Failed(format!("cannot find this executable: {e}")));
    }
    let workspace = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(PathBuf::from)
        .ok_or_else(|| Failure::Failed("xtask has no parent directory".into()))?;
    output::note("bench: building an optimized xtask (cargo build --release -p xtask)");
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["build", "--release", "-p", "xtask"])
        .current_dir(&workspace)
        .stdin(Stdio::null())
        .stdout(std::io::stderr())
        .status()
        .map_err(|e| Failure::Failed(format!("cannot run cargo: {e}")))?;
    if !status.success() {
        return Err(Failure::Failed("optimized build failed".into()));
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace.join("target"));
    Ok(target
        .join("release")
        .join(format!("xtask{}", std::env::consts::EXE_SUFFIX)))
}

/// The default of `--clients` (omitted from a worker's arguments when in
/// force, so an older build without the flag runs the same workload).
pub const DEFAULT_CLIENTS: u64 = 16;

/// The `bench-worker` arguments for one workload.
pub fn worker_args(workload: Workload, writes: u64, trace: bool, clients: u64) -> Vec<String> {
    let mut args = vec![
        "bench-worker".to_owned(),
        workload.name().to_owned(),
        "--writes".to_owned(),
        writes.to_string(),
        "--trace".to_owned(),
        if trace { "on" } else { "off" }.to_owned(),
    ];
    if clients != DEFAULT_CLIENTS {
        args.extend(["--clients".to_owned(), clients.to_string()]);
    }
    args
}

/// Runs `binary bench-worker …` and parses its JSON line; the error is the
/// worker's stderr (or why it could not run).
pub fn run_worker(binary: &Path, args: &[String]) -> Result<Json, String> {
    let output = Command::new(binary)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).trim().to_owned());
    }
    let line = String::from_utf8_lossy(&output.stdout);
    serde_json::from_str(line.trim()).map_err(|e| format!("bad worker output {line:?}: {e}"))
}

/// The workloads to run: all, or those in `only`, in report order.
/// `lincheck-porcupine` reads a directory of its own, so it runs only when
/// named.
pub fn selected(only: &[Workload]) -> Vec<Workload> {
    WORKLOADS
        .into_iter()
        .filter(|w| {
            if only.is_empty() {
                *w != Workload::LincheckPorcupine
            } else {
                only.contains(w)
            }
        })
        .collect()
}

/// `bench`: every workload (or those in `only`) in its own optimized
/// child process.
pub fn run(
    writes: u64,
    trace: bool,
    as_json: bool,
    only: &[Workload],
    clients: u64,
    data: Option<&Path>,
) -> Result<ExitCode, Failure> {
    let workloads = selected(only);
    if workloads.contains(&Workload::LincheckPorcupine) && data.is_none() {
        return Err(Failure::usage(
            "bench",
            clap::error::ErrorKind::MissingRequiredArgument,
            "lincheck-porcupine needs DIR: Porcupine's test_data directory",
        ));
    }
    let binary = release_binary()?;
    let mut rows: Vec<Json> = Vec::new();
    for workload in workloads {
        let mut args = worker_args(workload, writes, trace, clients);
        if let (Workload::LincheckPorcupine, Some(dir)) = (workload, data) {
            args.extend(["--data".to_owned(), dir.display().to_string()]);
        }
        let row = run_worker(&binary, &args)
            .map_err(|e| Failure::Failed(format!("workload {} failed: {e}", workload.name())))?;
        rows.push(row);
    }
    if as_json {
        let json = serde_json::to_string_pretty(&Json::Array(rows))
            .map_err(|e| Failure::Failed(e.to_string()))?;
        output::println(&json)?;
        return Ok(ExitCode::SUCCESS);
    }
    output::print(&bench_report::report(&rows, writes, trace, REPEATS))?;
    for row in &rows {
        output::print(&bench_porcupine::report(row, REPEATS))?;
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worker_args_name_the_workload_and_leave_out_the_default_clients() {
        assert_eq!(
            worker_args(Workload::WritesAsync, 200_000, false, DEFAULT_CLIENTS),
            [
                "bench-worker",
                "writes-async",
                "--writes",
                "200000",
                "--trace",
                "off"
            ]
        );
        assert_eq!(
            worker_args(Workload::PipelinedRaft, 5, true, 4),
            [
                "bench-worker",
                "pipelined-raft",
                "--writes",
                "5",
                "--trace",
                "on",
                "--clients",
                "4"
            ]
        );
    }

    #[test]
    fn selected_keeps_report_order_and_only_what_was_asked() {
        // All of them but the one that needs a directory.
        let all: Vec<Workload> = WORKLOADS
            .into_iter()
            .filter(|w| *w != Workload::LincheckPorcupine)
            .collect();
        assert_eq!(selected(&[]), all);
        assert_eq!(
            selected(&[Workload::LincheckPorcupine]),
            [Workload::LincheckPorcupine]
        );
        assert_eq!(
            selected(&[Workload::WritesRaft, Workload::Matrix]),
            [Workload::Matrix, Workload::WritesRaft]
        );
    }
}
