//! Client operations: [`RaftGroup::submit_op`] starts one, and
//! [`RaftGroup::settle_inflight`] (after every tick) acts on each pending
//! op's [`Verdict`] — completing it through [`replication::ClientOps`], or
//! starting / joining a read-index round.

use bytes::Bytes;
use replication::{AckLevel, ClientOp, GroupError, OpId, Outcome, ReadLevel};
use sim_core::{Tick, record};

use crate::group::RaftGroup;
use crate::inflight::{PendingOp, Stage, Verdict};
use crate::node::Role;
use crate::reads::GUARD_NOT_LEADER;

impl RaftGroup {
    /// [`submit`](replication::ReplicationGroup::submit): refuses up front
    /// exactly what the blocking calls refused before doing anything, else
    /// records `client_op_submitted`, starts the op and judges it once.
    pub(crate) fn submit_op(&mut self, op: ClientOp) -> Result<OpId, GroupError> {
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
                    Some(node) => self.leading_index(node)?,
                    None => self.leader_index().ok_or_else(|| {
                        GroupError::NoLeader("no alive node is leader; cannot append".into())
                    })?,
                };
                let (key, value) = (key.clone(), value.clone());
                let now = self.now_tick();
                let id = self.cluster.submitted(&op);
                let index = self.append_proposal(i, key, value);
                let term = self.nodes[i].current_term;
                self.track(PendingOp {
                    id,
                    op,
                    submitted: now,
                    node: i,
                    term,
                    stage: Stage::Commit { index },
                    deadline: now.saturating_add(self.config.client_timeout()),
                });
                Ok(id)
            }
            ClientOp::Read { key, level, node } => {
                let no_leader =
                    || GroupError::NoLeader(format!("no alive leader to serve a {level} read"));
                let i = match level {
                    ReadLevel::Local => match node {
                        Some(n) => self.alive_index(n)?,
                        None => self.leader_index().ok_or_else(no_leader)?,
                    },
                    ReadLevel::Leader => {
                        if let Some(n) = node {
                            self.index_of(n)?;
                        }
                        self.leader_index().ok_or_else(no_leader)?
                    }
                    ReadLevel::Linearizable => match node {
                        Some(n) => self.alive_index(n)?,
                        None => self.leader_index().ok_or_else(no_leader)?,
                    },
                };
                let (key, level) = (key.clone(), *level);
                let now = self.now_tick();
                let id = self.cluster.submitted(&op);
                let (role, term) = (self.nodes[i].role, self.nodes[i].current_term);
                if level != ReadLevel::Linearizable {
                    let read = self.serve_local(i, &key, level);
                    self.complete(id, op, now, i, Outcome::Read(read));
                } else if role != Role::Leader {
                    let name = self.cluster.ids()[i].clone();
                    let err = self.blocked(
                        i,
                        GUARD_NOT_LEADER,
                        format!("{name} is a {role} in term {term}"),
                    );
                    self.complete(id, op, now, i, Outcome::failed_with(err));
                } else {
                    self.track(PendingOp {
                        id,
                        op,
                        submitted: now,
                        node: i,
                        term,
                        stage: Stage::ReadAwaitingCommit,
                        deadline: now.saturating_add(self.config.client_timeout()),
                    });
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
    fn track(&mut self, op: PendingOp) {
        self.inflight.push(op);
        let now = self.now_tick();
        self.settle_at(self.inflight.len() - 1, now);
    }

    /// Judges every pending op in submission order (after a tick), then
    /// starts one read-index round per leader for the reads queued behind
    /// a round that has just finished.
    pub(crate) fn settle_inflight(&mut self, now: Tick) {
        let mut k = 0;
        while k < self.inflight.len() {
            if self.settle_at(k, now) {
                k += 1;
            }
        }
        self.start_rounds_for_queued(now);
    }

    /// Judges the op at position `k`; returns true when it stays pending.
    fn settle_at(&mut self, k: usize, now: Tick) -> bool {
        let pending = &self.inflight[k];
        let i = pending.node;
        let verdict = pending.judge(
            &self.nodes[i],
            &self.cluster.ids()[i],
            now,
            self.config.client_timeout(),
        );
        match verdict {
            Verdict::Wait => true,
            Verdict::ReadyForRound => {
                self.place_in_round(k, now);
                true
            }
            Verdict::Committed | Verdict::Unknown(_) | Verdict::Serve | Verdict::Blocked(..) => {
                let pending = self.inflight.remove(k);
                self.finish(pending, verdict, now);
                false
            }
        }
    }

    /// A read whose leader may serve it once a round confirms: it joins the
    /// round that leader started at this very tick (its AppendEntries are
    /// not delivered yet, so every echo comes after this read arrived);
    /// behind a round started earlier it queues for the next one (as
    /// etcd's read loop does); otherwise it starts a round.
    fn place_in_round(&mut self, k: usize, now: Tick) {
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
        let timeout = self.config.client_timeout();
        let op = &mut self.inflight[k];
        match in_flight {
            Some((round, started)) if started == now => {
                op.stage = Stage::ReadInRound { round, started };
                op.deadline = now.saturating_add(timeout);
            }
            Some(_) => op.stage = Stage::ReadQueued,
            None => {
                let round = self.start_read_round(node, now);
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
    fn start_rounds_for_queued(&mut self, now: Tick) {
        let timeout = self.config.client_timeout();
        let mut k = 0;
        while k < self.inflight.len() {
            let (node, term) = (self.inflight[k].node, self.inflight[k].term);
            let busy = self
                .inflight
                .iter()
                .any(|op| op.round_at(node, term).is_some());
            if self.inflight[k].stage == Stage::ReadQueued && !busy {
                let round = self.start_read_round(node, now);
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
    fn start_read_round(&mut self, i: usize, now: Tick) -> u64 {
        let mut outputs = Vec::new();
        let round = self.nodes[i].start_read_round(now, &mut outputs);
        record!(
            self.cluster.trace,
            now,
            "raft_read_index_started",
            node = &self.cluster.ids()[i],
            term = self.nodes[i].current_term,
            round = round,
            read_index = self.nodes[i].commit_index
        );
        self.dispatch(i, now, outputs);
        round
    }

    /// Records the protocol's event for `verdict` and completes the op.
    fn finish(&mut self, pending: PendingOp, verdict: Verdict, now: Tick) {
        let i = pending.node;
        let term = pending.term;
        let outcome = match (verdict, pending.stage) {
            (Verdict::Committed, Stage::Commit { index }) => {
                record!(
                    self.cluster.trace,
                    now,
                    "raft_write_committed",
                    node = &self.cluster.ids()[i],
                    term = term,
                    index = index
                );
                Outcome::Written {
                    offset: index,
                    message: format!("committed at index {index} in term {term} by a majority"),
                }
            }
            (Verdict::Unknown(reason), Stage::Commit { index }) => {
                record!(
                    self.cluster.trace,
                    now,
                    "raft_write_refused",
                    node = &self.cluster.ids()[i],
                    term = term,
                    index = index,
                    reason = reason.clone()
                );
                Outcome::unknown(Some(index), reason)
            }
            (Verdict::Serve, _) => {
                let key: Bytes = pending.op.key().clone();
                Outcome::Read(self.serve_local(i, &key, ReadLevel::Linearizable))
            }
            (Verdict::Blocked(guard, reason), _) => {
                Outcome::failed_with(self.blocked(i, guard, reason))
            }
            (verdict, stage) => unreachable!("verdict {verdict:?} does not finish {stage:?}"),
        };
        self.complete(pending.id, pending.op, pending.submitted, i, outcome);
    }

    fn complete(&mut self, id: OpId, op: ClientOp, submitted: Tick, i: usize, outcome: Outcome) {
        let node = Some(self.cluster.ids()[i].clone());
        self.cluster.complete(id, op, submitted, node, outcome);
    }
}
