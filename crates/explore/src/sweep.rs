//! A sweep: many seeded schedules of one configuration, in parallel, into
//! one verdict per property.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use replication::GroupError;

use crate::config::{Configuration, read_snake};
use crate::property::{Check, Property};
use crate::replay::ReplayId;
use crate::run::{RunReport, run_schedule};
use crate::schedule::{Schedule, ScheduleShape};
use crate::shrink::minimize;

/// Candidate schedules tried while shrinking one counterexample.
const SHRINK_BUDGET: usize = 2_000;

/// How a sweep runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SweepOptions {
    /// Schedules per configuration (seeds `first_seed ..`).
    pub schedules: u64,
    /// The first seed.
    pub first_seed: u64,
    /// Worker threads (the result does not depend on it).
    pub jobs: usize,
    /// Clients and steps per schedule (`nodes` is taken from the group).
    pub shape: ScheduleShape,
    /// `Some((i, n))`: only the seeds whose position modulo `n` is `i`.
    pub shard: Option<(u64, u64)>,
}

impl Default for SweepOptions {
    fn default() -> Self {
        SweepOptions {
            schedules: 200,
            first_seed: 0,
            jobs: 1,
            shape: ScheduleShape::default(),
            shard: None,
        }
    }
}

/// A verdict's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Status {
    /// No schedule broke it.
    Holds,
    /// A schedule broke it; see the counterexample.
    Violated,
    /// No schedule broke it, but some could not decide.
    Unknown,
}

impl Status {
    /// `holds`, `violated`, `unknown`.
    pub fn name(self) -> &'static str {
        match self {
            Status::Holds => "holds",
            Status::Violated => "violated",
            Status::Unknown => "unknown",
        }
    }
}

/// The minimal schedule that breaks a property.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counterexample {
    /// Steps in the shrunk schedule.
    pub steps: usize,
    /// How to replay it.
    pub replay: ReplayId,
    /// What the shrunk run broke, in words.
    pub reason: String,
}

/// One cell of the verdict table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// Protocol name.
    pub protocol: &'static str,
    /// Ack level, snake case (`quorum`).
    pub ack: &'static str,
    /// Read level, snake case (`linearizable`).
    pub read: &'static str,
    /// The setting (`default`, `min_insync_3`, …).
    pub config: &'static str,
    /// The property.
    pub property: Property,
    /// Holds, violated or unknown.
    pub status: Status,
    /// Schedules that decided the property (ran to a verdict).
    pub schedules: u64,
    /// Schedules that ended unavailable and so could not decide it.
    pub undecided: u64,
    /// For a violation: the shrunk schedule.
    pub counterexample: Option<Counterexample>,
    /// For unknown: why (the first undecided schedule's reason).
    pub note: Option<String>,
}

/// Per seed and property: 0 holds, 1 violated, 2 unknown, 3 undecided.
type Outcome3 = [u8; 3];

fn code(check: &Check) -> u8 {
    match check {
        Check::Holds => 0,
        Check::Violated(_) => 1,
        Check::Unknown(_) => 2,
        Check::Undecided(_) => 3,
    }
}

/// The shape used for `config`: `options.shape` with the group's node count.
fn shape_for(config: &Configuration, shape: ScheduleShape) -> Result<ScheduleShape, GroupError> {
    let nodes = (config.factory)(0)?.node_ids().len();
    Ok(ScheduleShape {
        nodes: u8::try_from(nodes).unwrap_or(u8::MAX),
        ..shape
    })
}

/// Runs the sweep and returns one verdict per property, in
/// [`Property::ALL`] order. The first violating seed (in seed order) of
/// each property is shrunk.
pub fn sweep(config: &Configuration, options: &SweepOptions) -> Result<Vec<Verdict>, GroupError> {
    let shape = shape_for(config, options.shape)?;
    let seeds: Vec<u64> = (0..options.schedules.max(config.min_schedules))
        .filter(|pos| options.shard.is_none_or(|(i, n)| n > 0 && pos % n == i))
        .map(|pos| options.first_seed + pos)
        .collect();
    let next = AtomicU64::new(0);
    let results: Mutex<Vec<(usize, Result<Outcome3, GroupError>)>> = Mutex::new(Vec::new());
    let jobs = options.jobs.max(1).min(seeds.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| {
                let mut local = Vec::new();
                loop {
                    let pos = next.fetch_add(1, Ordering::Relaxed) as usize;
                    let Some(&seed) = seeds.get(pos) else { break };
                    let schedule = Schedule::generate(seed, &shape);
                    let out = run_schedule(config, &schedule, shape.clients, false, true)
                        .map(|r| [code(&r.checks[0]), code(&r.checks[1]), code(&r.checks[2])]);
                    local.push((pos, out));
                }
                if let Ok(mut all) = results.lock() {
                    all.extend(local);
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap_or_default();
    results.sort_by_key(|(pos, _)| *pos);
    let mut outcomes = Vec::with_capacity(results.len());
    for (_, out) in results {
        outcomes.push(out?);
    }
    let mut verdicts = Vec::new();
    for (p, property) in Property::ALL.into_iter().enumerate() {
        let violating = outcomes.iter().position(|o| o[p] == 1);
        let undecided = outcomes.iter().position(|o| o[p] == 2);
        let (status, counterexample, note) = match (violating, undecided) {
            (Some(pos), _) => {
                let cx = shrink(config, seeds[pos], shape, property)?;
                (Status::Violated, Some(cx), None)
            }
            (None, Some(pos)) => {
                let schedule = Schedule::generate(seeds[pos], &shape);
                let report = run_schedule(config, &schedule, shape.clients, false, true)?;
                let note = match report.check(property) {
                    Check::Unknown(why) => why.clone(),
                    _ => String::new(),
                };
                (
                    Status::Unknown,
                    None,
                    Some(format!("seed {}: {note}", seeds[pos])),
                )
            }
            (None, None) => (Status::Holds, None, None),
        };
        verdicts.push(Verdict {
            protocol: config.protocol,
            ack: config.ack.snake(),
            read: read_snake(config.read),
            config: config.setting,
            property,
            status,
            schedules: outcomes.iter().filter(|o| o[p] != 3).count() as u64,
            undecided: outcomes.iter().filter(|o| o[p] == 3).count() as u64,
            counterexample,
            note,
        });
    }
    Ok(verdicts)
}

/// Shrinks the schedule of `seed` to a minimal one that still violates
/// `property`.
fn shrink(
    config: &Configuration,
    seed: u64,
    shape: ScheduleShape,
    property: Property,
) -> Result<Counterexample, GroupError> {
    let schedule = Schedule::generate(seed, &shape);
    let lin = property == Property::Linearizable;
    let mut failure = None;
    let kept = minimize(
        schedule.steps.len(),
        SHRINK_BUDGET,
        |subset| match run_schedule(config, &schedule.subset(subset), shape.clients, false, lin) {
            Ok(report) => report.check(property).is_violated(),
            Err(err) => {
                failure.get_or_insert(err);
                false
            }
        },
    );
    if let Some(err) = failure {
        return Err(err);
    }
    let report = run_schedule(config, &schedule.subset(&kept), shape.clients, false, true)?;
    let reason = match report.check(property) {
        Check::Violated(why) => why.clone(),
        other => format!("{other:?}"),
    };
    Ok(Counterexample {
        steps: kept.len(),
        replay: ReplayId {
            config: config.key(),
            clients: shape.clients,
            seed,
            kept: Some(kept),
        },
        reason,
    })
}

/// Runs the schedule named by `id` on `config` with the trace on.
pub fn replay(
    config: &Configuration,
    id: &ReplayId,
    steps: usize,
) -> Result<(Schedule, RunReport), GroupError> {
    let shape = shape_for(
        config,
        ScheduleShape {
            clients: id.clients,
            steps,
            ..ScheduleShape::default()
        },
    )?;
    let full = Schedule::generate(id.seed, &shape);
    let schedule = match &id.kept {
        None => full,
        Some(kept) => full.subset(kept),
    };
    let report = run_schedule(config, &schedule, id.clients, true, true)?;
    Ok((schedule, report))
}
