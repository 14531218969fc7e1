//! `cargo xtask diagram`: the space-time diagram of one experiment run, as
//! SVG, drawn from the run's trace by the `diagram` crate (via
//! [`labs::diagram_of`]; only that run is computed).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::error::ErrorKind;
use labs::RunOneError;

use crate::args::{ExperimentArg, ProtocolArg, VariantArg};
use crate::output::{self, Failure};

/// `cargo xtask diagram --experiment N --protocol P [--variant V] [-o FILE]`.
#[derive(clap::Args)]
pub struct Args {
    /// Experiment number.
    #[arg(long, value_enum)]
    experiment: ExperimentArg,
    /// Protocol.
    #[arg(long, value_parser = crate::args::protocol_parser())]
    protocol: ProtocolArg,
    /// Variant [default: the experiment's only or first variant].
    #[arg(long, value_enum)]
    variant: Option<VariantArg>,
    /// Write the SVG to FILE instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,
}

/// `diagram`.
pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let protocol = args.protocol;
    let experiment = args.experiment.number();
    let run = labs::run_one(protocol, experiment, args.variant.map(VariantArg::name)).map_err(
        |e| match e {
            RunOneError::NoSuchRun { .. } => {
                Failure::usage("diagram", ErrorKind::InvalidValue, e.to_string())
            }
            RunOneError::Failed(error) => Failure::Failed(format!(
                "experiment {experiment} of {protocol} failed: {error}"
            )),
        },
    )?;
    let svg = labs::diagram_of(&run);
    match &args.output {
        Some(path) => {
            std::fs::write(path, &svg)
                .map_err(|e| Failure::Failed(format!("cannot write {}: {e}", path.display())))?;
            eprintln!("wrote {}", path.display());
        }
        None => output::print(&svg)?,
    }
    Ok(ExitCode::SUCCESS)
}
