//! `cargo xtask explore`: the verdict table over seeded fault schedules, and
//! replays of shrunk counterexamples.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use explore::{
    Configuration, HistoryOp, Property, ReplayId, RunReport, Schedule, ScheduleShape, Status,
    SweepOptions, Verdict,
};

/// What `explore` was asked.
pub struct Options {
    pub protocol: Option<String>,
    pub ack: Option<String>,
    pub read: Option<String>,
    pub setting: Option<String>,
    pub schedules: u64,
    pub clients: u8,
    pub seed: u64,
    pub jobs: usize,
    pub replay: Option<String>,
    pub diagram: Option<PathBuf>,
    pub json: bool,
    pub jsonl: bool,
    pub shard: Option<(u64, u64)>,
    pub check: Option<PathBuf>,
    pub write: Option<PathBuf>,
    pub progress: bool,
}

/// Steps per generated schedule.
const STEPS: usize = ScheduleShape::DEFAULT_STEPS;

/// The configurations `opts` selects.
fn selected(opts: &Options) -> Vec<Configuration> {
    labs::explore_configs()
        .into_iter()
        .filter(|c| opts.protocol.as_deref().is_none_or(|p| p == c.protocol))
        .filter(|c| opts.ack.as_deref().is_none_or(|a| a == c.ack.snake()))
        .filter(|c| {
            opts.read
                .as_deref()
                .is_none_or(|r| r == explore::read_snake(c.read))
        })
        .filter(|c| opts.setting.as_deref().is_none_or(|s| s == c.setting))
        .collect()
}

/// Runs the command; `Ok` text goes to stdout.
pub fn run(opts: &Options) -> Result<(String, ExitCode), String> {
    if let Some(id) = &opts.replay {
        return replay(id, opts.diagram.as_ref()).map(|t| (t, ExitCode::SUCCESS));
    }
    let configs = selected(opts);
    if configs.is_empty() {
        return Err("no configuration matches the filters (see `cargo xtask explore --help`)".into());
    }
    let sweep = SweepOptions {
        schedules: opts.schedules,
        first_seed: opts.seed,
        jobs: opts.jobs,
        shape: ScheduleShape {
            clients: opts.clients,
            ..ScheduleShape::default()
        },
        shard: opts.shard,
    };
    let bar = opts.progress.then(|| {
        let bar = indicatif::ProgressBar::new(configs.len() as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    let mut verdicts = Vec::new();
    for config in &configs {
        if let Some(bar) = &bar {
            bar.set_message(config.key());
        }
        verdicts.extend(explore::sweep(config, &sweep).map_err(|e| format!("{}: {e}", config.key()))?);
        if let Some(bar) = &bar {
            bar.inc(1);
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let markdown = markdown(&verdicts, &sweep);
    if let Some(path) = &opts.write {
        std::fs::write(path, &markdown).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        return Ok((String::new(), ExitCode::SUCCESS));
    }
    if let Some(path) = &opts.check {
        let committed = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        if committed == markdown {
            return Ok((format!("{} is up to date\n", path.display()), ExitCode::SUCCESS));
        }
        let diff = similar::TextDiff::from_lines(&committed, &markdown)
            .unified_diff()
            .header(&path.display().to_string(), "fresh run")
            .to_string();
        return Ok((
            format!(
                "{diff}\n{} differs from a fresh run; regenerate with `cargo xtask explore --write {}`\n",
                path.display(),
                path.display()
            ),
            ExitCode::FAILURE,
        ));
    }
    let text = if opts.json {
        let mut v = json(&verdicts).to_string();
        v.push('\n');
        v
    } else if opts.jsonl {
        verdicts.iter().map(|v| format!("{}\n", verdict_json(v))).collect()
    } else {
        plain(&verdicts)
    };
    Ok((text, ExitCode::SUCCESS))
}

fn cell(v: &Verdict) -> String {
    match (&v.status, &v.counterexample) {
        (Status::Violated, Some(cx)) => format!(
            "violated: {} steps — `cargo xtask explore --replay {}`",
            cx.steps, cx.replay
        ),
        (Status::Holds, _) if v.undecided > 0 => {
            format!("holds ({}; {} offline at the end)", v.schedules, v.undecided)
        }
        (Status::Holds, _) => format!("holds ({})", v.schedules),
        (status, _) => status.name().to_string(),
    }
}

/// One row per configuration, one column per property.
fn rows(verdicts: &[Verdict]) -> Vec<(String, [&Verdict; 3])> {
    verdicts
        .chunks(3)
        .filter(|c| c.len() == 3)
        .map(|c| {
            let name = format!("{} | {} | {} | {}", c[0].protocol, c[0].ack, c[0].read, c[0].config);
            (name, [&c[0], &c[1], &c[2]])
        })
        .collect()
}

/// The committed `docs/guarantees.md`.
fn markdown(verdicts: &[Verdict], sweep: &SweepOptions) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Guarantees: what holds over seeded fault schedules\n");
    let _ = writeln!(
        out,
        "Generated by `cargo xtask explore --write docs/guarantees.md` \
         ({} schedules per configuration from seed {}, {} clients). \
         `holds (N)`: no schedule of N broke it; `violated`: the shrunk \
         counterexample, replayable with the command shown; `unknown`: \
         some schedules could not decide.\n",
        sweep.schedules, sweep.first_seed, sweep.shape.clients
    );
    let _ = writeln!(out, "| protocol | ack | read | setting | durable | linearizable | invariants |");
    let _ = writeln!(out, "|---|---|---|---|---|---|---|");
    for (name, [d, l, i]) in rows(verdicts) {
        let _ = writeln!(out, "| {name} | {} | {} | {} |", cell(d), cell(l), cell(i));
    }
    let mut notes = String::new();
    for v in verdicts {
        if let Some(cx) = &v.counterexample {
            let _ = writeln!(
                notes,
                "- **{}.{}.{}.{} — {}**: {}",
                v.protocol, v.ack, v.read, v.config, v.property, cx.reason
            );
        }
        if let Some(note) = &v.note {
            let _ = writeln!(
                notes,
                "- **{}.{}.{}.{} — {} unknown**: {note}",
                v.protocol, v.ack, v.read, v.config, v.property
            );
        }
    }
    if !notes.is_empty() {
        let _ = writeln!(out, "\n## What the counterexamples show\n\n{notes}");
    }
    out
}

/// A plain table for a terminal.
fn plain(verdicts: &[Verdict]) -> String {
    let mut out = String::new();
    for (name, three) in rows(verdicts) {
        let _ = writeln!(out, "{}", name.replace(" | ", " "));
        for v in three {
            let _ = writeln!(out, "    {:<13} {}", v.property.name(), cell(v).replace('`', ""));
        }
    }
    out
}

fn verdict_json(v: &Verdict) -> serde_json::Value {
    serde_json::json!({
        "protocol": v.protocol,
        "ack": v.ack,
        "read": v.read,
        "config": v.config,
        "property": v.property.name(),
        "status": v.status.name(),
        "schedules": v.schedules,
        "undecided": v.undecided,
        "counterexample": v.counterexample.as_ref().map(|cx| serde_json::json!({
            "steps": cx.steps,
            "replay": cx.replay.to_string(),
            "reason": cx.reason,
        })),
    })
}

fn json(verdicts: &[Verdict]) -> serde_json::Value {
    serde_json::json!({ "verdicts": verdicts.iter().map(verdict_json).collect::<Vec<_>>() })
}

/// `--replay ID`: the minimal schedule, its history as a timeline, and the
/// trace.
fn replay(text: &str, diagram: Option<&PathBuf>) -> Result<String, String> {
    let id: ReplayId = text.parse()?;
    let config = labs::explore_configs()
        .into_iter()
        .find(|c| c.key() == id.config)
        .ok_or_else(|| format!("no configuration `{}` (see `cargo xtask explore --json`)", id.config))?;
    let (schedule, report) = explore::replay(&config, &id, STEPS).map_err(|e| e.to_string())?;
    if let Some(path) = diagram {
        let svg = labs::diagram::render_svg(
            report.group.trace(),
            &labs::diagram::DiagramOptions::titled(format!("counterexample {id}")),
        );
        std::fs::write(path, svg).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(describe(&id, &schedule, &report))
}

fn describe(id: &ReplayId, schedule: &Schedule, report: &RunReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "replay {id}: {} steps\n", schedule.steps.len());
    let _ = writeln!(out, "## schedule");
    for line in &report.log {
        let _ = writeln!(out, "  {line}");
    }
    let _ = writeln!(out, "  then: heal every node, restart every crashed node, quiesce, read every key\n");
    let _ = writeln!(out, "## verdict");
    for p in Property::ALL {
        let _ = writeln!(out, "  {:<13} {:?}", p.name(), report.check(p));
    }
    let _ = writeln!(out, "\n## history (ticks; [ submitted, ] completed, ? unknown, x failed)");
    out.push_str(&timeline(&report.history));
    let _ = writeln!(out, "\n## trace");
    out.push_str(&report.group.trace().to_text());
    out
}

/// One row per operation, a bar from submission to completion over the
/// ticks the history spans.
fn timeline(history: &[HistoryOp]) -> String {
    let mut ticks: Vec<u64> = history
        .iter()
        .flat_map(|op| [Some(op.call_tick), op.ret_tick])
        .flatten()
        .collect();
    ticks.sort_unstable();
    ticks.dedup();
    let col = |t: u64| ticks.binary_search(&t).unwrap_or_else(|i| i);
    let width = ticks.len().max(1);
    let mut out = String::new();
    for op in history {
        let start = col(op.call_tick);
        let end = op.ret_tick.map_or(width - 1, col);
        let mut bar = vec![' '; width];
        for c in bar.iter_mut().take(end + 1).skip(start) {
            *c = '-';
        }
        bar[start] = '[';
        bar[end] = match op.status.map(|s| s.name()) {
            Some("done") => ']',
            Some("failed") => 'x',
            _ => '?',
        };
        let bar: String = bar.into_iter().collect();
        let _ = writeln!(out, "  {bar}  {}", op.describe());
    }
    let _ = writeln!(
        out,
        "  ticks: {}",
        ticks.iter().map(u64::to_string).collect::<Vec<_>>().join(" ")
    );
    out
}
