//! `cargo xtask` — MiniDist's command line.
//!
//! - `cargo xtask matrix [--json] [--protocol P] [--experiment N] [--check FILE | --write FILE]`
//! - `cargo xtask trace --experiment N --protocol P [--variant V] [--format text|jsonl]`
//! - `cargo xtask bench [--writes N] [--trace on|off] [--json]`
//! - `cargo xtask diagram --experiment N --protocol P [--variant V] [-o FILE]`
//!
//! `RUST_LOG` (e.g. `RUST_LOG=minidist::trace=debug`) mirrors trace events to
//! stderr through `tracing-subscriber`.

mod bench;
mod diagram_cmd;
mod matrix_cmd;
mod trace_cmd;

use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

#[derive(Parser)]
#[command(
    name = "xtask",
    about = "MiniDist: run the experiments, print traces, measure speed"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Trace output format.
#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Jsonl,
}

/// On or off.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Switch {
    On,
    Off,
}

#[derive(Subcommand)]
enum Command {
    /// Run the seven experiments against the four protocols and print the matrix.
    Matrix {
        /// Print JSON instead of Markdown.
        #[arg(long)]
        json: bool,
        /// Only this protocol (async, wal, isr, raft).
        #[arg(long)]
        protocol: Option<String>,
        /// Only this experiment (1–7).
        #[arg(long, value_parser = clap::value_parser!(u8).range(1..=7))]
        experiment: Option<u8>,
        /// Compare a fresh run with FILE; exit non-zero on any difference.
        #[arg(long, value_name = "FILE", conflicts_with = "write")]
        check: Option<std::path::PathBuf>,
        /// Write the fresh Markdown matrix to FILE.
        #[arg(long, value_name = "FILE")]
        write: Option<std::path::PathBuf>,
    },
    /// Print the trace of one experiment run.
    Trace {
        /// Experiment number (1–7).
        #[arg(long, value_parser = clap::value_parser!(u8).range(1..=7))]
        experiment: u8,
        /// Protocol (async, wal, isr, raft).
        #[arg(long)]
        protocol: String,
        /// Variant (default: the experiment's only or first variant).
        #[arg(long)]
        variant: Option<String>,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
    /// Measure the simulator's speed in an optimized build.
    Bench {
        /// Writes per write workload.
        #[arg(long, default_value_t = 2000)]
        writes: u64,
        /// Record the trace (on, like the Python original) or not.
        #[arg(long, value_enum, default_value = "on")]
        trace: Switch,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// Only these workloads (comma-separated).
        #[arg(long, value_delimiter = ',')]
        only: Vec<String>,
    },
    /// Draw one experiment run's space-time diagram as SVG.
    Diagram(diagram_cmd::Args),
    /// Internal: run one bench workload in this process and print one JSON line.
    #[command(hide = true)]
    BenchWorker {
        workload: String,
        #[arg(long)]
        writes: u64,
        #[arg(long, value_enum)]
        trace: Switch,
    },
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Matrix {
            json,
            protocol,
            experiment,
            check,
            write,
        } => matrix_cmd::run(matrix_cmd::Options {
            json,
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
        } => trace_cmd::run(
            experiment,
            &protocol,
            variant.as_deref(),
            matches!(format, Format::Jsonl),
        ),
        Command::Bench {
            writes,
            trace,
            json,
            only,
        } => bench::run(writes, trace == Switch::On, json, &only),
        Command::Diagram(args) => diagram_cmd::run(args),
        Command::BenchWorker {
            workload,
            writes,
            trace,
        } => bench::worker(&workload, writes, trace == Switch::On),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
