//! [`RaftGroup`]: the nodes on one simulated network. The only place that
//! sends and delivers messages.

use std::fmt;

use bytes::Bytes;
use replication::{AckLevel, ClientOp, Cluster, GroupError, ReplicationGroup, WriteResult};
use sim_core::{NetConfig, NodeId, Tick, record};

use crate::client::{Clients, append_proposal, leading_index};
use crate::config::RaftConfig;
use crate::events::{dispatch, dispatch_all};
use crate::invariants::InvariantChecker;
use crate::message::Message;
use crate::node::{RaftNode, Role, Timing, highest_term_leader};
use crate::probe::{self, RaftProbe};

/// A Raft group of [`RaftConfig::nodes`] on one deterministic simulator.
///
/// Drive it through [`ReplicationGroup`](replication::ReplicationGroup) or
/// the Raft-specific helpers below. Everything random (election deadlines)
/// comes from one [`Rng`](sim_core::Rng) seeded with [`RaftConfig::seed`].
#[derive(Clone)]
pub struct RaftGroup {
    pub(crate) config: RaftConfig,
    /// Ids, network, rng, trace, client operations and faults.
    pub(crate) cluster: Cluster<Message>,
    pub(crate) nodes: Vec<RaftNode>,
    /// Client operations accepted and not yet completed.
    pub(crate) clients: Clients,
    /// The nodes' outputs of one step, emptied as they are carried out
    /// (kept to reuse its allocation).
    out: Vec<crate::node::Output>,
}

impl fmt::Debug for RaftGroup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RaftGroup")
            .field("tick", &self.now_tick())
            .field("leader", &self.leader_index().map(|i| self.cluster.id(i)))
            .field("nodes", &self.nodes.len())
            .field("in_flight", &self.clients.len())
            .finish_non_exhaustive()
    }
}

impl RaftGroup {
    /// A group of followers at term 0, or [`GroupError::Config`].
    pub fn new(config: RaftConfig) -> Result<Self, GroupError> {
        config.validate()?;
        let mut cluster = Cluster::new(
            config.nodes.clone(),
            NetConfig::default().with_delay(config.delay),
            config.seed,
        )?;
        let timing = Timing {
            election_timeout: config.election_timeout,
            heartbeat: config.heartbeat,
            pre_vote: config.pre_vote,
            check_quorum: config.check_quorum,
            snapshot_threshold: config.snapshot_threshold,
            max_append_entries: config.max_append_entries,
            planted: config.planted,
            decisions: config.decisions,
        };
        let size = config.nodes.len();
        let nodes = (0..size)
            .map(|me| RaftNode::new(me, size, timing, 0, &mut cluster.rng))
            .collect();
        record!(
            cluster.trace,
            0,
            "raft_group_started",
            nodes = config.nodes.clone(),
            election_timeout_min = config.election_timeout.0,
            election_timeout_max = config.election_timeout.1,
            heartbeat = config.heartbeat,
            delay = config.delay,
            seed = config.seed
        );
        if config.pre_vote || config.check_quorum || config.snapshot_threshold.is_some() {
            // Only beyond textbook Raft, so textbook traces stay as they were.
            record!(
                cluster.trace,
                0,
                "raft_features",
                pre_vote = config.pre_vote,
                check_quorum = config.check_quorum,
                leadership_transfer = config.leadership_transfer,
                snapshot_threshold = config.snapshot_threshold
            );
        }
        Ok(RaftGroup {
            clients: Clients::new(config.client_timeout()),
            config,
            cluster,
            nodes,
            out: Vec::new(),
        })
    }

    /// The configuration the group was built with.
    #[must_use]
    pub fn config(&self) -> &RaftConfig {
        &self.config
    }

    pub(crate) fn index_of(&self, node: &NodeId) -> Result<usize, GroupError> {
        self.cluster.index(node)
    }

    pub(crate) fn alive_index(&self, node: &NodeId) -> Result<usize, GroupError> {
        self.cluster.alive_index(node)
    }

    /// Position of the alive leader with the highest term.
    pub(crate) fn leader_index(&self) -> Option<usize> {
        highest_term_leader(&self.nodes)
    }

    /// One tick: send what leaders were proposed since the last tick (at
    /// the old tick), advance the clock, deliver every message now due,
    /// advance every alive node's timers, then judge every operation in
    /// flight.
    pub(crate) fn step_tick(&mut self) {
        // The state lines of the tick ending now (its messages and the
        // calls made since), noted at that tick.
        if self.cluster.states_due() {
            replication::ReplicationGroup::note_states(self);
        }
        self.flush_proposals();
        let now = self.cluster.advance();
        let mut out = std::mem::take(&mut self.out);
        while let Some(d) = self.cluster.next_delivery() {
            self.nodes[d.to].step_into(now, d.from, d.msg, &mut self.cluster.rng, &mut out);
            dispatch_all(&mut self.cluster, d.to, now, &mut out);
        }
        for i in 0..self.nodes.len() {
            if self.cluster.is_alive(i) && self.cluster.timers_fire(i) {
                self.nodes[i].tick_into(now, &mut self.cluster.rng, &mut out);
                dispatch_all(&mut self.cluster, i, now, &mut out);
            }
        }
        self.cluster.timers_spent();
        self.out = out;
        self.clients.settle(&mut self.cluster, &mut self.nodes, now);
    }

    /// Every leader sends the entries proposed since the last flush, one
    /// AppendEntries per follower for all of them.
    fn flush_proposals(&mut self) {
        let now = self.now_tick();
        for i in 0..self.nodes.len() {
            if self.nodes[i].unsent_proposals {
                let mut outputs = Vec::new();
                self.nodes[i].flush_proposals(now, &mut outputs);
                self.dispatch(i, now, outputs);
            }
        }
    }

    pub(crate) fn dispatch(&mut self, from: usize, now: Tick, outputs: Vec<crate::node::Output>) {
        dispatch(&mut self.cluster, from, now, outputs);
    }

    /// Appends `key = value` at the current leader without waiting and
    /// without a client op; returns the leader and the entry's index. It is
    /// sent with the next tick, batched with every other entry proposed
    /// before it. The building block of step-by-step tests.
    pub fn propose(&mut self, key: Bytes, value: Bytes) -> Result<(NodeId, u64), GroupError> {
        let leader = self
            .leader_index()
            .ok_or_else(|| GroupError::NoLeader("no alive node is leader".into()))?;
        let node = self.cluster.id(leader).clone();
        let index = self.propose_at(&node, key, value)?;
        Ok((node, index))
    }

    /// Appends `key = value` at `node`, which must be alive and believe it
    /// is leader (a deposed leader in a minority still does), without
    /// waiting and without a client op. Returns the entry's index.
    pub fn propose_at(
        &mut self,
        node: &NodeId,
        key: Bytes,
        value: Bytes,
    ) -> Result<u64, GroupError> {
        let i = leading_index(&self.cluster, &self.nodes, node)?;
        Ok(append_proposal(
            &mut self.cluster,
            &mut self.nodes,
            i,
            key,
            value,
        ))
    }

    /// A write at the named `node` (alive and believing it leads; a deposed
    /// leader in a minority still does): `submit` of
    /// `ClientOp::write(key, value, level).at(node)`, then
    /// `await_completion`. Only `Quorum` is supported
    /// ([`GroupError::UnsupportedAck`] otherwise). Accepted once the entry is committed in the
    /// proposer's term; refused (with its index) when the proposer crashes,
    /// loses leadership or sees the entry overwritten first, or after
    /// [`RaftConfig::client_timeout`] ticks.
    pub fn write_at(
        &mut self,
        node: &NodeId,
        key: Bytes,
        value: Bytes,
        level: AckLevel,
    ) -> Result<WriteResult, GroupError> {
        let id = self.submit(ClientOp::write(key, value, level).at(node))?;
        self.await_completion(id)?.outcome.into_write_result()
    }

    /// `Some(why)` when the network breaks Raft's timing assumption: its
    /// worst delay (with reordering) makes a heartbeat round, 2 × delay +
    /// heartbeat, no shorter than the lowest election timeout.
    pub(crate) fn outside_timing(&self) -> Option<String> {
        let net = self.cluster.net_config();
        let worst = net.max_delay
            + if net.reorder_rate > 0.0 {
                net.reorder_jitter
            } else {
                0
            };
        let round = 2 * worst + self.config.heartbeat;
        (round >= self.config.election_timeout.0).then(|| {
            format!(
                "no leader, and the network is outside Raft's timing assumption: a heartbeat round (2 x {worst} + {} ticks) is not shorter than the lowest election timeout ({} ticks)",
                self.config.heartbeat, self.config.election_timeout.0
            )
        })
    }

    pub(crate) fn now_tick(&self) -> Tick {
        self.cluster.now()
    }

    /// Ticks until an alive leader other than `exclude` exists (checked
    /// before the first tick too); returns it, or [`GroupError::NotIdle`]
    /// after `max_ticks`.
    pub fn run_until_leader(
        &mut self,
        exclude: Option<&NodeId>,
        max_ticks: u64,
    ) -> Result<NodeId, GroupError> {
        if let Some(node) = exclude {
            self.index_of(node)?;
        }
        let mut ticks = 0;
        loop {
            if let Some(l) = self.leader_index()
                && exclude != Some(self.cluster.id(l))
            {
                return Ok(self.cluster.id(l).clone());
            }
            if ticks >= max_ticks {
                return Err(GroupError::NotIdle {
                    ticks: max_ticks,
                    waiting_for: match exclude {
                        Some(node) => format!("a leader other than {node}"),
                        None => "a leader".into(),
                    },
                });
            }
            self.step_tick();
            ticks += 1;
        }
    }

    /// True when a leader exists and every alive node holds the same log
    /// end, commit index, applied index and data.
    #[must_use]
    pub fn is_converged(&self) -> bool {
        let Some(l) = self.leader_index() else {
            return false;
        };
        let lead = &self.nodes[l];
        self.nodes.iter().filter(|n| n.alive).all(|n| {
            n.last_index() == lead.last_index()
                && n.last_term() == lead.last_term()
                && n.commit_index == lead.commit_index
                && n.last_applied == n.commit_index
                && n.data == lead.data
        })
    }

    /// Ticks until [`RaftGroup::is_converged`]; returns the ticks taken or
    /// [`GroupError::NotIdle`] after `max_ticks`.
    pub fn run_until_converged(&mut self, max_ticks: u64) -> Result<u64, GroupError> {
        let mut ticks = 0;
        while !self.is_converged() {
            if ticks >= max_ticks {
                return Err(GroupError::NotIdle {
                    ticks: max_ticks,
                    waiting_for: "alive nodes to share log, commit index and data under a leader"
                        .into(),
                });
            }
            self.step_tick();
            ticks += 1;
        }
        Ok(ticks)
    }

    /// Raft's idle: heartbeats never stop, so idle means *no protocol work
    /// left*: no client operation in flight, no alive node holds an uncommitted or unapplied entry, every
    /// alive node the leader can reach both ways has the leader's log end
    /// and commit index, and no message other than heartbeat traffic is in
    /// flight.
    #[must_use]
    pub fn is_idle(&self) -> bool {
        if !self.clients.is_empty() {
            return false;
        }
        let settled = self
            .nodes
            .iter()
            .filter(|n| n.alive)
            .all(|n| n.commit_index == n.last_index() && n.last_applied == n.commit_index);
        if !settled {
            return false;
        }
        if let Some(l) = self.leader_index() {
            let lead = &self.nodes[l];
            let reachable_behind = self.nodes.iter().filter(|n| n.alive).any(|n| {
                self.cluster.linked(l, n.me)
                    && (n.last_index() != lead.last_index() || n.commit_index != lead.commit_index)
            });
            if reachable_behind {
                return false;
            }
        }
        !self
            .cluster
            .any_in_flight(|msg| !msg.is_heartbeat_traffic())
    }

    /// Starts handing leadership from the current leader to `target`
    /// without waiting (thesis §3.10): the leader catches `target` up, then
    /// sends it TimeoutNow; it abandons the transfer after the highest
    /// election timeout. Returns the leader that was asked.
    ///
    /// Refused, with nothing recorded and nothing changed, when leadership
    /// transfer is off ([`GroupError::NotPermitted`]), `target` is unknown
    /// ([`GroupError::UnknownNode`]) or down ([`GroupError::NodeDown`]),
    /// there is no leader ([`GroupError::NoLeader`]), or a link between the
    /// leader and `target` is cut ([`GroupError::NotPermitted`]). A target
    /// that already leads is accepted and nothing is started.
    pub fn transfer_leadership(&mut self, target: &NodeId) -> Result<NodeId, GroupError> {
        let t = self.index_of(target)?;
        if !self.config.leadership_transfer {
            return Err(GroupError::not_permitted(
                target,
                "leadership transfer is off (RaftConfig::with_leadership_transfer); call failover(None) and let the election run",
            ));
        }
        if !self.nodes[t].alive {
            return Err(GroupError::NodeDown(target.clone()));
        }
        let l = self
            .leader_index()
            .ok_or_else(|| GroupError::NoLeader("no alive node is leader to hand over".into()))?;
        let leader = self.cluster.id(l).clone();
        if l == t {
            return Ok(leader);
        }
        if !self.cluster.linked(l, t) {
            return Err(GroupError::not_permitted(
                target,
                format!("{target} is cut off from leader {leader}: it could not be caught up"),
            ));
        }
        let now = self.now_tick();
        let mut outputs = Vec::new();
        self.nodes[l].start_transfer(now, t, &mut outputs);
        self.dispatch(l, now, outputs);
        Ok(leader)
    }

    /// [`RaftGroup::transfer_leadership`], then ticks until `target` leads.
    /// [`GroupError::NotIdle`] when the leader abandons the transfer, or
    /// after twice the highest election timeout.
    pub(crate) fn transfer_and_wait(&mut self, target: &NodeId) -> Result<NodeId, GroupError> {
        let leader = self.transfer_leadership(target)?;
        let (l, t) = (self.index_of(&leader)?, self.index_of(target)?);
        let term = self.nodes[l].current_term;
        let bound = self.config.election_timeout.1.saturating_mul(2);
        for ticks in 0..=bound {
            if self.leader_index() == Some(t) {
                return Ok(target.clone());
            }
            let old = &self.nodes[l];
            if old.alive
                && old.role == Role::Leader
                && old.current_term == term
                && old.transfer.is_none()
                && l != t
            {
                return Err(GroupError::NotIdle {
                    ticks,
                    waiting_for: format!(
                        "leadership transfer from {leader} to {target}, abandoned by {leader} after an election timeout"
                    ),
                });
            }
            if ticks < bound {
                self.step_tick();
            }
        }
        Err(GroupError::NotIdle {
            ticks: bound,
            waiting_for: format!("{target} to lead after a leadership transfer from {leader}"),
        })
    }

    /// Cuts both directions between `a` and `b` (a partial partition).
    pub fn partition(&mut self, a: &NodeId, b: &NodeId) -> Result<(), GroupError> {
        self.cluster.partition(a, b)
    }

    /// Restores every link.
    pub fn heal_all(&mut self) {
        self.cluster.heal_all();
    }

    /// A typed snapshot of every node (clones logs and maps: not for hot
    /// paths).
    #[must_use]
    pub fn probe(&self) -> RaftProbe {
        probe::build(&self.cluster, &self.nodes)
    }

    /// The stateless part of [`InvariantChecker`] on the current state (one
    /// leader per term among current leaders, log matching, commit
    /// consistency); keep an [`InvariantChecker`] across steps for the
    /// history-dependent properties.
    pub fn check_invariants(&self) -> Result<(), String> {
        thread_local! {
            // One checker per thread, forgotten before each use: its
            // memory is kept (this runs after every step of a search).
            static SCRATCH: std::cell::RefCell<InvariantChecker> =
                std::cell::RefCell::default();
        }
        SCRATCH.with(|checker| match checker.try_borrow_mut() {
            Ok(mut checker) => {
                checker.forget();
                checker.check(self)
            }
            Err(_) => InvariantChecker::new().check(self),
        })
    }
}

impl InvariantChecker {
    /// Checks `group` now; the error describes the first violation found.
    pub fn check(&mut self, group: &RaftGroup) -> Result<(), String> {
        self.check_nodes(
            group.cluster.ids(),
            &group.nodes,
            group.cluster.now(),
            group.cluster.timers_may_be_overdue(),
        )
    }
}

/// A run you can steer: the group's whole state is its servers and the
/// client operations it has accepted and not yet completed.
impl replication::Steer for RaftGroup {
    fn fork(&self) -> Box<dyn replication::Steer> {
        Box::new(self.clone())
    }

    fn write_state(&self, out: &mut dyn fmt::Write) -> fmt::Result {
        write!(out, "{:?}|{:?}", self.nodes, self.clients)
    }

    /// The same servers and client table, hashed as derived (no text).
    fn hash_state(&self, hasher: &mut replication::StateHasher) {
        std::hash::Hash::hash(&self.nodes, hasher);
        std::hash::Hash::hash(&self.clients, hasher);
    }

    /// While held, the state up to time (see `timeless.rs`): the
    /// nodes and client table with their times as distances from now,
    /// the harness without its tick and generator (which draws only
    /// election deadlines). Once let go, time runs by itself again: the
    /// whole state.
    fn hash_timeless(&self, hasher: &mut replication::StateHasher) {
        if !self.chooses_timers() {
            replication::hash_whole_state(self, hasher);
            return;
        }
        let now = self.cluster.now();
        for node in &self.nodes {
            node.hash_timeless(now, hasher);
        }
        self.clients.hash_timeless(now, hasher);
        let _ = std::fmt::Write::write_char(hasher, '\u{1}');
        self.cluster.hash_harness_timeless(hasher);
    }

    replication::steer_through_cluster!(cluster, hashed);

    fn node_log(&self, node: usize) -> Vec<String> {
        let Some(n) = self.nodes.get(node) else {
            return Vec::new();
        };
        let first = n.snapshot.index;
        let mut lines = Vec::with_capacity(n.log.len());
        if first > 0 {
            lines.push(format!("≤{first} snapshot t{}", n.snapshot.term));
        }
        lines.extend(n.log.iter().enumerate().skip(1).map(|(k, e)| {
            let what = match &e.command {
                crate::message::Command::Noop => "no-op".to_string(),
                crate::message::Command::Set { key, value } => format!(
                    "{}={}",
                    String::from_utf8_lossy(key),
                    String::from_utf8_lossy(value)
                ),
            };
            format!("{} t{} {what}", first + k as u64, e.term)
        }));
        lines
    }

    fn timers(&self) -> Vec<replication::ArmedTimer> {
        let now = self.cluster.now();
        self.nodes
            .iter()
            .enumerate()
            .filter(|(i, _)| self.cluster.is_alive(*i))
            .flat_map(|(i, n)| {
                n.timers()
                    .into_iter()
                    .map(move |t| replication::ArmedTimer {
                        node: i,
                        label: t.label,
                        due_in: t.due.saturating_sub(now),
                    })
            })
            .collect()
    }

    fn expire(&mut self, node: usize) -> Result<(), GroupError> {
        let now = self.cluster.now();
        let Some(id) = self.cluster.ids().get(node).cloned() else {
            return Err(GroupError::config(
                "node",
                format!("no node #{node} in a group of {}", self.nodes.len()),
            ));
        };
        if !self.cluster.is_alive(node) || !self.nodes[node].expire(now) {
            return Err(GroupError::not_permitted(
                &id,
                "no timer is armed (it is down)",
            ));
        }
        self.cluster.choose_timer(node);
        Ok(())
    }

    fn chooses_timers(&self) -> bool {
        self.cluster.is_holding()
    }

    /// The invariants are checked by a checker that has seen nothing (see
    /// [`RaftGroup::check_invariants`]): what a node once held as
    /// committed and then truncated it keeps itself.
    fn invariants_are_stateless(&self) -> bool {
        true
    }
}
