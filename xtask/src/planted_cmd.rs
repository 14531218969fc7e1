//! `cargo xtask explore --planted`: every planted bug swept on its row, as
//! the explorer's positive controls — each must be caught (the property it
//! names violated within the schedule budget), while the same row without
//! the bug keeps that property.

use std::fmt::Write as _;
use std::process::ExitCode;

use explore::{Property, Status, SweepOptions, Verdict};

use crate::sweep_all::{Options, Stop, sweep_all};

/// One planted bug's result.
struct Control {
    name: &'static str,
    protocol: &'static str,
    row: String,
    breaks: Property,
    planted: Verdict,
    unplanted: Verdict,
}

impl Control {
    fn caught(&self) -> bool {
        self.planted.status == Status::Violated
    }

    fn baseline_holds(&self) -> bool {
        self.unplanted.status != Status::Violated
    }
}

/// Runs every planted bug (of `opts.protocol`, when given).
pub fn run(opts: &Options) -> Result<(String, ExitCode), Stop> {
    let sweep = SweepOptions {
        schedules: opts.schedules,
        first_seed: opts.seed,
        jobs: opts.jobs,
        shard: None,
        shrink: true,
    };
    let plain = labs::explore_configs();
    let mut controls = Vec::new();
    let mut baselines: Vec<(String, Vec<Verdict>)> = Vec::new();
    let bugs: Vec<_> = labs::planted_configs()
        .into_iter()
        .filter(|(_, c)| opts.protocol.as_deref().is_none_or(|p| p == c.protocol))
        .collect();
    if bugs.is_empty() {
        return Err(Stop::Usage("no planted bug matches".into()));
    }
    for (bug, config) in bugs {
        let breaks = Property::from_name(bug.breaks).ok_or_else(|| {
            Stop::Failed(format!("{}: unknown property {}", bug.name, bug.breaks))
        })?;
        let key = config.key();
        let row_key = format!(
            "{}.{}.{}.{}",
            config.protocol,
            config.ack.snake(),
            explore::read_snake(config.read),
            config.setting
        );
        let pick = |verdicts: Vec<Verdict>| {
            verdicts
                .into_iter()
                .find(|v| v.property == breaks)
                .ok_or_else(|| Stop::Failed(format!("{key}: no {breaks} verdict")))
        };
        let planted = pick(sweep_all(
            std::slice::from_ref(&config),
            &sweep,
            opts.progress,
        )?)?;
        // Rows shared by several bugs are swept without a bug once.
        let unplanted = match baselines.iter().find(|(k, _)| *k == row_key) {
            Some((_, verdicts)) => verdicts.clone(),
            None => {
                let baseline = plain
                    .iter()
                    .find(|c| c.key() == row_key)
                    .ok_or_else(|| Stop::Failed(format!("no explorer row {row_key}")))?;
                let verdicts = sweep_all(std::slice::from_ref(baseline), &sweep, opts.progress)?;
                baselines.push((row_key.clone(), verdicts.clone()));
                verdicts
            }
        };
        let unplanted = pick(unplanted)?;
        controls.push(Control {
            name: bug.name,
            protocol: config.protocol,
            row: row_key,
            breaks,
            planted,
            unplanted,
        });
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "| bug | protocol | row | breaks | with the bug | without it |\n|---|---|---|---|---|---|"
    );
    for c in &controls {
        let with = explore::table::cell(&c.planted);
        let with = if c.caught() {
            with
        } else {
            format!("**missed**: {with}")
        };
        let without = explore::table::cell(&c.unplanted);
        let without = if c.baseline_holds() {
            without
        } else {
            format!("**also violated**: {without}")
        };
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | {with} | {without} |",
            c.name, c.protocol, c.row, c.breaks
        );
    }
    let caught = controls.iter().filter(|c| c.caught()).count();
    let _ = writeln!(
        out,
        "\n{caught} of {} planted bugs caught within {} schedules each.",
        controls.len(),
        opts.schedules
    );
    let ok = controls.iter().all(|c| c.caught() && c.baseline_holds());
    Ok((
        out,
        if ok {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        },
    ))
}
