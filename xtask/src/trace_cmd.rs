//! `cargo xtask trace`: the trace of one experiment run, computing only
//! that run.

use std::process::ExitCode;

use clap::error::ErrorKind;
use labs::RunOneError;

use crate::args::{ExperimentArg, ProtocolArg, TraceFormat, VariantArg};
use crate::output::{self, Failure};

/// `trace`.
pub fn run(
    experiment: ExperimentArg,
    protocol: ProtocolArg,
    variant: Option<VariantArg>,
    format: TraceFormat,
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
    let text = match format {
        TraceFormat::Text => run.trace.to_text(),
        TraceFormat::Jsonl => run.trace.to_jsonl(),
    };
    output::print(&text)?;
    Ok(ExitCode::SUCCESS)
}
