//! Client operations in flight: [`Clients`] owns every operation the group
//! accepted and has not completed. [`Clients::submit`] starts one, and
//! [`Clients::settle`] (after every tick) acts on each pending op's
//! [`Verdict`] — completing it through the harness's client table, or
//! starting / joining a read-index round. It is given the harness and the
//! nodes it works on; it owns nothing else.

use bytes::Bytes;
use replication::{AckLevel, ClientOp, Cluster, GroupError, NodeId, OpId, Outcome, ReadLevel};
use sim_core::{Tick, record};

use crate::events::dispatch;
use crate::inflight::{PendingOp, Stage, Verdict};
use crate::message::{Command, Message};
use crate::node::{RaftNode, Role, highest_term_leader};
use crate::reads::{GUARD_NOT_LEADER, blocked, serve_local};

/// The client operations accepted and not yet completed, in submission
/// order, and the per-stage bound they wait for.
#[derive(Debug, Clone, Hash)]
pub(crate) struct Clients {
    inflight: Vec<PendingOp>,
    /// [`RaftConfig::client_timeout`](crate::RaftConfig::client_timeout).
    timeout: u64,
}

/// Position of `node` if it is alive and believes it is leader, else the
/// error `write_at` / `propose_at` answer.
pub(crate) fn leading_index(
    cluster: &Cluster<Message>,
    nodes: &[RaftNode],
    node: &NodeId,
) -> Result<usize, GroupError> {
    let i = cluster.alive_index(node)?;
    if !nodes[i].leads() {
        return Err(GroupError::not_permitted(
            node,
            format!(
                "{node} is a {} in term {}, not leader",
                nodes[i].role, nodes[i].current_term
            ),
        ));
    }
    Ok(i)
}

/// Appends at the leader at position `i` and records `raft_write_proposed`.
pub(crate) fn append_proposal(
    cluster: &mut Cluster<Message>,
    nodes: &mut [RaftNode],
    i: usize,
    key: Bytes,
    value: Bytes,
) -> u64 {
    let now = cluster.now();
    let index = nodes[i]
        .propose(Command::Set {
            key: key.clone(),
            value: value.clone(),
        })
        .expect("a live leader always accepts a proposal");
    record!(
        cluster.trace,
        now,
        "raft_write_proposed",
        node = cluster.id(i).clone(),
        term = nodes[i].current_term,
        index = index,
        key = key,
        value = value
    );
    index
}

impl Clients {
    /// No operation in flight; each stage waits at most `timeout` ticks.
    pub(crate) fn new(timeout: u64) -> Clients {
        Clients {
            inflight: Vec::new(),
            timeout,
        }
    }

    /// Feeds `h` the operations in flight at tick `now`, times as
    /// distances ([`crate::timeless`]).
    pub(crate) fn hash_timeless<H: std::hash::Hasher>(&self, now: Tick, h: &mut H) {
        use std::hash::Hash;
        self.timeout.hash(h);
        self.inflight.len().hash(h);
        for op in &self.inflight {
            op.hash_timeless(now, h);
        }
    }

    /// True when no operation is in flight.
    pub(crate) fn is_empty(&self) -> bool {
        self.inflight.is_empty()
    }

    /// Operations in flight.
    pub(crate) fn len(&self) -> usize {
        self.inflight.len()
    }

    /// [`submit`](replication::ReplicationGroup::submit): refuses up front
    /// exactly what the blocking calls refused before doing anything, else
    /// records `client_op_submitted`, starts the op and judges it once.
    pub(crate) fn submit(
        &mut self,
        cluster: &mut Cluster<Message>,
        nodes: &mut [RaftNode],
        op: ClientOp,
    ) -> Result<OpId, GroupError> {
        match &op {
            ClientOp::Write {
                key,
                value,
                level,
                node,
            } => {
                if *level != AckLevel::Quorum {
                    return Err(GroupError::UnsupportedAck {
                        protocol: "raft",
                        level: *level,
                    });
                }
                let i = match node {
                    Some(node) => leading_index(cluster, nodes, node)?,
                    None => highest_term_leader(nodes).ok_or_else(|| {
                        GroupError::NoLeader("no alive node is leader; cannot append".into())
                    })?,
                };
                let (key, value) = (key.clone(), value.clone());
                let now = cluster.now();
                let id = cluster.submitted(&op);
                let index = append_proposal(cluster, nodes, i, key, value);
                let term = nodes[i].current_term;
                self.track(
                    cluster,
                    nodes,
                    PendingOp {
                        id,
                        op,
                        submitted: now,
                        node: i,
                        term,
                        stage: Stage::Commit { index },
                        deadline: now.saturating_add(self.timeout),
                    },
                );
                Ok(id)
            }
            ClientOp::Read { key, level, node } => {
                let no_leader =
                    || GroupError::NoLeader(format!("no alive leader to serve a {level} read"));
                let i = match level {
                    ReadLevel::Local => match node {
                        Some(n) => cluster.alive_index(n)?,
                        None => highest_term_leader(nodes).ok_or_else(no_leader)?,
                    },
                    ReadLevel::Leader => {
                        if let Some(n) = node {
                            cluster.index(n)?;
                        }
                        highest_term_leader(nodes).ok_or_else(no_leader)?
                    }
                    ReadLevel::Linearizable => match node {
                        Some(n) => cluster.alive_index(n)?,
                        None => highest_term_leader(nodes).ok_or_else(no_leader)?,
                    },
                };
                let (key, level) = (key.clone(), *level);
                let now = cluster.now();
                let id = cluster.submitted(&op);
                let (role, term) = (nodes[i].role, nodes[i].current_term);
                if level != ReadLevel::Linearizable {
                    let read = serve_local(cluster, &nodes[i], i, &key, level);
                    Self::complete(cluster, id, op, now, i, Outcome::Read(read));
                } else if role != Role::Leader {
                    let name = cluster.ids()[i].clone();
                    let err = blocked(
                        cluster,
                        i,
                        GUARD_NOT_LEADER,
                        format!("{name} is a {role} in term {term}"),
                    );
                    Self::complete(cluster, id, op, now, i, Outcome::failed_with(err));
                } else {
                    self.track(
                        cluster,
                        nodes,
                        PendingOp {
                            id,
                            op,
                            submitted: now,
                            node: i,
                            term,
                            stage: Stage::ReadAwaitingCommit,
                            deadline: now.saturating_add(self.timeout),
                        },
                    );
                }
                Ok(id)
            }
            other => Err(GroupError::NoLeader(format!(
                "raft cannot run a {} operation",
                other.kind()
            ))),
        }
    }

    /// Adds `op` to the pending list and judges it at once.
    fn track(&mut self, cluster: &mut Cluster<Message>, nodes: &mut [RaftNode], op: PendingOp) {
        self.inflight.push(op);
        let now = cluster.now();
        self.settle_at(cluster, nodes, self.inflight.len() - 1, now);
    }

    /// Judges every pending op in submission order (after a tick), then
    /// starts one read-index round per leader for the reads queued behind
    /// a round that has just finished.
    pub(crate) fn settle(
        &mut self,
        cluster: &mut Cluster<Message>,
        nodes: &mut [RaftNode],
        now: Tick,
    ) {
        let mut k = 0;
        while k < self.inflight.len() {
            if self.settle_at(cluster, nodes, k, now) {
                k += 1;
            }
        }
        self.start_rounds_for_queued(cluster, nodes, now);
    }

    /// Judges the op at position `k`; returns true when it stays pending.
    fn settle_at(
        &mut self,
        cluster: &mut Cluster<Message>,
        nodes: &mut [RaftNode],
        k: usize,
        now: Tick,
    ) -> bool {
        let pending = &self.inflight[k];
        let i = pending.node;
        let verdict = pending.judge(&nodes[i], cluster.id(i), now, self.timeout);
        match verdict {
            Verdict::Wait => true,
            Verdict::ReadyForRound => {
                self.place_in_round(cluster, nodes, k, now);
                true
            }
            Verdict::Committed | Verdict::Unknown(_) | Verdict::Serve | Verdict::Blocked(..) => {
                let pending = self.inflight.remove(k);
                Self::finish(cluster, nodes, pending, verdict, now);
                false
            }
        }
    }

    /// A read whose leader may serve it once a round confirms: it joins the
    /// round that leader started at this very tick (its AppendEntries are
    /// not delivered yet, so every echo comes after this read arrived);
    /// behind a round started earlier it queues for the next one (as
    /// etcd's read loop does); otherwise it starts a round.
    fn place_in_round(
        &mut self,
        cluster: &mut Cluster<Message>,
        nodes: &mut [RaftNode],
        k: usize,
        now: Tick,
    ) {
        let (node, term) = (self.inflight[k].node, self.inflight[k].term);
        let mut in_flight = None;
        for op in &self.inflight {
            if let Some((round, started)) = op.round_at(node, term) {
                in_flight = Some((round, started));
                if started == now {
                    break;
                }
            }
        }
        let timeout = self.timeout;
        let op = &mut self.inflight[k];
        match in_flight {
            Some((round, started)) if started == now => {
                op.stage = Stage::ReadInRound { round, started };
                op.deadline = now.saturating_add(timeout);
            }
            Some(_) => op.stage = Stage::ReadQueued,
            None => {
                let round = Self::start_read_round(cluster, nodes, node, now);
                let op = &mut self.inflight[k];
                op.stage = Stage::ReadInRound {
                    round,
                    started: now,
                };
                op.deadline = now.saturating_add(timeout);
            }
        }
    }

    /// One new round for every leader with queued reads and no round in
    /// flight; all its queued reads join it.
    fn start_rounds_for_queued(
        &mut self,
        cluster: &mut Cluster<Message>,
        nodes: &mut [RaftNode],
        now: Tick,
    ) {
        let timeout = self.timeout;
        let mut k = 0;
        while k < self.inflight.len() {
            let (node, term) = (self.inflight[k].node, self.inflight[k].term);
            let busy = self
                .inflight
                .iter()
                .any(|op| op.round_at(node, term).is_some());
            if self.inflight[k].stage == Stage::ReadQueued && !busy {
                let round = Self::start_read_round(cluster, nodes, node, now);
                for op in &mut self.inflight {
                    if op.node == node && op.term == term && op.stage == Stage::ReadQueued {
                        op.stage = Stage::ReadInRound {
                            round,
                            started: now,
                        };
                        op.deadline = now.saturating_add(timeout);
                    }
                }
            }
            k += 1;
        }
    }

    /// Starts a read-index round at node `i` and sends it.
    fn start_read_round(
        cluster: &mut Cluster<Message>,
        nodes: &mut [RaftNode],
        i: usize,
        now: Tick,
    ) -> u64 {
        let mut outputs = Vec::new();
        let round = nodes[i].start_read_round(now, &mut outputs);
        record!(
            cluster.trace,
            now,
            "raft_read_index_started",
            node = cluster.id(i).clone(),
            term = nodes[i].current_term,
            round = round,
            read_index = nodes[i].commit_index
        );
        dispatch(cluster, i, now, outputs);
        round
    }

    /// Records the protocol's event for `verdict` and completes the op.
    fn finish(
        cluster: &mut Cluster<Message>,
        nodes: &[RaftNode],
        pending: PendingOp,
        verdict: Verdict,
        now: Tick,
    ) {
        let i = pending.node;
        let term = pending.term;
        let outcome = match (verdict, pending.stage) {
            (Verdict::Committed, Stage::Commit { index }) => {
                record!(
                    cluster.trace,
                    now,
                    "raft_write_committed",
                    node = cluster.id(i).clone(),
                    term = term,
                    index = index
                );
                Outcome::Written {
                    offset: index,
                    message: replication::message![
                        "committed at index ",
                        index,
                        " in term ",
                        term,
                        " by a majority"
                    ],
                }
            }
            (Verdict::Unknown(reason), Stage::Commit { index }) => {
                record!(
                    cluster.trace,
                    now,
                    "raft_write_refused",
                    node = cluster.id(i).clone(),
                    term = term,
                    index = index,
                    reason = reason.clone()
                );
                Outcome::unknown(Some(index), reason)
            }
            (Verdict::Serve, _) => {
                let key: Bytes = pending.op.key().clone();
                Outcome::Read(serve_local(
                    cluster,
                    &nodes[i],
                    i,
                    &key,
                    ReadLevel::Linearizable,
                ))
            }
            (Verdict::Blocked(guard, reason), _) => {
                Outcome::failed_with(blocked(cluster, i, guard, reason))
            }
            (verdict, stage) => unreachable!("verdict {verdict:?} does not finish {stage:?}"),
        };
        Self::complete(
            cluster,
            pending.id,
            pending.op,
            pending.submitted,
            i,
            outcome,
        );
    }

    fn complete(
        cluster: &mut Cluster<Message>,
        id: OpId,
        op: ClientOp,
        submitted: Tick,
        i: usize,
        outcome: Outcome,
    ) {
        let node = Some(cluster.ids()[i].clone());
        cluster.complete(id, op, submitted, node, outcome);
    }
}
