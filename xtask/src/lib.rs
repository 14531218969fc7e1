//! `cargo xtask` — MiniDist's command line (a library too: a crate of its
//! own protocol runs the same commands from its own binary, see [`main`]).
//!
//! - `cargo xtask matrix [--format text|markdown|json] [--protocol P] [--experiment N]`
//! - `cargo xtask matrix --check FILE | --write FILE` (always Markdown)
//! - `cargo xtask trace --experiment N --protocol P [--variant V] [--format text|jsonl] [--node N] [--kinds K,…] [--no-messages]`
//! - `cargo xtask trace … --at T` (every node's state at tick T) or `--state` (the state table)
//! - `cargo xtask bench [--writes N] [--trace on|off] [--json] [--only W,…] [--baseline REV [--rounds R]] [DIR]` (DIR: Porcupine's test_data, for `lincheck-porcupine`)
//! - `cargo xtask diagram --experiment N --protocol P [--variant V] [-o FILE]`
//! - `cargo xtask run FILE [--protocol P] [--rewrite]` (a scenario file, see `labs::scenario`)
//! - `cargo xtask explore [--protocol P] [--ack A] [--read R] [--schedules N] [--jobs J] [--json | --jsonl] [--check FILE | --write FILE] [--shard I/N]`
//! - `cargo xtask explore --replay ID [--diagram FILE] [--node N] [--kinds K,…] [--no-messages]`
//! - `cargo xtask lab start isr|raft DIR`, `lab grade [DIR] [--stage N]`, `lab stages LAB`, `lab calibrate`
//! - `cargo xtask report [--out DIR] [--schedules N] [--jobs J]`, or `report --scenario FILE [--protocol P]`
//!
//! Exit codes: 0 on success (also when stdout is closed early, as by
//! `| head`), 1 when a command fails (a check finds a difference, a run
//! errs), 2 on a usage error. `RUST_LOG` (e.g.
//! `RUST_LOG=minidist::trace=debug`) mirrors trace events to stderr through
//! `tracing-subscriber`, coloured only when stderr is a terminal and
//! `NO_COLOR` is unset or empty.

mod args;
mod bench;
mod bench_baseline;
mod bench_compare;
mod bench_lincheck;
mod bench_porcupine;
mod bench_report;
mod check_cmd;
mod colour;
mod debug_cmd;
mod debug_export;
mod debug_json;
mod diagram_cmd;
mod exhaustive_cmd;
mod explore_cmd;
mod lab_cmd;
mod matrix_cmd;
mod merge_cmd;
mod mutants_cmd;
mod optimized;
mod output;
mod planted_cmd;
mod replay_diagram;
mod report;
mod report_cmd;
mod run_cmd;
mod state_table;
mod sweep_all;
mod table;
mod trace_cmd;
mod trace_filter;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::args::{
    ExperimentArg, MatrixFormat, ProtocolArg, Switch, TraceFormat, VariantArg, Workload,
};
use crate::output::Failure;

/// MiniDist: run the experiments, print traces, measure speed.
#[derive(Parser)]
#[command(
    name = "xtask",
    after_help = "Exit status: 0 on success (also when stdout is closed early), \
                  1 when a command fails, 2 on a usage error."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the seven experiments against the four protocols and print the matrix.
    Matrix {
        /// Output format on stdout [default: text, 100 columns wide].
        #[arg(long, value_enum)]
        format: Option<MatrixFormat>,
        /// Same as --format json.
        #[arg(long, conflicts_with = "format")]
        json: bool,
        /// Only this protocol.
        #[arg(long, value_parser = crate::args::protocol_parser())]
        protocol: Option<ProtocolArg>,
        /// Only this experiment.
        #[arg(long, value_enum)]
        experiment: Option<ExperimentArg>,
        /// Compare a fresh run with the Markdown FILE; print a diff and exit 1 on any difference.
        #[arg(long, value_name = "FILE", conflicts_with_all = ["write", "json"])]
        check: Option<PathBuf>,
        /// Write the fresh matrix as Markdown to FILE.
        #[arg(long, value_name = "FILE", conflicts_with = "json")]
        write: Option<PathBuf>,
    },
    /// Print the trace of one experiment run (only that run is computed).
    Trace {
        /// Experiment number.
        #[arg(long, value_enum)]
        experiment: ExperimentArg,
        /// Protocol.
        #[arg(long, value_parser = crate::args::protocol_parser())]
        protocol: ProtocolArg,
        /// Variant [default: the experiment's only or first variant].
        #[arg(long, value_enum)]
        variant: Option<VariantArg>,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: TraceFormat,
        /// Print every node's state line at tick T instead of the trace.
        #[arg(long, value_name = "T", conflicts_with = "state")]
        at: Option<u64>,
        /// Print the state table instead of the trace: a row for each node and
        /// tick at which its state line changed (changed values marked *).
        #[arg(long)]
        state: bool,
        /// Only events (or state rows) naming this node; repeat for several.
        #[arg(long, value_name = "NODE")]
        node: Vec<String>,
        /// Only events of these kinds (comma-separated; `isr_*` for a prefix).
        #[arg(long, value_delimiter = ',', value_name = "KIND")]
        kinds: Vec<String>,
        /// Leave out the network's message_* events.
        #[arg(long)]
        no_messages: bool,
    },
    /// Measure the simulator's speed in an optimized build.
    Bench {
        /// Writes per write workload, 1 to 10000000.
        #[arg(
            long,
            default_value_t = 2000,
            value_parser = clap::value_parser!(u64).range(1..=bench::MAX_WRITES)
        )]
        writes: u64,
        /// Record the trace (on, like the Python original) or not.
        #[arg(long, value_enum, default_value = "on")]
        trace: Switch,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// Only these workloads (comma-separated) [default: all].
        #[arg(long, value_enum, value_delimiter = ',')]
        only: Vec<Workload>,
        /// Operations kept in flight by the pipelined-* workloads.
        #[arg(long, default_value_t = bench::DEFAULT_CLIENTS, value_parser = clap::value_parser!(u64).range(1..=1024))]
        clients: u64,
        /// Also build commit REV (in a git worktree under target/bench-baseline/)
        /// and run both builds interleaved, printing each figure and the ratio.
        #[arg(long, value_name = "REV")]
        baseline: Option<String>,
        /// Rounds of --baseline (each runs every workload once on each build).
        #[arg(long, default_value_t = 2, requires = "baseline", value_parser = clap::value_parser!(u64).range(1..=20))]
        rounds: u64,
        /// Porcupine's test_data directory, for --only lincheck-porcupine.
        #[arg(value_name = "DIR")]
        data: Option<PathBuf>,
    },
    /// Draw one experiment run's space-time diagram as SVG.
    Diagram(diagram_cmd::Args),
    /// Run a scenario file on every protocol (or one); --rewrite its expected outputs.
    Run(run_cmd::Args),
    /// Check every guarantee over seeded fault schedules; shrink and replay counterexamples.
    Explore(explore_cmd::Args),
    /// Model-check the real protocol code: every path within the bounds, states deduplicated, shortest counterexamples.
    Check(check_cmd::Args),
    /// Step through a run in the browser: choose what happens next, branch and go back.
    Debug(debug_cmd::Args),
    /// Staged labs: start a student's crate, grade it, list the stages, calibrate the grader.
    Lab(lab_cmd::Args),
    /// Write the HTML report (matrix, guarantees, a page per run and per counterexample).
    Report(report_cmd::Args),
    /// Mutation testing (cargo-mutants) of each protocol crate's safety
    /// files against its tests and the cross-crate tests; slow, not in CI.
    Mutants(mutants_cmd::Args),
    /// Internal: run one bench workload in this process and print one JSON line.
    #[command(hide = true)]
    BenchWorker {
        #[arg(value_enum)]
        workload: Workload,
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..=bench::MAX_WRITES))]
        writes: u64,
        #[arg(long, value_enum)]
        trace: Switch,
        #[arg(long, default_value_t = bench::DEFAULT_CLIENTS, value_parser = clap::value_parser!(u64).range(1..=1024))]
        clients: u64,
        #[arg(long)]
        data: Option<PathBuf>,
    },
}

fn run(command: Command) -> Result<ExitCode, Failure> {
    match command {
        Command::Matrix {
            format,
            json,
            protocol,
            experiment,
            check,
            write,
        } => matrix_cmd::run(matrix_cmd::Options {
            format: if json {
                Some(MatrixFormat::Json)
            } else {
                format
            },
            protocol,
            experiment,
            check,
            write,
        }),
        Command::Trace {
            experiment,
            protocol,
            variant,
            format,
            at,
            state,
            node,
            kinds,
            no_messages,
        } => trace_cmd::run(
            experiment,
            protocol,
            variant,
            trace_cmd::Show {
                format,
                at,
                state,
                nodes: node,
                kinds,
                no_messages,
            },
        ),
        Command::Bench {
            writes,
            trace,
            json,
            only,
            clients,
            baseline: Some(rev),
            rounds,
            ..
        } => bench_baseline::run(&bench_baseline::Options {
            rev: &rev,
            rounds: usize::try_from(rounds).unwrap_or(1),
            writes,
            trace: trace == Switch::On,
            only: &only,
            clients,
            as_json: json,
        }),
        Command::Bench {
            writes,
            trace,
            json,
            only,
            clients,
            baseline: None,
            data,
            ..
        } => bench::run(
            writes,
            trace == Switch::On,
            json,
            &only,
            clients,
            data.as_deref(),
        ),
        Command::Diagram(args) => diagram_cmd::run(args),
        Command::Run(args) => run_cmd::run(args),
        Command::Explore(args) => explore_cmd::command(args),
        Command::Check(args) => check_cmd::command(args),
        Command::Debug(args) => debug_cmd::command(args),
        Command::Lab(args) => lab_cmd::command(args),
        Command::Report(args) => report_cmd::run(args),
        Command::Mutants(args) => mutants_cmd::run(args),
        Command::BenchWorker {
            workload,
            writes,
            trace,
            clients,
            data,
        } => bench::worker(
            workload,
            writes,
            trace == Switch::On,
            clients,
            data.as_deref(),
        ),
    }
}

/// The command line over the registry [`labs::registry`] serves: the
/// built-in protocols, or those a crate of its own installed with
/// [`labs::serve`] before calling this (a lab's student crate, a protocol
/// outside the workspace) — so every command, and every command a
/// counterexample prints, works on that crate's protocols.
pub fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .with_ansi(colour::allowed_on(std::io::stderr().is_terminal()))
        .init();
    let cli = Cli::parse();
    run(cli.command).unwrap_or_else(Failure::exit_code)
}
