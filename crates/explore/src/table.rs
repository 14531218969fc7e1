//! The verdict table as `docs/guarantees.md` and `cargo xtask explore`
//! show it: one row per configuration, one cell per property.

use std::fmt::Write as _;

use crate::property::Property;
use crate::property::Status;
use crate::sweep::Verdict;

/// Properties per row.
const N: usize = Property::ALL.len();

/// A verdict as a table cell, as `docs/guarantees.md` shows it:
/// `holds (2000)`, `holds (1990; 10 offline at the end)`,
/// `violated in 31 of 2000: 4 steps — replay command`.
pub fn cell(v: &Verdict) -> String {
    match (&v.status, &v.counterexample) {
        (Status::Violated, Some(cx)) => format!(
            "violated in {} of {}: {} steps — `{} explore --replay {}`",
            v.violations,
            v.schedules,
            cx.steps,
            crate::command(),
            cx.replay
        ),
        (Status::Violated, None) => format!("violated in {} of {}", v.violations, v.schedules),
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
pub fn rows(verdicts: &[Verdict]) -> Vec<(String, [&Verdict; N])> {
    verdicts
        .chunks(N)
        .filter(|c| c.len() == N)
        .map(|c| {
            let name = format!(
                "{} | {} | {} | {}",
                c[0].protocol, c[0].ack, c[0].read, c[0].config
            );
            (name, std::array::from_fn(|i| &c[i]))
        })
        .collect()
}

/// The Markdown table of `verdicts` (header, then one row per
/// configuration).
pub fn markdown(verdicts: &[Verdict]) -> String {
    let mut out = String::from("| protocol | ack | read | setting");
    for p in Property::ALL {
        let _ = write!(out, " | {}", p.name());
    }
    out.push_str(" |\n|---|---|---|---");
    out.push_str(&"|---".repeat(N));
    out.push_str("|\n");
    for (name, cells) in rows(verdicts) {
        let _ = write!(out, "| {name}");
        for v in cells {
            let _ = write!(out, " | {}", cell(v));
        }
        out.push_str(" |\n");
    }
    out
}
