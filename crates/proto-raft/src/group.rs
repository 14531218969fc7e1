//! [`RaftGroup`]: the nodes on one simulated network. The only place that
//! sends and delivers messages.

use bytes::Bytes;
use replication::{GroupError, WriteResult};
use sim_core::{NetConfig, NodeId, Rng, SimNet, Tick, Trace, record};

use crate::config::RaftConfig;
use crate::message::{Command, Message};
use crate::node::{Output, RaftNode, Role, Timing};

/// A Raft group of [`RaftConfig::nodes`] on one deterministic simulator.
///
/// Drive it through [`ReplicationGroup`](replication::ReplicationGroup) or
/// the Raft-specific helpers below. Everything random (election deadlines)
/// comes from one [`Rng`] seeded with [`RaftConfig::seed`].
pub struct RaftGroup {
    pub(crate) config: RaftConfig,
    pub(crate) ids: Vec<NodeId>,
    pub(crate) nodes: Vec<RaftNode>,
    pub(crate) net: SimNet<Message>,
    pub(crate) rng: Rng,
    pub(crate) trace: Trace,
}

impl RaftGroup {
    /// A group of followers at term 0, or [`GroupError::Config`].
    pub fn new(config: RaftConfig) -> Result<Self, GroupError> {
        config.validate()?;
        let net = SimNet::new(NetConfig::default().with_delay(config.delay))?;
        let mut rng = Rng::new(config.seed);
        let timing = Timing {
            election_timeout: config.election_timeout,
            heartbeat: config.heartbeat,
        };
        let cluster = config.nodes.len();
        let nodes = (0..cluster)
            .map(|me| RaftNode::new(me, cluster, timing, 0, &mut rng))
            .collect();
        let mut trace = Trace::new();
        record!(
            trace,
            0,
            "raft_group_started",
            nodes = config.nodes.clone(),
            election_timeout_min = config.election_timeout.0,
            election_timeout_max = config.election_timeout.1,
            heartbeat = config.heartbeat,
            delay = config.delay,
            seed = config.seed
        );
        Ok(RaftGroup {
            ids: config.nodes.clone(),
            config,
            nodes,
            net,
            rng,
            trace,
        })
    }

    /// The configuration the group was built with.
    pub fn config(&self) -> &RaftConfig {
        &self.config
    }

    pub(crate) fn index_of(&self, node: &NodeId) -> Result<usize, GroupError> {
        self.ids
            .iter()
            .position(|id| id == node)
            .ok_or_else(|| GroupError::UnknownNode(node.clone()))
    }

    pub(crate) fn alive_index(&self, node: &NodeId) -> Result<usize, GroupError> {
        let i = self.index_of(node)?;
        if self.nodes[i].alive {
            Ok(i)
        } else {
            Err(GroupError::NodeDown(node.clone()))
        }
    }

    /// Position of the alive leader with the highest term.
    pub(crate) fn leader_index(&self) -> Option<usize> {
        self.nodes
            .iter()
            .filter(|n| n.alive && n.role == Role::Leader)
            .max_by_key(|n| (n.current_term, std::cmp::Reverse(n.me)))
            .map(|n| n.me)
    }

    /// One tick: deliver every message now due, then advance every alive
    /// node's timers.
    pub(crate) fn step_tick(&mut self) {
        let now = self.net.advance();
        while let Some(env) = self.net.next_delivery(&mut self.trace) {
            let (Some(dst), Some(src)) = (
                self.ids.iter().position(|id| *id == env.dst),
                self.ids.iter().position(|id| *id == env.src),
            ) else {
                continue;
            };
            if !self.nodes[dst].alive {
                self.net
                    .record_discard(&env, "receiver_down", &mut self.trace);
                continue;
            }
            let outputs = self.nodes[dst].step(now, src, env.msg, &mut self.rng);
            self.dispatch(dst, now, outputs);
        }
        for i in 0..self.nodes.len() {
            if self.nodes[i].alive {
                let outputs = self.nodes[i].tick(now, &mut self.rng);
                self.dispatch(i, now, outputs);
            }
        }
    }

    pub(crate) fn dispatch(&mut self, from: usize, now: Tick, outputs: Vec<Output>) {
        for output in outputs {
            match output {
                Output::Send { to, msg } => {
                    self.net.send(
                        &self.ids[from],
                        &self.ids[to],
                        msg,
                        &mut self.rng,
                        &mut self.trace,
                    );
                }
                Output::Event(event) => self.record_event(from, now, event),
            }
        }
    }

    /// Appends `key = value` at the current leader and replicates it
    /// without waiting; returns the leader and the entry's index. The
    /// building block of `client_write` and of step-by-step tests.
    pub fn propose(&mut self, key: Bytes, value: Bytes) -> Result<(NodeId, u64), GroupError> {
        let leader = self
            .leader_index()
            .ok_or_else(|| GroupError::NoLeader("no alive node is leader".into()))?;
        let node = self.ids[leader].clone();
        let index = self.propose_at(&node, key, value)?;
        Ok((node, index))
    }

    /// Appends `key = value` at `node`, which must be alive and believe it
    /// is leader (a deposed leader in a minority still does), and
    /// replicates it without waiting. Returns the entry's index.
    pub fn propose_at(
        &mut self,
        node: &NodeId,
        key: Bytes,
        value: Bytes,
    ) -> Result<u64, GroupError> {
        let i = self.alive_index(node)?;
        if self.nodes[i].role != Role::Leader {
            return Err(GroupError::not_permitted(
                node,
                format!(
                    "{node} is a {} in term {}, not leader",
                    self.nodes[i].role, self.nodes[i].current_term
                ),
            ));
        }
        let now = self.now_tick();
        let mut outputs = Vec::new();
        let index = self.nodes[i]
            .propose(
                now,
                Command::Set {
                    key: key.clone(),
                    value: value.clone(),
                },
                &mut outputs,
            )
            .expect("a live leader always accepts a proposal");
        record!(
            self.trace,
            now,
            "raft_write_proposed",
            node = node,
            term = self.nodes[i].current_term,
            index = index,
            key = key,
            value = value
        );
        self.dispatch(i, now, outputs);
        Ok(index)
    }

    /// QUORUM write at the named `node` (see [`RaftGroup::propose_at`]):
    /// drives ticks until the entry is committed in the proposer's term, or
    /// [`RaftConfig::client_timeout`] ticks pass (`accepted = false`).
    pub fn write_at(
        &mut self,
        node: &NodeId,
        key: Bytes,
        value: Bytes,
    ) -> Result<WriteResult, GroupError> {
        let index = self.propose_at(node, key, value)?;
        let i = self.index_of(node)?;
        let term = self.nodes[i].current_term;
        let timeout = self.config.client_timeout();
        for _ in 0..timeout {
            self.step_tick();
            let n = &self.nodes[i];
            if n.term_at(index) != Some(term) {
                break; // overwritten by a newer leader
            }
            if n.commit_index >= index {
                let now = self.now_tick();
                record!(
                    self.trace,
                    now,
                    "raft_write_committed",
                    node = node,
                    term = term,
                    index = index
                );
                return Ok(WriteResult::accepted(
                    index,
                    format!("committed at index {index} in term {term} by a majority"),
                ));
            }
        }
        let now = self.now_tick();
        let n = &self.nodes[i];
        let reason = if n.term_at(index) != Some(term) {
            format!("entry {index} of term {term} was overwritten by a newer leader")
        } else if n.role != Role::Leader || n.current_term != term {
            format!("{node} lost leadership of term {term} before entry {index} committed")
        } else {
            format!(
                "entry {index} of term {term} not committed by a majority within {timeout} ticks"
            )
        };
        record!(
            self.trace,
            now,
            "raft_write_refused",
            node = node,
            term = term,
            index = index,
            reason = reason.clone()
        );
        Ok(WriteResult::refused(Some(index), reason))
    }

    pub(crate) fn now_tick(&self) -> Tick {
        self.net.now()
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
            if let Some(l) = self.leader_index() {
                if exclude != Some(&self.ids[l]) {
                    return Ok(self.ids[l].clone());
                }
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
    /// left*: no alive node holds an uncommitted or unapplied entry, every
    /// alive node the leader can reach both ways has the leader's log end
    /// and commit index, and no message other than heartbeat traffic is in
    /// flight.
    pub fn is_idle(&self) -> bool {
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
                let linked = !self.net.is_cut(&self.ids[l], &self.ids[n.me])
                    && !self.net.is_cut(&self.ids[n.me], &self.ids[l]);
                linked
                    && (n.last_index() != lead.last_index() || n.commit_index != lead.commit_index)
            });
            if reachable_behind {
                return false;
            }
        }
        !self
            .net
            .pending()
            .any(|env| !env.msg.is_heartbeat_traffic())
    }

    /// Cuts both directions between `a` and `b` (a partial partition).
    pub fn partition(&mut self, a: &NodeId, b: &NodeId) -> Result<(), GroupError> {
        self.index_of(a)?;
        self.index_of(b)?;
        self.net.partition_both(a, b);
        let now = self.now_tick();
        record!(self.trace, now, "raft_link_cut", a = a, b = b);
        Ok(())
    }

    /// Restores every link.
    pub fn heal_all(&mut self) {
        self.net.heal_all();
        let now = self.now_tick();
        record!(self.trace, now, "raft_all_healed");
    }
}
