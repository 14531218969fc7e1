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

/// `cargo xtask report [--out DIR] [--schedules N] [--jobs J]`, or
/// `cargo xtask report --scenario FILE [--protocol P] [--out DIR]`.
#[derive(clap::Args)]
pub struct Args {
    /// The directory to write the site to (created if missing) [default:
    /// target/minidist-report; with --scenario: target/minidist-scenario].
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// A scenario file (see `cargo xtask run`) to report on instead of the
    /// experiments and the explorer: a page per part and protocol, with
    /// its diagram, state panel and trace (no sweep).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["schedules", "ignore_floors", "jobs"])]
    scenario: Option<PathBuf>,
    /// With --scenario: only this protocol [default: every one].
    #[arg(long, requires = "scenario", value_parser = crate::args::protocol_parser())]
    protocol: Option<crate::args::ProtocolArg>,
    /// Explorer schedules per configuration (as `cargo xtask explore
    /// --schedules`; the default is docs/guarantees.md's).
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
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
    if let Some(file) = &args.scenario {
        let out = args
            .out
            .clone()
            .unwrap_or_else(|| PathBuf::from("target/minidist-scenario"));
        return scenario_report(file, args.protocol, &out);
    }
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("target/minidist-report"));
    // Before the optimized build and the sweep (a minute or more): a
    // folder the site cannot be written to fails now.
    check_writable(&out)?;
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
    write(&out, &pages)?;
    wrote(&pages, &out)
}

fn wrote(pages: &[report::Page], out: &Path) -> Result<ExitCode, Failure> {
    output::println(&format!(
        "wrote {} files to {}; open {}",
        pages.len(),
        out.display(),
        out.join("index.html").display()
    ))?;
    Ok(ExitCode::SUCCESS)
}

/// `report --scenario FILE`: the file's site (see `report/scenario_site.rs`).
fn scenario_report(
    file: &Path,
    protocol: Option<crate::args::ProtocolArg>,
    out: &Path,
) -> Result<ExitCode, Failure> {
    let name = file.display().to_string();
    let text = std::fs::read_to_string(file)
        .map_err(|e| Failure::Failed(format!("cannot read {name}: {e}")))?;
    let registry = labs::registry();
    let parsed =
        scenario::parse(&name, &text, &registry).map_err(|e| Failure::Failed(e.to_string()))?;
    check_writable(out)?;
    let protocols: Vec<_> = match protocol {
        Some(p) => vec![p],
        None => labs::registry().protocols().to_vec(),
    };
    let pages = report::scenario_site::build(&name, &parsed, &protocols, &registry);
    write(out, &pages)?;
    wrote(&pages, out)
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
/// left in its `runs/`, `counterexamples/` and `parts/` folders (only
/// `*.html` files there).
fn write(out: &Path, pages: &[report::Page]) -> Result<(), Failure> {
    let failed = |path: &Path, e: std::io::Error| {
        Failure::Failed(format!("cannot write {}: {e}", path.display()))
    };
    for folder in ["runs", "counterexamples", "parts"] {
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
