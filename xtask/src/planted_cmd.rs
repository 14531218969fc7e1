//! `cargo xtask explore --planted`: every planted bug swept on its row, as
//! the explorer's positive controls — each must be caught (the property it
//! names violated within the schedule budget), while the same row without
//! the bug keeps that property.

use std::fmt::Write as _;
use std::process::ExitCode;

use explore::{Property, Status, SweepOptions, Verdict};

use crate::check_cmd::TABLE_BOUNDS;
use crate::sweep_all::{Options, Stop, sweep_all, write_or_check};
use explore::model::{Bounds, StateView};

/// The committed file's preamble.
const HEADER: &str = "Each protocol crate, built with its \
`planted` feature, can plant known bugs (`planted=NAME`); a bug is caught \
when the explorer alone, on the bug's row, violates the property the bug \
breaks, while the same row without it keeps that property. The figure \
measures the search: a miss is a bug the sweep is too weak to see, listed \
below the table. The last column is the model checker alone on the bug's \
row (`cargo xtask check`, the bounds of the guarantees table's checker \
section, no aimed fault, unless the cell names another bound — a bug \
whose shortest path needs a second write, more states, a knob value, or \
states merged without their messages in flight, which is no longer a \
search of every path): caught when some path within them breaks the \
property, with the shortest such path, or *caught as* another property \
that the row without the bug keeps within the same bounds. Each bug's \
bound: [model checking the real code](checking.md#in-the-tables).
";

/// Knob values a bug's checked runs are built with (none: the row's).
type Knobs = &'static [(&'static str, &'static str)];

/// The checker's bounds for a bug, and the knob values its runs are
/// built with: the guarantees table's bounds and the row's knobs, except
/// for a bug whose shortest path the table's bounds do not reach — each
/// override measured (the path it finds, and the states it took, are in
/// the bug's cell).
fn search_for(bug: &str) -> (Bounds, Knobs) {
    match bug {
        // Figure 8 shows only where an AppendEntries carries fewer
        // entries than the new leader's gap (one), and its shortest known
        // path is 13 steps with no fault: beyond every path's reach (every
        // path of 10 steps is 21.6M states, clean), so the search merges states
        // that differ only in their messages in flight — 1,674,770 of
        // them within 13 steps, about 45 s on 2 cores.
        "raft_commit_old_term" => (
            Bounds {
                depth: 13,
                faults: 0,
                reads: 0,
                max_states: 3_000_000,
                view: StateView::Nodes,
                ..TABLE_BOUNDS
            },
            &[("max_append_entries", "1")],
        ),
        // The timeline divergence needs a write before the failover and
        // one after it: 6 steps, 65,440 distinct states.
        "wal_no_timeline_fence" => (
            Bounds {
                writes: 2,
                max_states: 200_000,
                ..TABLE_BOUNDS
            },
            &[],
        ),
        // A follower that rejoins on an equal log end needs a write in
        // each epoch: 8 steps, 1,053,608 distinct states.
        "isr_rejoin_on_equal_leo" => (
            Bounds {
                writes: 2,
                max_states: 2_000_000,
                ..TABLE_BOUNDS
            },
            &[],
        ),
        // A read at a deposed leader: a pinned read (the row routes a
        // read to the leader of the highest term), after a follower's
        // election and the new leader's first commit — 9 steps with no
        // fault. Every path of 9 steps within this budget finds the same
        // shortest path in 18,595,217 distinct states (about 3 minutes
        // on 2 cores: `docs/performance.md`); states merged without their
        // messages in flight find it in 415,082 (about 8 s), which keeps
        // CI's check of this table short.
        "raft_read_without_quorum" => (
            Bounds {
                depth: 9,
                faults: 0,
                pinned_reads: true,
                max_states: 1_000_000,
                view: StateView::Nodes,
                ..TABLE_BOUNDS
            },
            &[],
        ),
        _ => (TABLE_BOUNDS, &[]),
    }
}

/// A row without its bug checked once per bound and knob values.
type CheckedBaseline = (
    String,
    Bounds,
    Vec<(String, String)>,
    explore::model::ModelVerdict,
);

/// One planted bug's result.
struct Control {
    name: &'static str,
    doc: &'static str,
    protocol: &'static str,
    row: String,
    breaks: Property,
    planted: Verdict,
    unplanted: Verdict,
    /// The model checker on the bug's row, with the bug.
    bounded: String,
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
        floors: opts.floors,
    };
    let plain = labs::explore_configs();
    let mut controls = Vec::new();
    let mut baselines: Vec<(String, Vec<Verdict>)> = Vec::new();
    let mut checked_baselines: Vec<CheckedBaseline> = Vec::new();
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
        let (bounds, knobs) = search_for(bug.name);
        let changed = bounds_changed(bounds, knobs);
        let knobs: Vec<(String, String)> = knobs
            .iter()
            .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
            .collect();
        let with_knobs = |c: explore::Configuration| {
            let key = c.key();
            c.with_knob_values(&knobs)
                .map_err(|e| Stop::Failed(format!("{key}: {e}")))
        };
        // Checked with the bug's knob values; swept (below) as the sweep
        // draws them.
        let row_knobs = config.knob_values.clone();
        let mut config = with_knobs(config)?;
        let checked =
            crate::check_cmd::verdict_within(&config, bounds, opts.jobs).map_err(Stop::Failed)?;
        config.knob_values = row_knobs;
        // The row without the bug, checked once per bound, and only when
        // the bug's own property held: a property the bug row violates
        // and it keeps is caught too, under its own name.
        let baseline_checked = if violated(&checked, breaks).is_some() {
            None
        } else if let Some((.., v)) = checked_baselines
            .iter()
            .find(|(k, b, n, _)| *k == row_key && *b == bounds && *n == knobs)
        {
            Some(v.clone())
        } else {
            let baseline = labs::explore_configs()
                .into_iter()
                .find(|c| c.key() == row_key)
                .ok_or_else(|| Stop::Failed(format!("no explorer row {row_key}")))?;
            let v = crate::check_cmd::verdict_within(&with_knobs(baseline)?, bounds, opts.jobs)
                .map_err(Stop::Failed)?;
            checked_baselines.push((row_key.clone(), bounds, knobs.clone(), v.clone()));
            Some(v)
        };
        let bounded = bounded_cell(&checked, baseline_checked.as_ref(), breaks, &changed);
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
            doc: bug.doc,
            protocol: config.protocol,
            row: row_key,
            breaks,
            planted,
            unplanted,
            bounded,
        });
    }
    let mut out = String::new();
    if opts.write.is_some() || opts.check.is_some() {
        let _ = writeln!(
            out,
            "# Planted bugs: what the explorer catches\n\nGenerated by `cargo xtask explore --planted --schedules {n} --write docs/planted.md` ({n} schedules per bug and per row from seed {seed}). {HEADER}",
            n = opts.schedules,
            seed = opts.seed,
        );
    }
    let _ = writeln!(
        out,
        "| bug | protocol | row | breaks | with the bug | without it | model checker (≤ {} states) |\n|---|---|---|---|---|---|---|",
        TABLE_BOUNDS.max_states
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
            "| `{}` | {} | {} | {} | {with} | {without} | {} |",
            c.name, c.protocol, c.row, c.breaks, c.bounded
        );
    }
    let caught = controls.iter().filter(|c| c.caught()).count();
    let _ = writeln!(
        out,
        "\n{caught} of {} planted bugs caught within {} schedules each.",
        controls.len(),
        opts.schedules
    );
    if opts.write.is_some() || opts.check.is_some() {
        let missed: Vec<&Control> = controls.iter().filter(|c| !c.caught()).collect();
        if !missed.is_empty() {
            let _ = writeln!(out, "\nMissed within {} schedules:\n", opts.schedules);
        }
        for c in missed {
            let _ = writeln!(
                out,
                "- `{}` ({}): {} holds on its row.",
                c.name, c.doc, c.breaks
            );
        }
        let regenerate = format!("explore --planted --schedules {} --write", opts.schedules);
        if let Some(done) = write_or_check(opts, &out, &regenerate)? {
            return Ok(done);
        }
    }
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

/// The model checker's cell for a bug: caught when the property it breaks
/// is violated; caught under another property when the bug's row violates
/// one that the row without the bug keeps; missed otherwise, with the
/// bound the search reached.
fn bounded_cell(
    checked: &explore::model::ModelVerdict,
    baseline: Option<&explore::model::ModelVerdict>,
    breaks: Property,
    changed: &str,
) -> String {
    // A bound other than the table's is named in the cell.
    let within = if changed.is_empty() {
        String::new()
    } else {
        format!(
            " (within {changed} and {} distinct states: {} searched)",
            checked.bounds.max_states, checked.distinct
        )
    };
    if let Some(f) = violated(checked, breaks) {
        return format!("caught: {} steps{within} — `{}`", f.path.len(), f.replay);
    }
    for property in Property::ALL {
        if let Some(f) = violated(checked, property)
            && baseline.is_some_and(|b| violated(b, property).is_none())
        {
            return format!(
                "caught as {}: {} steps{within} — `{}`",
                property.name(),
                f.path.len(),
                f.replay
            );
        }
    }
    format!(
        "missed ({} distinct states within {} steps{})",
        checked.distinct,
        checked.depth,
        if changed.is_empty() {
            String::new()
        } else {
            format!(", {changed}")
        }
    )
}

/// The shortest path the checker found breaking `property`, if any.
fn violated(
    v: &explore::model::ModelVerdict,
    property: Property,
) -> Option<explore::model::Finding> {
    v.properties
        .iter()
        .find(|(q, ..)| *q == property)
        .and_then(|(_, _, f)| f.clone())
}

/// The budgets in which `bounds` differ from the table's, and the knob
/// values, in words (`2 writes`; `9 steps, 0 faults, 1 reads at any
/// node`; `max_append_entries=1, 13 steps, …, messages in flight merged`);
/// empty for the table's bounds and the row's knobs.
fn bounds_changed(bounds: Bounds, knobs: Knobs) -> String {
    let t = TABLE_BOUNDS;
    let mut parts: Vec<String> = knobs.iter().map(|(k, v)| format!("{k}={v}")).collect();
    if bounds.depth != t.depth {
        parts.push(format!("{} steps", bounds.depth));
    }
    if bounds.faults != t.faults {
        parts.push(format!("{} faults", bounds.faults));
    }
    if bounds.writes != t.writes {
        parts.push(format!("{} writes", bounds.writes));
    }
    if bounds.reads != t.reads || bounds.pinned_reads != t.pinned_reads {
        parts.push(format!(
            "{} reads{}",
            bounds.reads,
            if bounds.pinned_reads {
                " at any node"
            } else {
                ""
            }
        ));
    }
    if bounds.view != t.view {
        parts.push("messages in flight merged (not exhaustive)".to_string());
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_names_every_budget_knob_and_view_a_bug_changes() {
        assert_eq!(bounds_changed(TABLE_BOUNDS, &[]), "");
        let (bounds, knobs) = search_for("raft_commit_old_term");
        assert_eq!(
            bounds_changed(bounds, knobs),
            "max_append_entries=1, 13 steps, 0 faults, 0 reads, messages in flight merged (not exhaustive)"
        );
        assert_eq!(
            {
                let (bounds, knobs) = search_for("wal_no_timeline_fence");
                bounds_changed(bounds, knobs)
            },
            "2 writes"
        );
    }
}
