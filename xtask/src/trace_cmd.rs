//! `cargo xtask trace`: the trace of one experiment run, computing only
//! that run — filtered by node, kind or without messages — or its node
//! state lines at one tick (`--at`) or tick by tick (`--state`).

use std::process::ExitCode;

use clap::error::ErrorKind;
use labs::RunOneError;
use sim_core::{NodeId, TraceFilter};

use crate::args::{ExperimentArg, ProtocolArg, TraceFormat, VariantArg};
use crate::output::{self, Failure};
use crate::state_table;

/// What `trace` prints.
pub struct Show {
    /// Text or JSON lines (the trace only).
    pub format: TraceFormat,
    /// Every node's state at this tick instead of the trace.
    pub at: Option<u64>,
    /// The state table instead of the trace.
    pub state: bool,
    /// Only these nodes.
    pub nodes: Vec<String>,
    /// Only these event kinds.
    pub kinds: Vec<String>,
    /// No message events.
    pub no_messages: bool,
}

/// `trace`.
pub fn run(
    experiment: ExperimentArg,
    protocol: ProtocolArg,
    variant: Option<VariantArg>,
    show: Show,
) -> Result<ExitCode, Failure> {
    let run = labs::run_one(protocol, experiment.number(), variant.map(VariantArg::name)).map_err(
        |e| match e {
            RunOneError::NoSuchRun { .. } => {
                Failure::usage("trace", ErrorKind::InvalidValue, e.to_string())
            }
            RunOneError::Failed(error) => Failure::Failed(format!(
                "experiment {} of {protocol} failed: {error}",
                experiment.number()
            )),
        },
    )?;
    let nodes: Vec<NodeId> = show.nodes.iter().map(NodeId::new).collect();
    // Only a run asked about its nodes records its state lines (a second
    // run of its part).
    let known = if nodes.is_empty() {
        Vec::new()
    } else {
        run.states().nodes()
    };
    if let Some(unknown) = nodes.iter().find(|n| !known.contains(n)) {
        let names: Vec<String> = known.iter().map(ToString::to_string).collect();
        return Err(Failure::usage(
            "trace",
            ErrorKind::InvalidValue,
            format!(
                "no node `{unknown}` in this run (its nodes: {})",
                names.join(", ")
            ),
        ));
    }
    if (show.state || show.at.is_some()) && (!show.kinds.is_empty() || show.no_messages) {
        return Err(Failure::usage(
            "trace",
            ErrorKind::ArgumentConflict,
            "--kinds and --no-messages filter trace events; --at and --state print state lines",
        ));
    }
    let text = if let Some(tick) = show.at {
        let end = run.trace.events().last().map_or(0, |e| e.tick);
        let mut text = format!(
            "state at tick {tick} (experiment {}, {protocol}, variant {}; the run ends at tick {end})\n",
            experiment.number(),
            run.variant
        );
        text.push_str(&state_table::at(run.states(), tick, &nodes));
        text
    } else if show.state {
        state_table::per_tick(run.states(), &nodes)
    } else {
        let mut filter = TraceFilter::new().kinds(show.kinds);
        for node in nodes {
            filter = filter.node(node);
        }
        if show.no_messages {
            filter = filter.without_messages();
        }
        match show.format {
            TraceFormat::Text => filter.to_text(&run.trace),
            TraceFormat::Jsonl => filter.to_jsonl(&run.trace),
        }
    };
    output::print(&text)?;
    Ok(ExitCode::SUCCESS)
}
