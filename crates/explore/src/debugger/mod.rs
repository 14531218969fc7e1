//! A debugger's session over a steered run: a tree of states, each reached
//! from its parent by one step a person chose (deliver this message, fire
//! that timer, crash that node, a client write), so that going back and
//! choosing differently makes a branch and every branch stays. It offers
//! exactly the model checker's steps ([`crate::model`]: the same steered
//! run, the same enabled actions), plus a slow replica and a failover to
//! a named node, without the checker's budgets — so the debugger and the
//! checker never disagree about what can happen next, and a checker's
//! counterexample opens here step by step.
//!
//! Mirrors DSLabs' visual debugger (an event tree; a different choice
//! branches the history) and stateright's Explorer (the next actions as
//! links, the path so far, the properties of this state). The session is
//! stateless about groups: a state is its path, rebuilt on demand (a path
//! of a few dozen steps replays in about a millisecond).

mod view;

pub use view::{Action, Lane, View};

use replication::GroupError;

use crate::config::Configuration;
use crate::model::{self, Bounds};
use crate::property::{Check, Property};
use crate::replay::ReplayId;
use crate::run::{RunOptions, Runner};
use crate::schedule::{NodeRef, Step};

/// One state of the tree.
#[derive(Debug, Clone)]
pub struct State {
    /// The state it was reached from (`None`: the root).
    pub parent: Option<usize>,
    /// The step that reached it.
    pub step: Option<Step>,
    /// That step in words, as its button said (`deliver fetch node-2 →
    /// node-1`).
    pub label: String,
    /// The states reached from it, in the order they were first taken.
    pub children: Vec<usize>,
    /// The invariants as of this state (broken at the first step that
    /// broke them).
    pub invariants: Check,
    /// What the checker would say if the run ended here (heal, restart,
    /// settle, read): durable, linearizable, invariants, recovers,
    /// available.
    pub judged: [Check; 5],
}

impl State {
    /// The first broken property of this state, with its explanation.
    pub fn broken(&self) -> Option<(Property, &str)> {
        if let Check::Violated(why) = &self.invariants {
            return Some((Property::Invariants, why));
        }
        Property::ALL
            .into_iter()
            .zip(&self.judged)
            .find_map(|(p, c)| match c {
                Check::Violated(why) => Some((p, why.as_str())),
                _ => None,
            })
    }
}

/// The budgets of a session: as many client operations as a person is
/// likely to make, faults without limit.
const BOUNDS: Bounds = Bounds {
    depth: u16::MAX,
    faults: u8::MAX,
    writes: 9,
    reads: 9,
    max_states: u64::MAX,
    jobs: 1,
    dedup: false,
};

/// A tree of states of one configuration's steered run.
pub struct Session<'a> {
    config: &'a Configuration,
    states: Vec<State>,
    /// Ticks run before the network is held (the checker's warm-up).
    warm_up: u8,
    /// Its paths are the model checker's (a replay id names them).
    replayable: bool,
}

impl<'a> Session<'a> {
    /// A session at the steered run's first state (the checker's root:
    /// after the warm-up, the network held).
    pub fn new(config: &'a Configuration) -> Result<Session<'a>, GroupError> {
        Session::starting(config, model::WARM_UP, true)
    }

    /// A session whose first state is the group exactly as `config`'s
    /// factory builds it, the network held at once (no warm-up) — for a
    /// factory that returns a group in mid-run, such as the end of a
    /// scenario file's part. Its paths are not the checker's: they have no
    /// replay id (a scenario file carries them instead).
    pub fn from_built(config: &'a Configuration) -> Result<Session<'a>, GroupError> {
        Session::starting(config, 0, false)
    }

    fn starting(
        config: &'a Configuration,
        warm_up: u8,
        replayable: bool,
    ) -> Result<Session<'a>, GroupError> {
        let mut session = Session {
            config,
            states: Vec::new(),
            warm_up,
            replayable,
        };
        let schedule = session.schedule(&[])?;
        let root = crate::panics::catch(|| session.run_of(&[], &schedule));
        let root = session.judge(root, &schedule)?;
        session.states.push(State {
            parent: None,
            step: None,
            ..root
        });
        Ok(session)
    }

    /// The configuration.
    pub fn config(&self) -> &Configuration {
        self.config
    }

    /// Every state so far, by id (0 is the root).
    pub fn states(&self) -> &[State] {
        &self.states
    }

    /// The steps from the root to state `at`.
    pub fn path(&self, at: usize) -> Result<Vec<Step>, GroupError> {
        let mut path = Vec::new();
        let mut cur = self.get(at)?;
        while let (Some(parent), Some(step)) = (cur.parent, cur.step) {
            path.push(step);
            cur = &self.states[parent];
        }
        path.reverse();
        Ok(path)
    }

    /// The replay id of state `at`'s path (`cargo xtask explore --replay`
    /// runs it, then the end the checker judges).
    pub fn replay_id(&self, at: usize) -> Result<ReplayId, GroupError> {
        if !self.replayable {
            return Err(GroupError::config(
                "replay",
                "this session starts from a scenario file's part: its paths have no replay id \
                 (export the path as a scenario file)",
            ));
        }
        Ok(ReplayId {
            config: self.config.key(),
            seed: model::SEED,
            kept: None,
            path: Some(self.path(at)?),
        })
    }

    /// Takes the step of `code` (a replay code: `d0`, `e1`, `c2`, `w0`, …)
    /// at state `at`, and answers the state it leads to — the existing
    /// child when that step was taken before. Refused when `code` is not
    /// one of the steps enabled at `at`.
    pub fn act(&mut self, at: usize, code: &str) -> Result<usize, GroupError> {
        let step = crate::step_codes::decode(code).ok_or_else(|| {
            GroupError::config("action", format!("`{code}` is not an action's code"))
        })?;
        self.get(at)?;
        if let Some(&child) = self.states[at]
            .children
            .iter()
            .find(|&&c| self.states[c].step == Some(step))
        {
            return Ok(child);
        }
        // The state at `at`, replayed once, on the schedule of the path
        // with the step (its client count): the step is then applied to it.
        let mut path = self.path(at)?;
        let before = path.len();
        path.push(step);
        let schedule = self.schedule(&path)?;
        let run = shown(crate::panics::catch(|| {
            self.run_of(&path[..before], &schedule)
        }))?;
        if !self.enabled_in(&run, &path[..before]).contains(&step) {
            return Err(GroupError::config(
                "action",
                format!("`{code}` ({step}) is not enabled at state {at}"),
            ));
        }
        let group = run.group();
        let names: Vec<String> = group.node_ids().iter().map(ToString::to_string).collect();
        let steer = group.steerable();
        let held = steer.map(|s| s.held()).unwrap_or_default();
        let timers = steer.map(|s| s.timers()).unwrap_or_default();
        let (_, label) = view::describe(self.config, &step, &names, &held, &timers);
        let child = crate::panics::catch(move || {
            let mut run = run;
            run.apply(before, &step, RunOptions::REPLAY);
            run
        })
        .map(Ok);
        let judged = self.judge(child, &schedule)?;
        let id = self.states.len();
        self.states.push(State {
            parent: Some(at),
            step: Some(step),
            label,
            ..judged
        });
        self.states[at].children.push(id);
        Ok(id)
    }

    /// Follows `path` from state `at`, step by step (each must be
    /// enabled), and answers the last state.
    pub fn follow(&mut self, mut at: usize, path: &[Step]) -> Result<usize, GroupError> {
        for step in path {
            let code = crate::step_codes::encode(step).ok_or_else(|| {
                GroupError::config("path", format!("`{step}` is not a step of a steered run"))
            })?;
            at = self.act(at, &code)?;
        }
        Ok(at)
    }

    /// What a person sees at state `at`.
    pub fn view(&self, at: usize) -> Result<View, GroupError> {
        let path = self.path(at)?;
        let schedule = self.schedule(&path)?;
        // Replayed once: the trace's length before the last step tells
        // which events it caused.
        let (run, parent_events) = shown(crate::panics::catch(|| {
            let before = path.len().saturating_sub(1);
            let mut run = self.run_of(&path[..before], &schedule)?;
            let parent_events = run.group().trace().len();
            if let Some(last) = path.get(before) {
                run.apply(before, last, RunOptions::REPLAY);
            }
            Ok((run, parent_events))
        }))?;
        let enabled = self.enabled_in(&run, &path);
        Ok(view::build(self, at, &path, &run, parent_events, &enabled))
    }

    fn get(&self, at: usize) -> Result<&State, GroupError> {
        self.states.get(at).ok_or_else(|| {
            GroupError::config(
                "state",
                format!("no state {at} (this session has {})", self.states.len()),
            )
        })
    }

    fn enabled_in(&self, run: &Runner<'_>, path: &[Step]) -> Vec<Step> {
        let count = |f: fn(&Step) -> bool| {
            u8::try_from(path.iter().filter(|s| f(s)).count()).unwrap_or(u8::MAX)
        };
        let used = model::Used {
            writes: count(|s| matches!(s, Step::Write { .. } | Step::WriteAt { .. })),
            reads: count(|s| matches!(s, Step::Read { .. } | Step::ReadAt { .. })),
            faults: 0,
        };
        let mut steps = model::enabled_steps(self.config, run, used, &BOUNDS);
        // A client operation at any other level (not judged: the row
        // claims nothing of it).
        if used.writes < BOUNDS.writes {
            for level in replication::AckLevel::ALL {
                if level != self.config.ack {
                    steps.push(Step::WriteAt {
                        client: used.writes,
                        value: u32::from(used.writes) + 1,
                        level,
                    });
                }
            }
        }
        if used.reads < BOUNDS.reads {
            for level in replication::ReadLevel::ALL {
                if level != self.config.read {
                    steps.push(Step::ReadAt {
                        client: BOUNDS.writes + used.reads,
                        level,
                    });
                }
            }
        }
        // The debugger's own moves: a slow replica (ISR's lag), a failover
        // to a named node, a one-way link cut or restored.
        let (crashed, _, _) = run.fault_state();
        let slowed = run.slowed();
        let n = run.group().node_ids().len();
        for i in 0..n {
            let Ok(a) = u8::try_from(i) else { continue };
            if crashed.contains(&i) {
                continue;
            }
            steps.push(Step::Slow(NodeRef::At(a), !slowed.contains(&i)));
            steps.push(Step::Failover(Some(NodeRef::At(a))));
        }
        for i in 0..n.min(10) {
            for j in (0..n.min(10)).filter(|&j| j != i) {
                let (Ok(a), Ok(b)) = (u8::try_from(i), u8::try_from(j)) else {
                    continue;
                };
                let (a, b) = (NodeRef::At(a), NodeRef::At(b));
                steps.push(if run.cuts().contains(&(i, j)) {
                    Step::Uncut(a, b)
                } else {
                    Step::Cut(a, b)
                });
            }
        }
        steps
    }

    /// The schedule of `path`, with this session's warm-up.
    fn schedule(&self, path: &[Step]) -> Result<crate::Schedule, GroupError> {
        let mut schedule = model::schedule(self.config, path.to_vec())?;
        schedule.profile.warm_up = self.warm_up;
        Ok(schedule)
    }

    /// Whether a replay id names this session's paths.
    pub fn replayable(&self) -> bool {
        self.replayable
    }

    /// The run after `steps`, on `schedule`'s profile.
    fn run_of(&self, steps: &[Step], schedule: &crate::Schedule) -> Result<Runner<'a>, GroupError> {
        let mut run = Runner::start(self.config, schedule, RunOptions::REPLAY)?;
        for (index, step) in steps.iter().enumerate() {
            run.apply(index, step, RunOptions::REPLAY);
        }
        Ok(run)
    }

    /// A state, judged: `run` as replayed (a panic is a finding).
    fn judge(
        &self,
        run: Result<Result<Runner<'a>, GroupError>, String>,
        schedule: &crate::Schedule,
    ) -> Result<State, GroupError> {
        let blank = |invariants: Check, judged: [Check; 5]| State {
            parent: None,
            step: None,
            label: "start".into(),
            children: Vec::new(),
            invariants,
            judged,
        };
        let run = match run {
            Ok(run) => run?,
            Err(panic) => {
                let checks = crate::run::panicked(&panic, "the path panicked");
                return Ok(blank(checks[2].clone(), checks));
            }
        };
        let invariants = run.invariants_so_far().clone();
        let judged = match crate::panics::catch(|| {
            run.fork()
                .map(|end| end.finish(schedule, RunOptions::SWEEP).checks)
        }) {
            Ok(Some(checks)) => checks,
            Ok(None) => {
                return Err(GroupError::config(
                    "steered",
                    format!("{} offers no steerable run", self.config.protocol),
                ));
            }
            Err(panic) => crate::run::panicked(&panic, "the end of the path panicked"),
        };
        Ok(blank(invariants, judged))
    }
}

/// A replayed run, a panic inside the protocol answered as an error naming
/// it (the state's judgement already says it panicked).
fn shown<T>(replayed: Result<Result<T, GroupError>, String>) -> Result<T, GroupError> {
    replayed.unwrap_or_else(|panic| {
        Err(GroupError::config(
            "state",
            format!("the protocol panicked on this path ({panic}): there is no state to show"),
        ))
    })
}

#[cfg(test)]
mod tests;
