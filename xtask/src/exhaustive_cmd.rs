//! `cargo xtask explore --exhaustive --depth K`: every schedule of at most
//! K steps over the explorer's small alphabet, per configuration
//! (`explore::exhaustive`); the count and the rate go to stderr.

use std::fmt::Write as _;
use std::process::ExitCode;
use std::time::Instant;

use explore::Configuration;
use explore::exhaustive::{self, Bounded};

use crate::sweep_all::{Options, Stop};

/// One property's line: its cell, and under a violation why it broke.
fn line(b: &Bounded, schedules: u64) -> String {
    let name = b.property.name();
    let cell = cell(b, schedules);
    match &b.witness {
        Some((_, why)) => format!("    {name:<13} {cell}\n      {why}\n"),
        None => format!("    {name:<13} {cell}\n"),
    }
}

/// Runs the bounded search on every configuration in `configs`.
pub fn run(
    opts: &Options,
    configs: &[Configuration],
    depth: usize,
) -> Result<(String, ExitCode), Stop> {
    let letters: Vec<String> = exhaustive::alphabet()
        .iter()
        .map(ToString::to_string)
        .collect();
    // Lines that fit an 80-column terminal: the alphabet wrapped.
    let mut out = format!(
        "every schedule of at most {depth} steps, after a warm-up ({}), on the\nprotocol's transport with a 1-tick delay and no loss, over:\n",
        exhaustive::WARM_UP
    );
    let mut row = String::from(" ");
    for letter in &letters {
        if row.len() + letter.len() + 2 > 78 {
            out.push_str(&row);
            out.push('\n');
            row = String::from(" ");
        }
        row.push_str(&format!(" {letter},"));
    }
    row.pop();
    out.push_str(&row);
    out.push('\n');
    let start = Instant::now();
    let mut total = 0u64;
    for config in configs {
        let found = exhaustive::search(config, depth, opts.jobs)
            .map_err(|e| Stop::Failed(format!("{}: {e}", config.key())))?;
        total += found.schedules;
        let _ = writeln!(
            out,
            "{}: all {} schedules of ≤ {depth} steps",
            config.key().replace('.', " "),
            found.schedules
        );
        for b in &found.properties {
            out.push_str(&line(b, found.schedules));
        }
    }
    let secs = start.elapsed().as_secs_f64();
    crate::output::note(&format!(
        "{total} schedules explored in {secs:.1} s ({:.0} schedules/s, {} configurations)",
        total as f64 / secs.max(1e-9),
        configs.len()
    ));
    Ok((out, ExitCode::SUCCESS))
}

/// A bounded result as a table cell.
fn cell(b: &Bounded, schedules: u64) -> String {
    match &b.witness {
        Some((steps, _)) => {
            let steps: Vec<String> = steps.iter().map(ToString::to_string).collect();
            format!(
                "violated in {} of {schedules}: {}",
                b.violated,
                steps.join("; ")
            )
        }
        None if b.undecided > 0 => format!("holds ({}; {} undecided)", b.held, b.undecided),
        None => format!("holds (all {schedules})"),
    }
}
