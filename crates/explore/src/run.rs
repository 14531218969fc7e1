//! Running one schedule on a fresh group: steps, then heal everything,
//! restart, quiesce, read every key at the strongest level, and check that
//! the protocol serves again.

use std::collections::BTreeMap;
use std::hash::{Hash as _, Hasher as _};

use replication::{
    Bytes, ClientOp, GroupError, NodeId, OpId, Outcome, OutcomeStatus, ReadLevel, ReplicationGroup,
    Tick,
};

use crate::check::{self, FinalValues};
use crate::config::Configuration;
use crate::end_memo::{EndMemo, Probed};
use crate::history::{HistoryOp, OpKind};
use crate::literals;
use crate::property::{Check, Property};
use crate::schedule::{NodeRef, Schedule, Step};

/// Ticks the end phase waits for operations in flight and for quiescence.
const SETTLE_TICKS: u64 = 400;
/// Attempts per final read (a blocked read is retried after a few ticks).
const FINAL_READ_ATTEMPTS: usize = 20;
/// The key of the end phase's probes (not a schedule's `k<n>`).
const PROBE_KEY: &[u8] = b"recovery-probe";

/// Everything one run produced.
pub struct RunReport {
    /// The client history, in submission order, final reads last.
    pub history: Vec<HistoryOp>,
    /// The final value of every key written or read, when it was served.
    pub final_values: BTreeMap<Bytes, Option<Bytes>>,
    /// One answer per property, in [`Property::ALL`] order.
    pub checks: [Check; 5],
    /// The group after the run (its trace, if it was recorded).
    pub group: Box<dyn ReplicationGroup>,
    /// One line per step: what it did or why it was skipped (replays only).
    pub log: Vec<String>,
}

impl RunReport {
    /// The answer for `property`.
    pub fn check(&self, property: Property) -> &Check {
        &self.checks[property.index()]
    }
}

/// Whether a run keeps its trace and checks linearizability.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunOptions {
    /// Keep the group's trace recording on (replays) or off (sweeps).
    pub trace: bool,
    /// Check linearizability (off when shrinking another property).
    pub linearizable: bool,
}

impl RunOptions {
    /// A sweep's run: no trace, every property.
    pub const SWEEP: RunOptions = RunOptions {
        trace: false,
        linearizable: true,
    };
    /// A replay: the trace kept, every property.
    pub const REPLAY: RunOptions = RunOptions {
        trace: true,
        linearizable: true,
    };
}

/// Runs `schedule` on a fresh group of `config`, built with the schedule's
/// seed and profile and put on the profile's network.
///
/// A panic inside the run (the protocol's own assertion, an `expect`, a
/// `debug_assert!` in a build with debug assertions) is a finding: the
/// report says *invariants* violated with the panic's location and message,
/// every other property unknown, and the group is a fresh one (where the
/// build unwinds; see the `panics` module).
pub fn run_schedule(
    config: &Configuration,
    schedule: &Schedule,
    options: RunOptions,
) -> Result<RunReport, GroupError> {
    match crate::panics::catch(|| run_unguarded(config, schedule, options)) {
        Ok(report) => report,
        Err(panic) => {
            let group = (config.factory)(&schedule.profile.build(schedule.seed))?;
            Ok(RunReport {
                history: Vec::new(),
                final_values: BTreeMap::new(),
                checks: panicked(&panic, "the run panicked"),
                group,
                // The run's own log went with it: the schedule's steps,
                // then where it panicked.
                log: schedule
                    .steps
                    .iter()
                    .enumerate()
                    .map(|(index, step)| format!("{index:>3}       {step}"))
                    .chain(std::iter::once(format!("panicked at {panic}")))
                    .collect(),
            })
        }
    }
}

/// The answers of a run that panicked at `panic`: *invariants* violated,
/// naming the panic; every other property unknown, for `why`.
pub(crate) fn panicked(panic: &str, why: &str) -> [Check; 5] {
    let unknown = || Check::Unknown(why.into());
    [
        unknown(),
        unknown(),
        Check::Violated(panic_reason(panic)),
        unknown(),
        unknown(),
    ]
}

/// The error for a steered run of `config`'s protocol, which offers none.
pub(crate) fn unsteerable(config: &Configuration) -> GroupError {
    GroupError::config(
        "steered",
        format!("{} offers no steerable run", config.protocol),
    )
}

/// How *invariants* names a panic at `panic`.
pub(crate) fn panic_reason(panic: &str) -> String {
    format!("the protocol panicked at {panic}")
}

fn run_unguarded(
    config: &Configuration,
    schedule: &Schedule,
    options: RunOptions,
) -> Result<RunReport, GroupError> {
    let mut run = Runner::start(config, schedule, options)?;
    for (index, step) in schedule.steps.iter().enumerate() {
        run.apply(index, step, options);
        if run.stormed() {
            break;
        }
    }
    Ok(run.finish(schedule, options))
}

impl<'a> Runner<'a> {
    /// A fresh group of `config` for `schedule`'s seed and profile, on the
    /// profile's network (held, for a steered profile).
    pub(crate) fn start(
        config: &'a Configuration,
        schedule: &Schedule,
        options: RunOptions,
    ) -> Result<Runner<'a>, GroupError> {
        let profile = &schedule.profile;
        let mut group = (config.factory)(&profile.build(schedule.seed))?;
        let traced = schedule.checks_its_trace();
        group.trace_mut().set_enabled(options.trace || traced);
        let network = group.set_network(profile.net.clone());
        let nodes = group.node_ids();
        let clients = profile.clients;
        let mut run = Runner {
            config,
            bound: group.recovery_bound(),
            group,
            nodes,
            clients,
            stale: (0..clients).map(|c| profile.is_stale(c)).collect(),
            busy: vec![None; usize::from(clients) + 1],
            pending: BTreeMap::new(),
            // About half the steps are client operations; the final reads
            // and probes add a few (a history grown from empty moved its
            // large entries 6-8 times).
            history: Vec::with_capacity(schedule.steps.len() / 2 + 8),
            clock: 0,
            invariants: Check::Holds,
            available: Check::Holds,
            tolerance: Tolerance::default(),
            faults: Faults::default(),
            log: Vec::new(),
            power_losses: 0,
            unquiet: None,
            steered: profile.steered,
        };
        if let Err(e) = network
            && options.trace
        {
            run.log.push(format!("network unchanged: {e}"));
        }
        if profile.steered {
            for _ in 0..profile.warm_up {
                run.tick();
            }
            match run.group.steerable_mut() {
                Some(steer) => steer.hold(true)?,
                None => return Err(unsteerable(config)),
            }
        }
        // A group taken over mid-run (a scenario's part) may have faults
        // already: the run's bookkeeping starts from the harness's.
        if let Some(steer) = run.group.steerable() {
            for i in 0..run.nodes.len() {
                let f = steer.node_faults(i);
                if f.down {
                    add(&mut run.faults.crashed, i);
                }
                if f.isolated {
                    add(&mut run.faults.isolated, i);
                }
                if f.slow {
                    add(&mut run.faults.slowed, i);
                }
            }
            run.faults.cuts = steer.cut_links();
        }
        run.observe_tolerance();
        Ok(run)
    }

    /// Applies step `index` and what follows it (its completions
    /// collected, the tolerance observed, the invariants checked).
    pub(crate) fn apply(&mut self, index: usize, step: &Step, options: RunOptions) {
        self.apply_checking(index, step, options, true);
    }

    /// [`apply`](Self::apply) for a state the model checker only
    /// fingerprints: where the group's invariants are a function of its
    /// state ([`Steer::invariants_are_stateless`](replication::Steer::invariants_are_stateless)),
    /// they are not checked here. The state is checked when it is rebuilt
    /// to be judged, and every path to it finds the same there (most
    /// states a search makes are ones it has seen).
    pub(crate) fn apply_to_fingerprint(&mut self, index: usize, step: &Step, options: RunOptions) {
        let stateless = self
            .group
            .steerable()
            .is_some_and(|g| g.invariants_are_stateless());
        self.apply_checking(index, step, options, !stateless);
    }

    /// [`apply`](Self::apply), the invariants checked after the step only
    /// when `check`.
    fn apply_checking(&mut self, index: usize, step: &Step, options: RunOptions, check: bool) {
        let at = self.group.now();
        let what = self.step(index, step);
        if options.trace {
            self.log.push(format!("{index:>3} @{at:<4} {step}: {what}"));
        }
        if step.is_nemesis() && !matches!(step, Step::Fsync(_)) {
            // A fault or an operator's move (a failover deposes a leader
            // on purpose): what is in flight, or completed by the step
            // itself, is not judged, and the recovery bound starts again.
            self.disturbed();
            self.after_step(index, step, check);
        } else if !(step.only_ticks() || matches!(what, StepResult::Skipped(_))) {
            // (A step that only ticked, or did nothing, changed nothing
            // since the last tick's collection, tolerance and invariant
            // check, or the previous step's: they would find the same.)
            self.after_step(index, step, check);
        }
        if self.stormed() && options.trace {
            // Every further tick would deliver thousands of messages.
            self.log
                .push("stopped: a message storm filled the network".into());
        }
    }

    /// From now on the network holds every message for a chooser, as a
    /// steered run's does: a run of the sweep handed over mid-way to
    /// steered steps (the debugger's branch off a recorded run). What is
    /// in flight stays in flight, held; the history and the fault
    /// bookkeeping carry on.
    pub(crate) fn hold(&mut self) -> Result<(), GroupError> {
        if self.steered {
            return Ok(());
        }
        match self.group.steerable_mut() {
            Some(steer) => steer.hold(true)?,
            None => return Err(unsteerable(self.config)),
        }
        self.steered = true;
        Ok(())
    }

    /// [`fork`](Self::fork), or the error that the protocol offers no
    /// steerable run.
    pub(crate) fn forked(&self) -> Result<Runner<'a>, GroupError> {
        self.fork().ok_or_else(|| unsteerable(self.config))
    }

    /// An independent copy of this run (its group forked), or `None` when
    /// the group cannot be forked.
    pub(crate) fn fork(&self) -> Option<Runner<'a>> {
        let group: Box<dyn ReplicationGroup> = self.group.steerable()?.fork();
        Some(Runner {
            config: self.config,
            group,
            nodes: self.nodes.clone(),
            clients: self.clients,
            stale: self.stale.clone(),
            busy: self.busy.clone(),
            pending: self.pending.clone(),
            history: self.history.clone(),
            clock: self.clock,
            invariants: self.invariants.clone(),
            available: self.available.clone(),
            bound: self.bound,
            tolerance: self.tolerance.clone(),
            faults: self.faults.clone(),
            log: self.log.clone(),
            power_losses: self.power_losses,
            unquiet: self.unquiet.clone(),
            steered: self.steered,
        })
    }

    /// The group, to inspect.
    pub(crate) fn group(&self) -> &dyn ReplicationGroup {
        self.group.as_ref()
    }

    /// The client history so far.
    pub(crate) fn history(&self) -> &[HistoryOp] {
        &self.history
    }

    /// The nodes the run crashed and isolated and has not restored, by
    /// position, and its power losses so far.
    pub(crate) fn fault_state(&self) -> (&[usize], &[usize], u32) {
        (
            &self.faults.crashed,
            &self.faults.isolated,
            self.power_losses,
        )
    }

    /// The one-way links the run cut and has not restored, by position.
    pub(crate) fn cuts(&self) -> &[(usize, usize)] {
        &self.faults.cuts
    }

    /// The nodes the run made slow and has not cleared, by position.
    pub(crate) fn slowed(&self) -> &[usize] {
        &self.faults.slowed
    }

    /// The run's step log (kept with [`RunOptions::REPLAY`]): a line per
    /// step, `index @tick step: what it did`.
    pub(crate) fn log(&self) -> &[String] {
        &self.log
    }

    /// The invariants' answer so far (broken at the first step that broke
    /// them).
    pub(crate) fn invariants_so_far(&self) -> &Check {
        &self.invariants
    }

    /// The run's end: heal and restart everything, let it settle, read
    /// every key at the strongest level, and judge every property.
    pub(crate) fn finish(self, schedule: &Schedule, options: RunOptions) -> RunReport {
        self.finish_with(schedule, options, None)
    }

    /// [`finish`](Self::finish), the recovery probes answered from `memo`
    /// when they ran before from the same settled group (a steered run's
    /// judged end: the model checker's).
    pub(crate) fn finish_with(
        mut self,
        schedule: &Schedule,
        options: RunOptions,
        memo: Option<&EndMemo>,
    ) -> RunReport {
        if self.stormed() {
            return self.stopped_at_storm(options);
        }
        self.heal_everything();
        self.rest_of_end(schedule, options, memo)
    }

    /// The five answers of [`finish_with`](Self::finish_with), taken from
    /// `memo` when an end was judged before from the same healed run
    /// ([`end_key`](Self::end_key)), and remembered there otherwise.
    pub(crate) fn judge_end(
        mut self,
        schedule: &Schedule,
        options: RunOptions,
        memo: &EndMemo,
    ) -> [Check; 5] {
        if self.stormed() || schedule.checks_its_trace() {
            return self.finish_with(schedule, options, Some(memo)).checks;
        }
        self.heal_everything();
        let key = self.end_key(schedule, options);
        if let Some(key) = key
            && let Some(checks) = memo.end(key)
        {
            return checks;
        }
        let checks = self.rest_of_end(schedule, options, Some(memo)).checks;
        if let Some(key) = key {
            memo.put_end(key, &checks);
        }
        checks
    }

    /// A run stopped at a message storm: nothing more is judged.
    fn stopped_at_storm(self, options: RunOptions) -> RunReport {
        let stopped = || Check::Unknown("the run stopped at a message storm".into());
        RunReport {
            checks: [
                stopped(),
                linearizable(&self.history, options),
                self.invariants,
                stopped(),
                self.available,
            ],
            history: self.history,
            final_values: BTreeMap::new(),
            group: self.group,
            log: self.log,
        }
    }

    /// What decides the rest of an end from a healed steered run: the
    /// group's complete state, its messages in delivery order
    /// ([`replication::ordered_fingerprint`]), and everything the run
    /// keeps beside the group (the history with its ticks, the operations
    /// in flight, the clients' slots, the properties so far, the
    /// tolerance of faults), with what the schedule and the options ask
    /// of the end. `None` where the group cannot say its delivery order.
    fn end_key(&self, schedule: &Schedule, options: RunOptions) -> Option<u64> {
        let group = replication::ordered_fingerprint(self.group.steerable()?)?;
        let mut h = replication::StateHasher::default();
        h.write_u64(group);
        (&self.busy, &self.pending, &self.history, self.clock).hash(&mut h);
        (&self.invariants, &self.available, &self.unquiet).hash(&mut h);
        (&self.tolerance, &self.faults, self.power_losses).hash(&mut h);
        (self.steered, self.bound, &self.stale, self.clients).hash(&mut h);
        (schedule.probes_its_lease(), options.linearizable).hash(&mut h);
        Some(h.finish())
    }

    /// The end after the heal: settle, read every key, judge.
    fn rest_of_end(
        mut self,
        schedule: &Schedule,
        options: RunOptions,
        memo: Option<&EndMemo>,
    ) -> RunReport {
        let config = self.config;
        self.settle();
        let final_values = self.final_reads();
        let durable = check::durable(&self.history, &final_values, config.ack);
        let linearizable = match memo {
            Some(memo) if options.linearizable => {
                memo.linearizable(&self.history, || linearizable(&self.history, options))
            }
            _ => linearizable(&self.history, options),
        };
        let recovers = self.probe(schedule, memo);
        if schedule.checks_its_trace() {
            self.check_trace();
        }
        RunReport {
            checks: [
                durable,
                linearizable,
                self.invariants,
                recovers,
                self.available,
            ],
            history: self.history,
            final_values: final_values.values,
            group: self.group,
            log: self.log,
        }
    }
}

/// *linearizable* on `history`, where `options` ask for it.
fn linearizable(history: &[HistoryOp], options: RunOptions) -> Check {
    if options.linearizable {
        check::linearizable(history)
    } else {
        Check::Unknown("not checked".into())
    }
}

/// What one step did, formatted only for replays.
enum StepResult {
    /// Done, on the node(s) named as the trace names them.
    Ok(Acted),
    Submitted(OpId),
    Now(Tick),
    Skipped(&'static str),
    Refused(GroupError),
}

/// What a nemesis step acted on, for the replay log (node names as the
/// trace spells them, where the schedule says `node#0` or `leader`).
enum Acted {
    Node(NodeId),
    Link(NodeId, NodeId),
    Leads(NodeId),
}

impl std::fmt::Display for StepResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StepResult::Ok(Acted::Node(id)) => write!(f, "ok ({id})"),
            StepResult::Ok(Acted::Link(a, b)) => write!(f, "ok ({a} -> {b})"),
            StepResult::Ok(Acted::Leads(id)) => write!(f, "ok ({id} leads)"),
            StepResult::Submitted(id) => write!(f, "submitted {id}"),
            StepResult::Now(t) => write!(f, "now @{t}"),
            StepResult::Skipped(why) => write!(f, "skipped ({why})"),
            StepResult::Refused(err) => write!(f, "refused: {err}"),
        }
    }
}

/// The faults the run made and has not undone, by node position.
#[derive(Debug, Default, Clone, Hash)]
struct Faults {
    crashed: Vec<usize>,
    isolated: Vec<usize>,
    slowed: Vec<usize>,
    cuts: Vec<(usize, usize)>,
}

fn add(set: &mut Vec<usize>, i: usize) {
    if !set.contains(&i) {
        set.push(i);
    }
}

fn remove(set: &mut Vec<usize>, i: usize) {
    set.retain(|&x| x != i);
}

/// How long the faults in force have been tolerated.
#[derive(Debug, Default, Clone, Hash)]
struct Tolerance {
    /// The tick since which they have been, while they are.
    since: Option<Tick>,
    /// Bumped every time they stop being tolerated.
    epoch: u64,
}

/// An operation in flight: where it is in the history, and whether its
/// completion is judged for availability (the tolerance epoch it was
/// submitted in).
#[derive(Debug, Clone, Copy, Hash)]
struct InFlight {
    index: usize,
    judged_in: Option<u64>,
    /// A `LINEARIZABLE` read the protocol stated, as it was served, that it
    /// refuses by design ([`ReplicationGroup::read_refused_by_design`]).
    by_design: bool,
    /// … and it was judged for availability, so that refusal is excused.
    excused: bool,
}

pub(crate) struct Runner<'a> {
    config: &'a Configuration,
    group: Box<dyn ReplicationGroup>,
    nodes: Vec<NodeId>,
    clients: u8,
    /// Per client: whether it sends everything to its fixed node.
    stale: Vec<bool>,
    /// Per client: the op it has in flight.
    busy: Vec<Option<OpId>>,
    pending: BTreeMap<OpId, InFlight>,
    history: Vec<HistoryOp>,
    clock: u64,
    invariants: Check,
    available: Check,
    bound: u64,
    tolerance: Tolerance,
    faults: Faults,
    log: Vec<String>,
    /// Power losses made so far.
    power_losses: u32,
    /// Why the healed group did not quiesce, if it did not.
    unquiet: Option<String>,
    /// The network holds every message for a chooser: nothing is judged
    /// for availability (a held message may wait for ever) until the end
    /// lets the network deliver by itself.
    steered: bool,
}

impl Runner<'_> {
    fn position(&self, id: &NodeId) -> Option<usize> {
        self.nodes.iter().position(|n| n == id)
    }

    /// The node a reference names now; `index` picks among several.
    fn node(&self, node: NodeRef, index: usize) -> Option<NodeId> {
        let n = self.nodes.len();
        let among =
            |set: &[usize]| (!set.is_empty()).then(|| self.nodes[set[index % set.len()]].clone());
        match node {
            NodeRef::Leader => self.group.leader(),
            NodeRef::At(i) => (n > 0).then(|| self.nodes[usize::from(i) % n].clone()),
            NodeRef::Crashed => among(&self.faults.crashed),
            NodeRef::Isolated => among(&self.faults.isolated),
            NodeRef::Slowed => among(&self.faults.slowed),
            NodeRef::OverMinority => {
                let isolated = &self.faults.isolated;
                (isolated.len() > n.saturating_sub(1) / 2).then(|| self.nodes[isolated[0]].clone())
            }
        }
    }

    fn tick(&mut self) {
        self.group.tick();
        self.collect();
        self.observe_tolerance();
        let now = self.group.now();
        self.check_invariants(|| format!("after tick {now}"));
    }

    /// What follows a step that changed the group: its completions are
    /// collected, the tolerance observed and the invariants checked.
    fn after_step(&mut self, index: usize, step: &Step, check: bool) {
        self.collect();
        self.observe_tolerance();
        if check {
            self.check_invariants(|| format!("after step {index} ({step})"));
        }
    }

    /// `when` is only built for a violation (this is on the hot path).
    fn check_invariants(&mut self, when: impl FnOnce() -> String) {
        if self.invariants == Check::Holds {
            if let Err(broken) = self.group.check_invariants() {
                self.invariants = Check::Violated(format!("{}: {broken}", when()));
            }
        } else if !self.stormed()
            && let Err(broken) = self.group.check_invariants()
            && broken.starts_with("message storm")
        {
            // Broken already; a storm after it still stops the run.
            self.invariants = Check::Violated(format!("{}: {broken}", when()));
        }
    }

    /// A refusal came with no reason (as does, in [`Runner::collect`], an
    /// operation that failed or may not have taken effect): the group's
    /// account of itself is incomplete, which **invariants** reports, as
    /// it does an untrue trace. `why` is only built for a violation.
    fn unexplained(&mut self, why: impl FnOnce() -> String) {
        if self.invariants == Check::Holds {
            self.invariants = Check::Violated(why());
        }
    }

    /// True when the invariant check found a message storm (the network
    /// full).
    fn stormed(&self) -> bool {
        matches!(&self.invariants, Check::Violated(why) if why.contains("message storm"))
    }

    /// The faults in force are tolerated when the protocol says so and it
    /// states no reason it cannot serve ([`ReplicationGroup::unavailable`]).
    fn observe_tolerance(&mut self) {
        if !self.steered
            && self.group.tolerates_current_faults()
            && self.group.unavailable().is_none()
        {
            if self.tolerance.since.is_none() {
                self.tolerance.since = Some(self.group.now());
            }
        } else if self.tolerance.since.take().is_some() {
            self.tolerance.epoch += 1;
        }
    }

    /// A nemesis step ran: operations in flight are no longer judged for
    /// availability, and the faults in force count as tolerated only from
    /// now.
    fn disturbed(&mut self) {
        if self.tolerance.since.take().is_some() {
            self.tolerance.epoch += 1;
        }
    }

    /// The tolerance epoch an operation submitted now is judged in: the
    /// faults have been tolerated for longer than the recovery bound.
    fn judged_epoch(&self) -> Option<u64> {
        let since = self.tolerance.since?;
        (self.group.now() >= since.saturating_add(self.bound)).then_some(self.tolerance.epoch)
    }

    /// Submits `op` for `client`; returns what happened.
    /// Runs `submit`, marking the operation it adds to the history as not
    /// claimed by the row's levels.
    fn unclaimed(&mut self, submit: impl FnOnce(&mut Self) -> StepResult) -> StepResult {
        let before = self.history.len();
        let result = submit(self);
        if self.history.len() > before
            && let Some(op) = self.history.last_mut()
        {
            op.claimed = false;
        }
        result
    }

    fn submit(&mut self, client: u8, op: ClientOp, kind: OpKind, judged: bool) -> StepResult {
        let slot = usize::from(client);
        if self.busy[slot].is_some() {
            return StepResult::Skipped("client busy");
        }
        let now = self.group.now();
        let judged_in = if judged { self.judged_epoch() } else { None };
        let linearizable_read = matches!(
            op,
            ClientOp::Read {
                level: ReadLevel::Linearizable,
                ..
            }
        );
        let by_design =
            |g: &dyn ReplicationGroup| linearizable_read && g.read_refused_by_design().is_some();
        let excused = |g: &dyn ReplicationGroup| judged_in.is_some() && by_design(g);
        match self.group.submit(op) {
            Ok(id) => {
                let by_design = by_design(self.group.as_ref());
                let excused = judged_in.is_some() && by_design;
                self.clock += 1;
                self.history.push(HistoryOp {
                    client,
                    kind,
                    call: self.clock,
                    ret: None,
                    call_tick: now,
                    ret_tick: None,
                    status: None,
                    read_value: None,
                    reason: String::new(),
                    claimed: true,
                });
                self.pending.insert(
                    id,
                    InFlight {
                        index: self.history.len() - 1,
                        judged_in,
                        by_design,
                        excused,
                    },
                );
                self.busy[slot] = Some(id);
                StepResult::Submitted(id)
            }
            Err(err) => {
                if let GroupError::ReadBlocked { guard, .. } = &err {
                    // Blocked is decided after the read started: it
                    // completes *failed*; `submit` refuses only what cannot
                    // start.
                    let guard = *guard;
                    self.unexplained(|| {
                        format!(
                            "c{client} {} was refused at submission as blocked ({guard}) at tick {now}; a blocked read completes failed",
                            kind_text(&kind)
                        )
                    });
                }
                if !err.gives_reason() {
                    self.unexplained(|| {
                        format!(
                            "c{client} {} refused at tick {now} with no reason given: {err:?}",
                            kind_text(&kind)
                        )
                    });
                }
                let blocked = matches!(err, GroupError::ReadBlocked { .. });
                if judged_in.is_some()
                    && self.available == Check::Holds
                    && !(blocked && excused(self.group.as_ref()))
                {
                    self.available = Check::Violated(format!(
                        "c{client} {} refused at tick {now} while the faults in force had been tolerated since tick {}: {err}",
                        kind_text(&kind),
                        self.tolerance.since.unwrap_or(0),
                    ));
                }
                StepResult::Refused(err)
            }
        }
    }

    /// Takes every completion the group has, in completion order.
    fn collect(&mut self) {
        let tolerated_now = self.tolerance.since.is_some();
        for done in self.group.take_completions() {
            let Some(flight) = self.pending.remove(&done.id) else {
                continue;
            };
            self.clock += 1;
            let op = &mut self.history[flight.index];
            op.ret = Some(self.clock);
            op.ret_tick = Some(done.completed);
            op.status = Some(done.outcome.status());
            let mut reasoned = true;
            match done.outcome {
                Outcome::Read(read) => op.read_value = Some(read.value),
                Outcome::Failed { message, error } => {
                    reasoned = !message.trim().is_empty()
                        && error.as_ref().is_none_or(GroupError::gives_reason);
                    op.reason = message;
                }
                Outcome::Unknown { message, .. } => {
                    reasoned = !message.trim().is_empty();
                    op.reason = message;
                }
                _ => {}
            }
            if !reasoned && self.invariants == Check::Holds {
                self.invariants = Check::Violated(format!(
                    "{} ended {} at tick {} with no reason given",
                    op.describe(),
                    op.status.map_or("?", |s| s.name()),
                    done.completed
                ));
            }
            if flight.by_design
                && op.status == Some(OutcomeStatus::Done)
                && self.available == Check::Holds
            {
                // The excuse is checked: a read the protocol says it
                // refuses by design must not be served.
                self.available = Check::Violated(format!(
                    "{} was served at tick {}, though the protocol said, as it was served, that it refuses such a read by design",
                    op.describe(),
                    done.completed
                ));
            }
            let still = tolerated_now && flight.judged_in == Some(self.tolerance.epoch);
            let by_design = flight.excused && op.status == Some(OutcomeStatus::Failed);
            if still
                && !by_design
                && op.status != Some(OutcomeStatus::Done)
                && self.available == Check::Holds
            {
                self.available = Check::Violated(format!(
                    "{} ended {} at tick {} though the faults in force had been tolerated since tick {} (recovery bound {} ticks): {}",
                    op.describe(),
                    op.status.map_or("?", |s| s.name()),
                    done.completed,
                    self.tolerance.since.unwrap_or(0),
                    self.bound,
                    op.reason
                ));
            }
            if let Some(slot) = self.busy.get_mut(usize::from(op.client)) {
                *slot = None;
            }
        }
    }

    /// Routes a client's operation: a stale client sends everything to
    /// its fixed node; LOCAL reads go to the client's own node. Only what
    /// goes to the leader is judged for availability (a named node may be
    /// down or deposed on purpose).
    fn route(&self, client: u8, op: ClientOp, local: bool) -> (ClientOp, bool) {
        let n = self.nodes.len();
        if n == 0 {
            return (op, true);
        }
        let stale = self
            .stale
            .get(usize::from(client))
            .copied()
            .unwrap_or(false);
        if stale || local {
            (op.at(&self.nodes[usize::from(client) % n]), false)
        } else {
            (op, true)
        }
    }

    fn step(&mut self, index: usize, step: &Step) -> StepResult {
        let result = match *step {
            Step::Write { client, key, value } => {
                let (key, value) = (literals::key(key), literals::value(value));
                let op = ClientOp::write(key.clone(), value.clone(), self.config.ack);
                let (op, judged) = self.route(client, op, false);
                return self.submit(client, op, OpKind::Write { key, value }, judged);
            }
            Step::Read { client, key } => {
                let key = literals::key(key);
                let op = ClientOp::read(key.clone(), self.config.read);
                let local = self.config.read == ReadLevel::Local;
                let (op, judged) = self.route(client, op, local);
                return self.submit(client, op, OpKind::Read { key }, judged);
            }
            Step::WriteAt {
                client,
                value,
                level,
            } => {
                let (key, value) = (literals::key(0), literals::value(value));
                let op = ClientOp::write(key.clone(), value.clone(), level);
                let (op, _) = self.route(client, op, false);
                return self
                    .unclaimed(|run| run.submit(client, op, OpKind::Write { key, value }, false));
            }
            Step::ReadAt { client, level } => {
                let key = literals::key(0);
                let op = ClientOp::read(key.clone(), level);
                let (op, _) = self.route(client, op, level == ReadLevel::Local);
                return self.unclaimed(|run| run.submit(client, op, OpKind::Read { key }, false));
            }
            Step::ReadVia { client, node } => {
                let key = literals::key(0);
                let Some(id) = self.node(node, index) else {
                    return StepResult::Skipped("no such node");
                };
                let op = ClientOp::read(key.clone(), self.config.read).at(&id);
                return self.submit(client, op, OpKind::Read { key }, false);
            }
            Step::Wait(n) => {
                for _ in 0..n {
                    self.tick();
                }
                return StepResult::Now(self.group.now());
            }
            Step::AwaitLeader(n) => {
                let before = self.group.leader();
                for _ in 0..n {
                    self.tick();
                    if let Some(now) = self.group.leader()
                        && before.as_ref() != Some(&now)
                    {
                        return StepResult::Ok(Acted::Leads(now));
                    }
                }
                return StepResult::Now(self.group.now());
            }
            Step::AwaitApplied(n) => {
                let Some(leader) = self.group.leader() else {
                    return StepResult::Skipped("no leader");
                };
                let applied =
                    |g: &dyn ReplicationGroup| g.summary().node(&leader).map(|s| s.applied_offset);
                let before = applied(self.group.as_ref());
                for _ in 0..n {
                    self.tick();
                    if self.group.leader().as_ref() != Some(&leader) {
                        break;
                    }
                    if applied(self.group.as_ref()) > before {
                        return StepResult::Ok(Acted::Node(leader));
                    }
                }
                return StepResult::Now(self.group.now());
            }
            Step::Isolate(n) => match self.node(n, index) {
                None => return StepResult::Skipped("no such node"),
                Some(id) => self.group.isolate(&id).map(|()| {
                    if let Some(i) = self.position(&id) {
                        add(&mut self.faults.isolated, i);
                    }
                    Acted::Node(id.clone())
                }),
            },
            Step::Heal(n) => match self.node(n, index) {
                None if n == NodeRef::OverMinority => {
                    return StepResult::Skipped("a majority is connected");
                }
                None => return StepResult::Skipped("no isolated node"),
                Some(id) => self.group.heal(&id).map(|()| {
                    if let Some(i) = self.position(&id) {
                        remove(&mut self.faults.isolated, i);
                        self.faults.cuts.retain(|&(a, b)| a != i && b != i);
                    }
                    Acted::Node(id.clone())
                }),
            },
            Step::Cut(a, b) => match (self.node(a, index), self.node(b, index)) {
                (Some(a), Some(b)) if a != b => self.group.cut_link(&a, &b).map(|()| {
                    if let (Some(x), Some(y)) = (self.position(&a), self.position(&b))
                        && !self.faults.cuts.contains(&(x, y))
                    {
                        self.faults.cuts.push((x, y));
                    }
                    Acted::Link(a.clone(), b.clone())
                }),
                _ => return StepResult::Skipped("no such link"),
            },
            Step::Uncut(a, b) => match (self.node(a, index), self.node(b, index)) {
                (Some(a), Some(b)) => {
                    let link = (self.position(&a), self.position(&b));
                    let (Some(x), Some(y)) = link else {
                        return StepResult::Skipped("no such link");
                    };
                    if !self.faults.cuts.contains(&(x, y)) {
                        return StepResult::Skipped("the link is not cut");
                    }
                    self.group.restore_link(&a, &b).map(|()| {
                        self.faults.cuts.retain(|&l| l != (x, y));
                        Acted::Link(a.clone(), b.clone())
                    })
                }
                _ => return StepResult::Skipped("no such link"),
            },
            Step::Restore => {
                if self.faults.cuts.is_empty() {
                    return StepResult::Skipped("no cut link");
                }
                let (x, y) = self.faults.cuts[index % self.faults.cuts.len()];
                let (a, b) = (self.nodes[x].clone(), self.nodes[y].clone());
                self.group.restore_link(&a, &b).map(|()| {
                    self.faults.cuts.retain(|&l| l != (x, y));
                    Acted::Link(a.clone(), b.clone())
                })
            }
            Step::Crash(_, true)
                if self
                    .config
                    .max_power_losses
                    .is_some_and(|max| self.power_losses >= max) =>
            {
                return StepResult::Skipped("power-loss bound reached");
            }
            Step::Crash(n, power_loss) => match self.node(n, index) {
                None => return StepResult::Skipped("no such node"),
                Some(id) => self.group.crash(&id, power_loss).map(|()| {
                    self.power_losses += u32::from(power_loss);
                    if let Some(i) = self.position(&id) {
                        add(&mut self.faults.crashed, i);
                    }
                    Acted::Node(id.clone())
                }),
            },
            Step::Restart(n) => match self.node(n, index) {
                None => return StepResult::Skipped("no crashed node"),
                Some(id) => self.group.restart(&id).map(|()| {
                    if let Some(i) = self.position(&id) {
                        remove(&mut self.faults.crashed, i);
                    }
                    Acted::Node(id.clone())
                }),
            },
            Step::Fsync(n) => match self.node(n, index) {
                None => return StepResult::Skipped("no such node"),
                Some(id) => self.group.fsync(&id).map(|()| Acted::Node(id.clone())),
            },
            Step::Slow(n, slow) => match self.node(n, index) {
                None => return StepResult::Skipped("no slow node"),
                Some(id) => self.group.set_slow(&id, slow).map(|()| {
                    if let Some(i) = self.position(&id) {
                        if slow {
                            add(&mut self.faults.slowed, i);
                        } else {
                            remove(&mut self.faults.slowed, i);
                        }
                    }
                    Acted::Node(id.clone())
                }),
            },
            Step::Deliver(n) | Step::Drop(n) | Step::Duplicate(n) => {
                let Some(steer) = self.group.steerable_mut() else {
                    return StepResult::Skipped("not a steered run");
                };
                let held = steer.held();
                let pick = match step {
                    Step::Deliver(_) => held.iter().filter(|h| h.deliverable).nth(usize::from(n)),
                    _ => held.get(usize::from(n)),
                };
                let Some(h) = pick else {
                    return StepResult::Skipped("no such held message");
                };
                let (a, b) = (self.nodes[h.from].clone(), self.nodes[h.to].clone());
                let id = h.id;
                let done = match step {
                    Step::Deliver(_) => steer.release(id),
                    Step::Drop(_) => steer.drop_held(id),
                    _ => steer.duplicate_held(id),
                };
                if let Err(e) = done {
                    return StepResult::Refused(e);
                }
                if matches!(step, Step::Deliver(_)) {
                    self.tick();
                }
                Ok(Acted::Link(a, b))
            }
            Step::Fire(n) => {
                let Some(id) = self.node(n, index) else {
                    return StepResult::Skipped("no such node");
                };
                let Some(i) = self.position(&id) else {
                    return StepResult::Skipped("no such node");
                };
                let Some(steer) = self.group.steerable_mut() else {
                    return StepResult::Skipped("not a steered run");
                };
                if let Err(e) = steer.expire(i) {
                    return StepResult::Refused(e);
                }
                self.tick();
                Ok(Acted::Node(id))
            }
            Step::Failover(target) => {
                let target = match target {
                    Some(n) => match self.node(n, index) {
                        Some(id) => Some(id),
                        None => return StepResult::Skipped("no such node"),
                    },
                    None => None,
                };
                self.group.failover(target.as_ref()).map(Acted::Leads)
            }
        };
        match result {
            Ok(acted) => StepResult::Ok(acted),
            Err(err) => StepResult::Refused(err),
        }
    }

    /// The probes after the final reads: **recovers**, then (when it
    /// holds) a follower crashed and the lease's lapse (sampled by seed).
    /// From `memo` when they ran before from the same group, as long as
    /// nothing is broken yet (what they find is then the whole answer) and
    /// the trace is not checked after them (a memo's answer leaves the
    /// group where the probes started).
    fn probe(&mut self, schedule: &Schedule, memo: Option<&EndMemo>) -> Check {
        let key = match (memo, self.group.steerable()) {
            (Some(_), Some(group))
                if self.available == Check::Holds
                    && self.invariants == Check::Holds
                    && !schedule.checks_its_trace() =>
            {
                // In delivery order: two groups that hold the same
                // messages run alike only if they hand them over alike.
                replication::ordered_fingerprint(group).map(|group| {
                    let mut h = replication::StateHasher::default();
                    (group, schedule.probes_its_lease(), &self.unquiet).hash(&mut h);
                    h.finish()
                })
            }
            _ => None,
        };
        if let (Some(memo), Some(key)) = (memo, key)
            && let Some(probed) = memo.probe(key)
        {
            self.available = probed.available;
            self.invariants = probed.invariants;
            return probed.recovers;
        }
        let recovers = self.recovers();
        if recovers == Check::Holds {
            self.available_without_a_follower();
            if schedule.probes_its_lease() {
                self.lease_lapses();
            }
        }
        if let (Some(memo), Some(key)) = (memo, key) {
            memo.put_probe(
                key,
                Probed {
                    recovers: recovers.clone(),
                    available: self.available.clone(),
                    invariants: self.invariants.clone(),
                },
            );
        }
        recovers
    }

    /// The end's first move: steering ends (everything held is delivered
    /// at the next tick, and the network delivers by itself again), every
    /// fault is healed and every crashed node restarted. Every node is
    /// healed, with a fault or not: a protocol may act on a heal (the
    /// asynchronous primary's sentinel demotes a stale primary then).
    fn heal_everything(&mut self) {
        if self.steered
            && let Some(steer) = self.group.steerable_mut()
        {
            let _ = steer.hold(false);
            self.steered = false;
        }
        // The heals and restarts are nemesis moves like any other (a Raft
        // node healed with a higher term deposes the leader): what is in
        // flight now is not judged for availability.
        self.disturbed();
        for id in self.nodes.clone() {
            let _ = self.group.heal(&id);
            let _ = self.group.set_slow(&id, false);
        }
        let down: Vec<NodeId> = self
            .group
            .summary()
            .nodes
            .iter()
            .filter(|n| !n.alive)
            .map(|n| n.id.clone())
            .collect();
        for id in down {
            let _ = self.group.restart(&id);
        }
        self.faults = Faults::default();
        self.collect();
        self.check_invariants(|| "after heal and restart".to_string());
    }

    /// After [`heal_everything`](Self::heal_everything): let operations in
    /// flight complete, make sure a leader exists, and quiesce.
    fn settle(&mut self) {
        let mut ticks = 0;
        while !self.pending.is_empty() && ticks < SETTLE_TICKS {
            self.tick();
            ticks += 1;
        }
        if self.group.leader().is_none() {
            let _ = self.group.failover(None);
            self.collect();
        }
        let before = self.group.now();
        match self.group.run_until_idle(SETTLE_TICKS) {
            Err(e) if self.group.quiesces() => self.unquiet = Some(e.to_string()),
            Ok(ticks) => {
                // It answers the ticks it ran: the clock says how many.
                let ran = self.group.now().saturating_sub(before);
                if ran == ticks {
                    self.idle_means_silent(ticks);
                } else {
                    self.unquiet = Some(format!(
                        "run_until_idle answered idle after {ticks} ticks, but it ran {ran}"
                    ));
                }
            }
            Err(_) => {}
        }
        self.collect();
        self.check_invariants(|| "after quiescence".to_string());
    }

    /// `run_until_idle` answered `Ok(ticks)`: where the protocol states a
    /// steady state that sends nothing while idle, the next tick must
    /// change nothing — no message sent, no state moved (its
    /// [`fingerprint`](ReplicationGroup::fingerprint), the clock
    /// excluded). An answer of "idle" with messages still in flight fails
    /// it.
    fn idle_means_silent(&mut self, ticks: u64) {
        let (Some(steady), Some(before)) = (self.group.steady_state(), self.group.messages_sent())
        else {
            return;
        };
        if steady.idle_messages > 0 {
            return;
        }
        let state = self.group.fingerprint();
        self.tick();
        let sent = self.group.messages_sent().unwrap_or(before) - before;
        let moved = self.group.fingerprint() != state;
        if sent > 0 || moved {
            self.unquiet = Some(format!(
                "run_until_idle answered idle after {ticks} ticks, yet the next tick sent {sent} messages and {} the group's state",
                if moved { "changed" } else { "kept" }
            ));
        }
    }

    /// Reads every key the schedule touched at the strongest level the
    /// protocol offers, retrying a blocked or leaderless read.
    fn final_reads(&mut self) -> FinalValues {
        // A schedule touches a few keys: each is cloned once, not once
        // per operation.
        let mut keys: Vec<Bytes> = Vec::new();
        for op in &self.history {
            if !keys.contains(op.key()) {
                keys.push(op.key().clone());
            }
        }
        keys.sort();
        let reader = self.clients;
        let mut values = BTreeMap::new();
        let mut unread = Vec::new();
        for key in keys {
            let mut last = String::new();
            let mut served = false;
            for _ in 0..FINAL_READ_ATTEMPTS {
                let mut level = ReadLevel::Linearizable;
                let read = |level| ClientOp::read(key.clone(), level);
                let kind = || OpKind::Read { key: key.clone() };
                let mut result = self.submit(reader, read(level), kind(), false);
                if let StepResult::Refused(GroupError::UnsupportedRead { .. }) = result {
                    level = ReadLevel::Leader;
                    result = self.submit(reader, read(level), kind(), false);
                }
                match result {
                    StepResult::Submitted(_) => {}
                    StepResult::Refused(err) => {
                        last = err.to_string();
                        if self.group.unavailable_lasts()
                            && (self.group.unavailable().is_some()
                                || self.group.outside_assumptions().is_some())
                        {
                            // The protocol states, from its own state, why
                            // it cannot serve (or that its network breaks
                            // its assumptions), and that no tick ends it:
                            // every fault is healed, so a retry would find
                            // the same.
                            break;
                        }
                        if self.group.leader().is_none() {
                            let _ = self.group.failover(None);
                        }
                        for _ in 0..3 {
                            self.tick();
                        }
                        continue;
                    }
                    other => {
                        last = other.to_string();
                        break;
                    }
                }
                // The read is an operation of the history like any other:
                // `collect` completes it.
                let index = self.history.len() - 1;
                let mut waited = 0;
                while self.history[index].status.is_none() && waited < SETTLE_TICKS {
                    self.tick();
                    waited += 1;
                }
                let op = &mut self.history[index];
                match (op.status, &op.read_value) {
                    (Some(OutcomeStatus::Done), Some(value)) => {
                        op.reason = format!("final {} read", level.name());
                        values.insert(key.clone(), value.clone());
                        served = true;
                        break;
                    }
                    (None, _) => {
                        last = format!("not completed within {SETTLE_TICKS} ticks");
                        self.busy[usize::from(reader)] = None;
                        break;
                    }
                    _ => last = op.reason.clone(),
                }
                for _ in 0..3 {
                    self.tick();
                }
            }
            if !served {
                unread.push(format!(
                    "final read of {} not served: {last}",
                    crate::history::text(&key)
                ));
            }
        }
        FinalValues { values, unread }
    }

    /// The end of **available** ([`crate::minority`]), on a group that
    /// recovered; invariants are checked after it too.
    fn available_without_a_follower(&mut self) {
        let key = Bytes::from_static(PROBE_KEY);
        let check =
            crate::minority::available_without_a_follower(self.group.as_mut(), &key, SETTLE_TICKS);
        if self.available == Check::Holds {
            self.available = check;
        }
        self.check_invariants(|| "after the aimed availability probe".to_string());
    }

    /// The last of a run that recovered (one in
    /// [`LEASE_SAMPLE`](crate::schedule::LEASE_SAMPLE), by seed): the lease
    /// lapses as the protocol promises ([`crate::lease::lease_lapses`]), or
    /// **invariants** is violated.
    fn lease_lapses(&mut self) {
        let key = Bytes::from_static(PROBE_KEY);
        if let Check::Violated(why) = crate::lease::lease_lapses(self.group.as_mut(), &key)
            && self.invariants == Check::Holds
        {
            self.invariants = Check::Violated(why);
        }
        self.check_invariants(|| "after the lease probe".to_string());
    }

    /// The end of a traced schedule's **invariants**: the trace, folded
    /// from the group's start, agrees with the group's state
    /// ([`ReplicationGroup::check_trace`]).
    fn check_trace(&mut self) {
        if self.invariants == Check::Holds
            && let Err(why) = self.group.check_trace()
        {
            self.invariants = Check::Violated(format!("the trace disagrees with the group: {why}"));
        }
    }

    /// A healed group that says it cannot serve (`why`) is not judged —
    /// once the excuse is checked: a write at the strongest level must
    /// then not complete *done*. A group that claims an outage it does not
    /// have would otherwise turn every run into "offline at the end".
    fn unavailable_holds(&mut self, why: String) -> Check {
        let key = Bytes::from_static(PROBE_KEY);
        if let Some((level, Ok(id))) = crate::probe::write(self.group.as_mut(), &key, b"excuse")
            && let Some(c) = crate::probe::answer(self.group.as_mut(), id, SETTLE_TICKS)
            && c.outcome.status() == OutcomeStatus::Done
        {
            return Check::Violated(format!(
                "the healed group said it could not serve ({why}), yet a write at {level} completed done"
            ));
        }
        Check::Undecided(why)
    }

    /// **recovers**: with everything healed and quiet, a write at the
    /// protocol's strongest ack level and a read at its strongest read
    /// level complete *done* (they are probes, not part of the history) —
    /// unless the protocol states why it legitimately cannot serve (a
    /// claim checked by [`Runner::unavailable_holds`]) or that the
    /// schedule's network breaks its assumptions.
    fn recovers(&mut self) -> Check {
        if let Some(why) = self.group.unavailable() {
            return self.unavailable_holds(why);
        }
        if let Some(why) = self.group.outside_assumptions() {
            return Check::Undecided(why);
        }
        if let Some(why) = &self.unquiet {
            return Check::Violated(format!(
                "with every fault healed and every node running, the group did not quiesce within {SETTLE_TICKS} ticks: {why}"
            ));
        }
        let key = Bytes::from_static(PROBE_KEY);
        // A refusal right after the heal, or an answer *failed* / *unknown*
        // (an election still settling: a deposed leader learns of the new
        // term only now), is retried, as a client would, until the
        // protocol's recovery bound has passed since the probes began.
        let start = self.group.now();
        let within = |g: &dyn ReplicationGroup| g.now() < start.saturating_add(self.bound);
        for probe in ["write", "read"] {
            loop {
                let submitted = if probe == "write" {
                    crate::probe::write(self.group.as_mut(), &key, b"probe")
                } else {
                    crate::probe::read(self.group.as_mut(), &key)
                };
                let Some((level, submitted)) = submitted else {
                    return Check::Violated(format!("no {probe} level is supported"));
                };
                let id = match submitted {
                    Ok(id) => id,
                    Err(_) if within(self.group.as_ref()) => {
                        self.group.tick();
                        continue;
                    }
                    Err(e) => {
                        if let Some(why) = self.group.unavailable() {
                            return Check::Undecided(why);
                        }
                        return Check::Violated(format!(
                            "after every fault was healed and the group was quiet, a {level} {probe} was still refused after the recovery bound ({} ticks): {e}",
                            self.bound
                        ));
                    }
                };
                match crate::probe::answer(self.group.as_mut(), id, SETTLE_TICKS) {
                    Some(c) if c.outcome.status() == OutcomeStatus::Done => break,
                    Some(_) if within(self.group.as_ref()) => {
                        // An answer at submission (a blocked read) takes
                        // no time: let a tick pass before asking again.
                        self.group.tick();
                    }
                    other => {
                        if let Some(why) = self.group.unavailable() {
                            return Check::Undecided(why);
                        }
                        let how = match other {
                            None => format!("did not complete within {SETTLE_TICKS} ticks"),
                            Some(c) => format!(
                                "ended {}: {}",
                                c.outcome.status().name(),
                                outcome_text(&c.outcome)
                            ),
                        };
                        return Check::Violated(format!(
                            "after every fault was healed and the group was quiet, a {level} {probe} {how}"
                        ));
                    }
                }
            }
        }
        // Then, in order, each part of recovering that follows the probes;
        // the first broken one is the answer.
        let probe = Bytes::from_static(b"probe");
        let g = self.group.as_mut();
        let converges =
            crate::converges::every_node_converges(g, &key, &probe, self.bound, SETTLE_TICKS);
        if converges != Check::Holds {
            return converges;
        }
        let lease = crate::lease::lease_reads_hold(g, &key, &probe);
        if lease != Check::Holds {
            return lease;
        }
        let steady = crate::steady::steady_state_holds(g, &key, SETTLE_TICKS);
        if steady != Check::Holds {
            return steady;
        }
        crate::converges::a_named_failover_succeeds(g, SETTLE_TICKS)
    }
}

fn kind_text(kind: &OpKind) -> String {
    match kind {
        OpKind::Write { key, value } => format!(
            "write {}={}",
            crate::history::text(key),
            crate::history::text(value)
        ),
        OpKind::Read { key } => format!("read {}", crate::history::text(key)),
    }
}

fn outcome_text(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Failed { message, .. } | Outcome::Unknown { message, .. } => message.clone(),
        Outcome::Written { message, .. } => message.clone(),
        Outcome::Read(_) => "served".into(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use proto_raft::{RaftConfig, RaftGroup};
    use replication::{AckLevel, NetConfig, ReadLevel, ReplicationGroup};

    use super::*;
    use crate::altered::Altered;

    /// A schedule of no steps on a three-node Raft group, altered as
    /// `alter` says, over a reliable 1-tick network.
    fn recovers_of(alter: fn(Altered) -> Altered) -> Check {
        run_of(alter, 1).check(Property::Recovers).clone()
    }

    /// ISR with LEADER writes and LINEARIZABLE reads, altered by `alter`.
    fn isr_leader_writes(alter: fn(Altered) -> Altered) -> Configuration {
        use proto_isr::{IsrConfig, IsrGroup};
        Configuration::new(
            "isr",
            AckLevel::Leader,
            ReadLevel::Linearizable,
            "default",
            move |build: &crate::Build| {
                let isr = IsrGroup::new(IsrConfig::default().with_seed(build.seed))?;
                Ok(Box::new(alter(Altered::new(isr))) as Box<dyn ReplicationGroup>)
            },
        )
    }

    /// A write by client 0: at LEADER on ISR, acknowledged at once with
    /// its appends in flight (reaching idle takes ticks).
    const A_WRITE: Step = Step::Write {
        client: 0,
        key: 0,
        value: 1,
    };

    /// **recovers** of ISR, altered by `alter`, after [`A_WRITE`] alone.
    fn recovers_after_a_leader_write(alter: fn(Altered) -> Altered) -> Check {
        let report = run_plain(&isr_leader_writes(alter), 1, vec![A_WRITE]);
        report.check(Property::Recovers).clone()
    }

    /// [`A_WRITE`] (the leader's log is then above HW), then a
    /// LINEARIZABLE read: on ISR it is blocked.
    fn a_read_blocked_above_hw() -> Vec<Step> {
        vec![A_WRITE, Step::Read { client: 1, key: 0 }]
    }

    /// The run of `seed`'s schedule emptied of steps, as [`recovers_of`].
    fn run_of(alter: fn(Altered) -> Altered, seed: u64) -> RunReport {
        run_steps(alter, seed, Vec::new())
    }

    /// The run of `seed`'s schedule with `steps` only, as [`recovers_of`].
    fn run_steps(alter: fn(Altered) -> Altered, seed: u64, steps: Vec<Step>) -> RunReport {
        let config = Configuration::new(
            "raft",
            AckLevel::Quorum,
            ReadLevel::Linearizable,
            "default",
            move |build: &crate::Build| {
                let raft = RaftGroup::new(RaftConfig::default().with_seed(build.seed))?;
                Ok(Box::new(alter(Altered::new(raft))) as Box<dyn ReplicationGroup>)
            },
        );
        run_plain(&config, seed, steps)
    }

    /// `config`'s run of `seed`'s schedule made plain: three nodes, no
    /// knobs, a reliable 1-tick network, and `steps` only.
    fn run_plain(config: &Configuration, seed: u64, steps: Vec<Step>) -> RunReport {
        let mut schedule = crate::schedule_of(config, seed, 3);
        schedule.profile.nodes = 3;
        schedule.profile.drawn_nodes = None;
        schedule.profile.knobs = Vec::new();
        schedule.profile.net = NetConfig::default()
            .with_delay_range(1, 1)
            .with_capacity(2_000);
        schedule.steps = steps;
        run_schedule(config, &schedule, RunOptions::SWEEP).expect("runs")
    }

    #[test]
    fn a_read_refused_by_design_that_is_served_fails_available() {
        let read = || {
            vec![
                Step::Wait(30),
                Step::Read { client: 0, key: 0 },
                Step::Wait(5),
            ]
        };
        match run_steps(Altered::claiming_read_refusals, 1, read()).check(Property::Available) {
            Check::Violated(why) => assert!(
                why.contains("though the protocol said, as it was served, that it refuses such a read by design"),
                "{why}"
            ),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            run_steps(|g| g, 1, read()).check(Property::Available),
            &Check::Holds
        );
    }

    #[test]
    fn an_idle_answer_with_messages_in_flight_fails_recovers() {
        match recovers_after_a_leader_write(Altered::idle_at_once) {
            Check::Violated(why) => {
                assert!(
                    why.contains("run_until_idle answered idle after 0 ticks"),
                    "{why}"
                )
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_claimed_outage_that_still_serves_fails_recovers() {
        match recovers_of(Altered::claiming_an_outage) {
            Check::Violated(why) => assert!(
                why.contains("said it could not serve (a test's claimed outage), yet a write at QUORUM completed done"),
                "{why}"
            ),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_sampled_schedule_s_untrue_trace_breaks_invariants() {
        let sampled = crate::schedule::TRACE_SAMPLE;
        let invariants = |seed| {
            run_of(Altered::with_untrue_trace, seed)
                .check(Property::Invariants)
                .clone()
        };
        match invariants(sampled) {
            Check::Violated(why) => {
                assert!(
                    why.contains("the trace disagrees with the group: a test's untrue trace"),
                    "{why}"
                )
            }
            other => panic!("{other:?}"),
        }
        // A schedule off the sample runs without its trace, and is not asked.
        assert_eq!(invariants(sampled + 1), Check::Holds);
    }

    #[test]
    fn a_healed_group_that_does_not_quiesce_fails_recovers() {
        assert_eq!(recovers_of(|g| g), Check::Holds);
        match recovers_of(Altered::never_idle) {
            Check::Violated(why) => assert!(why.contains("did not quiesce"), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_refusal_or_failure_with_no_reason_breaks_invariants() {
        use crate::schedule::NodeRef;
        // Two of three nodes down: no quorum, so the write and the read
        // fail or are refused, each saying why.
        let steps = || {
            vec![
                Step::Crash(NodeRef::At(0), false),
                Step::Crash(NodeRef::At(1), false),
                Step::Write {
                    client: 0,
                    key: 0,
                    value: 1,
                },
                Step::Read { client: 1, key: 0 },
                Step::Wait(30),
            ]
        };
        assert_eq!(
            run_steps(|g| g, 1, steps()).check(Property::Invariants),
            &Check::Holds
        );
        match run_steps(Altered::reasonless, 1, steps()).check(Property::Invariants) {
            Check::Violated(why) => assert!(why.contains("with no reason given"), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_blocked_read_with_no_reason_breaks_invariants() {
        let isr = isr_leader_writes;
        let steps = a_read_blocked_above_hw;
        let plain = run_plain(&isr(|g| g), 1, steps());
        assert_eq!(plain.check(Property::Invariants), &Check::Holds);
        assert!(
            plain
                .history
                .iter()
                .any(|op| op.reason.contains("above HW")),
            "{:?}",
            plain.history
        );
        match run_plain(&isr(Altered::reasonless), 1, steps()).check(Property::Invariants) {
            Check::Violated(why) => assert!(why.contains("with no reason given"), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_idle_answer_that_miscounts_its_ticks_fails_recovers() {
        assert_eq!(recovers_after_a_leader_write(|g| g), Check::Holds);
        match recovers_after_a_leader_write(Altered::miscounting_idle) {
            Check::Violated(why) => {
                assert!(
                    why.contains("answered idle after 0 ticks, but it ran"),
                    "{why}"
                )
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_blocked_read_refused_at_submission_breaks_invariants() {
        let steps = a_read_blocked_above_hw;
        let plain = run_plain(&isr_leader_writes(|g| g), 1, steps());
        assert_eq!(plain.check(Property::Invariants), &Check::Holds);
        let altered = run_plain(&isr_leader_writes(Altered::blocking_at_submit), 1, steps());
        match altered.check(Property::Invariants) {
            Check::Violated(why) => assert!(
                why.contains("was refused at submission as blocked (above high watermark)"),
                "{why}"
            ),
            other => panic!("{other:?}"),
        }
    }
}
