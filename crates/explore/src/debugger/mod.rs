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
//! A random schedule of the sweep opens here too ([`Session::recorded`]):
//! its steps, run on its own network as the sweep ran them, are a chain of
//! recorded states, and from any of them a person branches off with
//! steered steps (what is in flight at that moment is held from there on).
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
use crate::model::{self, Bounds, StateView};
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
    /// A step of the recorded run (a sweep's schedule), not a steered one.
    pub recorded: bool,
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
    pinned_reads: true,
    max_states: u64::MAX,
    jobs: 1,
    dedup: false,
    view: StateView::Complete,
};

/// The code of the action that takes a recorded run's next step.
pub const NEXT_RECORDED: &str = "r";

/// Where a session's states come from.
enum Origin {
    /// The model checker's steered run, after its warm-up: a replay id
    /// names every path.
    Checker,
    /// A group built in mid-run (a scenario file's part), held at once:
    /// its paths have no replay id.
    Built,
    /// A sweep's schedule, its steps recorded as a chain; a replay id
    /// names every state of the chain (`kept`: the indices of the
    /// schedule of `id`'s seed that it keeps).
    Recorded(Box<Recording>),
}

/// A recorded run: the schedule, the id that names it, and the indices of
/// its seed's schedule that it keeps.
struct Recording {
    schedule: crate::Schedule,
    id: ReplayId,
    kept: Vec<usize>,
}

/// A tree of states of one configuration's steered run.
pub struct Session<'a> {
    config: &'a Configuration,
    states: Vec<State>,
    origin: Origin,
}

impl<'a> Session<'a> {
    /// A session at the steered run's first state (the checker's root:
    /// after the warm-up, the network held).
    pub fn new(config: &'a Configuration) -> Result<Session<'a>, GroupError> {
        Session::starting(config, Origin::Checker)
    }

    /// A session over a random schedule of the sweep (`id` names it, as
    /// `cargo xtask explore` prints it): the schedule's steps, run on its
    /// own network, are a chain of recorded states from the root — each
    /// judged as every state is — and any of them can be branched off
    /// with steered steps.
    pub fn recorded(config: &'a Configuration, id: &ReplayId) -> Result<Session<'a>, GroupError> {
        if id.path.is_some() {
            return Err(GroupError::config(
                "replay",
                format!("{id} is a model checker's path, not a recorded run"),
            ));
        }
        let schedule = crate::sweep::recorded_schedule(config, id)?;
        let kept = match &id.kept {
            Some(kept) => kept.clone(),
            None => (0..schedule.steps.len()).collect(),
        };
        let steps = schedule.steps.len();
        let mut session = Session::starting(
            config,
            Origin::Recorded(Box::new(Recording {
                schedule,
                id: id.clone(),
                kept,
            })),
        )?;
        let mut at = 0;
        for _ in 0..steps {
            at = session.act(at, NEXT_RECORDED)?;
        }
        Ok(session)
    }

    /// A session whose first state is the group exactly as `config`'s
    /// factory builds it, the network held at once (no warm-up) — for a
    /// factory that returns a group in mid-run, such as the end of a
    /// scenario file's part. Its paths are not the checker's: they have no
    /// replay id (a scenario file carries them instead).
    pub fn from_built(config: &'a Configuration) -> Result<Session<'a>, GroupError> {
        Session::starting(config, Origin::Built)
    }

    fn starting(config: &'a Configuration, origin: Origin) -> Result<Session<'a>, GroupError> {
        let mut session = Session {
            config,
            states: Vec::new(),
            origin,
        };
        let schedule = session.schedule(&[])?;
        let root = crate::panics::catch(|| session.run_of(&[], 0, false, &schedule));
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
        match &self.origin {
            Origin::Checker => {}
            Origin::Built => {
                return Err(GroupError::config(
                    "replay",
                    "this session starts from a scenario file's part: its paths have no replay id \
                     (export the path as a scenario file)",
                ));
            }
            Origin::Recorded(r) => {
                let (recorded, path) = (self.recorded_len(at)?, self.path(at)?);
                if path.len() > recorded {
                    return Err(GroupError::config(
                        "replay",
                        format!(
                            "a branch off the recorded run {} has no replay id: the run's \
                             network delivered by itself, the branch's is steered",
                            r.id
                        ),
                    ));
                }
                return Ok(ReplayId {
                    config: r.id.config.clone(),
                    seed: r.id.seed,
                    kept: Some(r.kept[..recorded].to_vec()),
                    path: None,
                    knobs: Vec::new(),
                });
            }
        }
        Ok(ReplayId::of_path(self.config, self.path(at)?))
    }

    /// Takes the step of `code` (a replay code: `d0`, `e1`, `c2`, `w0`, …,
    /// or [`NEXT_RECORDED`] on a recorded run's chain) at state `at`, and
    /// answers the state it leads to — the existing child when that step
    /// was taken before. Refused when `code` is not one of the steps
    /// enabled at `at`.
    pub fn act(&mut self, at: usize, code: &str) -> Result<usize, GroupError> {
        if code == NEXT_RECORDED {
            return self.next_recorded(at);
        }
        let step = crate::step_codes::decode(code).ok_or_else(|| {
            GroupError::config("action", format!("`{code}` is not an action's code"))
        })?;
        self.get(at)?;
        if let Some(&child) = self.states[at]
            .children
            .iter()
            .find(|&&c| self.states[c].step == Some(step) && !self.states[c].recorded)
        {
            return Ok(child);
        }
        // The state at `at`, replayed once, on the schedule of the path
        // with the step (its client count): the step is then applied to it.
        let mut path = self.path(at)?;
        let recorded = self.recorded_len(at)?;
        let before = path.len();
        path.push(step);
        let schedule = self.schedule(&path)?;
        let run = shown(crate::panics::catch(|| {
            self.run_of(&path[..before], recorded, true, &schedule)
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
        Ok(self.push(at, step, label, judged, false))
    }

    /// The recorded run's next step from state `at`, which must be on its
    /// chain (not past its end, not on a branch).
    fn next_recorded(&mut self, at: usize) -> Result<usize, GroupError> {
        let Origin::Recorded(r) = &self.origin else {
            return Err(GroupError::config(
                "action",
                "this session has no recorded run to follow",
            ));
        };
        let path = self.path(at)?;
        let recorded = self.recorded_len(at)?;
        let Some(step) = r.schedule.steps.get(recorded).copied() else {
            return Err(GroupError::config(
                "action",
                format!("state {at} is the recorded run's last"),
            ));
        };
        if path.len() > recorded {
            return Err(GroupError::config(
                "action",
                format!("state {at} is on a branch off the recorded run"),
            ));
        }
        if let Some(&child) = self.states[at]
            .children
            .iter()
            .find(|&&c| self.states[c].recorded)
        {
            return Ok(child);
        }
        let schedule = self.schedule(&path)?;
        let label = format!("recorded step {recorded}: {step}");
        let child = crate::panics::catch(|| {
            self.run_of(&path, recorded, false, &schedule)
                .map(|mut run| {
                    run.apply(recorded, &step, RunOptions::REPLAY);
                    run
                })
        });
        let judged = self.judge(child, &schedule)?;
        Ok(self.push(at, step, label, judged, true))
    }

    /// Adds the state `step` reached from `at`.
    fn push(
        &mut self,
        at: usize,
        step: Step,
        label: String,
        judged: State,
        recorded: bool,
    ) -> usize {
        let id = self.states.len();
        self.states.push(State {
            parent: Some(at),
            step: Some(step),
            label,
            recorded,
            ..judged
        });
        self.states[at].children.push(id);
        id
    }

    /// How many of the steps from the root to state `at` are the recorded
    /// run's (they come first).
    fn recorded_len(&self, at: usize) -> Result<usize, GroupError> {
        let mut n = 0;
        let mut cur = self.get(at)?;
        while let Some(parent) = cur.parent {
            n += usize::from(cur.recorded);
            cur = &self.states[parent];
        }
        Ok(n)
    }

    /// True for a session over a recorded run of the sweep.
    pub fn is_recorded(&self) -> bool {
        matches!(self.origin, Origin::Recorded(_))
    }

    /// True when the recorded run goes on from state `at` (it is on the
    /// chain, before its end).
    pub fn has_next_recorded(&self, at: usize) -> bool {
        let Origin::Recorded(r) = &self.origin else {
            return false;
        };
        match (self.recorded_len(at), self.path(at)) {
            (Ok(recorded), Ok(path)) => path.len() == recorded && recorded < r.schedule.steps.len(),
            _ => false,
        }
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
        let recorded = self.recorded_len(at)?;
        let schedule = self.schedule(&path)?;
        // Replayed once: the trace's length before the last step tells
        // which events it caused.
        let (run, parent_events) = shown(crate::panics::catch(|| {
            let before = path.len().saturating_sub(1);
            let mut run = self.run_of(&path[..before], recorded.min(before), false, &schedule)?;
            let parent_events = run.group().trace().len();
            if let Some(last) = path.get(before) {
                if before == recorded && self.is_recorded() {
                    // The first step of a branch off the recorded run.
                    run.hold()?;
                }
                run.apply(before, last, RunOptions::REPLAY);
            }
            // The steps a person may branch off with: on a held network.
            if self.is_recorded() {
                run.hold()?;
            }
            Ok((run, parent_events))
        }))?;
        let mut enabled: Vec<(String, Step)> = Vec::new();
        if self.has_next_recorded(at)
            && let Origin::Recorded(r) = &self.origin
            && let Some(next) = r.schedule.steps.get(recorded)
        {
            enabled.push((NEXT_RECORDED.to_owned(), *next));
        }
        for step in self.enabled_in(&run, &path) {
            if let Some(code) = crate::step_codes::encode(&step) {
                enabled.push((code, step));
            }
        }
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
            reads: count(|s| {
                matches!(
                    s,
                    Step::Read { .. } | Step::ReadAt { .. } | Step::ReadVia { .. }
                )
            }),
            faults: 0,
        };
        let mut steps = model::enabled_steps(self.config, run, used, &BOUNDS, true);
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

    /// The schedule of `path`: the model checker's, with this session's
    /// warm-up, or the recorded run's own.
    fn schedule(&self, path: &[Step]) -> Result<crate::Schedule, GroupError> {
        let warm_up = match &self.origin {
            Origin::Recorded(r) => return Ok(r.schedule.clone()),
            Origin::Checker => model::WARM_UP,
            Origin::Built => 0,
        };
        let mut schedule = model::schedule(self.config, path.to_vec())?;
        schedule.profile.warm_up = warm_up;
        Ok(schedule)
    }

    /// Whether a replay id names every path of this session (a model
    /// checker's session; a recorded run's names only its chain).
    pub fn replayable(&self) -> bool {
        matches!(self.origin, Origin::Checker)
    }

    /// The run after `steps`, on `schedule`'s profile: the first
    /// `recorded` of them the recorded run's, on its own network; the
    /// network held after them when there are more, or when `hold`.
    fn run_of(
        &self,
        steps: &[Step],
        recorded: usize,
        hold: bool,
        schedule: &crate::Schedule,
    ) -> Result<Runner<'a>, GroupError> {
        let mut run = Runner::start(self.config, schedule, RunOptions::REPLAY)?;
        for (index, step) in steps.iter().enumerate() {
            if index == recorded && self.is_recorded() {
                run.hold()?;
            }
            run.apply(index, step, RunOptions::REPLAY);
        }
        if hold && self.is_recorded() {
            run.hold()?;
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
            recorded: false,
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
            run.forked()
                .map(|end| end.finish(schedule, RunOptions::SWEEP).checks)
        }) {
            Ok(Ok(checks)) => checks,
            Ok(Err(e)) => return Err(e),
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
