//! A group (Raft, unless a test says otherwise) with a test's changes, for
//! the explorer's unit tests:
//! a LINEARIZABLE read started at every tick (chatter beyond the
//! heartbeats), a steady state promising less than Raft keeps, a
//! `run_until_idle` that never finds it idle, a claim to tolerate any
//! fault, a trace that disagrees with the group, a blocking write that
//! does not wait, an outage or a read refusal it does not have, a
//! `run_until_idle` that answers idle at once or miscounts its ticks,
//! refusals and failures that give no reason, a blocked read refused
//! at submission, a lease promised to lapse sooner than it does, or a
//! `debug_assert!` reached on a power loss.

use replication::{
    AckLevel, Bytes, ClientOp, Completion, GroupError, GroupSummary, NodeId, OpId, Outcome,
    ReadLevel, ReadResult, ReplicationGroup, SteadyState, Tick, Trace, WriteResult,
};

/// A group, altered as the flags say.
pub(crate) struct Altered {
    raft: Box<dyn ReplicationGroup>,
    chatter: bool,
    promise: Option<SteadyState>,
    unquiet: bool,
    tolerant: bool,
    untrue: bool,
    blocking_times_out: bool,
    outage: bool,
    refusing: bool,
    outside: bool,
    idle_at_once: bool,
    reasonless: bool,
    miscounting: bool,
    blocked_at_submit: bool,
    lease_bound: Option<u64>,
    asserting: bool,
    /// Completions `submit` took to look at and hands on.
    held: Vec<Completion>,
}

impl Altered {
    pub(crate) fn new(group: impl ReplicationGroup + 'static) -> Self {
        Altered {
            raft: Box::new(group),
            chatter: false,
            promise: None,
            unquiet: false,
            tolerant: false,
            untrue: false,
            blocking_times_out: false,
            outage: false,
            refusing: false,
            outside: false,
            idle_at_once: false,
            reasonless: false,
            miscounting: false,
            blocked_at_submit: false,
            lease_bound: None,
            asserting: false,
            held: Vec::new(),
        }
    }

    /// A power loss reaches a `debug_assert!` (a planted assertion).
    pub(crate) fn asserting_on_power_loss(mut self) -> Self {
        self.asserting = true;
        self
    }

    /// A LINEARIZABLE read submitted before every tick.
    pub(crate) fn with_chatter(mut self) -> Self {
        self.chatter = true;
        self
    }

    /// Promises `steady` instead of Raft's own steady state.
    pub(crate) fn promising(mut self, steady: SteadyState) -> Self {
        self.promise = Some(steady);
        self
    }

    /// Claims to tolerate whatever faults are in force.
    pub(crate) fn claiming_tolerance(mut self) -> Self {
        self.tolerant = true;
        self
    }

    /// `check_trace` finds the trace untrue whenever it was recorded.
    pub(crate) fn with_untrue_trace(mut self) -> Self {
        self.untrue = true;
        self
    }

    /// The blocking `client_write` gives up at once, as a wait loop
    /// with its bound inverted would.
    pub(crate) fn with_impatient_blocking_write(mut self) -> Self {
        self.blocking_times_out = true;
        self
    }

    /// Says it refuses LINEARIZABLE reads by design, and serves them.
    pub(crate) fn claiming_read_refusals(mut self) -> Self {
        self.refusing = true;
        self
    }

    /// `run_until_idle` answers `Ok(0)` at once, busy or not.
    pub(crate) fn idle_at_once(mut self) -> Self {
        self.idle_at_once = true;
        self
    }

    /// Says its network breaks its assumptions, whatever the network.
    pub(crate) fn claiming_outside_assumptions(mut self) -> Self {
        self.outside = true;
        self
    }

    /// Says it cannot serve, whatever its state.
    pub(crate) fn claiming_an_outage(mut self) -> Self {
        self.outage = true;
        self
    }

    /// Refusals, failures and unknown outcomes lose their reason.
    pub(crate) fn reasonless(mut self) -> Self {
        self.reasonless = true;
        self
    }

    /// `run_until_idle` runs as the group's own does, and answers 0 ticks.
    pub(crate) fn miscounting_idle(mut self) -> Self {
        self.miscounting = true;
        self
    }

    /// A read its guard blocks is refused by `submit` instead of
    /// completing *failed*.
    pub(crate) fn blocking_at_submit(mut self) -> Self {
        self.blocked_at_submit = true;
        self
    }

    /// Promises that its lease lapses within `ticks` of its leader being
    /// cut off, whatever the group's own promise.
    pub(crate) fn promising_a_lease_lapse(mut self, ticks: u64) -> Self {
        self.lease_bound = Some(ticks);
        self
    }

    /// `run_until_idle` always fails, and the group says it quiesces.
    pub(crate) fn never_idle(mut self) -> Self {
        self.unquiet = true;
        self
    }
}

impl ReplicationGroup for Altered {
    fn protocol(&self) -> &'static str {
        self.raft.protocol()
    }
    fn node_ids(&self) -> Vec<NodeId> {
        self.raft.node_ids()
    }
    fn leader(&self) -> Option<NodeId> {
        self.raft.leader()
    }
    fn submit(&mut self, op: ClientOp) -> Result<OpId, GroupError> {
        let read = matches!(op, ClientOp::Read { .. });
        let submitted = self.raft.submit(op);
        if self.blocked_at_submit
            && read
            && let Ok(id) = submitted
        {
            match self.raft.take_completion(id) {
                Some(Completion {
                    outcome:
                        Outcome::Failed {
                            error: Some(err @ GroupError::ReadBlocked { .. }),
                            ..
                        },
                    ..
                }) => return Err(err),
                Some(done) => self.held.push(done),
                None => {}
            }
        }
        match submitted {
            Err(GroupError::NoLeader(_)) if self.reasonless => {
                Err(GroupError::NoLeader(String::new()))
            }
            Err(GroupError::ReadBlocked {
                level, node, guard, ..
            }) if self.reasonless => Err(GroupError::ReadBlocked {
                level,
                node,
                guard,
                reason: String::new(),
            }),
            other => other,
        }
    }
    fn take_completions(&mut self) -> Vec<Completion> {
        let mut done = std::mem::take(&mut self.held);
        done.extend(self.raft.take_completions());
        if self.reasonless {
            for c in &mut done {
                match &mut c.outcome {
                    Outcome::Failed {
                        error: Some(GroupError::ReadBlocked { reason, .. }),
                        ..
                    } => reason.clear(),
                    Outcome::Failed { message, .. } | Outcome::Unknown { message, .. } => {
                        message.clear()
                    }
                    _ => {}
                }
            }
        }
        done
    }
    fn take_completion(&mut self, id: OpId) -> Option<Completion> {
        if let Some(at) = self.held.iter().position(|c| c.id == id) {
            return Some(self.held.remove(at));
        }
        self.raft.take_completion(id)
    }
    fn client_write(&mut self, k: Bytes, v: Bytes, l: AckLevel) -> Result<WriteResult, GroupError> {
        if self.blocking_times_out {
            self.raft.submit(ClientOp::write(k, v, l))?;
            return Err(GroupError::NotIdle {
                ticks: 0,
                waiting_for: "a test's impatient write".into(),
            });
        }
        self.raft.client_write(k, v, l)
    }
    fn client_read(
        &mut self,
        k: &[u8],
        l: ReadLevel,
        n: Option<&NodeId>,
    ) -> Result<ReadResult, GroupError> {
        self.raft.client_read(k, l, n)
    }
    fn tick(&mut self) {
        if self.chatter {
            let read = ClientOp::read(Bytes::from_static(b"p"), ReadLevel::Linearizable);
            let _ = self.raft.submit(read);
        }
        self.raft.tick();
    }
    fn run_until_idle(&mut self, max: u64) -> Result<u64, GroupError> {
        if self.unquiet {
            return Err(GroupError::NotIdle {
                ticks: max,
                waiting_for: "a test's never-idle group".into(),
            });
        }
        if self.idle_at_once {
            return Ok(0);
        }
        if self.miscounting {
            return self.raft.run_until_idle(max).map(|_| 0);
        }
        self.raft.run_until_idle(max)
    }
    fn check_trace(&self) -> Result<(), String> {
        if self.untrue && self.raft.trace().is_enabled() {
            return Err("a test's untrue trace".into());
        }
        Ok(())
    }
    fn tolerates_current_faults(&self) -> bool {
        self.tolerant || self.raft.tolerates_current_faults()
    }
    fn recovery_bound(&self) -> u64 {
        self.raft.recovery_bound()
    }
    fn lease_read(&mut self, node: &NodeId, key: &[u8]) -> Option<Result<ReadResult, GroupError>> {
        self.raft.lease_read(node, key)
    }
    fn lease_lapse_bound(&self) -> Option<u64> {
        self.lease_bound.or_else(|| self.raft.lease_lapse_bound())
    }
    fn read_refused_by_design(&self) -> Option<String> {
        self.refusing.then(|| "a test's claimed design".to_owned())
    }
    fn outside_assumptions(&self) -> Option<String> {
        self.outside
            .then(|| "a test's claimed assumption".to_owned())
    }
    fn unavailable(&self) -> Option<String> {
        if self.outage {
            return Some("a test's claimed outage".into());
        }
        self.raft.unavailable()
    }
    fn quiesces(&self) -> bool {
        self.unquiet || self.raft.quiesces()
    }
    fn crash(&mut self, n: &NodeId, lose: bool) -> Result<(), GroupError> {
        debug_assert!(!(self.asserting && lose), "planted: a power loss of {n}");
        self.raft.crash(n, lose)
    }
    fn restart(&mut self, n: &NodeId) -> Result<(), GroupError> {
        self.raft.restart(n)
    }
    fn isolate(&mut self, n: &NodeId) -> Result<(), GroupError> {
        self.raft.isolate(n)
    }
    fn heal(&mut self, n: &NodeId) -> Result<(), GroupError> {
        self.raft.heal(n)
    }
    fn fsync(&mut self, n: &NodeId) -> Result<(), GroupError> {
        self.raft.fsync(n)
    }
    fn failover(&mut self, c: Option<&NodeId>) -> Result<NodeId, GroupError> {
        self.raft.failover(c)
    }
    fn trace(&self) -> &Trace {
        self.raft.trace()
    }
    fn trace_mut(&mut self) -> &mut Trace {
        self.raft.trace_mut()
    }
    fn now(&self) -> Tick {
        self.raft.now()
    }
    fn summary(&self) -> GroupSummary {
        self.raft.summary()
    }
    fn steady_state(&self) -> Option<SteadyState> {
        self.promise.or_else(|| self.raft.steady_state())
    }
    fn messages_sent(&self) -> Option<u64> {
        self.raft.messages_sent()
    }
}
