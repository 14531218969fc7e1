//! `cargo xtask diagram`: the space-time diagram of one experiment run, or
//! of one part of any scenario file, as SVG, drawn from the run's trace by
//! the `diagram` crate with its node state changes as lane notes (via
//! [`labs::diagram_of`] for an experiment; only that run is computed).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::error::ErrorKind;
use labs::RunOneError;

use crate::args::{ExperimentArg, ProtocolArg, VariantArg};
use crate::output::{self, Failure};

/// `cargo xtask diagram --experiment N --protocol P [--variant V] [-o FILE]`
/// or `cargo xtask diagram SCENARIO.txt --protocol P [--part K] [-o FILE]`.
#[derive(clap::Args)]
pub struct Args {
    /// A scenario file to draw instead of an experiment (see `cargo xtask run`).
    #[arg(value_name = "SCENARIO", conflicts_with_all = ["experiment", "variant"])]
    file: Option<PathBuf>,
    /// Experiment number.
    #[arg(long, value_enum, required_unless_present = "file")]
    experiment: Option<ExperimentArg>,
    /// Protocol.
    #[arg(long, value_parser = crate::args::protocol_parser())]
    protocol: ProtocolArg,
    /// Variant [default: the experiment's only or first variant].
    #[arg(long, value_enum)]
    variant: Option<VariantArg>,
    /// With a scenario file: which of its parts (from 1; a part starts at a
    /// `config`) [default: 1].
    #[arg(long, value_name = "K", requires = "file", value_parser = clap::value_parser!(u32).range(1..))]
    part: Option<u32>,
    /// Write the SVG to FILE instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,
}

/// The diagram of part `part` (from 1) of the scenario `file` on `protocol`.
fn scenario_diagram(file: &PathBuf, protocol: ProtocolArg, part: u32) -> Result<String, Failure> {
    let name = file.display().to_string();
    let text = std::fs::read_to_string(file)
        .map_err(|e| Failure::Failed(format!("cannot read {name}: {e}")))?;
    let registry = labs::registry();
    let parsed =
        scenario::parse(&name, &text, &registry).map_err(|e| Failure::Failed(e.to_string()))?;
    let (_, parts) = scenario::run_parts(&parsed, protocol, &registry);
    let count = parts.len();
    let run = usize::try_from(part)
        .ok()
        .and_then(|k| parts.into_iter().nth(k - 1))
        .ok_or_else(|| {
            Failure::usage(
                "diagram",
                ErrorKind::InvalidValue,
                format!(
                    "{name} has {count} part(s) that run on {protocol}; --part {part} is not one"
                ),
            )
        })?;
    let trace = run.trace.as_ref().map_err(|why| {
        Failure::Failed(format!(
            "part {part} of {name} could not build a {protocol} group: {why}"
        ))
    })?;
    Ok(part_svg(
        &part_title(&name, protocol, part, &run),
        trace,
        &run,
    ))
}

/// `FILE · PROTOCOL · part K[ · VARIANT]`: a scenario part's diagram title.
pub fn part_title(name: &str, protocol: ProtocolArg, part: u32, run: &scenario::PartRun) -> String {
    let variant = run
        .variant
        .as_ref()
        .map(|v| format!(" · {v}"))
        .unwrap_or_default();
    format!("{name} · {protocol} · part {part}{variant}")
}

/// The diagram of a scenario part's `trace`, with its state notes.
pub fn part_svg(title: &str, trace: &sim_core::Trace, run: &scenario::PartRun) -> String {
    let mut options = diagram::DiagramOptions::titled(title.to_owned());
    if let Some(states) = &run.states {
        options = options.with_state_notes(labs::state_notes(states));
    }
    diagram::render_svg(trace, &options)
}

/// `diagram`.
pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let protocol = args.protocol;
    let svg = match (&args.file, args.experiment) {
        (Some(file), _) => scenario_diagram(file, protocol, args.part.unwrap_or(1))?,
        (None, Some(experiment)) => {
            let experiment = experiment.number();
            let run = labs::run_one(protocol, experiment, args.variant.map(VariantArg::name))
                .map_err(|e| match e {
                    RunOneError::NoSuchRun { .. } => {
                        Failure::usage("diagram", ErrorKind::InvalidValue, e.to_string())
                    }
                    RunOneError::Failed(error) => Failure::Failed(format!(
                        "experiment {experiment} of {protocol} failed: {error}"
                    )),
                })?;
            labs::diagram_of(&run)
        }
        (None, None) => {
            return Err(Failure::usage(
                "diagram",
                ErrorKind::MissingRequiredArgument,
                "give --experiment N or a scenario file",
            ));
        }
    };
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
