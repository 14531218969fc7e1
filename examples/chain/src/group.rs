//! [`ChainGroup`]: the chain on the shared harness. It delivers, ticks the
//! nodes, carries out the master's reconfigurations and judges client
//! operations; every protocol decision is a node's or the master's.

use std::fmt;

use bytes::Bytes;
use replication::{
    AckLevel, ClientOp, Cluster, Completion, GroupError, GroupSummary, NodeSummary, OpId, Outcome,
    Output, ReadLevel, ReadResult, ReplicationGroup, Tick, Trace,
};
use sim_core::{NetConfig, NodeId, record};

use crate::master::Master;
use crate::message::ChainMsg;
use crate::node::{ChainEvent, ChainNode, ChainOutput};

/// Ticks an `ALL_ISR` write waits for the tail.
pub const ACK_TIMEOUT: u64 = 32;

/// A write waiting for the tail.
#[derive(Debug, Clone)]
struct PendingWrite {
    id: OpId,
    op: ClientOp,
    submitted: Tick,
    head: usize,
    epoch: u64,
    seq: u64,
}

/// A chain of nodes on one simulator: head → … → tail.
#[derive(Clone)]
pub struct ChainGroup {
    cluster: Cluster<ChainMsg>,
    nodes: Vec<ChainNode>,
    master: Master,
    pending: Vec<PendingWrite>,
}

impl fmt::Debug for ChainGroup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChainGroup")
            .field("tick", &self.cluster.now())
            .field("chain", &self.master.chain)
            .field("epoch", &self.master.epoch)
            .finish_non_exhaustive()
    }
}

impl ChainGroup {
    /// A chain of `nodes` (at least two, distinct), seeded with `seed`.
    pub fn new(nodes: Vec<NodeId>, seed: u64) -> Result<ChainGroup, GroupError> {
        replication::validate_node_ids("nodes", &nodes, 2)?;
        let mut cluster = Cluster::new(nodes.clone(), NetConfig::default(), seed)?;
        let master = Master::new(nodes.len());
        record!(
            cluster.trace,
            0,
            "chain_group_started",
            nodes = nodes.clone(),
            epoch = 1u64,
            seed = seed
        );
        let nodes = (0..nodes.len())
            .map(|me| ChainNode::new(me, master.chain.clone()))
            .collect();
        Ok(ChainGroup {
            cluster,
            nodes,
            master,
            pending: Vec::new(),
        })
    }

    /// Node `i` is up and the master can reach it.
    fn usable(&self, i: usize) -> bool {
        self.cluster.is_alive(i) && !self.cluster.is_isolated(i)
    }

    fn dispatch(&mut self, from: usize, out: Vec<ChainOutput>) {
        let now = self.cluster.now();
        for o in out {
            match o {
                Output::Send { to, msg } => {
                    self.cluster.send(from, to, msg);
                }
                Output::Event(e) => self.record(from, now, e),
            }
        }
    }

    fn record(&mut self, at: usize, now: Tick, event: ChainEvent) {
        let node = self.cluster.id(at).clone();
        match event {
            ChainEvent::Appended { first, last } => {
                record!(
                    self.cluster.trace,
                    now,
                    "chain_appended",
                    node = &node,
                    first = first,
                    last = last
                )
            }
            ChainEvent::Installed { last } => {
                record!(
                    self.cluster.trace,
                    now,
                    "chain_state_installed",
                    node = &node,
                    last = last
                )
            }
            ChainEvent::Fenced { from, epoch, known } => record!(
                self.cluster.trace,
                now,
                "chain_stale_epoch_rejected",
                node = &node,
                from = self.cluster.id(from).clone(),
                epoch = epoch,
                known_epoch = known
            ),
            ChainEvent::Committed { seq } => {
                record!(
                    self.cluster.trace,
                    now,
                    "chain_committed",
                    node = &node,
                    seq = seq
                )
            }
        }
    }

    fn step_tick(&mut self) {
        let now = self.cluster.advance();
        while let Some(d) = self.cluster.next_delivery() {
            let mut out = Vec::new();
            self.nodes[d.to].step(now, d.from, d.msg, &mut out);
            self.dispatch(d.to, out);
        }
        for i in 0..self.nodes.len() {
            if self.cluster.is_alive(i) {
                let mut out = Vec::new();
                self.nodes[i].tick(now, &mut out);
                self.dispatch(i, out);
            }
        }
        self.settle();
    }

    /// Completes every pending write the head has committed or lost.
    fn settle(&mut self) {
        let now = self.cluster.now();
        let mut k = 0;
        while k < self.pending.len() {
            let p = &self.pending[k];
            let head = &self.nodes[p.head];
            let outcome = if !self.cluster.is_alive(p.head) {
                Some(Outcome::unknown(
                    Some(p.seq),
                    "the head crashed before the tail acknowledged",
                ))
            } else if head.epoch != p.epoch || !head.is_head() {
                Some(Outcome::unknown(
                    Some(p.seq),
                    "the chain was reconfigured before the tail acknowledged",
                ))
            } else if head.committed >= p.seq {
                Some(Outcome::Written {
                    offset: p.seq,
                    message: "at the tail: every node of the chain holds it".into(),
                })
            } else if now >= p.submitted + ACK_TIMEOUT {
                Some(Outcome::unknown(
                    Some(p.seq),
                    format!("not at the tail within {ACK_TIMEOUT} ticks"),
                ))
            } else {
                None
            };
            match outcome {
                Some(outcome) => {
                    let p = self.pending.remove(k);
                    let node = Some(self.cluster.id(p.head).clone());
                    self.cluster
                        .complete(p.id, p.op, p.submitted, node, outcome);
                }
                None => k += 1,
            }
        }
    }

    fn read_at(&mut self, i: usize, key: &Bytes) -> ReadResult {
        let n = &self.nodes[i];
        ReadResult {
            value: n.data.get(key).cloned(),
            node: self.cluster.id(i).clone(),
            offset: n.last(),
        }
    }

    /// The master removes down or unreachable nodes and appends one that
    /// is back; every node it can reach learns the new chain.
    fn reconfigure(&mut self) -> Result<(), GroupError> {
        let usable: Vec<bool> = (0..self.nodes.len()).map(|i| self.usable(i)).collect();
        let Some(r) = self.master.reconfigure(&usable) else {
            return Err(GroupError::NoLeader(format!(
                "chain {:?} has no failed node to remove and no node to add",
                self.names(&self.master.chain)
            )));
        };
        let now = self.cluster.now();
        record!(
            self.cluster.trace,
            now,
            "chain_reconfigured",
            epoch = r.epoch,
            chain = self.names(&r.chain),
            removed = self.names(&r.removed),
            joined = r.joined.map(|j| self.cluster.id(j).clone())
        );
        for (node, _) in self.nodes.iter_mut().zip(&usable).filter(|(_, u)| **u) {
            node.configure(r.epoch, r.chain.clone(), r.joined, now);
        }
        Ok(())
    }

    /// Node `i` is reachable again: the master tells it the current chain
    /// if it missed a reconfiguration, and appends every reachable node
    /// that is not in the chain at the tail (with a state transfer), one
    /// reconfiguration each — a node that returned while no member of the
    /// chain was reachable (nothing to copy from) joins now.
    fn returned(&mut self, i: usize) {
        if !self.usable(i) {
            return;
        }
        if self.master.chain.contains(&i) && self.nodes[i].epoch != self.master.epoch {
            let now = self.cluster.now();
            self.nodes[i].configure(self.master.epoch, self.master.chain.clone(), None, now);
        }
        let outside =
            |g: &Self| (0..g.nodes.len()).any(|n| g.usable(n) && !g.master.chain.contains(&n));
        let source = |g: &Self| g.master.chain.iter().any(|&n| g.usable(n));
        while outside(self) && source(self) {
            if self.reconfigure().is_err() {
                break;
            }
        }
    }

    fn names(&self, nodes: &[usize]) -> Vec<NodeId> {
        nodes.iter().map(|&n| self.cluster.id(n).clone()).collect()
    }

    /// How `node` last caught up.
    pub fn catch_up_mode(&self, node: &NodeId) -> Option<&'static str> {
        let i = self.cluster.index(node).ok()?;
        Some(self.nodes[i].catch_up.name())
    }

    /// Old-epoch messages refused by every node so far.
    pub fn fenced(&self) -> u64 {
        self.nodes.iter().map(|n| n.fenced).sum()
    }

    /// `node`'s place in the master's chain, and the tail's last seq.
    pub fn position(&self, node: &NodeId) -> (Option<usize>, u64) {
        let at = self.cluster.index(node).ok();
        let place = at.and_then(|i| self.master.chain.iter().position(|&n| n == i));
        let tail = self.master.tail().map_or(0, |t| self.nodes[t].last());
        (place, tail)
    }

    /// The chain invariants: every node of the master's chain that is up and
    /// in its epoch holds a prefix of its predecessor's entries; the head's
    /// commit point is at the tail.
    pub fn check(&self) -> Result<(), String> {
        let current: Vec<usize> = self
            .master
            .chain
            .iter()
            .copied()
            .filter(|&n| self.cluster.is_alive(n) && self.nodes[n].epoch == self.master.epoch)
            .collect();
        for w in current.windows(2) {
            let (a, b) = (&self.nodes[w[0]], &self.nodes[w[1]]);
            if b.awaiting_transfer {
                continue;
            }
            if b.log.len() > a.log.len() || b.log[..] != a.log[..b.log.len()] {
                return Err(format!(
                    "{} holds entries {} does not (prefix property)",
                    self.cluster.id(w[1]),
                    self.cluster.id(w[0])
                ));
            }
        }
        Ok(())
    }
}

/// A run you can steer (the model checker's, the debugger's): the whole
/// state is the nodes, the master's chain and epoch, and the writes waiting
/// for the tail.
impl replication::Steer for ChainGroup {
    fn fork(&self) -> Box<dyn replication::Steer> {
        Box::new(self.clone())
    }

    fn write_state(&self, out: &mut dyn fmt::Write) -> fmt::Result {
        write!(out, "{:?}|{:?}|{:?}", self.nodes, self.master, self.pending)
    }

    replication::steer_through_cluster!(cluster);
}

impl ReplicationGroup for ChainGroup {
    fn protocol(&self) -> &'static str {
        "chain"
    }

    fn steerable(&self) -> Option<&dyn replication::Steer> {
        Some(self)
    }

    fn steerable_mut(&mut self) -> Option<&mut dyn replication::Steer> {
        Some(self)
    }

    fn node_ids(&self) -> Vec<NodeId> {
        self.cluster.ids().to_vec()
    }

    /// The master's head, while it is up.
    fn leader(&self) -> Option<NodeId> {
        self.master
            .head()
            .filter(|&h| self.cluster.is_alive(h))
            .map(|h| self.cluster.id(h).clone())
    }

    /// Writes at the head: `LEADER` done once the head applied it, `ALL_ISR`
    /// once the tail holds it. Reads: `LOCAL` at a node (default the head),
    /// `LEADER` at the head, `LINEARIZABLE` at the tail (a named node must be
    /// the master's tail and believe it is).
    fn submit(&mut self, op: ClientOp) -> Result<OpId, GroupError> {
        let head = self
            .master
            .head()
            .ok_or_else(|| GroupError::NoLeader("the chain is empty".into()))?;
        match &op {
            ClientOp::Write {
                key,
                value,
                level,
                node,
            } => {
                if !matches!(level, AckLevel::Leader | AckLevel::AllIsr) {
                    return Err(GroupError::UnsupportedAck {
                        protocol: "chain",
                        level: *level,
                    });
                }
                let at = match node {
                    Some(n) => self.cluster.alive_index(n)?,
                    None => self.cluster.alive_index(&self.cluster.id(head).clone())?,
                };
                if !self.nodes[at].is_head() {
                    return Err(GroupError::not_permitted(
                        self.cluster.id(at),
                        "not the head of the chain it knows",
                    ));
                }
                let (key, value, level) = (key.clone(), value.clone(), *level);
                let id = self.cluster.submitted(&op);
                let now = self.cluster.now();
                let seq = self.nodes[at].write(key, value, now);
                let node = Some(self.cluster.id(at).clone());
                if level == AckLevel::Leader {
                    let outcome = Outcome::Written {
                        offset: seq,
                        message: "applied at the head".into(),
                    };
                    self.cluster.complete(id, op, now, node, outcome);
                } else {
                    let epoch = self.nodes[at].epoch;
                    self.pending.push(PendingWrite {
                        id,
                        op,
                        submitted: now,
                        head: at,
                        epoch,
                        seq,
                    });
                    self.settle();
                }
                Ok(id)
            }
            ClientOp::Read { key, level, node } => {
                let at = match (level, node) {
                    (ReadLevel::Linearizable, Some(n)) | (ReadLevel::Local, Some(n)) => {
                        self.cluster.alive_index(n)?
                    }
                    (ReadLevel::Linearizable, None) => {
                        let tail = self.master.tail().unwrap_or(head);
                        self.cluster.alive_index(&self.cluster.id(tail).clone())?
                    }
                    _ => self.cluster.alive_index(&self.cluster.id(head).clone())?,
                };
                let (key, level) = (key.clone(), *level);
                let id = self.cluster.submitted(&op);
                let now = self.cluster.now();
                let removed = level == ReadLevel::Linearizable && self.master.tail() != Some(at);
                let outcome = if level == ReadLevel::Linearizable
                    && (removed || !self.nodes[at].serves_reads())
                {
                    let (guard, reason) = if removed && self.nodes[at].is_tail() {
                        // A tail the master removed (cut off, it has not
                        // heard) must not answer: writes now commit at
                        // another tail (explorer seed 132, a stale client).
                        ("not tail", "the master has removed it from the chain")
                    } else if self.nodes[at].is_tail() {
                        ("catching up", "the new tail waits for its state transfer")
                    } else {
                        ("not tail", "only the tail answers a LINEARIZABLE read")
                    };
                    Outcome::failed_with(GroupError::ReadBlocked {
                        level,
                        node: self.cluster.id(at).clone(),
                        guard,
                        reason: reason.into(),
                    })
                } else {
                    Outcome::Read(self.read_at(at, &key))
                };
                let node = Some(self.cluster.id(at).clone());
                self.cluster.complete(id, op, now, node, outcome);
                Ok(id)
            }
            other => Err(GroupError::NoLeader(format!(
                "chain cannot run {}",
                other.kind()
            ))),
        }
    }

    fn take_completions(&mut self) -> Vec<Completion> {
        self.cluster.take_completions()
    }

    fn take_completion(&mut self, id: OpId) -> Option<Completion> {
        self.cluster.take_completion(id)
    }

    fn tick(&mut self) {
        self.step_tick();
    }

    /// Ticks until no message is in flight, no write waits, and no node
    /// has work for a successor it can reach.
    fn run_until_idle(&mut self, max_ticks: u64) -> Result<u64, GroupError> {
        let mut ticks = 0;
        let busy = |g: &Self| {
            g.nodes.iter().enumerate().any(|(i, n)| {
                g.cluster.is_alive(i)
                    && n.has_work()
                    && n.successor()
                        .is_some_and(|s| g.cluster.is_alive(s) && g.cluster.linked(i, s))
            })
        };
        while self.cluster.in_flight() > 0 || !self.pending.is_empty() || busy(self) {
            if ticks >= max_ticks {
                return Err(GroupError::NotIdle {
                    ticks,
                    waiting_for: "entries not yet at the tail".into(),
                });
            }
            self.step_tick();
            ticks += 1;
        }
        Ok(ticks)
    }

    /// A process crash: the node keeps its entries.
    fn crash(&mut self, node: &NodeId, lose_unfsynced: bool) -> Result<(), GroupError> {
        self.cluster.crash(node, lose_unfsynced)?;
        self.settle();
        Ok(())
    }

    /// A restarted node the master can reach returns (see `returned`).
    fn restart(&mut self, node: &NodeId) -> Result<(), GroupError> {
        let i = self.cluster.restart(node)?;
        self.returned(i);
        Ok(())
    }

    fn isolate(&mut self, node: &NodeId) -> Result<(), GroupError> {
        self.cluster.isolate(node).map(drop)
    }

    /// A healed node the master can reach returns (see `returned`).
    fn heal(&mut self, node: &NodeId) -> Result<(), GroupError> {
        let i = self.cluster.heal(node)?;
        self.returned(i);
        Ok(())
    }

    fn cut_link(&mut self, from: &NodeId, to: &NodeId) -> Result<(), GroupError> {
        self.cluster.cut_link(from, to).map(drop)
    }

    fn restore_link(&mut self, from: &NodeId, to: &NodeId) -> Result<(), GroupError> {
        self.cluster.restore_link(from, to).map(drop)
    }

    fn check_invariants(&self) -> Result<(), String> {
        self.cluster.check_network()?;
        self.check()
    }

    /// Nothing to do: this model keeps every entry across a crash.
    fn fsync(&mut self, node: &NodeId) -> Result<(), GroupError> {
        self.cluster.alive_index(node).map(drop)
    }

    /// The master's reconfiguration: failed (down or unreachable) nodes
    /// leave the chain, a node that is back joins at its tail. A named
    /// candidate is not permitted: the chain's order picks the head.
    fn failover(&mut self, candidate: Option<&NodeId>) -> Result<NodeId, GroupError> {
        if let Some(node) = candidate {
            self.cluster.index(node)?;
            return Err(GroupError::not_permitted(
                node,
                "chain replication picks no head: failover removes failed nodes, and the next one heads",
            ));
        }
        self.reconfigure()?;
        self.settle();
        self.leader()
            .ok_or_else(|| GroupError::NoLeader("the new head is down".into()))
    }

    fn trace(&self) -> &Trace {
        &self.cluster.trace
    }

    fn trace_mut(&mut self) -> &mut Trace {
        &mut self.cluster.trace
    }

    fn now(&self) -> Tick {
        self.cluster.now()
    }

    fn summary(&self) -> GroupSummary {
        let role = |i: usize| {
            let n = &self.nodes[i];
            if !self.master.chain.contains(&i) {
                "out"
            } else if n.is_head() {
                "head"
            } else if n.is_tail() {
                "tail"
            } else {
                "middle"
            }
        };
        let mut nodes: Vec<NodeSummary> = (0..self.nodes.len())
            .map(|i| NodeSummary {
                id: self.cluster.id(i).clone(),
                alive: self.cluster.is_alive(i),
                role: role(i),
                applied_offset: self.nodes[i].last(),
                data: self.nodes[i].data.clone(),
            })
            .collect();
        nodes.sort_by(|a, b| a.id.cmp(&b.id));
        GroupSummary {
            protocol: "chain",
            tick: self.cluster.now(),
            leader: self.leader(),
            nodes,
        }
    }
}
