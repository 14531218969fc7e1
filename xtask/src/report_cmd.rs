//! `cargo xtask report`: the static HTML report — the matrix, the
//! guarantees, a page per run and per counterexample — written to a
//! directory that opens from the file system (see `report/mod.rs`).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::error::ErrorKind;
use explore::SweepOptions;

use crate::explore_cmd::{self, Stop};
use crate::output::{self, Failure};
use crate::report::{self, Inputs};

/// `cargo xtask report [--out DIR] [--schedules N] [--jobs J]`.
#[derive(clap::Args)]
pub struct Args {
    /// The directory to write the site to (created if missing).
    #[arg(long, value_name = "DIR", default_value = "target/minidist-report")]
    out: PathBuf,
    /// Explorer schedules per configuration (as `cargo xtask explore --schedules`).
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    schedules: u64,
    /// Sweep exactly --schedules per configuration, also where a row asks
    /// for more (as `cargo xtask explore --ignore-floors`).
    #[arg(long)]
    ignore_floors: bool,
    /// Worker threads for the explorer [default: all cores]; the site is the same for every value.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
    jobs: Option<u16>,
}

/// `report`.
pub fn run(args: Args) -> Result<ExitCode, Failure> {
    // Before the optimized build and the sweep (a minute or more): a
    // folder the site cannot be written to fails now.
    check_writable(&args.out)?;
    if let Some(code) = crate::optimized::reexec("report", &[])? {
        return Ok(code);
    }
    let jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, usize::from),
        usize::from,
    );
    let sweep = SweepOptions {
        schedules: args.schedules,
        first_seed: 0,
        jobs,
        shard: None,
        shrink: true,
        floors: !args.ignore_floors,
    };
    let pages = build(&sweep, std::io::stderr().is_terminal()).map_err(|stop| match stop {
        Stop::Usage(message) => Failure::usage("report", ErrorKind::InvalidValue, message),
        Stop::Failed(message) => Failure::Failed(message),
    })?;
    write(&args.out, &pages)?;
    output::println(&format!(
        "wrote {} files to {}; open {}",
        pages.len(),
        args.out.display(),
        args.out.join("index.html").display()
    ))?;
    Ok(ExitCode::SUCCESS)
}

/// Runs every experiment, sweeps every explorer configuration, replays each
/// counterexample the verdicts cite, and builds the site's pages.
fn build(sweep: &SweepOptions, progress: bool) -> Result<Vec<report::Page>, Stop> {
    let runs = labs::all_runs().map_err(|e| Stop::Failed(format!("an experiment failed: {e}")))?;
    let verdicts = explore_cmd::sweep_all(&labs::explore_configs(), sweep, progress)?;
    let mut ids: Vec<String> = Vec::new();
    for cx in verdicts.iter().filter_map(|v| v.counterexample.as_ref()) {
        let id = cx.replay.to_string();
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    let replays = ids
        .iter()
        .map(|id| labs::recording_states(|| explore_cmd::replay_id(id)))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(report::build(&Inputs {
        runs: &runs,
        verdicts: &verdicts,
        sweep,
        replays: &replays,
    }))
}

/// Fails unless `out` is (or can be created as) a folder a file can be
/// written to: creates it and writes and removes a probe file.
fn check_writable(out: &Path) -> Result<(), Failure> {
    let failed = |e: std::io::Error| {
        Failure::Failed(format!(
            "cannot write the report to {}: {e} (nothing was run)",
            out.display()
        ))
    };
    std::fs::create_dir_all(out).map_err(failed)?;
    let probe = out.join(".minidist-report-probe");
    std::fs::write(&probe, b"").map_err(failed)?;
    std::fs::remove_file(&probe).map_err(failed)
}

/// Writes `pages` under `out`, first removing the pages a previous report
/// left in its `runs/` and `counterexamples/` folders (only `*.html`
/// files there).
fn write(out: &Path, pages: &[report::Page]) -> Result<(), Failure> {
    let failed = |path: &Path, e: std::io::Error| {
        Failure::Failed(format!("cannot write {}: {e}", path.display()))
    };
    for folder in ["runs", "counterexamples"] {
        let dir = out.join(folder);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "html") {
                std::fs::remove_file(&path).map_err(|e| failed(&path, e))?;
            }
        }
    }
    for page in pages {
        let path = out.join(&page.path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| failed(parent, e))?;
        }
        std::fs::write(&path, &page.content).map_err(|e| failed(&path, e))?;
    }
    Ok(())
}
