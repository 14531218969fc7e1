//! A sweep: many seeded schedules of one configuration, in parallel, into
//! one verdict per property.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use replication::GroupError;

use crate::config::{Configuration, default_nodes, read_snake};
use crate::profile::Profile;
use crate::property::{Check, Property, Status};
use crate::replay::ReplayId;
use crate::run::{RunOptions, RunReport, run_schedule};
use crate::schedule::Schedule;
use crate::shrink::minimize;

/// Candidate schedules tried while shrinking one counterexample.
const SHRINK_BUDGET: usize = 2_000;
/// Violating seeds shrunk per property; the shortest result is kept.
const SHRINK_CANDIDATES: usize = 3;
/// How a sweep runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SweepOptions {
    /// Schedules per configuration (seeds `first_seed ..`).
    pub schedules: u64,
    /// The first seed.
    pub first_seed: u64,
    /// Worker threads (the result does not depend on it).
    pub jobs: usize,
    /// `Some((i, n))`: only the seeds whose position modulo `n` is `i`.
    pub shard: Option<(u64, u64)>,
    /// Shrink the violating schedules into counterexamples (off: only
    /// count them, e.g. to measure how often a planted bug is caught).
    pub shrink: bool,
    /// Honour a configuration's floor of schedules
    /// ([`Configuration::min_schedules`]); off, a sweep runs exactly
    /// `schedules` (a quick look, e.g. the report's tests).
    pub floors: bool,
}

impl Default for SweepOptions {
    fn default() -> Self {
        SweepOptions {
            schedules: 200,
            first_seed: 0,
            jobs: 1,
            shard: None,
            shrink: true,
            floors: true,
        }
    }
}

/// The minimal schedule that breaks a property: the shortest of the first
/// few violating seeds' shrunk schedules.
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
    /// Schedules that broke it.
    pub violations: u64,
    /// For a violation: the shrunk schedule.
    pub counterexample: Option<Counterexample>,
    /// For unknown: why (the first undecided schedule's reason).
    pub note: Option<String>,
    /// The violating seeds that were shrunk (the first few, in seed
    /// order), each with its result; `counterexample` is the shortest
    /// (the first among equals). Sweeps split into shards merge by them:
    /// the first few of the whole sweep are among the first few of its
    /// shards.
    pub shrunk: Vec<(u64, Counterexample)>,
    /// For unknown: the seed `note` is about.
    pub unknown_seed: Option<u64>,
}

/// The counterexample a sweep keeps of `shrunk` (seed order): the first
/// of the fewest steps, among the first few seeds.
pub fn best_counterexample(shrunk: &[(u64, Counterexample)]) -> Option<Counterexample> {
    let mut best: Option<&Counterexample> = None;
    for (_, cx) in shrunk.iter().take(SHRINK_CANDIDATES) {
        if best.is_none_or(|b| cx.steps < b.steps) {
            best = Some(cx);
        }
    }
    best.cloned()
}

/// How many violating seeds a sweep shrinks per property.
pub const SHRUNK_PER_PROPERTY: usize = SHRINK_CANDIDATES;

/// How one schedule answered one property.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answer {
    Holds,
    Violated,
    Unknown,
    /// The run ended unavailable (legitimately, by the protocol's word):
    /// it decides nothing about this property.
    Undecided,
}

impl Answer {
    fn of(check: &Check) -> Answer {
        match check {
            Check::Holds => Answer::Holds,
            Check::Violated(_) => Answer::Violated,
            Check::Unknown(_) => Answer::Unknown,
            Check::Undecided(_) => Answer::Undecided,
        }
    }
}

/// The schedule of `seed` for `config`.
pub fn schedule_of(config: &Configuration, seed: u64, nodes: u8) -> Schedule {
    Schedule::generate(seed, Profile::draw(seed, config, nodes))
}

/// One seed's answers, by its position in the sweep.
type SeedAnswers = (usize, Result<[Answer; 5], GroupError>);

/// Runs the sweep and returns one verdict per property, in
/// [`Property::ALL`] order. The first violating seed (in seed order) of
/// each property is shrunk.
pub fn sweep(config: &Configuration, options: &SweepOptions) -> Result<Vec<Verdict>, GroupError> {
    let nodes = default_nodes(config)?;
    let seeds: Vec<u64> = (0..if options.floors {
        options.schedules.max(config.min_schedules)
    } else {
        options.schedules
    })
        .filter(|pos| options.shard.is_none_or(|(i, n)| n > 0 && pos % n == i))
        .map(|pos| options.first_seed + pos)
        .collect();
    let next = AtomicU64::new(0);
    let results: Mutex<Vec<SeedAnswers>> = Mutex::new(Vec::new());
    let jobs = options.jobs.max(1).min(seeds.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| {
                let mut local = Vec::new();
                loop {
                    let pos = next.fetch_add(1, Ordering::Relaxed) as usize;
                    let Some(&seed) = seeds.get(pos) else { break };
                    let schedule = schedule_of(config, seed, nodes);
                    let out = run_schedule(config, &schedule, RunOptions::SWEEP)
                        .map(|r| r.checks.each_ref().map(Answer::of));
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
        let violating: Vec<usize> = outcomes
            .iter()
            .enumerate()
            .filter(|(_, o)| o[p] == Answer::Violated)
            .map(|(i, _)| i)
            .collect();
        let unknown = outcomes.iter().position(|o| o[p] == Answer::Unknown);
        let mut shrunk = Vec::new();
        let mut unknown_seed = None;
        let (status, counterexample, note) = match (violating.first(), unknown) {
            (Some(_), _) if !options.shrink => (Status::Violated, None, None),
            (Some(_), _) => {
                for &pos in violating.iter().take(SHRINK_CANDIDATES) {
                    shrunk.push((seeds[pos], shrink(config, seeds[pos], nodes, property)?));
                }
                (Status::Violated, best_counterexample(&shrunk), None)
            }
            (None, Some(pos)) => {
                unknown_seed = Some(seeds[pos]);
                let schedule = schedule_of(config, seeds[pos], nodes);
                let report = run_schedule(config, &schedule, RunOptions::SWEEP)?;
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
            // "holds" over no decided schedule would be no evidence at
            // all: a group that excused every run (offline, or outside
            // its assumptions) is not known to keep anything.
            (None, None)
                if !outcomes.is_empty() && outcomes.iter().all(|o| o[p] == Answer::Undecided) =>
            {
                (
                    Status::Unknown,
                    None,
                    Some(format!(
                        "no schedule decided: all {} ended offline or outside the protocol's assumptions",
                        outcomes.len()
                    )),
                )
            }
            (None, None) => (Status::Holds, None, None),
        };
        let count = |a: Answer| outcomes.iter().filter(|o| o[p] == a).count() as u64;
        verdicts.push(Verdict {
            protocol: config.protocol,
            ack: config.ack.snake(),
            read: read_snake(config.read),
            config: config.setting,
            property,
            status,
            schedules: outcomes.len() as u64 - count(Answer::Undecided),
            undecided: count(Answer::Undecided),
            violations: count(Answer::Violated),
            counterexample,
            note,
            shrunk,
            unknown_seed,
        });
    }
    Ok(verdicts)
}

/// Shrinks the schedule of `seed` to a minimal one that still violates
/// `property`.
fn shrink(
    config: &Configuration,
    seed: u64,
    nodes: u8,
    property: Property,
) -> Result<Counterexample, GroupError> {
    let schedule = schedule_of(config, seed, nodes);
    let options = RunOptions {
        trace: false,
        linearizable: property == Property::Linearizable,
    };
    let mut failure = None;
    let kept = minimize(
        schedule.steps.len(),
        SHRINK_BUDGET,
        |subset| match run_schedule(config, &schedule.subset(subset), options) {
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
    let report = run_schedule(config, &schedule.subset(&kept), RunOptions::SWEEP)?;
    let reason = match report.check(property) {
        Check::Violated(why) => why.clone(),
        other => other.to_string(),
    };
    Ok(Counterexample {
        steps: kept.len(),
        replay: ReplayId {
            config: config.key(),
            seed,
            kept: Some(kept),
            path: None,
            knobs: Vec::new(),
        },
        reason,
    })
}

/// Runs the schedule named by `id` on `config` with the trace on. An id
/// naming a step the schedule of its seed does not have is an error.
pub fn replay(config: &Configuration, id: &ReplayId) -> Result<(Schedule, RunReport), GroupError> {
    if let Some(path) = &id.path {
        // The knob values a path of this configuration would name.
        let mut named = id.knobs.clone();
        named.sort_unstable();
        if named != ReplayId::of_path(config, Vec::new()).knobs {
            return Err(GroupError::config(
                "knob",
                format!(
                    "{id} names other knob values than the configuration is built with [{}] \
                     (Configuration::with_knob_values)",
                    config.knob_text()
                ),
            ));
        }
        let schedule = crate::model::schedule(config, path.clone())?;
        let report = run_schedule(config, &schedule, RunOptions::REPLAY)?;
        return Ok((schedule, report));
    }
    let schedule = recorded_schedule(config, id)?;
    let report = run_schedule(config, &schedule, RunOptions::REPLAY)?;
    Ok((schedule, report))
}

/// The schedule a sweep's replay id names (not a checker path's): its
/// seed's schedule, restricted to the steps it kept.
pub(crate) fn recorded_schedule(
    config: &Configuration,
    id: &ReplayId,
) -> Result<Schedule, GroupError> {
    let full = schedule_of(config, id.seed, default_nodes(config)?);
    let schedule = match &id.kept {
        None => full,
        Some(kept) => {
            if let Some(&bad) = kept.iter().find(|&&i| i >= full.steps.len()) {
                return Err(GroupError::config(
                    "replay",
                    format!(
                        "{id} names step {bad}, but the schedule of seed {} has {} steps (0..{})",
                        id.seed,
                        full.steps.len(),
                        full.steps.len().saturating_sub(1)
                    ),
                ));
            }
            full.subset(kept)
        }
    };
    Ok(schedule)
}

#[cfg(test)]
mod tests {
    use proto_raft::{RaftConfig, RaftGroup};
    use replication::{AckLevel, ReadLevel, ReplicationGroup};

    use super::*;
    use crate::altered::Altered;

    #[test]
    fn a_property_no_schedule_decided_is_unknown_not_holds() {
        let config = Configuration::new(
            "raft",
            AckLevel::Quorum,
            ReadLevel::Linearizable,
            "default",
            |build: &crate::Build| {
                let raft = RaftGroup::new(RaftConfig::default().with_seed(build.seed))?;
                let g = Altered::new(raft).claiming_outside_assumptions();
                Ok(Box::new(g) as Box<dyn ReplicationGroup>)
            },
        );
        let options = SweepOptions {
            schedules: 4,
            jobs: 1,
            ..SweepOptions::default()
        };
        let verdicts = sweep(&config, &options).expect("sweeps");
        let recovers = verdicts
            .iter()
            .find(|v| v.property == Property::Recovers)
            .expect("a verdict per property");
        assert_eq!(recovers.status, Status::Unknown);
        assert_eq!(recovers.undecided, 4);
        let note = recovers.note.as_deref().unwrap_or("");
        assert!(note.contains("no schedule decided: all 4"), "{note}");
    }

    /// A `debug_assert!` that a schedule reaches (here a planted one, on a
    /// power loss) is a finding: *invariants* violated, naming the
    /// assertion, shrunk to a replayable schedule; every other verdict is
    /// still given, and the process counts the panic (the command then
    /// exits 1). The test harness has debug assertions on, as the
    /// `checked` profile has.
    #[test]
    fn a_debug_assertion_a_schedule_reaches_is_a_shrunk_invariants_violation() {
        let config = Configuration::new(
            "raft",
            AckLevel::Quorum,
            ReadLevel::Linearizable,
            "default",
            |build: &crate::Build| {
                let raft = RaftGroup::new(RaftConfig::default().with_seed(build.seed))?;
                let g = Altered::new(raft).asserting_on_power_loss();
                Ok(Box::new(g) as Box<dyn ReplicationGroup>)
            },
        );
        let before = crate::panics_caught();
        let options = SweepOptions {
            schedules: 40,
            jobs: 2,
            ..SweepOptions::default()
        };
        let verdicts = sweep(&config, &options).expect("sweeps");
        assert_eq!(verdicts.len(), 5, "every property still has a verdict");
        let invariants = &verdicts[Property::Invariants.index()];
        assert_eq!(invariants.status, Status::Violated);
        let cx = invariants.counterexample.as_ref().expect("shrunk");
        assert!(
            cx.reason.contains("panicked") && cx.reason.contains("planted: a power loss"),
            "{}",
            cx.reason
        );
        assert_eq!(cx.steps, 1, "one power loss is enough: {}", cx.replay);
        let (_, replayed) = replay(&config, &cx.replay).expect("replays");
        assert!(matches!(
            replayed.check(Property::Invariants),
            Check::Violated(why) if why.contains("planted: a power loss")
        ));
        assert!(crate::panics_caught() > before);
    }
}
