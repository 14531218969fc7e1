//! Running one schedule on a fresh group: steps, then heal everything,
//! restart, quiesce, and read every key at the strongest level.

use std::collections::BTreeMap;

use replication::{
    Bytes, ClientOp, GroupError, NodeId, OpId, Outcome, OutcomeStatus, ReadLevel, ReplicationGroup,
};

use crate::check::{self, FinalValues};
use crate::config::Configuration;
use crate::history::{HistoryOp, OpKind};
use crate::property::{Check, Property};
use crate::schedule::{NodeRef, Schedule, Step};

/// Ticks the end phase waits for operations in flight and for quiescence.
const SETTLE_TICKS: u64 = 400;
/// Attempts per final read (a blocked read is retried after a few ticks).
const FINAL_READ_ATTEMPTS: usize = 20;

/// Everything one run produced.
pub struct RunReport {
    /// The client history, in submission order, final reads last.
    pub history: Vec<HistoryOp>,
    /// The final value of every key written or read, when it was served.
    pub final_values: BTreeMap<Bytes, Option<Bytes>>,
    /// One answer per property, in [`Property::ALL`] order.
    pub checks: [Check; 3],
    /// The group after the run (its trace, if it was recorded).
    pub group: Box<dyn ReplicationGroup>,
    /// One line per step: what it did or why it was skipped.
    pub log: Vec<String>,
}

impl RunReport {
    /// The answer for `property`.
    pub fn check(&self, property: Property) -> &Check {
        match property {
            Property::Durable => &self.checks[0],
            Property::Linearizable => &self.checks[1],
            Property::Invariants => &self.checks[2],
        }
    }
}

/// Runs `schedule` on a fresh group of `config` (seeded with the
/// schedule's seed). `clients` is the number of clients the schedule was
/// generated for; `trace` keeps the group's trace recording on (replays)
/// or turns it off (sweeps). `check_linearizable` may be turned off when
/// only the other properties matter (shrinking them).
pub fn run_schedule(
    config: &Configuration,
    schedule: &Schedule,
    clients: u8,
    trace: bool,
    check_linearizable: bool,
) -> Result<RunReport, GroupError> {
    let mut group = (config.factory)(schedule.seed)?;
    group.trace_mut().set_enabled(trace);
    let nodes = group.node_ids();
    let mut run = Runner {
        config,
        group,
        nodes,
        clients,
        busy: vec![None; usize::from(clients) + 1],
        pending: BTreeMap::new(),
        history: Vec::new(),
        clock: 0,
        invariants: Check::Holds,
        log: Vec::new(),
        keys: Vec::new(),
    };
    for (index, step) in schedule.steps.iter().enumerate() {
        let what = run.step(step);
        if trace {
            run.log
                .push(format!("{index:>3} @{:<4} {step}: {what}", run.group.now()));
        }
        run.collect();
        run.check_invariants(|| format!("after step {index} ({step})"));
    }
    run.settle();
    let final_values = run.final_reads();
    let durable = check::durable(&run.history, &final_values, config.ack);
    let linearizable = if check_linearizable {
        check::linearizable(&run.history)
    } else {
        Check::Unknown("not checked".into())
    };
    Ok(RunReport {
        history: run.history,
        final_values: final_values.values,
        checks: [durable, linearizable, run.invariants],
        group: run.group,
        log: run.log,
    })
}

/// What one step did, formatted only for replays.
enum StepResult {
    Ok,
    Submitted(OpId),
    Now(replication::Tick),
    Skipped(&'static str),
    Refused(GroupError),
}

impl std::fmt::Display for StepResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StepResult::Ok => f.write_str("ok"),
            StepResult::Submitted(id) => write!(f, "submitted {id}"),
            StepResult::Now(t) => write!(f, "now @{t}"),
            StepResult::Skipped(why) => write!(f, "skipped ({why})"),
            StepResult::Refused(err) => write!(f, "refused: {err}"),
        }
    }
}

struct Runner<'a> {
    config: &'a Configuration,
    group: Box<dyn ReplicationGroup>,
    nodes: Vec<NodeId>,
    clients: u8,
    /// Per client: the op it has in flight.
    busy: Vec<Option<OpId>>,
    /// In-flight op → its index in `history`.
    pending: BTreeMap<OpId, usize>,
    history: Vec<HistoryOp>,
    clock: u64,
    invariants: Check,
    log: Vec<String>,
    keys: Vec<Option<Bytes>>,
}

impl Runner<'_> {
    fn node(&self, node: NodeRef) -> Option<NodeId> {
        match node {
            NodeRef::Leader => self.group.leader(),
            NodeRef::At(i) => {
                let n = self.nodes.len();
                (n > 0).then(|| self.nodes[usize::from(i) % n].clone())
            }
        }
    }

    /// `k<key>`, built once per run.
    fn key(&mut self, key: u8) -> Bytes {
        let slot = usize::from(key);
        if self.keys.len() <= slot {
            self.keys.resize(slot + 1, None);
        }
        self.keys[slot]
            .get_or_insert_with(|| Bytes::from(format!("k{key}")))
            .clone()
    }

    fn tick(&mut self) {
        self.group.tick();
        self.collect();
        let now = self.group.now();
        self.check_invariants(|| format!("after tick {now}"));
    }

    /// `when` is only built for a violation (this is on the hot path).
    fn check_invariants(&mut self, when: impl FnOnce() -> String) {
        if self.invariants == Check::Holds
            && let Err(broken) = self.group.check_invariants()
        {
            self.invariants = Check::Violated(format!("{}: {broken}", when()));
        }
    }

    /// Submits `op` for `client`; returns what happened.
    fn submit(&mut self, client: u8, op: ClientOp, kind: OpKind) -> StepResult {
        let slot = usize::from(client);
        if self.busy[slot].is_some() {
            return StepResult::Skipped("client busy");
        }
        let now = self.group.now();
        match self.group.submit(op) {
            Ok(id) => {
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
                });
                self.pending.insert(id, self.history.len() - 1);
                self.busy[slot] = Some(id);
                StepResult::Submitted(id)
            }
            Err(err) => StepResult::Refused(err),
        }
    }

    /// Takes every completion the group has, in completion order.
    fn collect(&mut self) {
        for done in self.group.take_completions() {
            let Some(index) = self.pending.remove(&done.id) else {
                continue;
            };
            self.clock += 1;
            let op = &mut self.history[index];
            op.ret = Some(self.clock);
            op.ret_tick = Some(done.completed);
            op.status = Some(done.outcome.status());
            match done.outcome {
                Outcome::Read(read) => op.read_value = Some(read.value),
                Outcome::Failed { message, .. } | Outcome::Unknown { message, .. } => {
                    op.reason = message
                }
                _ => {}
            }
            if let Some(slot) = self.busy.get_mut(usize::from(op.client)) {
                *slot = None;
            }
        }
    }

    fn step(&mut self, step: &Step) -> StepResult {
        let result = match *step {
            Step::Write { client, key, value } => {
                let (key, value) = (self.key(key), Bytes::from(format!("v{value}")));
                let op = ClientOp::write(key.clone(), value.clone(), self.config.ack);
                return self.submit(client, op, OpKind::Write { key, value });
            }
            Step::Read { client, key } => {
                let key = self.key(key);
                let mut op = ClientOp::read(key.clone(), self.config.read);
                if self.config.read == ReadLevel::Local && !self.nodes.is_empty() {
                    // Each client reads LOCAL from its own node.
                    let home = usize::from(client) % self.nodes.len();
                    op = op.at(&self.nodes[home].clone());
                }
                return self.submit(client, op, OpKind::Read { key });
            }
            Step::Wait(n) => {
                for _ in 0..n {
                    self.tick();
                }
                return StepResult::Now(self.group.now());
            }
            Step::Isolate(n) => self.on(n, |g, id| g.isolate(id)),
            Step::Heal(n) => self.on(n, |g, id| g.heal(id)),
            Step::Cut(a, b) => match (self.node(a), self.node(b)) {
                (Some(a), Some(b)) if a != b => self.group.cut_link(&a, &b).map(|_| ()),
                _ => return StepResult::Skipped("no such link"),
            },
            Step::Crash(n, power_loss) => self.on(n, |g, id| g.crash(id, power_loss)),
            Step::Restart(n) => self.on(n, |g, id| g.restart(id)),
            Step::Fsync(n) => self.on(n, |g, id| g.fsync(id)),
            Step::Slow(n, slow) => self.on(n, |g, id| g.set_slow(id, slow)),
            Step::Failover(target) => {
                let target = match target {
                    Some(n) => match self.node(n) {
                        Some(id) => Some(id),
                        None => return StepResult::Skipped("no leader"),
                    },
                    None => None,
                };
                self.group.failover(target.as_ref()).map(|_| ())
            }
        };
        match result {
            Ok(()) => StepResult::Ok,
            Err(err) => StepResult::Refused(err),
        }
    }

    fn on(
        &mut self,
        node: NodeRef,
        op: impl FnOnce(&mut dyn ReplicationGroup, &NodeId) -> Result<(), GroupError>,
    ) -> Result<(), GroupError> {
        match self.node(node) {
            Some(id) => op(self.group.as_mut(), &id),
            None => Err(GroupError::NoLeader("no leader to name".into())),
        }
    }

    /// Heal everything, restart every crashed node, let operations in
    /// flight complete, make sure a leader exists, and quiesce.
    fn settle(&mut self) {
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
        self.collect();
        self.check_invariants(|| "after heal and restart".to_string());
        let mut ticks = 0;
        while !self.pending.is_empty() && ticks < SETTLE_TICKS {
            self.tick();
            ticks += 1;
        }
        if self.group.leader().is_none() {
            let _ = self.group.failover(None);
            self.collect();
        }
        let _ = self.group.run_until_idle(SETTLE_TICKS);
        self.collect();
        self.check_invariants(|| "after quiescence".to_string());
    }

    /// Reads every key the schedule touched at the strongest level the
    /// protocol offers, retrying a blocked or leaderless read.
    fn final_reads(&mut self) -> FinalValues {
        let mut keys: Vec<Bytes> = self.history.iter().map(|op| op.key().clone()).collect();
        keys.sort();
        keys.dedup();
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
                let mut result = self.submit(reader, read(level), kind());
                if let StepResult::Refused(GroupError::UnsupportedRead { .. }) = result {
                    level = ReadLevel::Leader;
                    result = self.submit(reader, read(level), kind());
                }
                match result {
                    StepResult::Submitted(_) => {}
                    StepResult::Refused(err) => {
                        last = err.to_string();
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
}
