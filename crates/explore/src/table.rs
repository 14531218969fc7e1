//! The verdict table as `docs/guarantees.md` and `cargo xtask explore`
//! show it: one row per configuration, one cell per property.

use std::fmt::Write as _;

use crate::sweep::{Status, Verdict};

/// A verdict as a table cell, as `docs/guarantees.md` shows it.
pub fn cell(v: &Verdict) -> String {
    match (&v.status, &v.counterexample) {
        (Status::Violated, Some(cx)) => format!(
            "violated: {} steps — `cargo xtask explore --replay {}`",
            cx.steps, cx.replay
        ),
        (Status::Holds, _) if v.undecided > 0 => {
            format!(
                "holds ({}; {} offline at the end)",
                v.schedules, v.undecided
            )
        }
        (Status::Holds, _) => format!("holds ({})", v.schedules),
        (status, _) => status.name().to_string(),
    }
}

/// One row per configuration, one column per property.
pub fn rows(verdicts: &[Verdict]) -> Vec<(String, [&Verdict; 3])> {
    verdicts
        .chunks(3)
        .filter(|c| c.len() == 3)
        .map(|c| {
            let name = format!(
                "{} | {} | {} | {}",
                c[0].protocol, c[0].ack, c[0].read, c[0].config
            );
            (name, [&c[0], &c[1], &c[2]])
        })
        .collect()
}

/// The Markdown table of `verdicts` (header, then one row per
/// configuration).
pub fn markdown(verdicts: &[Verdict]) -> String {
    let mut out = String::new();
    out.push_str("| protocol | ack | read | setting | durable | linearizable | invariants |\n");
    out.push_str("|---|---|---|---|---|---|---|\n");
    for (name, [d, l, i]) in rows(verdicts) {
        let _ = writeln!(out, "| {name} | {} | {} | {} |", cell(d), cell(l), cell(i));
    }
    out
}
