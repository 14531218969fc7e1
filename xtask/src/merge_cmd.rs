//! `cargo xtask explore --merge FILE…`: a sweep split into shards
//! (`--shard I/N --jsonl`, on as many machines as a batch engine gives)
//! merged back into the table one run over the same seeds prints,
//! counterexamples included.
//!
//! Each JSON line names its sweep (the version, the row, the first seed,
//! the seeds in the row, the schedules asked, the floors, shard I/N) and
//! carries what merging needs: the counts, the violating seeds it shrank
//! (the first few of its shard, in seed order) with their results, and
//! the first seed it could not decide. The first few violating seeds of
//! the whole sweep are among the first few of their shards, so the merged
//! counterexample is the one a single run keeps: the first of the fewest
//! steps among the sweep's first few violating seeds.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use explore::{Configuration, Counterexample, Property, ReplayId, Status, SweepOptions, Verdict};
use serde_json::{Value, json};

use crate::sweep_all::{Options, Stop};

/// The version a line must carry to be merged here.
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The seeds the sweep gives `config` (its floor, when floors are on).
pub fn seeds_of(config: &Configuration, sweep: &SweepOptions) -> u64 {
    if sweep.floors {
        sweep.schedules.max(config.min_schedules)
    } else {
        sweep.schedules
    }
}

/// A counterexample as JSON.
fn counterexample_json(cx: &Counterexample) -> Value {
    json!({ "steps": cx.steps, "replay": cx.replay.to_string(), "reason": cx.reason })
}

/// One verdict as JSON (`explore --json` lists them).
pub fn verdict_json(v: &Verdict) -> Value {
    json!({
        "protocol": v.protocol,
        "ack": v.ack,
        "read": v.read,
        "config": v.config,
        "property": v.property.name(),
        "status": v.status.name(),
        "schedules": v.schedules,
        "undecided": v.undecided,
        "violations": v.violations,
        "counterexample": v.counterexample.as_ref().map(counterexample_json),
    })
}

/// One verdict as a JSON line (`--jsonl`): [`verdict_json`] with its
/// sweep's identity and what merging needs.
pub fn line(v: &Verdict, sweep: &SweepOptions, seeds: u64) -> Value {
    let (i, n) = sweep.shard.unwrap_or((0, 1));
    let mut line = json!({
        "sweep": {
            "version": VERSION,
            "config": format!("{}.{}.{}.{}", v.protocol, v.ack, v.read, v.config),
            "first_seed": sweep.first_seed,
            "seeds": seeds,
            "schedules": sweep.schedules,
            "floors": sweep.floors,
            "shard": [i, n],
        },
    });
    if let (Some(out), Value::Object(fields)) = (line.as_object_mut(), verdict_json(v)) {
        out.extend(fields);
        out.insert(
            "shrunk".into(),
            v.shrunk
                .iter()
                .map(|(seed, c)| {
                    let mut c = counterexample_json(c);
                    c["seed"] = json!(seed);
                    c
                })
                .collect(),
        );
        out.insert("unknown_seed".into(), json!(v.unknown_seed));
        out.insert("note".into(), json!(v.note));
    }
    line
}

/// One parsed line: where it came from and what it says.
struct Line {
    file: PathBuf,
    number: usize,
    config: String,
    seeds: u64,
    shard: (u64, u64),
    property: Property,
    schedules: u64,
    undecided: u64,
    violations: u64,
    shrunk: Vec<(u64, Counterexample)>,
    unknown_seed: Option<u64>,
    note: Option<String>,
}

/// What every line of one merge must agree on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Sweep {
    first_seed: u64,
    schedules: u64,
    floors: bool,
    shards: u64,
}

fn parse(file: &Path, number: usize, text: &str) -> Result<(Sweep, Line), String> {
    let at = || format!("{}:{number}", file.display());
    let v: Value = serde_json::from_str(text)
        .map_err(|e| format!("{}: not a JSON verdict line ({e}): cut short?", at()))?;
    let s = &v["sweep"];
    if s.is_null() {
        return Err(format!(
            "{}: the line names no sweep (made by `explore --jsonl` of another version?)",
            at()
        ));
    }
    let version = s["version"].as_str().unwrap_or("");
    if version != VERSION {
        return Err(format!(
            "{}: made by version {version}, this is {VERSION}: run every shard with one build",
            at()
        ));
    }
    let num = |value: &Value, what: &str| {
        value
            .as_u64()
            .ok_or_else(|| format!("{}: `{what}` is missing or not a number", at()))
    };
    let shard = (num(&s["shard"][0], "shard")?, num(&s["shard"][1], "shard")?);
    let sweep = Sweep {
        first_seed: num(&s["first_seed"], "first_seed")?,
        schedules: num(&s["schedules"], "schedules")?,
        floors: s["floors"].as_bool().unwrap_or(true),
        shards: shard.1,
    };
    let property = v["property"]
        .as_str()
        .and_then(|p| Property::ALL.into_iter().find(|x| x.name() == p))
        .ok_or_else(|| format!("{}: no known `property`", at()))?;
    let config_of_replay = s["config"].as_str().unwrap_or("").to_owned();
    let mut shrunk = Vec::new();
    for c in v["shrunk"].as_array().into_iter().flatten() {
        let replay: ReplayId = c["replay"]
            .as_str()
            .unwrap_or("")
            .parse()
            .map_err(|e| format!("{}: a shrunk schedule's replay id: {e}", at()))?;
        shrunk.push((
            num(&c["seed"], "seed")?,
            Counterexample {
                steps: usize::try_from(num(&c["steps"], "steps")?).unwrap_or(usize::MAX),
                replay,
                reason: c["reason"].as_str().unwrap_or("").to_owned(),
            },
        ));
    }
    Ok((
        sweep,
        Line {
            file: file.to_path_buf(),
            number,
            config: config_of_replay,
            seeds: num(&s["seeds"], "seeds")?,
            shard,
            property,
            schedules: num(&v["schedules"], "schedules")?,
            undecided: num(&v["undecided"], "undecided")?,
            violations: num(&v["violations"], "violations")?,
            shrunk,
            unknown_seed: v["unknown_seed"].as_u64(),
            note: v["note"].as_str().map(str::to_owned),
        },
    ))
}

/// Reads and checks every line of `files`.
fn read(files: &[PathBuf]) -> Result<(Sweep, Vec<Line>), String> {
    let mut sweep: Option<(Sweep, PathBuf)> = None;
    let mut lines = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file)
            .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        if !text.is_empty() && !text.ends_with('\n') {
            return Err(format!(
                "{}: its last line is not ended: the shard was cut short",
                file.display()
            ));
        }
        if text.trim().is_empty() {
            return Err(format!(
                "{}: no verdict line: an empty shard",
                file.display()
            ));
        }
        for (i, row) in text
            .lines()
            .enumerate()
            .filter(|(_, r)| !r.trim().is_empty())
        {
            let (s, line) = parse(file, i + 1, row)?;
            match &sweep {
                None => sweep = Some((s, file.clone())),
                Some((first, from)) if *first != s => {
                    return Err(format!(
                        "{}:{}: another sweep than {}'s (seeds from {} × {} in {} shards, floors {}; \
                         this line: from {} × {} in {} shards, floors {})",
                        file.display(),
                        i + 1,
                        from.display(),
                        first.first_seed,
                        first.schedules,
                        first.shards,
                        first.floors,
                        s.first_seed,
                        s.schedules,
                        s.shards,
                        s.floors
                    ));
                }
                Some(_) => {}
            }
            lines.push(line);
        }
    }
    let (sweep, _) = sweep.ok_or("no file to merge")?;
    Ok((sweep, lines))
}

/// The verdicts of the whole sweep, rebuilt from its shards' lines, in
/// the table's row order.
fn merge(sweep: Sweep, lines: &[Line]) -> Result<Vec<Verdict>, String> {
    // (row, property) -> shard -> its line.
    let mut cells: BTreeMap<(&str, usize), BTreeMap<u64, &Line>> = BTreeMap::new();
    for line in lines {
        let p = Property::ALL
            .iter()
            .position(|x| *x == line.property)
            .unwrap_or(0);
        let shards = cells.entry((line.config.as_str(), p)).or_default();
        if let Some(other) = shards.insert(line.shard.0, line) {
            return Err(format!(
                "{}:{}: shard {}/{} of {} ({}) was given already, in {}:{}",
                line.file.display(),
                line.number,
                line.shard.0,
                line.shard.1,
                line.config,
                line.property.name(),
                other.file.display(),
                other.number
            ));
        }
    }
    // Every shard of every row a file names, or the file that lacks it.
    let mut rows: Vec<&str> = cells.keys().map(|(r, _)| *r).collect();
    rows.dedup();
    let mut files_of_shard: BTreeMap<u64, &Path> = BTreeMap::new();
    for line in lines {
        files_of_shard.entry(line.shard.0).or_insert(&line.file);
    }
    for i in 0..sweep.shards {
        let Some(file) = files_of_shard.get(&i) else {
            return Err(format!(
                "shard {i}/{} is missing: no file has it (merged: {})",
                sweep.shards,
                files_of_shard
                    .values()
                    .map(|f| f.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        };
        for row in &rows {
            for (p, property) in Property::ALL.into_iter().enumerate() {
                if !cells
                    .get(&(*row, p))
                    .is_some_and(|shards| shards.contains_key(&i))
                {
                    return Err(format!(
                        "{}: shard {i}/{} has no line for {row} ({}): the shard was cut short",
                        file.display(),
                        sweep.shards,
                        property.name()
                    ));
                }
            }
        }
    }
    let all = labs::explore_configs();
    let mut verdicts = Vec::new();
    for row in &rows {
        let config = all.iter().find(|c| c.key() == *row).ok_or_else(|| {
            format!("no configuration `{row}` in this build (see `cargo xtask explore --json`)")
        })?;
        for (p, property) in Property::ALL.into_iter().enumerate() {
            let shards = &cells[&(*row, p)];
            let sum = |f: fn(&Line) -> u64| shards.values().map(|l| f(l)).sum::<u64>();
            let seeds: Vec<u64> = shards.values().map(|l| l.seeds).collect();
            if seeds.windows(2).any(|w| w[0] != w[1]) {
                let line = shards.values().last().copied().ok_or("no shard")?;
                return Err(format!(
                    "{}:{}: {row} over {} seeds, another shard over {}: not one sweep",
                    line.file.display(),
                    line.number,
                    line.seeds,
                    seeds[0]
                ));
            }
            let (violations, undecided, schedules) = (
                sum(|l| l.violations),
                sum(|l| l.undecided),
                sum(|l| l.schedules),
            );
            let mut shrunk: Vec<(u64, Counterexample)> = shards
                .values()
                .flat_map(|l| l.shrunk.iter().cloned())
                .collect();
            shrunk.sort_by_key(|(seed, _)| *seed);
            shrunk.truncate(explore::SHRUNK_PER_PROPERTY);
            let unknown = shards
                .values()
                .filter_map(|l| l.unknown_seed.map(|s| (s, l.note.clone())))
                .min_by_key(|(s, _)| *s);
            let (status, counterexample, note, unknown_seed) = if violations > 0 {
                (
                    Status::Violated,
                    explore::best_counterexample(&shrunk),
                    None,
                    None,
                )
            } else if let Some((seed, note)) = unknown {
                (Status::Unknown, None, note, Some(seed))
            } else if schedules == 0 && undecided > 0 {
                (
                    Status::Unknown,
                    None,
                    Some(format!(
                        "no schedule decided: all {undecided} ended offline or outside the protocol's assumptions"
                    )),
                    None,
                )
            } else {
                (Status::Holds, None, None, None)
            };
            verdicts.push(Verdict {
                protocol: config.protocol,
                ack: config.ack.snake(),
                read: explore::read_snake(config.read),
                config: config.setting,
                property,
                status,
                schedules,
                undecided,
                violations,
                counterexample,
                note,
                shrunk: if violations > 0 { shrunk } else { Vec::new() },
                unknown_seed,
            });
        }
    }
    // The table's row order, whatever order the files came in.
    let order = |v: &Verdict| {
        all.iter()
            .position(|c| {
                c.protocol == v.protocol
                    && c.ack.snake() == v.ack
                    && explore::read_snake(c.read) == v.read
                    && c.setting == v.config
            })
            .unwrap_or(usize::MAX)
    };
    verdicts.sort_by_key(|v| {
        (
            order(v),
            Property::ALL.iter().position(|p| *p == v.property),
        )
    });
    Ok(verdicts)
}

/// How `explore` prints a table: as text, and as its Markdown file.
pub struct Printers {
    /// The terminal's table.
    pub plain: fn(&[Verdict]) -> String,
    /// `docs/guarantees.md` without its checker section.
    pub markdown: fn(&[Verdict], &SweepOptions) -> String,
}

/// `explore --merge FILE… [--check F | --write F]`.
pub fn run(
    files: &[PathBuf],
    check: Option<&PathBuf>,
    write: Option<&PathBuf>,
    jobs: usize,
    print: &Printers,
) -> Result<(String, ExitCode), Stop> {
    let (sweep, lines) = read(files).map_err(Stop::Usage)?;
    let verdicts = merge(sweep, &lines).map_err(Stop::Usage)?;
    let options = SweepOptions {
        schedules: sweep.schedules,
        first_seed: sweep.first_seed,
        jobs,
        shard: None,
        shrink: true,
        floors: sweep.floors,
    };
    if check.is_none() && write.is_none() {
        return Ok(((print.plain)(&verdicts), ExitCode::SUCCESS));
    }
    let mut markdown = (print.markdown)(&verdicts, &options);
    let all = labs::explore_configs();
    let configs: Vec<Configuration> = all
        .into_iter()
        .filter(|c| {
            verdicts.iter().any(|v| {
                c.protocol == v.protocol
                    && c.ack.snake() == v.ack
                    && explore::read_snake(c.read) == v.read
                    && c.setting == v.config
            })
        })
        .collect();
    markdown.push_str(&crate::check_cmd::markdown(&configs, jobs).map_err(Stop::Failed)?);
    let opts = Options {
        protocol: None,
        ack: None,
        read: None,
        setting: None,
        schedules: sweep.schedules,
        seed: sweep.first_seed,
        jobs,
        replay: None,
        diagram: None,
        state_at: None,
        json: false,
        jsonl: false,
        shard: None,
        check: check.cloned(),
        write: write.cloned(),
        planted: false,
        exhaustive: None,
        floors: sweep.floors,
        progress: false,
    };
    Ok(
        crate::sweep_all::write_or_check(&opts, &markdown, "explore --write")?
            .unwrap_or((String::new(), ExitCode::SUCCESS)),
    )
}
