//! Runs experiment 6 (the read-level matrix) against every protocol and
//! prints each run's cell and how many trace events it left.
//!
//! Run: `cargo run -p labs --example one_run`

use labs::Run;

fn main() -> Result<(), labs::GroupError> {
    for protocol in labs::BUILTIN {
        let runs: Vec<Run> = labs::protocol_runs(protocol)?;
        for run in runs.iter().filter(|r| r.experiment == 6) {
            println!(
                "{protocol:5} {}  ({} trace events)",
                run.cell(),
                run.trace.len()
            );
        }
    }
    Ok(())
}
