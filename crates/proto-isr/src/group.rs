//! [`IsrGroup`]: the replicas, the in-process controller and the pending
//! client writes on one [`Cluster`]. The only place that sends and
//! delivers: it gathers the facts the controller decides from, carries the
//! decisions out on the nodes, and records what happened.

use std::fmt;
use std::sync::Arc;

use replication::{Cluster, GroupError, NodeId, Tick};
use sim_core::{NetConfig, record};

use crate::config::IsrConfig;
use crate::controller::{Controller, ControllerEvent, ElectionReason, ReplicaFacts};
use crate::events;
use crate::inspect;
use crate::invariants;
use crate::message::IsrMessage;
use crate::node::{IsrNode, NodeEvent, Output};
use crate::pending::PendingWrite;
use crate::probe::IsrProbe;

/// A Kafka-shaped partition: replicas, an in-process controller (leader,
/// leader epoch, controller epoch, ISR, high watermark, lease), and one
/// deterministic simulator. See the crate docs for the mechanism.
#[derive(Clone)]
pub struct IsrGroup {
    pub(crate) config: IsrConfig,
    /// Ids, network, rng, trace, client operations and faults.
    pub(crate) cluster: Cluster<IsrMessage>,
    /// Replicas in configuration order.
    pub(crate) nodes: Vec<IsrNode>,
    pub(crate) controller: Controller,
    /// Appended writes waiting for their verdict, in submission order.
    pub(crate) pending: Vec<PendingWrite>,
    /// The pending writes being settled (kept for its capacity: a write
    /// that stays pending costs no allocation per tick).
    pub(crate) settling: Vec<PendingWrite>,
    /// The outcome of the write a blocking `client_write` is waiting for
    /// (its pending entry has no op: nobody takes its completion).
    pub(crate) answered: Option<(replication::OpId, replication::Outcome)>,
    /// The facts the controller last decided from (refilled before every
    /// decision; kept to reuse its allocation).
    pub(crate) facts: Vec<ReplicaFacts>,
    /// Scratch for node outputs and controller events.
    pub(crate) out: Vec<Output>,
    decided: Vec<ControllerEvent>,
    /// Run [`IsrGroup::check_invariants`] after every tick (a test aid).
    tick_checks: bool,
    /// The first violation seen by a per-tick check.
    violation: Option<String>,
    /// What the invariant checker verified so far (it re-checks only what
    /// changed).
    verified: std::cell::RefCell<invariants::Verified>,
}

impl fmt::Debug for IsrGroup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IsrGroup")
            .field("tick", &self.cluster.now())
            .field("leader", self.cluster.id(self.controller.leader()))
            .field("leader_epoch", &self.controller.leader_epoch())
            .field("nodes", &self.nodes.len())
            .field("pending_writes", &self.pending.len())
            .finish_non_exhaustive()
    }
}

impl IsrGroup {
    /// Builds a group at tick 0: every node in the ISR, HW 0, leader epoch
    /// and controller epoch 1, lease valid for `lease_duration` ticks.
    pub fn new(config: IsrConfig) -> Result<Self, GroupError> {
        if config.mode != crate::config::IsrMode::Chapter {
            return Err(GroupError::config(
                "mode",
                format!(
                    "IsrGroup runs the chapter mode; mode {} is proto_isr::fetch::FetchGroup",
                    config.mode.name()
                ),
            ));
        }
        let controller = Controller::new(&config)?;
        let mut cluster = Cluster::new(
            config.nodes.clone(),
            NetConfig::default().with_delay(config.delay),
            config.seed,
        )?;
        let n = config.nodes.len();
        let nodes = (0..n)
            .map(|me| {
                let mut node = IsrNode::new(me, n, controller.leader(), config.retention);
                node.planted = config.planted;
                node.decide = config.decisions;
                node
            })
            .collect();
        record!(
            cluster.trace,
            0,
            "isr_group_started",
            nodes = config.nodes.clone(),
            leader = &config.leader,
            leader_epoch = 1u64,
            controller_epoch = 1u64,
            min_insync_replicas = config.min_insync_replicas,
            replica_lag_timeout = config.replica_lag_timeout,
            retention = config.retention,
            seed = config.seed
        );
        Ok(IsrGroup {
            config,
            cluster,
            nodes,
            controller,
            pending: Vec::new(),
            settling: Vec::new(),
            answered: None,
            facts: Vec::with_capacity(n),
            out: Vec::new(),
            decided: Vec::new(),
            tick_checks: false,
            violation: None,
            verified: std::cell::RefCell::default(),
        })
    }

    /// The configuration the group was built from.
    #[must_use]
    pub fn config(&self) -> &IsrConfig {
        &self.config
    }

    /// A typed snapshot of the controller and every replica (copies logs
    /// and maps: for tests and experiments, not hot paths).
    #[must_use]
    pub fn probe(&self) -> IsrProbe {
        inspect::probe(&self.controller, &self.nodes, &self.cluster)
    }

    /// Checks, in O(log length × nodes²) (a test aid, not a hot path), the
    /// state-based safety invariants of SPEC §6:
    /// 2. entries at or below both nodes' applied HW are identical, and
    ///    every node's `committed_data` is exactly its log through
    ///    `applied_hw`; every alive ISR member holds the leader's entries
    ///    through HW;
    /// 3. a follower confirmed in the current epoch holds exactly the
    ///    leader's entries up to its confirmed end;
    /// 4. the retained window lies inside the leader's own log;
    ///
    /// plus HW ≤ leader log end, `applied_hw` ≤ HW and `applied_hw` ≤ the
    /// node's own log end. After an unclean election, a replica not
    /// confirmed by a leader since is exempt from the cross-node checks
    /// (it still holds the committed view the election threw away) until it
    /// resynchronises. (Monotonicity of HW / `applied_hw` and the survival
    /// of acknowledged writes need history; the integration tests track
    /// those across probes.) Returns the first violation found.
    pub fn check_invariants(&self) -> Result<(), String> {
        invariants::check_with(
            &self.controller,
            &self.nodes,
            &self.cluster,
            &mut self.verified.borrow_mut(),
        )
    }

    /// Turns on (or off) running [`IsrGroup::check_invariants`] after every
    /// tick, including the ticks an `AllIsr` write drives while it waits.
    /// Costs O(log) per tick: a test aid, off by default.
    pub fn set_invariant_checks(&mut self, on: bool) {
        self.tick_checks = on;
    }

    /// The first invariant violation a per-tick check found, if any.
    #[must_use]
    pub fn invariant_violation(&self) -> Option<&str> {
        self.violation.as_deref()
    }

    /// True when the controller's leader is alive and in the ISR.
    pub(crate) fn leader_available(&self) -> bool {
        let l = self.controller.leader();
        self.controller.leader_available(self.cluster.is_alive(l))
    }

    /// ISR members' ids, by id (for messages).
    pub(crate) fn isr_ids(&self) -> Vec<NodeId> {
        let ids = self.cluster.ids();
        self.controller
            .isr()
            .into_iter()
            .map(|i| ids[i].clone())
            .collect()
    }

    /// Replica `i` as the controller sees it now, `leader` leading
    /// `epoch`. Inlined: returned through the stack from a call, the
    /// struct's fields, written one by one, were read back as two wide
    /// loads that waited on those stores (a third of
    /// [`IsrGroup::gather_facts`]' time, sampled with `perf`).
    #[inline(always)]
    fn facts_of(&self, i: usize, leader: usize, epoch: u64) -> ReplicaFacts {
        let node = &self.nodes[i];
        ReplicaFacts {
            alive: self.cluster.is_alive(i),
            isolated: self.cluster.is_isolated(i),
            slow: self.cluster.is_slow(i),
            linked_to_leader: i == leader || self.cluster.linked(i, leader),
            log_end_offset: node.log_end_offset(),
            confirmed_log_end: node.confirmed_log_end(epoch),
        }
    }

    /// Refills [`IsrGroup::facts`] from the harness and the nodes.
    pub(crate) fn gather_facts(&mut self) {
        let (leader, epoch) = (self.controller.leader(), self.controller.leader_epoch());
        let mut facts = std::mem::take(&mut self.facts);
        facts.resize(self.nodes.len(), ReplicaFacts::default());
        for (i, slot) in facts.iter_mut().enumerate() {
            *slot = self.facts_of(i, leader, epoch);
        }
        self.facts = facts;
    }

    /// Runs `step` on node `i` and carries out what it asked for.
    pub(crate) fn on_node(&mut self, i: usize, step: impl FnOnce(&mut IsrNode, &mut Vec<Output>)) {
        let mut out = std::mem::take(&mut self.out);
        step(&mut self.nodes[i], &mut out);
        self.dispatch(i, &mut out);
        self.out = out;
    }

    /// Sends and records what node `from` asked for, in order; a served
    /// fetch then starts that follower's catch-up.
    pub(crate) fn dispatch(&mut self, from: usize, out: &mut Vec<Output>) {
        let now = self.cluster.now();
        let mut resync = None;
        for output in out.drain(..) {
            match output {
                Output::Send { to, msg } => {
                    self.cluster.send(from, to, msg);
                    if !self.cluster.is_alive(to) {
                        // A broker that is down accepts no connection: the
                        // send fails at once, so a restart before the
                        // delivery tick cannot resurrect it. (Nothing else
                        // is in flight to or from a down node: its crash
                        // discarded it all.)
                        self.cluster
                            .discard_in_flight(to, "receiver_down", |_| true);
                    }
                }
                Output::Event(event) => {
                    if let NodeEvent::FetchReceived {
                        follower,
                        served: true,
                        ..
                    } = event
                    {
                        resync = Some(follower);
                    }
                    if self.cluster.trace.is_enabled() {
                        let ids = Arc::clone(self.cluster.ids());
                        let node = &self.nodes[from];
                        events::record_node(&mut self.cluster.trace, &ids, now, node, &event);
                    }
                }
            }
        }
        if let Some(follower) = resync {
            self.resync(follower);
        }
    }

    /// Records changes the controller made.
    pub(crate) fn record_decided(&mut self, decided: &[ControllerEvent]) {
        if !self.cluster.trace.is_enabled() {
            return;
        }
        let now = self.cluster.now();
        let ids = Arc::clone(self.cluster.ids());
        for event in decided {
            events::record_controller(&mut self.cluster.trace, &ids, now, &self.controller, event);
        }
    }

    /// One tick: deliver everything due, refresh ISR, HW and lease, then
    /// re-evaluate every pending write.
    pub(crate) fn step_tick(&mut self) {
        // The state lines of the tick ending now (its messages and the
        // calls made since), noted at that tick.
        if self.cluster.states_due() {
            replication::ReplicationGroup::note_states(self);
        }
        self.cluster.advance();
        while let Some(d) = self.cluster.next_delivery() {
            self.on_node(d.to, |node, out| node.step(d.from, d.msg, out));
        }
        self.refresh();
        self.settle_pending();
        if self.tick_checks
            && self.violation.is_none()
            && let Err(v) = self.check_invariants()
        {
            self.violation = Some(format!("tick {}: {v}", self.cluster.now()));
        }
    }

    /// Ticks until no message is in flight, at most `max_ticks` times.
    pub(crate) fn run_idle(&mut self, max_ticks: u64) -> Result<u64, GroupError> {
        let mut ticks = 0;
        while self.cluster.in_flight() > 0 {
            if ticks >= max_ticks {
                return Err(GroupError::NotIdle {
                    ticks: max_ticks,
                    waiting_for: format!("{} messages in flight", self.cluster.in_flight()),
                });
            }
            self.step_tick();
            ticks += 1;
        }
        Ok(ticks)
    }

    /// The controller's per-tick work, then every alive replica applies the
    /// high watermark it may.
    pub(crate) fn refresh(&mut self) {
        let now = self.cluster.now();
        self.gather_facts();
        let mut decided = std::mem::take(&mut self.decided);
        if self.controller.refresh(now, &self.facts, &mut decided) {
            self.record_decided(&decided);
            for (j, node) in self.nodes.iter_mut().enumerate() {
                if let Some(hw) = self.controller.replica_high_watermark(j, &self.facts) {
                    node.apply_high_watermark(hw);
                }
            }
        }
        decided.clear();
        self.decided = decided;
    }

    /// The controller tells replica `j` the leader and epoch, if it can
    /// reach it.
    pub(crate) fn notify(&mut self, j: usize) {
        let (leader, epoch) = (self.controller.leader(), self.controller.leader_epoch());
        if !self.controller.reaches(&self.facts_of(j, leader, epoch)) {
            return;
        }
        if j == leader && !self.controller.leader_available(self.cluster.is_alive(j)) {
            // The controller's leader is out of the ISR (it restarted
            // without the committed prefix): it must not lead. Told that it
            // leads, a leader that lost its log to a power loss and was cut
            // off appended in its old epoch at an offset that held a
            // committed entry of that epoch (explorer seed 74702).
            self.nodes[j].awaiting_controller = true;
            return;
        }
        self.on_node(j, |node, out| node.learn_leader(leader, epoch, out));
    }

    /// The leader starts follower `j`'s catch-up, if the controller lets it.
    pub(crate) fn resync(&mut self, j: usize) {
        self.gather_facts();
        if !self.controller.should_resync(j, &self.facts) {
            return;
        }
        let l = self.controller.leader();
        debug_assert_eq!(
            (self.nodes[l].leader_epoch(), self.nodes[l].high_watermark()),
            (
                self.controller.leader_epoch(),
                self.controller.high_watermark()
            ),
            "the controller's available leader knows its epoch and applies HW"
        );
        let mut out = std::mem::take(&mut self.out);
        self.nodes[l].catch_up(j, self.nodes[j].log(), &mut out);
        self.dispatch(l, &mut out);
        self.out = out;
    }

    /// Carries out an election of `candidate`: the controller decides, the
    /// candidate takes office, every reachable replica learns of it, and
    /// every follower the controller lets is resynchronised.
    pub(crate) fn elect(&mut self, candidate: usize, reason: ElectionReason) {
        let now = self.cluster.now();
        self.gather_facts();
        let election = self.controller.elect(now, candidate, reason, &self.facts);
        let ids = Arc::clone(self.cluster.ids());
        events::record_unclean(&mut self.cluster.trace, &ids, now, &election);
        let (epoch, hw) = (election.leader_epoch, election.high_watermark);
        self.on_node(candidate, |node, out| node.become_leader(epoch, hw, out));
        self.cluster.lift_slow(candidate);
        if let Some(displaced) = &election.displaced {
            self.record_decided(std::slice::from_ref(displaced));
        }
        events::record_elected(&mut self.cluster.trace, &ids, now, &election);
        for j in 0..self.nodes.len() {
            self.notify(j);
        }
        for j in 0..self.nodes.len() {
            self.resync(j);
        }
    }

    /// The current tick.
    pub(crate) fn tick_now(&self) -> Tick {
        self.cluster.now()
    }
}

/// A run you can steer: the chapter-mode partition's whole state is its
/// replicas, its controller, its pending ALL_ISR writes and the first
/// violation a per-tick check saw; the scratch buffers and the invariant
/// checker's cache are left out.
impl replication::Steer for IsrGroup {
    fn fork(&self) -> Box<dyn replication::Steer> {
        Box::new(self.clone())
    }

    fn write_state(&self, out: &mut dyn fmt::Write) -> fmt::Result {
        write!(
            out,
            "{:?}|{:?}|{:?}|{:?}|{:?}",
            self.nodes, self.controller, self.pending, self.answered, self.violation
        )
    }

    replication::steer_through_cluster!(cluster);

    fn node_log(&self, node: usize) -> Vec<String> {
        self.nodes.get(node).map_or_else(Vec::new, |n| {
            n.log
                .entries
                .iter()
                .map(|e| {
                    format!(
                        "{} e{} {}={}",
                        e.offset,
                        e.epoch,
                        String::from_utf8_lossy(&e.key),
                        String::from_utf8_lossy(&e.value)
                    )
                })
                .collect()
        })
    }
}
