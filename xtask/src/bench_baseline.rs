//! `cargo xtask bench --baseline REV`: this tree and an older commit side
//! by side in one run, so a regression shows as a ratio even on a noisy
//! machine.
//!
//! REV is checked out as a detached git worktree in
//! `target/bench-baseline/<commit>` (kept, so the next comparison reuses
//! it and its build) and built there with `cargo build --release -p xtask`
//! into its own target directory. Then each round runs every workload once
//! on each build, alternating which build goes first, and the table shows
//! both figures and their ratio ([`crate::bench_compare`]). A workload the
//! older build does not know shows no baseline figure.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use serde_json::Value as Json;

use crate::args::Workload;
use crate::bench;
use crate::bench_compare::{self, Compared};
use crate::output::{self, Failure};

/// What `--baseline` compares, as the command line gave it.
pub struct Options<'a> {
    /// The commit (any git revision) to compare with.
    pub rev: &'a str,
    /// Rounds, each running every workload once on each build.
    pub rounds: usize,
    /// Writes per write workload.
    pub writes: u64,
    /// Trace on or off.
    pub trace: bool,
    /// Only these workloads (empty: all).
    pub only: &'a [Workload],
    /// In-flight operations of the pipelined workloads.
    pub clients: u64,
    /// Print both builds' worker rows as JSON instead of the table.
    pub as_json: bool,
}

fn workspace() -> Result<PathBuf, Failure> {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(PathBuf::from)
        .ok_or_else(|| Failure::Failed("xtask has no parent directory".into()))
}

fn git(dir: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_owned())
    }
}

/// The full commit id `rev` names, or why it names none.
fn resolve(workspace: &Path, rev: &str) -> Result<String, Failure> {
    if rev.is_empty() || rev.starts_with('-') {
        return Err(Failure::Failed(format!(
            "--baseline {rev:?}: not a git revision"
        )));
    }
    git(
        workspace,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{rev}^{{commit}}"),
        ],
    )
    .ok()
    .filter(|id| !id.is_empty())
    .ok_or_else(|| {
        Failure::Failed(format!(
            "--baseline {rev}: no such commit in {}",
            workspace.display()
        ))
    })
}

/// The worktree of `commit` under the target directory, created when
/// missing and checked to be at `commit` when present.
fn worktree(workspace: &Path, target: &Path, commit: &str) -> Result<PathBuf, Failure> {
    let dir = target.join("bench-baseline").join(&commit[..12]);
    if dir.join("Cargo.toml").is_file() {
        let head = git(&dir, &["rev-parse", "HEAD"]).map_err(Failure::Failed)?;
        if head != commit {
            return Err(Failure::Failed(format!(
                "{} is at {head}, not {commit}; remove it (git worktree remove --force {})",
                dir.display(),
                dir.display()
            )));
        }
        return Ok(dir);
    }
    output::note(&format!(
        "bench: checking out {commit} in {}",
        dir.display()
    ));
    // A worktree whose directory was deleted is still registered: forget it.
    git(workspace, &["worktree", "prune"]).map_err(Failure::Failed)?;
    let path = dir.to_string_lossy().into_owned();
    git(workspace, &["worktree", "add", "--detach", &path, commit])
        .map_err(|e| Failure::Failed(format!("git worktree add {path} {commit}: {e}")))?;
    Ok(dir)
}

/// Builds the optimized xtask of the worktree at `dir` into `dir/target`.
fn build(dir: &Path, commit: &str) -> Result<PathBuf, Failure> {
    output::note(&format!(
        "bench: building {} optimized (cargo build --release -p xtask in {})",
        &commit[..12],
        dir.display()
    ));
    let target = dir.join("target");
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["build", "--release", "-p", "xtask"])
        .env("CARGO_TARGET_DIR", &target)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(std::io::stderr())
        .status()
        .map_err(|e| Failure::Failed(format!("cannot run cargo: {e}")))?;
    if !status.success() {
        return Err(Failure::Failed(format!(
            "the optimized build of {commit} failed"
        )));
    }
    Ok(target
        .join("release")
        .join(format!("xtask{}", std::env::consts::EXE_SUFFIX)))
}

/// `bench --baseline REV`: both builds, interleaved, and the ratio table.
pub fn run(options: &Options<'_>) -> Result<ExitCode, Failure> {
    let workspace = workspace()?;
    let commit = resolve(&workspace, options.rev)?;
    let current = bench::release_binary()?;
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace.join("target"));
    let dir = worktree(&workspace, &target, &commit)?;
    let baseline = build(&dir, &commit)?;
    let workloads = bench::selected(options.only);
    let mut rows: Vec<Compared> = workloads
        .iter()
        .map(|w| Compared {
            workload: w.name().to_owned(),
            current: Vec::new(),
            baseline: Ok(Vec::new()),
            failed: None,
        })
        .collect();
    for round in 0..options.rounds {
        for (workload, row) in workloads.iter().zip(&mut rows) {
            if row.failed.is_some() {
                continue;
            }
            let args =
                bench::worker_args(*workload, options.writes, options.trace, options.clients);
            // Alternate which build goes first, so neither always runs on
            // a machine the other just warmed (or heated).
            let order: [bool; 2] = if round % 2 == 0 {
                [true, false]
            } else {
                [false, true]
            };
            for is_current in order {
                if is_current {
                    // A failing workload is reported under the table; the
                    // others still run.
                    match bench::run_worker(&current, &args) {
                        Ok(line) => row.current.push(line),
                        Err(why) => {
                            row.failed = Some(why);
                            break;
                        }
                    }
                } else if let Ok(lines) = &mut row.baseline {
                    match bench::run_worker(&baseline, &args) {
                        Ok(line) => lines.push(line),
                        Err(why) => row.baseline = Err(why),
                    }
                }
            }
        }
        output::note(&format!(
            "bench: round {} of {} done",
            round + 1,
            options.rounds
        ));
    }
    if options.as_json {
        let text = serde_json::to_string_pretty(&json(&commit, &rows))
            .map_err(|e| Failure::Failed(e.to_string()))?;
        output::println(&text)?;
        return Ok(exit_code(&rows));
    }
    let short: String = if options.rev.len() <= 12 {
        options.rev.to_owned()
    } else {
        commit[..12].to_owned()
    };
    output::print(&bench_compare::report(
        &short,
        &rows,
        options.writes,
        options.trace,
        options.rounds,
        bench::REPEATS,
    ))?;
    Ok(exit_code(&rows))
}

/// Failure when this build's worker failed for some workload.
fn exit_code(rows: &[Compared]) -> ExitCode {
    if rows.iter().any(|r| r.failed.is_some()) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// `--baseline --json`: the baseline commit and, per workload, both
/// builds' worker rows (one per round; `baseline` is `null` when that
/// build has no such workload; `failed` says why this build's worker
/// failed, else `null`).
fn json(commit: &str, rows: &[Compared]) -> Json {
    let workloads: Vec<Json> = rows
        .iter()
        .map(|r| {
            serde_json::json!({
                "workload": r.workload,
                "current": r.current,
                "baseline": r.baseline.as_ref().ok(),
                "failed": r.failed,
            })
        })
        .collect();
    serde_json::json!({"baseline": commit, "workloads": workloads})
}
