//! Random walks over the checker's steps, for bugs deeper than a
//! breadth-first search reaches: each walk starts at the checker's first
//! state and takes, at every state, one of the steps enabled there (the
//! same alphabet and bounds as the breadth-first search) drawn from its
//! own seeded rng, judging every state it has not judged before. A
//! violation's path is then shortened: steps are dropped one at a time
//! while the property stays violated at the end, until no single step can
//! go (a 1-minimal path, not a proven shortest one).
//!
//! With `swarm`, each walk first draws what it may do (`swarm.rs`).
//!
//! Mirrors TLC's simulation mode and stateright's simulation checker.
//! Proves nothing when it finds nothing: its answer for a property it
//! did not see violated is *holds* on the states it judged, which the
//! bound's text says.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use replication::GroupError;
use replication::Rng;

use super::swarm::Swarm;
use super::{
    Bounds, Finding, ModelVerdict, StateView, Used, compact, enabled_steps, fingerprint,
    first_schedule, judge, moves_time_itself, rebuild,
};
use crate::config::Configuration;
use crate::end_memo::EndMemo;
use crate::property::{Check, Property, Status};
use crate::replay::ReplayId;
use crate::run::{RunOptions, Runner, panic_reason};
use crate::schedule::{Schedule, Step};

/// How many walks, how long, from which seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Walks {
    /// Walks taken.
    pub count: u64,
    /// The seed walk `i` draws its steps from (with `i`).
    pub seed: u64,
    /// Swarm walks (swarm testing): each walk draws links it never
    /// delivers on, nodes whose timers it never fires and how often it
    /// delivers, then its steps among those left.
    pub swarm: bool,
}

/// A violation seen on a walk: the walk, and the path to the state.
struct Seen {
    walk: u64,
    path: Vec<Step>,
    reason: String,
}

/// Walks `config` within `bounds` (`bounds.depth` is each walk's length).
pub fn walk(
    config: &Configuration,
    bounds: &Bounds,
    walks: &Walks,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<ModelVerdict, GroupError> {
    if bounds.view != StateView::Complete {
        // Nothing to merge: a walk judges every state it meets, and shares
        // a verdict only between walks at the very same state.
        return Err(GroupError::config(
            "view",
            format!(
                "`{}`: random walks merge no states; the view applies to the breadth-first search",
                bounds.view
            ),
        ));
    }
    let started = Instant::now();
    let base = first_schedule(config, bounds)?;
    let memo = EndMemo::new();
    let judged: Mutex<Judged> = Mutex::new(HashMap::new());
    let next = AtomicU64::new(0);
    let steps = AtomicU64::new(0);
    let found: Mutex<Vec<Option<Seen>>> = Mutex::new((0..5).map(|_| None).collect());
    let failure: Mutex<Option<GroupError>> = Mutex::new(None);
    let jobs = bounds.jobs.max(1);
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| {
                let root = match Runner::start(config, &base, RunOptions::SWEEP) {
                    Ok(root) => root,
                    Err(e) => {
                        if let Ok(mut f) = failure.lock() {
                            f.get_or_insert(e);
                        }
                        return;
                    }
                };
                loop {
                    let w = next.fetch_add(1, Ordering::Relaxed);
                    if w >= walks.count {
                        break;
                    }
                    let one = Walk {
                        config,
                        swarm: walks.swarm,
                        base: &base,
                        bounds,
                        memo: &memo,
                        judged: &judged,
                    };
                    match one.run(&root, walks.seed, w) {
                        Ok((taken, seen)) => {
                            steps.fetch_add(taken, Ordering::Relaxed);
                            if let Ok(mut found) = found.lock() {
                                for (slot, seen) in found.iter_mut().zip(seen) {
                                    let Some(seen) = seen else { continue };
                                    if slot.as_ref().is_none_or(|s| seen.walk < s.walk) {
                                        *slot = Some(seen);
                                    }
                                }
                            }
                            if w.is_multiple_of(256) {
                                progress(w, judged.lock().map_or(0, |j| j.len() as u64));
                            }
                        }
                        Err(e) => {
                            if let Ok(mut f) = failure.lock() {
                                f.get_or_insert(e);
                            }
                            break;
                        }
                    }
                }
            });
        }
    });
    if let Some(e) = failure.into_inner().ok().flatten() {
        return Err(e);
    }
    let found = found.into_inner().unwrap_or_default();
    let distinct = judged.into_inner().map_or(0, |j| j.len() as u64);
    let key = config.key();
    let mut properties = Vec::new();
    for (p, property) in Property::ALL.into_iter().enumerate() {
        match found.get(p).and_then(Option::as_ref) {
            Some(seen) => {
                let (path, reason) = shorten(config, &base, &memo, p, seen)?;
                let replay = ReplayId::of_path(config, path.clone());
                properties.push((
                    property,
                    Status::Violated,
                    Some(Finding {
                        path,
                        replay,
                        reason,
                    }),
                ));
            }
            None => properties.push((property, Status::Holds, None)),
        }
    }
    Ok(ModelVerdict {
        config: key,
        knobs: config.knob_text(),
        properties,
        generated: steps.into_inner(),
        distinct,
        depth: bounds.depth,
        complete: false,
        bounds: *bounds,
        walks: Some(*walks),
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// Every state judged, by fingerprint: `None` where every property held,
/// else the verdicts (so that which walk judges a state first changes
/// no walk's answer).
type Judged = HashMap<u64, Option<Box<[Check; 5]>>>;

/// What one walk shares with the others.
struct Walk<'s, 'a> {
    config: &'a Configuration,
    swarm: bool,
    base: &'s Schedule,
    bounds: &'s Bounds,
    memo: &'s EndMemo,
    judged: &'s Mutex<Judged>,
}

/// Violations one walk saw, by property.
type SeenBy = [Option<Seen>; 5];

impl<'a> Walk<'_, 'a> {
    /// The properties at `run`'s state: judged once, whichever walk gets
    /// there first.
    fn checks(&self, run: &Runner<'a>, used: &Used) -> Result<Option<Box<[Check; 5]>>, GroupError> {
        let fp = fingerprint(run, used, self.bounds.view);
        if let Some(known) = self.judged.lock().ok().and_then(|j| j.get(&fp).cloned()) {
            return Ok(known);
        }
        let found = compact(judge(self.base, run, self.memo)?);
        if let Ok(mut j) = self.judged.lock() {
            j.insert(fp, found.clone());
        }
        Ok(found)
    }

    /// Walk `w` from `root`: the steps taken, and the first violation it
    /// saw of each property.
    fn run(&self, root: &Runner<'a>, seed: u64, w: u64) -> Result<(u64, SeenBy), GroupError> {
        let mut rng = Rng::new(seed ^ w.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let swarm = if self.swarm {
            Swarm::draw(&mut rng, root.group().node_ids().len())
        } else {
            Swarm::NONE
        };
        let mut seen: SeenBy = Default::default();
        let Some(mut run) = root.fork() else {
            return Ok((0, seen));
        };
        let mut used = Used::default();
        let mut path: Vec<Step> = Vec::new();
        let mut taken = 0u64;
        loop {
            if let Some(checks) = self.checks(&run, &used)? {
                for (p, check) in checks.iter().enumerate() {
                    if let Check::Violated(reason) = check
                        && seen[p].is_none()
                    {
                        seen[p] = Some(Seen {
                            walk: w,
                            path: path.clone(),
                            reason: reason.clone(),
                        });
                    }
                }
            }
            if path.len() >= usize::from(self.bounds.depth)
                || run.invariants_so_far() != &Check::Holds
            {
                break;
            }
            let mut steps = enabled_steps(self.config, &run, used, self.bounds, false);
            if swarm != Swarm::NONE {
                let held = run
                    .group()
                    .steerable()
                    .map(|g| g.held())
                    .unwrap_or_default();
                swarm.retain(&mut steps, &held);
            }
            let mut moved = None;
            while !steps.is_empty() {
                let pick = swarm.pick(&steps, &mut rng);
                let step = steps.swap_remove(pick);
                let Some(mut child) = run.fork() else { break };
                let index = path.len();
                let applied = crate::panics::catch(|| {
                    child.apply(index, &step, RunOptions::SWEEP);
                    child
                });
                match applied {
                    Ok(child) if moves_time_itself(&step, &run, &child) => {}
                    Ok(child) => {
                        moved = Some((step, child));
                        break;
                    }
                    Err(panic) => {
                        path.push(step);
                        if seen[2].is_none() {
                            seen[2] = Some(Seen {
                                walk: w,
                                path: path.clone(),
                                reason: panic_reason(&panic),
                            });
                        }
                        return Ok((taken + 1, seen));
                    }
                }
            }
            let Some((step, child)) = moved else { break };
            taken += 1;
            used = used.after(&step);
            path.push(step);
            run = child;
        }
        Ok((taken, seen))
    }
}

/// `seen`'s path with steps dropped, one at a time, while property `p`
/// stays violated at its end; and the reason at the shortened end.
fn shorten(
    config: &Configuration,
    base: &Schedule,
    memo: &EndMemo,
    p: usize,
    seen: &Seen,
) -> Result<(Vec<Step>, String), GroupError> {
    let broken = |path: &[Step]| -> Result<Option<String>, GroupError> {
        let run = match crate::panics::catch(|| rebuild(config, base, path)) {
            Ok(run) => run?,
            Err(panic) => return Ok((p == 2).then(|| panic_reason(&panic))),
        };
        let checks = judge(base, &run, memo)?;
        Ok(match &checks[p] {
            Check::Violated(why) => Some(why.clone()),
            _ => None,
        })
    };
    let mut path = seen.path.clone();
    let mut reason = seen.reason.clone();
    let mut i = 0;
    while i < path.len() {
        let mut shorter = path.clone();
        shorter.remove(i);
        if let Some(why) = broken(&shorter)? {
            path = shorter;
            reason = why;
        } else {
            i += 1;
        }
    }
    Ok((path, reason))
}
