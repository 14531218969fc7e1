//! Bounded exhaustive mode: every schedule of at most `depth` steps over a
//! small, fixed alphabet, each run to the end (heal, restart, quiesce,
//! read every key) and checked for every property. Where the random sweep
//! says "no schedule of N broke it", this says "no schedule of ≤ K steps
//! over this alphabet broke it" — a bounded proof, within what the
//! alphabet can express.
//!
//! Each schedule starts with a warm-up ([`WARM_UP`]). The network is fixed (the protocol's transport, a delay of one tick, no
//! loss, seed 0), so the enumeration covers the order and the timing of
//! client operations and faults relative to each other, not message-level
//! nondeterminism: drops, duplicates and delivery orders are the random
//! sweep's job. Schedules are run from scratch, one by one (no state
//! deduplication: a protocol fingerprint coarse enough to merge states
//! could merge states that differ, and a bound must not skip any).

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use replication::GroupError;
use replication::NetConfig;

use crate::config::Configuration;
use crate::config::default_nodes;
use crate::profile::{FaultKind, Profile, STORM};
use crate::property::{Check, Property};
use crate::run::{RunOptions, run_schedule};
use crate::schedule::{NodeRef, Schedule, Step};

/// The alphabet: client 0 writes `k0` (each write a new value), client 1
/// reads `k0`, the stale client 3 — stuck to the first node, as a client
/// with old metadata is — writes or reads `k0`, one tick passes (a race) or twelve (an election timeout),
/// the leader crashes (a process crash) or is
/// isolated, a crashed node restarts, an isolated node is healed, and the
/// protocol fails over.
pub fn alphabet() -> Vec<Step> {
    vec![
        Step::Write {
            client: 0,
            key: 0,
            value: 0,
        },
        Step::Read { client: 1, key: 0 },
        Step::Write {
            client: 3,
            key: 0,
            value: 0,
        },
        Step::Read { client: 3, key: 0 },
        Step::Wait(1),
        Step::Wait(12),
        Step::Crash(NodeRef::Leader, false),
        Step::Restart(NodeRef::Crashed),
        Step::Isolate(NodeRef::Leader),
        Step::Heal(NodeRef::Isolated),
        Step::Failover(None),
    ]
}

/// Every bounded schedule starts with this step (not counted in its
/// depth): 30 ticks, so that each protocol has elected or settled its
/// leader before the enumerated steps begin (Raft's election timeout is
/// 8–14 ticks).
pub const WARM_UP: Step = Step::Wait(30);

/// What the bounded search found for one property.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bounded {
    /// The property.
    pub property: Property,
    /// Schedules that kept it.
    pub held: u64,
    /// Schedules that could not decide it (the protocol stated why it
    /// could not serve, or the checker ran out of budget).
    pub undecided: u64,
    /// Schedules that broke it.
    pub violated: u64,
    /// The first (so shortest) schedule that broke it, with why.
    pub witness: Option<(Vec<Step>, String)>,
}

/// The result of a bounded search of one configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoundedSearch {
    /// The configuration's key.
    pub key: String,
    /// The bound.
    pub depth: usize,
    /// Schedules run: every sequence of 0 ..= depth steps.
    pub schedules: u64,
    /// One entry per property, in [`Property::ALL`] order.
    pub properties: Vec<Bounded>,
}

/// How many schedules a bound of `depth` over `letters` letters runs.
pub fn schedules_within(letters: u64, depth: usize) -> u64 {
    (0..=depth as u32).map(|d| letters.saturating_pow(d)).sum()
}

/// The steps of the `n`-th schedule in enumeration order (shorter first;
/// within a length, in alphabet order). Write values are the step's
/// position, so every write of a schedule is distinct.
fn sequence(mut n: u64, letters: &[Step]) -> Vec<Step> {
    let a = letters.len() as u64;
    let mut len = 0usize;
    let mut size = 1u64;
    while n >= size {
        n -= size;
        len += 1;
        size = size.saturating_mul(a);
    }
    let mut steps = vec![letters[0]; len];
    for slot in steps.iter_mut().rev() {
        *slot = letters[(n % a) as usize];
        n /= a;
    }
    for (i, step) in steps.iter_mut().enumerate() {
        if let Step::Write { value, .. } = step {
            *value = i as u32;
        }
    }
    steps
}

/// The fixed profile every bounded schedule of `config` runs under.
fn profile(config: &Configuration, nodes: u8, steps: usize) -> Profile {
    Profile {
        nodes,
        drawn_nodes: None,
        clients: 4,
        stale: 1,
        keys: 1,
        steps: u16::try_from(steps).unwrap_or(u16::MAX),
        density: 0,
        faults: vec![
            FaultKind::Crash,
            FaultKind::Restart,
            FaultKind::Isolate,
            FaultKind::Heal,
            FaultKind::Failover,
        ],
        net: NetConfig::default()
            .with_transport(config.transport)
            .with_delay_range(1, 1)
            .with_capacity(STORM),
        knobs: Vec::new(),
        steered: false,
        warm_up: 0,
    }
}

/// One schedule's checks, by its position in the enumeration.
type Answers = (u64, Result<[Check; 5], GroupError>);

/// Runs every schedule of at most `depth` steps of [`alphabet`] on
/// `config`, on `jobs` threads (the result does not depend on it).
pub fn search(
    config: &Configuration,
    depth: usize,
    jobs: usize,
) -> Result<BoundedSearch, GroupError> {
    let letters = alphabet();
    let nodes = default_nodes(config)?;
    let total = schedules_within(letters.len() as u64, depth);
    let next = AtomicU64::new(0);
    let results: Mutex<Vec<Answers>> = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1) {
            scope.spawn(|| {
                let mut local = Vec::new();
                loop {
                    let n = next.fetch_add(1, Ordering::Relaxed);
                    if n >= total {
                        break;
                    }
                    let mut steps = vec![WARM_UP];
                    steps.extend(sequence(n, &letters));
                    let schedule = Schedule {
                        seed: 0,
                        profile: profile(config, nodes, steps.len()),
                        steps,
                    };
                    local.push((
                        n,
                        run_schedule(config, &schedule, RunOptions::SWEEP).map(|r| r.checks),
                    ));
                }
                if let Ok(mut all) = results.lock() {
                    all.extend(local);
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap_or_default();
    results.sort_by_key(|(n, _)| *n);
    let mut properties: Vec<Bounded> = Property::ALL
        .into_iter()
        .map(|property| Bounded {
            property,
            held: 0,
            undecided: 0,
            violated: 0,
            witness: None,
        })
        .collect();
    for (n, checks) in results {
        for (b, check) in properties.iter_mut().zip(checks?) {
            match check {
                Check::Holds => b.held += 1,
                Check::Violated(why) => {
                    b.violated += 1;
                    if b.witness.is_none() {
                        b.witness = Some((sequence(n, &letters), why));
                    }
                }
                Check::Undecided(_) | Check::Unknown(_) => b.undecided += 1,
            }
        }
    }
    Ok(BoundedSearch {
        key: config.key(),
        depth,
        schedules: total,
        properties,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_enumeration_visits_every_sequence_once_shortest_first() {
        let letters = &alphabet()[..3];
        let total = schedules_within(3, 2);
        assert_eq!(total, 1 + 3 + 9);
        let all: Vec<Vec<Step>> = (0..total).map(|n| sequence(n, letters)).collect();
        assert!(all[0].is_empty());
        assert!(all[1..4].iter().all(|s| s.len() == 1));
        assert!(all[4..].iter().all(|s| s.len() == 2));
        let mut shapes: Vec<String> = all.iter().map(|s| format!("{s:?}")).collect();
        shapes.sort();
        shapes.dedup();
        assert_eq!(shapes.len() as u64, total, "no sequence twice");
    }

    #[test]
    fn writes_in_one_schedule_carry_distinct_values() {
        let letters = alphabet();
        let letters = &letters[..3];
        let steps = sequence(1 + 3 + 9 + 2, letters);
        assert_eq!(steps.len(), 3);
        let values: Vec<u32> = steps
            .iter()
            .filter_map(|s| match s {
                Step::Write { value, .. } => Some(*value),
                _ => None,
            })
            .collect();
        assert_eq!(values, vec![0, 1, 2]);
    }
}
