//! `cargo xtask diagram`: the space-time diagram of one experiment run, as
//! SVG, drawn from the run's trace by `labs::diagram`.

use std::path::PathBuf;
use std::process::ExitCode;

use labs::Protocol;

/// `cargo xtask diagram --experiment N --protocol P [--variant V] [-o FILE]`.
#[derive(clap::Args)]
pub struct Args {
    /// Experiment number (1–7).
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=7))]
    experiment: u8,
    /// Protocol (async, wal, isr, raft).
    #[arg(long)]
    protocol: String,
    /// Variant (default: the experiment's only or first variant).
    #[arg(long)]
    variant: Option<String>,
    /// Write the SVG to FILE instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<ExitCode, String> {
    let protocol = Protocol::from_name(&args.protocol).ok_or_else(|| {
        format!(
            "unknown protocol {:?} (expected async, wal, isr or raft)",
            args.protocol
        )
    })?;
    let runs: Vec<_> = labs::protocol_runs(protocol)
        .map_err(|e| format!("{protocol}: experiment failed: {e}"))?
        .into_iter()
        .filter(|r| r.experiment == args.experiment)
        .collect();
    let run = match &args.variant {
        None => runs.first(),
        Some(v) => runs.iter().find(|r| r.variant == v),
    }
    .ok_or_else(|| {
        let variants: Vec<&str> = runs.iter().map(|r| r.variant).collect();
        format!(
            "no run for experiment {}, protocol {protocol}, variant {}; available variants: {}",
            args.experiment,
            args.variant.as_deref().unwrap_or("(any)"),
            if variants.is_empty() {
                "none".to_owned()
            } else {
                variants.join(", ")
            }
        )
    })?;
    let svg = labs::diagram::render_run(run);
    match &args.output {
        Some(path) => {
            std::fs::write(path, &svg)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            eprintln!("wrote {}", path.display());
        }
        None => print!("{svg}"),
    }
    Ok(ExitCode::SUCCESS)
}
