//! `cargo xtask bench`: the simulator's own speed, in an optimized build.
//!
//! The parent process makes sure an optimized `xtask` exists (building it
//! with `cargo build --release -p xtask` when it is itself a debug build),
//! then runs every workload in a fresh child process (`bench-worker`) so each
//! one's peak RSS is its own. Each child runs its workload three times on a
//! fresh group and reports the median time.

use std::path::PathBuf;
use std::process::{Command, ExitCode};
use std::time::Instant;

use bytes::Bytes;
use replication::{AckLevel, GroupError, NodeId, ReplicationGroup};
use serde_json::{Value as Json, json};

/// Every workload, in report order.
pub const WORKLOADS: [&str; 5] = [
    "matrix",
    "writes-async",
    "writes-wal",
    "writes-isr",
    "writes-raft",
];

const REPEATS: usize = 3;

/// One workload's measurement.
struct Sample {
    seconds: f64,
    ops: u64,
    trace_events: u64,
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
    Ok(Sample {
        seconds,
        ops: writes,
        trace_events: group.trace().len() as u64,
    })
}

fn err(e: GroupError) -> String {
    e.to_string()
}

fn measure_once(workload: &str, writes: u64, trace: bool) -> Result<Sample, String> {
    match workload {
        "matrix" => {
            let start = Instant::now();
            let runs = labs::all_runs().map_err(err)?;
            let seconds = start.elapsed().as_secs_f64();
            Ok(Sample {
                seconds,
                ops: runs.len() as u64,
                trace_events: runs.iter().map(|r| r.trace.len() as u64).sum(),
            })
        }
        "writes-async" => {
            let mut group =
                proto_async::AsyncPrimaryGroup::new(proto_async::AsyncConfig::default())
                    .map_err(err)?;
            group.trace_mut().set_enabled(trace);
            timed_writes(&mut group, writes, AckLevel::Leader)
        }
        "writes-wal" => {
            let config = proto_wal::WalConfig {
                synchronous_standbys: vec![NodeId::new("standby-1")],
                ..proto_wal::WalConfig::default()
            };
            let mut group = proto_wal::WalShippingGroup::new(config).map_err(err)?;
            group.trace_mut().set_enabled(trace);
            timed_writes(&mut group, writes, AckLevel::Quorum)
        }
        "writes-isr" => {
            let mut group =
                proto_isr::IsrGroup::new(proto_isr::IsrConfig::default()).map_err(err)?;
            group.trace_mut().set_enabled(trace);
            timed_writes(&mut group, writes, AckLevel::AllIsr)
        }
        "writes-raft" => {
            let config = proto_raft::RaftConfig {
                nodes: (1..=5).map(|i| NodeId::new(format!("n{i}"))).collect(),
                seed: 7,
                ..proto_raft::RaftConfig::default()
            };
            let mut group = proto_raft::RaftGroup::new(config).map_err(err)?;
            group.trace_mut().set_enabled(trace);
            group.run_until_leader(None, 1_000).map_err(err)?;
            timed_writes(&mut group, writes, AckLevel::Quorum)
        }
        other => Err(format!(
            "unknown workload {other:?}; known: {}",
            WORKLOADS.join(", ")
        )),
    }
}

/// Peak resident set size of this process in KiB (Linux `VmHWM`).
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// `bench-worker`: one workload, median of three runs, one JSON line.
pub fn worker(workload: &str, writes: u64, trace: bool) -> Result<ExitCode, String> {
    let mut samples = Vec::with_capacity(REPEATS);
    for _ in 0..REPEATS {
        samples.push(measure_once(workload, writes, trace)?);
    }
    samples.sort_by(|a, b| a.seconds.total_cmp(&b.seconds));
    let median = &samples[REPEATS / 2];
    let line = json!({
        "workload": workload,
        "seconds": median.seconds,
        "ops": median.ops,
        "ops_per_sec": median.ops as f64 / median.seconds.max(1e-9),
        "trace_events": median.trace_events,
        "peak_rss_kib": peak_rss_kib(),
    });
    println!("{line}");
    Ok(ExitCode::SUCCESS)
}

/// The optimized xtask binary, built if this process is not one.
fn release_binary() -> Result<PathBuf, String> {
    if !cfg!(debug_assertions) {
        return std::env::current_exe().map_err(|e| e.to_string());
    }
    let workspace = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(PathBuf::from)
        .ok_or("xtask has no parent directory")?;
    eprintln!("bench: building an optimized xtask (cargo build --release -p xtask) …");
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["build", "--release", "--quiet", "-p", "xtask"])
        .current_dir(&workspace)
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err("optimized build failed".into());
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace.join("target"));
    Ok(target
        .join("release")
        .join(format!("xtask{}", std::env::consts::EXE_SUFFIX)))
}

/// `bench`: every workload in its own optimized child process.
pub fn run(writes: u64, trace: bool, as_json: bool, only: &[String]) -> Result<ExitCode, String> {
    if let Some(unknown) = only.iter().find(|w| !WORKLOADS.contains(&w.as_str())) {
        return Err(format!(
            "unknown workload {unknown:?}; known: {}",
            WORKLOADS.join(", ")
        ));
    }
    let binary = release_binary()?;
    let mut rows: Vec<Json> = Vec::new();
    for workload in WORKLOADS
        .iter()
        .filter(|w| only.is_empty() || only.iter().any(|o| o == *w))
    {
        let output = Command::new(&binary)
            .args(["bench-worker", workload, "--writes", &writes.to_string()])
            .args(["--trace", if trace { "on" } else { "off" }])
            .output()
            .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
        if !output.status.success() {
            return Err(format!(
                "workload {workload} failed: {}",
                String::from_utf8_lossy(&output.stderr).trim()
            ));
        }
        let line = String::from_utf8_lossy(&output.stdout);
        let row: Json = serde_json::from_str(line.trim())
            .map_err(|e| format!("bad worker output {line:?}: {e}"))?;
        rows.push(row);
    }
    if as_json {
        println!(
            "{}",
            serde_json::to_string_pretty(&Json::Array(rows)).map_err(|e| e.to_string())?
        );
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "optimized build, trace {}, N = {writes} writes per write workload, median of {REPEATS}\n",
        if trace { "on" } else { "off" }
    );
    println!(
        "| {:<13} | {:>10} | {:>8} | {:>13} | {:>12} | {:>13} |",
        "workload", "seconds", "ops", "ops/s", "trace events", "peak RSS MiB"
    );
    println!(
        "|{:-<15}|{:->12}|{:->10}|{:->15}|{:->14}|{:->15}|",
        "", "", "", "", "", ""
    );
    for row in &rows {
        println!(
            "| {:<13} | {:>10.6} | {:>8} | {:>13.0} | {:>12} | {:>13.1} |",
            row["workload"].as_str().unwrap_or("?"),
            row["seconds"].as_f64().unwrap_or(f64::NAN),
            row["ops"].as_u64().unwrap_or(0),
            row["ops_per_sec"].as_f64().unwrap_or(f64::NAN),
            row["trace_events"].as_u64().unwrap_or(0),
            row["peak_rss_kib"]
                .as_u64()
                .map_or(f64::NAN, |k| k as f64 / 1024.0),
        );
    }
    Ok(ExitCode::SUCCESS)
}
