//! # labs — seven experiments × four protocols
//!
//! Each experiment is one scenario file (`crates/labs/scenarios/0N-*.txt`,
//! see the `scenario` crate for the format and [`experiments`] for how a file
//! becomes matrix runs), written once and run on every protocol. A part
//! of the file marked `config variant=NAME` is one run of the comparison
//! matrix: a fresh group with fixed settings and seed, driven only through
//! the protocols' public APIs, whose labelled answers make a typed
//! [`Observed`] value; its [`Run`] carries that and the run's trace. The
//! matrix cell ([`Run::cell`]) is computed from the observation alone, so
//! no cell is a per-protocol constant — edit the file and the cell follows.
//!
//! | # | experiment |
//! |---|---|
//! | 1 | normal replication: what a follower holds at the ack boundary |
//! | 2 | crash the leader right after the ack, fail over, read |
//! | 3 | old leader in a minority: fencing and convergence after heal |
//! | 4 | one slow replica: availability and why |
//! | 5 | replica reconnect inside / outside the retention window |
//! | 6 | read-level matrix: LOCAL / LEADER / LINEARIZABLE |
//! | 7 | split-brain read, with the authority guard tried on the old leader |
//!
//! Run them all with [`all_runs`] (or `cargo xtask matrix`); run one
//! experiment × protocol × variant and nothing else with [`run_one`] (or
//! `cargo xtask trace`); run a file of your own with
//! `scenario::run_protocols` (or `cargo xtask run FILE`); draw a run's
//! space-time diagram with [`diagram_of`] (the `diagram` crate, titled
//! after the run). A runnable example: `cargo run -p labs --example
//! one_run`.
//!
//! What it mirrors and omits: the experiments are the ones a course on
//! replication runs by hand against Redis, PostgreSQL, Kafka and etcd; the
//! groups are this workspace's simulations of those mechanisms, not the
//! systems themselves (see each protocol crate's docs for what it omits).

pub mod experiments;
mod explore_configs;
pub mod matrix;
mod observe;
mod observed;
mod protocol;
mod reads;
mod run;
mod run_diagram;
mod specs;
mod state_notes;

pub use explore_configs::{
    explore_configs, explore_configs_in, planted_configs, planted_configs_in, recording_states,
};
pub use observed::{
    CrashAfterAck, MinorityLeader, NormalReplication, Observed, ReadLevels, Reconnect, SlowReplica,
    SplitBrainRead,
};
pub use protocol::{BUILTIN, Protocol, Registry, protocol, registry, serve, served};
pub use reads::{ReadOutcome, guard_outcome, show};
pub use replication::GroupError;
pub use run::Run;
pub use run_diagram::{diagram_of, diagram_options};
pub use specs::{RunOneError, RunSpec, run_one, run_specs, variants};
pub use state_notes::state_notes;

/// Every run of `protocol`, in experiment order then variant order.
pub fn protocol_runs(protocol: Protocol) -> Result<Vec<Run>, GroupError> {
    if let Some(e) = experiments::parse_error() {
        return Err(GroupError::config("scenario", e));
    }
    run_specs(protocol).iter().map(RunSpec::run).collect()
}

/// Every run of every built-in protocol, column by column.
pub fn all_runs() -> Result<Vec<Run>, GroupError> {
    all_runs_in(&registry())
}

/// Every run of every protocol of `registry`, column by column: the matrix
/// of a registry that adds a protocol of your own.
pub fn all_runs_in(registry: &Registry) -> Result<Vec<Run>, GroupError> {
    let mut runs = Vec::new();
    for &protocol in registry.protocols() {
        runs.extend(protocol_runs(protocol)?);
    }
    Ok(runs)
}

/// The README's example, compiled and run as a doctest so it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
