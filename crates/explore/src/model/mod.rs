//! A model checker over the real protocol code: breadth-first over every
//! sequence of steps within a bound, on a steered run
//! ([`Steer`](replication::Steer): the network holds every message until a
//! step delivers, drops or duplicates it; a timer fires when a step fires
//! it — Raft's are held with the network — or, in the protocols whose
//! timers fire as ticks pass, when a step lets a tick pass), states
//! deduplicated by a fingerprint of the group's whole
//! state and of the client history, every distinct state judged as the
//! explorer judges a schedule's end (heal and restart everything, settle,
//! read every key at the strongest level: *durable*, *linearizable*,
//! *invariants*, *recovers*, *available*). The first violation found at
//! each property is a shortest path (breadth-first), with a replay id
//! that `cargo xtask explore --replay` opens.
//!
//! Mirrors stateright's breadth-first checker and DSLabs' search tests
//! (deliveries and timers as actions, deduplicated states, shortest
//! traces) and, with [`StateView::Nodes`], TLC's `VIEW` (states that
//! differ only in their messages in flight merged: deeper, but no longer
//! exhaustive). Omits symmetry reduction.
//!
//! A delivery or a fired timer passes a tick, and states are deduplicated
//! up to time
//! ([`replication::timeless_fingerprint`]): for a protocol whose timers
//! fire only when chosen (Raft), the tick, the election deadlines and the
//! generator that draws them are left out and every other time is a
//! distance from now, so the same state reached by deliveries to two
//! nodes in either order, or by paths of different lengths, is one state;
//! for the others, whose timers fire as ticks pass, time stays concrete
//! and states merge only at the same tick. The search is stateless
//! between levels: a state is rebuilt from its path on the worker that
//! expands it (from its parent's run when the worker still holds it), so
//! a level of a million states costs a million paths of memory, not a
//! million groups.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::hash::{Hash, Hasher};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use replication::{GroupError, NetConfig, StateHasher, Transport};

pub use crate::step_codes::MODEL_SEED as SEED;

use crate::config::{Configuration, default_nodes};
use crate::end_memo::EndMemo;
use crate::profile::Profile;
use crate::property::{Check, Property, Status};
use crate::replay::ReplayId;
use crate::run::{RunOptions, Runner, panicked};
use crate::schedule::{NodeRef, Schedule, Step};

/// How far the search goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// Steps in a path at most.
    pub depth: u16,
    /// Faults in a path at most: crashes, isolations, failovers, and on a
    /// datagram network drops and duplicates (restarts and heals are free).
    pub faults: u8,
    /// Client writes in a path at most (each from its own client).
    pub writes: u8,
    /// Client reads in a path at most.
    pub reads: u8,
    /// A read may also be sent to a named node, as by a client that still
    /// believes that node leads (the sweep's stale clients), not only
    /// where the protocol routes it.
    pub pinned_reads: bool,
    /// Distinct states at most; the search stops at the level that
    /// reaches it.
    pub max_states: u64,
    /// Worker threads (the result does not depend on it).
    pub jobs: usize,
    /// Deduplicate states by fingerprint (off: a tree search, for the
    /// soundness test).
    pub dedup: bool,
    /// Which parts of a state deduplicate it ([`StateView::Nodes`]: not an
    /// exhaustive search).
    pub view: StateView,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            depth: 8,
            faults: 2,
            writes: 2,
            reads: 1,
            pinned_reads: false,
            max_states: 200_000,
            jobs: 1,
            dedup: true,
            view: StateView::Complete,
        }
    }
}

/// A property broken on a shortest path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The path, step by step.
    pub path: Vec<Step>,
    /// How to replay it.
    pub replay: ReplayId,
    /// What it broke, in words.
    pub reason: String,
}

/// The checker's answer for one configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelVerdict {
    /// `protocol.ack.read.setting`.
    pub config: String,
    /// The knob values its runs were built with (`max_append_entries=1`;
    /// empty: the defaults).
    pub knobs: String,
    /// Per property in [`Property::ALL`] order: its status and, when
    /// violated, the shortest path found.
    pub properties: Vec<(Property, Status, Option<Finding>)>,
    /// States generated (every step applied), duplicates included.
    pub generated: u64,
    /// Distinct states judged.
    pub distinct: u64,
    /// Every path of at most this many steps was explored.
    pub depth: u16,
    /// True when no path longer than `depth` was left within the bounds
    /// (the whole bounded space), false when `max_states` stopped it.
    pub complete: bool,
    /// The bounds.
    pub bounds: Bounds,
    /// Random walks instead of a breadth-first search ([`walk`]): how
    /// many, from which seed; `depth` is their length.
    pub walks: Option<walk::Walks>,
    /// Wall-clock seconds (not part of any comparison).
    pub seconds: f64,
}

impl ModelVerdict {
    /// The bound in words: `all 5,112 distinct states within 8 steps, 2
    /// faults, 2 writes, 1 read`.
    pub fn bound_text(&self) -> String {
        let b = &self.bounds;
        let budget = format!(
            "{} faults, {} writes, {} reads{}",
            b.faults,
            b.writes,
            b.reads,
            if b.pinned_reads { " (at any node)" } else { "" }
        );
        if let Some(w) = &self.walks {
            return format!(
                "{} distinct states on {} random {}walks of {} steps (seed {}), {budget}",
                self.distinct,
                w.count,
                if w.swarm { "swarm " } else { "" },
                self.depth,
                w.seed
            );
        }
        let stopped = if self.complete {
            String::new()
        } else {
            format!(" (stopped at {} states)", b.max_states)
        };
        if b.view == StateView::Nodes {
            // Not every path: a merged state's messages in flight may
            // lead where the search never went.
            return format!(
                "{} distinct states without their messages in flight (not exhaustive) within {} steps, {budget}{stopped}",
                self.distinct, self.depth,
            );
        }
        format!(
            "{} {} distinct states within {} steps, {budget}{stopped}",
            if self.complete { "all" } else { "the first" },
            self.distinct,
            self.depth,
        )
    }
}

/// The profile of every checked run of `config`: the group's default node
/// count, one client per operation, one key, the protocol's transport
/// with a one-tick delay and no seeded faults, the configuration's knob
/// values ([`Configuration::with_knob_values`]), held after [`WARM_UP`]
/// ticks.
pub fn profile(config: &Configuration, nodes: u8, bounds: &Bounds) -> Profile {
    Profile {
        nodes,
        drawn_nodes: None,
        clients: bounds.writes + bounds.reads,
        stale: 0,
        keys: 1,
        steps: bounds.depth,
        density: 0,
        faults: Vec::new(),
        net: NetConfig::default().with_transport(config.transport),
        knobs: config.knob_values.clone(),
        steered: true,
        warm_up: WARM_UP,
    }
}

/// Ticks a checked run runs before its network is held: a group that
/// starts without a leader (Raft) elects one and commits its first entry
/// first, so the search starts where the protocols' interesting moves do.
/// One election timeout range (8–14 ticks by default) and the round trips
/// after it fit in 30, as in the explorer's bounded exhaustive mode.
pub const WARM_UP: u8 = 30;

/// The checked runs' schedule for `bounds` (no step: the first state),
/// once its group is known to be steerable (an error says so clearly).
fn first_schedule(config: &Configuration, bounds: &Bounds) -> Result<Schedule, GroupError> {
    let base = Schedule {
        seed: SEED,
        profile: profile(config, default_nodes(config)?, bounds),
        steps: Vec::new(),
    };
    Runner::start(config, &base, RunOptions::SWEEP)?;
    Ok(base)
}

/// The schedule that replays `path` on `config`.
pub fn schedule(config: &Configuration, path: Vec<Step>) -> Result<Schedule, GroupError> {
    let nodes = default_nodes(config)?;
    let writes = path
        .iter()
        .filter_map(|s| match s {
            Step::Write { client, .. }
            | Step::Read { client, .. }
            | Step::WriteAt { client, .. }
            | Step::ReadAt { client, .. }
            | Step::ReadVia { client, .. } => Some(*client + 1),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    let bounds = Bounds {
        depth: u16::try_from(path.len()).unwrap_or(u16::MAX),
        writes,
        reads: 0,
        ..Bounds::default()
    };
    Ok(Schedule {
        seed: SEED,
        profile: profile(config, nodes, &bounds),
        steps: path,
    })
}

/// One state of the search: its path (an arena index) and what it used.
#[derive(Debug, Clone, Copy)]
struct Node {
    /// Index of its last step in the arena (`u32::MAX`: the root).
    at: u32,
    /// What its path used of the bounds.
    used: Used,
}

/// What every level of one search shares.
#[derive(Clone, Copy)]
struct Search<'a> {
    config: &'a Configuration,
    /// The schedule of the first state (its profile: nodes, clients).
    base: &'a Schedule,
    bounds: &'a Bounds,
    memo: &'a EndMemo,
}

/// A worker's answer for the state at a place in the frontier.
type Answer = (usize, Result<Expanded, GroupError>);

/// What a worker found at one state of a level.
struct Expanded {
    /// The properties at the state, kept only when one does not hold
    /// (most states: all hold, and a level may be millions of states).
    checks: Option<Box<[Check; 5]>>,
    children: Vec<(Step, Node, u64)>,
    generated: u64,
}

/// Checks `config` within `bounds`; `progress` is told each finished
/// level (depth, distinct states so far).
pub fn check(
    config: &Configuration,
    bounds: &Bounds,
    progress: &dyn Fn(u16, u64),
) -> Result<ModelVerdict, GroupError> {
    let started = Instant::now();
    let base = first_schedule(config, bounds)?;
    let mut arena: Vec<(u32, Step)> = Vec::new();
    let memo = EndMemo::new();
    let mut seen: HashSet<u64> = HashSet::new();
    let mut found: Vec<Option<(Check, u32)>> = vec![None; 5];
    let mut unknown: Vec<Option<String>> = vec![None; 5];
    let mut frontier = vec![Node {
        at: u32::MAX,
        used: Used::default(),
    }];
    let (mut generated, mut distinct) = (0u64, 1u64);
    let mut depth = 0u16;
    let mut complete = true;
    // New distinct states per state expanded, at the last level: a level
    // that would pass `max_states` by this estimate is judged, not
    // expanded (expanding it costs far more than judging it).
    let mut branching = 1.0f64;
    loop {
        let predicted = distinct as f64 + frontier.len() as f64 * branching;
        let within = predicted <= bounds.max_states as f64;
        let expand = depth < bounds.depth && within;
        if depth < bounds.depth && !within {
            complete = false;
        }
        let search = Search {
            config,
            base: &base,
            bounds,
            memo: &memo,
        };
        let results = expand_level(&search, &arena, &frontier, expand)?;
        // Room for the level's new states as estimated, so that the seen
        // set, the arena and the next frontier do not regrow through it.
        let room = if expand {
            (predicted - distinct as f64).clamp(0.0, bounds.max_states as f64) as usize
        } else {
            0
        };
        if bounds.dedup {
            seen.reserve(room);
        }
        arena.reserve(room);
        let mut next = Vec::with_capacity(room);
        for (node, result) in frontier.iter().zip(results) {
            generated += result.generated;
            let checks = result.checks.map(|c| *c).into_iter().flatten();
            for (p, check) in checks.enumerate() {
                match check {
                    Check::Violated(_) if found[p].is_none() => found[p] = Some((check, node.at)),
                    Check::Unknown(why) if unknown[p].is_none() => unknown[p] = Some(why),
                    _ => {}
                }
            }
            for (step, mut child, fp) in result.children {
                if bounds.dedup && !seen.insert(fp) {
                    continue;
                }
                let at = u32::try_from(arena.len()).map_err(|_| {
                    GroupError::config("max_states", "more than 2^32 states in one search")
                })?;
                arena.push((node.at, step));
                child.at = at;
                next.push(child);
            }
        }
        progress(depth, distinct);
        if next.is_empty() {
            break;
        }
        branching = next.len() as f64 / frontier.len().max(1) as f64;
        if distinct + next.len() as u64 > bounds.max_states {
            complete = false;
            break;
        }
        distinct += next.len() as u64;
        frontier = next;
        depth += 1;
    }
    let key = config.key();
    let properties = Property::ALL
        .into_iter()
        .enumerate()
        .map(|(p, property)| match &found[p] {
            Some((Check::Violated(reason), at)) => {
                let path = path_of(&arena, *at);
                let replay = ReplayId::of_path(config, path.clone());
                (
                    property,
                    Status::Violated,
                    Some(Finding {
                        path,
                        replay,
                        reason: reason.clone(),
                    }),
                )
            }
            _ if unknown[p].is_some() => (property, Status::Unknown, None),
            _ => (property, Status::Holds, None),
        })
        .collect();
    Ok(ModelVerdict {
        config: key,
        knobs: config.knob_text(),
        properties,
        generated,
        distinct,
        depth,
        complete,
        bounds: *bounds,
        walks: None,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// The steps from the root to arena entry `at`.
fn path_of(arena: &[(u32, Step)], at: u32) -> Vec<Step> {
    chain_of(arena, at)
        .into_iter()
        .map(|i| arena[i as usize].1)
        .collect()
}

/// The arena indices of the steps from the root to arena entry `at`.
fn chain_of(arena: &[(u32, Step)], mut at: u32) -> Vec<u32> {
    let mut chain = Vec::new();
    while at != u32::MAX {
        chain.push(at);
        at = arena[at as usize].0;
    }
    chain.reverse();
    chain
}

/// Judges every state of `frontier` and (when `expand`) applies every
/// enabled step to it, on `bounds.jobs` workers; the answers come back in
/// frontier order, whatever the number of workers.
fn expand_level(
    search: &Search<'_>,
    arena: &[(u32, Step)],
    frontier: &[Node],
    expand: bool,
) -> Result<Vec<Expanded>, GroupError> {
    let Search {
        config,
        base,
        bounds,
        ..
    } = *search;
    let next = AtomicUsize::new(0);
    let jobs = bounds.jobs.max(1).min(frontier.len().max(1));
    let parts: Mutex<Vec<Vec<Answer>>> = Mutex::new(Vec::with_capacity(jobs));
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| {
                let mut local = Vec::with_capacity(frontier.len() / jobs + CHUNK);
                // The root once per worker (the warm-up's 30 ticks), forked
                // for every state: a group is not shared between threads.
                let root = crate::panics::catch(|| Runner::start(config, base, RunOptions::SWEEP));
                let mut prefix = Prefix::default();
                'work: loop {
                    // Runs of consecutive states: siblings share a parent.
                    let first = next.fetch_add(CHUNK, Ordering::Relaxed);
                    for i in first..first + CHUNK {
                        let Some(node) = frontier.get(i) else {
                            break 'work;
                        };
                        let expanded = match &root {
                            Ok(Ok(root)) => {
                                expand_one(search, root, &mut prefix, arena, node, expand)
                            }
                            Ok(Err(e)) => Err(e.clone()),
                            Err(panic) => Ok(Expanded {
                                checks: compact(panicked(panic, "the warm-up panicked")),
                                children: Vec::new(),
                                generated: 0,
                            }),
                        };
                        local.push((i, expanded));
                    }
                }
                if let Ok(mut all) = parts.lock() {
                    all.push(local);
                }
            });
        }
    });
    // Each answer to its place in the frontier (no sort, no regrowth).
    let mut results: Vec<Option<Result<Expanded, GroupError>>> = std::iter::repeat_with(|| None)
        .take(frontier.len())
        .collect();
    for (i, result) in parts.into_inner().unwrap_or_default().into_iter().flatten() {
        results[i] = Some(result);
    }
    results
        .into_iter()
        .map(|r| {
            r.unwrap_or_else(|| {
                Err(GroupError::config(
                    "jobs",
                    "a worker of the search stopped before its states were expanded",
                ))
            })
        })
        .collect()
}

/// States a worker takes from a level at a time: the frontier is in
/// parent order, so a worker's states are mostly siblings, each rebuilt
/// from their parent's run by one step ([`Prefix`]).
const CHUNK: usize = 32;

/// Rebuilds `node`'s state from its path, judges it, and applies every
/// enabled step to a fork of it.
fn expand_one<'a>(
    search: &Search<'a>,
    root: &Runner<'a>,
    prefix: &mut Prefix<'a>,
    arena: &[(u32, Step)],
    node: &Node,
    expand: bool,
) -> Result<Expanded, GroupError> {
    let Search {
        config,
        base,
        bounds,
        memo,
    } = *search;
    let chain = if node.at == u32::MAX {
        Vec::new()
    } else {
        chain_of(arena, node.at)
    };
    let run = crate::panics::catch(|| prefix.rebuild(root, arena, &chain));
    let run = match run {
        Ok(run) => run?,
        Err(panic) => {
            prefix.clear();
            return Ok(Expanded {
                checks: compact(panicked(&panic, "the path panicked")),
                children: Vec::new(),
                generated: 0,
            });
        }
    };
    let mut children = Vec::new();
    let mut generated = 0;
    if expand && run.invariants_so_far() == &Check::Holds {
        let index = chain.len();
        for step in enabled_steps(config, &run, node.used, bounds, false) {
            let Some(mut child) = run.fork() else { break };
            let applied = crate::panics::catch(|| {
                child.apply_to_fingerprint(index, &step, RunOptions::SWEEP);
                child
            });
            generated += 1;
            if let Ok(child) = &applied
                && moves_time_itself(&step, &run, child)
            {
                continue;
            }
            let next = Node {
                used: node.used.after(&step),
                ..*node
            };
            let fp = match &applied {
                Ok(child) => fingerprint(child, &next.used, bounds.view),
                // A panicking step is its own state: judged (and reported)
                // when its level is expanded.
                Err(_) => {
                    let mut h = StateHasher::default();
                    let _ = write!(h, "panicked after {}/{index}: {step:?}", node.at);
                    h.finish()
                }
            };
            children.push((step, next, fp));
        }
    }
    // Judged last, on the run itself: its children are forked already.
    let checks = compact(judge_owned(base, run, memo));
    Ok(Expanded {
        checks,
        children,
        generated,
    })
}

/// `checks`, or `None` when all five hold.
fn compact(checks: [Check; 5]) -> Option<Box<[Check; 5]>> {
    if checks.iter().all(|c| *c == Check::Holds) {
        None
    } else {
        Some(Box::new(checks))
    }
}

/// The properties at `run`'s state, judged as a schedule's end on a fork
/// of it (a panic is an *invariants* violation).
fn judge(base: &Schedule, run: &Runner<'_>, memo: &EndMemo) -> Result<[Check; 5], GroupError> {
    Ok(judge_owned(base, run.forked()?, memo))
}

/// [`judge`], on `run` itself (its end is run on it).
fn judge_owned(base: &Schedule, run: Runner<'_>, memo: &EndMemo) -> [Check; 5] {
    crate::panics::catch(|| run.judge_end(base, RunOptions::SWEEP, memo))
        .unwrap_or_else(|panic| panicked(&panic, "the end of the path panicked"))
}

/// The run after `path`, from a fresh group.
fn rebuild<'a>(
    config: &'a Configuration,
    base: &Schedule,
    path: &[Step],
) -> Result<Runner<'a>, GroupError> {
    let mut run = Runner::start(config, base, RunOptions::SWEEP)?;
    for (index, step) in path.iter().enumerate() {
        run.apply(index, step, RunOptions::SWEEP);
    }
    Ok(run)
}

/// True for a step that drove time itself (Raft's failover waits,
/// ticking, for an election): not a move of a steered run, where time
/// passes only by a delivery, a tick or a fired timer.
fn moves_time_itself(step: &Step, before: &Runner<'_>, after: &Runner<'_>) -> bool {
    !matches!(step, Step::Deliver(_) | Step::Wait(_) | Step::Fire(_))
        && after.group().now() != before.group().now()
}

/// True for a step that spends the fault budget.
fn counts_as_fault(step: &Step) -> bool {
    matches!(
        step,
        Step::Crash(..) | Step::Isolate(_) | Step::Failover(_) | Step::Drop(_) | Step::Duplicate(_)
    )
}

/// What a path has used of the bounds.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Used {
    pub(crate) writes: u8,
    pub(crate) reads: u8,
    pub(crate) faults: u8,
}

impl Used {
    /// What a path has used once `step` is taken too.
    pub(crate) fn after(self, step: &Step) -> Used {
        let mut used = self;
        match step {
            Step::Write { .. } => used.writes += 1,
            Step::Read { .. } | Step::ReadVia { .. } => used.reads += 1,
            s if counts_as_fault(s) => used.faults += 1,
            _ => {}
        }
        used
    }
}

/// Every step enabled at `run`'s state within `bounds`, in a fixed order:
/// deliveries, one tick, a timer fired at each node that has one armed,
/// client operations, repairs, faults. Where timers fire only when chosen,
/// a tick alone changes nothing but the clock, and only `idle_tick` (the
/// debugger's: a student may let time pass, as a PreVote's "leader heard
/// lately" lapses with it) offers one; every step that acts passes one.
pub(crate) fn enabled_steps(
    config: &Configuration,
    run: &Runner<'_>,
    node: Used,
    bounds: &Bounds,
    idle_tick: bool,
) -> Vec<Step> {
    let mut steps = Vec::new();
    let Some(steer) = run.group().steerable() else {
        return steps;
    };
    let held = steer.held();
    let n = u8::try_from(run.group().node_ids().len()).unwrap_or(u8::MAX);
    let deliverable = held.iter().filter(|h| h.deliverable).count();
    steps.extend((0..deliverable).filter_map(|i| u16::try_from(i).ok().map(Step::Deliver)));
    if idle_tick || !steer.chooses_timers() {
        steps.push(Step::Wait(1));
    }
    let mut last = None;
    for timer in steer.timers() {
        if last != Some(timer.node)
            && let Ok(i) = u8::try_from(timer.node)
        {
            steps.push(Step::Fire(NodeRef::At(i)));
        }
        last = Some(timer.node);
    }
    if node.writes < bounds.writes {
        steps.push(Step::Write {
            client: node.writes,
            key: 0,
            value: u32::from(node.writes) + 1,
        });
    }
    if node.reads < bounds.reads {
        let client = bounds.writes + node.reads;
        steps.push(Step::Read { client, key: 0 });
        if bounds.pinned_reads {
            steps.extend((0..n).map(|i| Step::ReadVia {
                client,
                node: NodeRef::At(i),
            }));
        }
    }
    let (crashed, isolated, power_losses) = run.fault_state();
    for &i in crashed {
        if let Ok(i) = u8::try_from(i) {
            steps.push(Step::Restart(NodeRef::At(i)));
        }
    }
    for &i in isolated {
        if let Ok(i) = u8::try_from(i) {
            steps.push(Step::Heal(NodeRef::At(i)));
        }
    }
    if node.faults < bounds.faults {
        let power = config.max_power_losses.is_none_or(|max| power_losses < max);
        for i in 0..n {
            if crashed.contains(&usize::from(i)) {
                continue;
            }
            steps.push(Step::Crash(NodeRef::At(i), false));
            if power {
                steps.push(Step::Crash(NodeRef::At(i), true));
            }
            if !isolated.contains(&usize::from(i)) {
                steps.push(Step::Isolate(NodeRef::At(i)));
            }
        }
        steps.push(Step::Failover(None));
        if config.transport == Transport::Datagram {
            for i in 0..held.len() {
                if let Ok(i) = u16::try_from(i) {
                    steps.push(Step::Drop(i));
                    steps.push(Step::Duplicate(i));
                }
            }
        }
    }
    steps
}

/// The fingerprint of a state: the group's state up to time
/// ([`replication::timeless_fingerprint`]; in [`StateView::Nodes`] without the
/// messages in flight), the client history (what the properties judge,
/// without the ticks that only explain a verdict, with the protocol's
/// words for each failure), what the path has used
/// of the bounds, and the faults the run keeps track of.
fn fingerprint(run: &Runner<'_>, used: &Used, view: StateView) -> u64 {
    let group = run.group().steerable().map_or(0, |g| view.fingerprint(g));
    let mut h = StateHasher::default();
    // Hashed as derived: no text is made.
    h.write_u64(group);
    (used.writes, used.reads, used.faults).hash(&mut h);
    h.write_u64(crate::end_memo::history_key(run.history()));
    for op in run.history() {
        op.reason.hash(&mut h);
    }
    run.fault_state().hash(&mut h);
    run.invariants_so_far().hash(&mut h);
    h.finish()
}

mod prefix;
mod state_view;
mod swarm;
pub mod walk;

use prefix::Prefix;
pub use state_view::StateView;

#[cfg(test)]
mod tests;
