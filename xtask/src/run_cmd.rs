//! `cargo xtask run FILE [--protocol P] [--rewrite]`: runs a scenario file
//! (see the `scenario` crate) on every protocol, or one.
//!
//! Without `--rewrite` it prints the scenario with the outputs of this run
//! as its expected blocks (protocols as prefixed rows), then lists every
//! difference from the file on stderr and exits 1 if there is one. With
//! `--rewrite` it writes the file back with fresh blocks (for `--protocol
//! P`, only P's rows change). A file that does not parse is
//! `file:line: message`, exit 1.

use std::path::PathBuf;
use std::process::ExitCode;

use labs::Protocol;

use crate::args::ProtocolArg;
use crate::output::{self, Failure};

/// `cargo xtask run FILE [--protocol P] [--rewrite]`.
#[derive(clap::Args)]
pub struct Args {
    /// The scenario file.
    file: PathBuf,
    /// Only this protocol [default: all four].
    #[arg(long, value_parser = crate::args::protocol_parser())]
    protocol: Option<ProtocolArg>,
    /// Write this run's outputs into FILE's expected blocks.
    #[arg(long)]
    rewrite: bool,
}

/// `run`.
pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let name = args.file.display().to_string();
    let text = std::fs::read_to_string(&args.file)
        .map_err(|e| Failure::Failed(format!("cannot read {name}: {e}")))?;
    let registry = labs::registry();
    let parsed =
        scenario::parse(&name, &text, &registry).map_err(|e| Failure::Failed(e.to_string()))?;
    let protocols: Vec<Protocol> = match args.protocol {
        Some(p) => vec![p],
        None => labs::registry().protocols().to_vec(),
    };
    let outputs = scenario::run_protocols(&parsed, &protocols, &registry);
    if args.rewrite {
        let fresh = scenario::render(&parsed, &outputs, true, &registry);
        if fresh != text {
            std::fs::write(&args.file, fresh)
                .map_err(|e| Failure::Failed(format!("cannot write {name}: {e}")))?;
            eprintln!("rewrote {name}");
        } else {
            eprintln!("{name} is up to date");
        }
        return Ok(ExitCode::SUCCESS);
    }
    output::print(&scenario::render(&parsed, &outputs, false, &registry))?;
    let differences = scenario::differences(&parsed, &outputs);
    if differences.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    for difference in &differences {
        eprint!("{difference}");
    }
    Err(Failure::Failed(format!(
        "{} case output(s) differ from {name} (- expected, + this run); \
         accept them with --rewrite",
        differences.len()
    )))
}
