//! Client operations: where a write or read goes, what is refused up front,
//! and how each operation in flight completes.
//!
//! A read and a `LEADER` write complete at submission. A `QUORUM` write is
//! appended, flushed and shipped at submission and then waits as a
//! [`PendingWrite`], re-judged after every tick and after every crash or
//! promotion, until it is acknowledged or ends *unknown*.

use bytes::Bytes;
use replication::{
    AWAIT_BOUND, AckLevel, ClientOp, GroupError, OpId, Outcome, ReadLevel, ReadResult,
    ReplicationGroup, WriteResult,
};
use sim_core::{NodeId, Tick, record};

use crate::group::{PROTOCOL, WalShippingGroup};
use crate::pending::{Facts, PendingWrite, Verdict};
use crate::sync_rep::{self, Candidate, SyncDecision, WaitReason};

impl WalShippingGroup {
    /// The current primary's index, alive, or the reason there is none.
    pub(crate) fn current_primary(&self) -> Result<usize, GroupError> {
        let p = self
            .operator
            .primary()
            .ok_or_else(|| GroupError::NoLeader("no primary has been promoted".into()))?;
        if !self.cluster.is_alive(p) {
            return Err(GroupError::NodeDown(self.cluster.id(p).clone()));
        }
        Ok(p)
    }

    /// The node a write goes to (`node`, else the current primary), or the
    /// error that refuses it before anything is appended.
    fn write_target(
        &self,
        level: AckLevel,
        node: Option<&NodeId>,
        key: &Bytes,
        value: &Bytes,
    ) -> Result<usize, GroupError> {
        if !matches!(level, AckLevel::Leader | AckLevel::Quorum) {
            return Err(GroupError::UnsupportedAck {
                protocol: PROTOCOL,
                level,
            });
        }
        let p = match node {
            Some(node) => self.cluster.alive_index(node)?,
            None => self.current_primary()?,
        };
        let id = self.cluster.id(p);
        if !self.nodes[p].is_primary() {
            return Err(GroupError::not_permitted(
                id,
                "not a primary: standbys are read-only",
            ));
        }
        if u32::try_from(key.len()).is_err() || u32::try_from(value.len()).is_err() {
            return Err(GroupError::not_permitted(
                id,
                "key or value longer than u32::MAX bytes",
            ));
        }
        Ok(p)
    }

    /// The node a read consults, or the error that refuses it.
    fn read_target(&self, level: ReadLevel, node: Option<&NodeId>) -> Result<usize, GroupError> {
        match (level, node) {
            (ReadLevel::Linearizable, _) => Err(GroupError::UnsupportedRead {
                protocol: PROTOCOL,
                level,
            }),
            (ReadLevel::Local, Some(node)) => self.cluster.alive_index(node),
            _ => self.current_primary(),
        }
    }

    /// Validates and starts `op`; see
    /// [`ReplicationGroup::submit`](crate::ReplicationGroup::submit).
    pub(crate) fn submit_op(&mut self, op: ClientOp) -> Result<OpId, GroupError> {
        match op {
            ClientOp::Write {
                ref key,
                ref value,
                level,
                ref node,
            } => {
                let p = self.write_target(level, node.as_ref(), key, value)?;
                let (key, value) = (key.clone(), value.clone());
                let id = self.cluster.submitted(&op);
                self.start_write(p, id, Some(op), key, value, level);
                Ok(id)
            }
            ClientOp::Read {
                ref key,
                level,
                ref node,
            } => {
                let i = self.read_target(level, node.as_ref())?;
                let now = self.now_tick();
                let id = self.cluster.submitted(&op);
                let n = &self.nodes[i];
                let read = ReadResult {
                    value: n.data().get(key).cloned(),
                    node: self.cluster.id(i).clone(),
                    offset: n.applied_lsn(),
                };
                let node = Some(read.node.clone());
                let outcome = Outcome::Read(read);
                self.cluster.complete(id, op, now, node, outcome);
                Ok(id)
            }
            other => Err(GroupError::not_permitted(
                other.node().unwrap_or(&self.config.primary),
                format!(
                    "{} operations are not supported by {PROTOCOL}",
                    other.kind()
                ),
            )),
        }
    }

    /// [`client_write`](replication::ReplicationGroup::client_write):
    /// `submit` + `await_completion` without the in-flight machinery a
    /// blocking call does not need — no clone of the operation, no queued
    /// completion to look up after every tick; the same events, op id and
    /// answer. A write always ends within `ack_timeout` ticks, so when that
    /// is below the await bound its answer is sure to come.
    pub(crate) fn write_blocking(
        &mut self,
        key: Bytes,
        value: Bytes,
        level: AckLevel,
    ) -> Result<WriteResult, GroupError> {
        if self.config.ack_timeout >= AWAIT_BOUND {
            let id = self.submit_op(ClientOp::write(key, value, level))?;
            return self.await_completion(id)?.outcome.into_write_result();
        }
        let p = self.write_target(level, None, &key, &value)?;
        let op = ClientOp::write(key, value, level);
        let id = self.cluster.submitted(&op);
        let ClientOp::Write { key, value, .. } = op else {
            unreachable!("built as a write")
        };
        self.answered = None;
        self.start_write(p, id, None, key, value, level);
        let mut ticks = 0;
        loop {
            if let Some((done, outcome)) = self.answered.take()
                && done == id
            {
                return outcome.into_write_result();
            }
            if ticks >= AWAIT_BOUND {
                return Err(GroupError::NotIdle {
                    ticks,
                    waiting_for: format!("{id} to complete"),
                });
            }
            self.step_tick();
            ticks += 1;
        }
    }

    /// Completes `id`: queues its completion when a client submitted `op`,
    /// or, for the write of a blocking `client_write` (no `op`), records
    /// the same `client_op_completed` and hands the outcome to that call.
    fn complete(
        &mut self,
        id: OpId,
        op: Option<ClientOp>,
        submitted: Tick,
        answered_by: Option<usize>,
        outcome: Outcome,
    ) {
        match op {
            Some(op) => {
                let node = answered_by.map(|i| self.cluster.id(i).clone());
                self.cluster.complete(id, op, submitted, node, outcome);
            }
            None => {
                self.cluster.record_completed(id, answered_by, &outcome);
                self.answered = Some((id, outcome));
            }
        }
    }

    /// Appends `key = value` on primary `p` for op `id` (submitted as `op`,
    /// or by a blocking call when `None`), ships it, and either
    /// acknowledges it (`LEADER`) or leaves it waiting (`QUORUM`).
    fn start_write(
        &mut self,
        p: usize,
        id: OpId,
        op: Option<ClientOp>,
        key: Bytes,
        value: Bytes,
        level: AckLevel,
    ) {
        let now = self.now_tick();
        let mut lsn = 0;
        self.with_node(p, |n, out| {
            lsn = n
                .append(key, value, out)
                .expect("write_target checked that the node is a primary and the sizes fit");
        });
        if level == AckLevel::Leader {
            let node = self.cluster.id(p).clone();
            record!(
                self.cluster.trace,
                now,
                "wal_write_acked",
                node = &node,
                level = "LEADER",
                lsn = lsn
            );
            let outcome = Outcome::Written {
                offset: lsn,
                message: replication::message!["flushed on ", node, " at LSN ", lsn],
            };
            self.complete(id, op, now, Some(p), outcome);
        } else {
            let node = self.cluster.id(p).clone();
            if self.config.is_classic_sync() && self.config.synchronous_standbys.contains(&node) {
                // PostgreSQL never counts the primary's own flush as a
                // synchronous standby's: with its only synchronous standby
                // promoted, a QUORUM commit waits (here, at most
                // `ack_timeout`) instead of being acknowledged.
                record!(
                    self.cluster.trace,
                    now,
                    "wal_commit_waits_for_sync_standby",
                    node = node,
                    lsn = lsn,
                    reason = "primary_is_listed_synchronous_standby"
                );
            } else if !self.config.is_classic_sync()
                && let SyncDecision::Waiting { missing, why } = self.sync_decision(p, lsn)
            {
                let missing = self.cluster.id(missing).clone();
                let (reason, connected) = match why {
                    WaitReason::NotConfirmed => ("not_yet_confirmed", None),
                    WaitReason::TooFewConnected { connected, .. } => (
                        "fewer_synchronous_standbys_connected_than_needed",
                        Some(connected),
                    ),
                };
                record!(
                    self.cluster.trace,
                    now,
                    "wal_commit_waits_for_sync_standby",
                    node = node,
                    lsn = lsn,
                    reason = reason,
                    waiting_for = missing,
                    position = self.config.synchronous_commit.position(),
                    synchronous_standby_names = self.config.synchronous_standby_names().to_string(),
                    connected = connected,
                    needed = self
                        .config
                        .sync_quorum
                        .needed(self.config.synchronous_standbys.len())
                );
            }
            self.pending.push(PendingWrite {
                id,
                op,
                submitted: now,
                primary: p,
                lsn,
                timeline: self.operator.newest_timeline(),
            });
            self.settle_pending();
        }
    }

    /// Re-judges every pending write, in submission order, and completes
    /// those that are decided. Called at submission, after every tick, and
    /// after a crash or a promotion.
    pub(crate) fn settle_pending(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let mut k = 0;
        while k < self.pending.len() {
            let w = &self.pending[k];
            let facts = Facts {
                now: self.now_tick(),
                alive: self.cluster.is_alive(w.primary),
                is_primary: self.nodes[w.primary].is_primary(),
                newest_timeline: self.operator.newest_timeline(),
                missing: self.sync_waiting_for(w.primary, w.lsn),
                ack_timeout: self.config.ack_timeout,
            };
            match w.judge(facts) {
                Verdict::Wait => k += 1,
                verdict => {
                    let verdict = verdict.map(|j| self.cluster.id(j).clone());
                    let w = self.pending.remove(k);
                    self.finish(w, verdict);
                }
            }
        }
    }

    /// Records and completes a decided write.
    fn finish(&mut self, w: PendingWrite, verdict: Verdict<NodeId>) {
        let now = self.now_tick();
        let node = self.cluster.id(w.primary).clone();
        let lsn = w.lsn;
        let ack_timeout = self.config.ack_timeout;
        let verdict = match verdict {
            Verdict::TimedOut { waited, .. }
                if crate::planted::on(self.config.planted, crate::planted::ACK_ON_WAIT_TIMEOUT) =>
            {
                Verdict::Acked { waited }
            }
            verdict => verdict,
        };
        let (answered_by, outcome) = match verdict {
            Verdict::Wait => unreachable!("a waiting write is not finished"),
            Verdict::Acked { waited } => {
                record!(
                    self.cluster.trace,
                    now,
                    "wal_write_acked",
                    node = &node,
                    level = "QUORUM",
                    lsn = lsn,
                    waited = waited
                );
                let message = if self.config.synchronous_standbys.is_empty() {
                    format!(
                        "flushed on {node} at LSN {lsn} (no synchronous standby \
                         configured: local flush commits)"
                    )
                } else if self.config.is_classic_sync() {
                    replication::message![
                        "flushed on ",
                        node,
                        " and every synchronous standby at LSN ",
                        lsn
                    ]
                } else {
                    let by: Vec<NodeId> = match self.sync_decision(w.primary, lsn) {
                        SyncDecision::Confirmed { by } => {
                            by.into_iter().map(|j| self.cluster.id(j).clone()).collect()
                        }
                        SyncDecision::Waiting { .. } => {
                            unreachable!("an acknowledged write was confirmed in this same step")
                        }
                    };
                    let position = self.config.synchronous_commit.position();
                    let names = self.config.synchronous_standby_names().to_string();
                    record!(
                        self.cluster.trace,
                        now,
                        "wal_sync_confirmed",
                        node = &node,
                        lsn = lsn,
                        synchronous_standby_names = names.clone(),
                        synchronous_commit = self.config.synchronous_commit.name(),
                        position = position,
                        confirmed_by = by.clone()
                    );
                    let by: Vec<&str> = by.iter().map(NodeId::as_str).collect();
                    format!(
                        "flushed on {node} and {position} on {} at LSN {lsn} \
                         ({names}, synchronous_commit = {})",
                        by.join(", "),
                        self.config.synchronous_commit
                    )
                };
                let outcome = Outcome::Written {
                    offset: lsn,
                    message,
                };
                (Some(w.primary), outcome)
            }
            Verdict::TimedOut {
                ref missing,
                waited,
            }
            | Verdict::SteppedDown {
                ref missing,
                waited,
            } => {
                self.record_refused(&node, lsn, missing, waited);
                let message = verdict.unknown_reason(&node, lsn, ack_timeout, None);
                (Some(w.primary), Outcome::unknown(Some(lsn), message))
            }
            Verdict::Crashed { .. } | Verdict::Superseded { .. } => {
                let promoted = self.operator.primary().map(|i| self.cluster.id(i));
                let message = verdict.unknown_reason(&node, lsn, ack_timeout, promoted);
                (None, Outcome::unknown(Some(lsn), message))
            }
        };
        self.complete(w.id, w.op, w.submitted, answered_by, outcome);
    }

    /// The primary gave up waiting for `missing` (timeout or step-down).
    fn record_refused(&mut self, node: &NodeId, lsn: u64, missing: &NodeId, waited: u64) {
        record!(
            self.cluster.trace,
            self.cluster.now(),
            "wal_write_refused",
            node = node,
            level = "QUORUM",
            lsn = lsn,
            missing = missing,
            waited = waited
        );
    }

    /// Whether `lsn` on primary `p` is confirmed by its synchronous
    /// standbys (see [`sync_rep::decide`](crate::sync_rep::decide)). A
    /// listed standby is connected when it is alive, a standby following
    /// `p` on `p`'s timeline, with the link open both ways; a listed node
    /// that is `p` itself is never connected and never confirms: the
    /// primary's own flush is not a standby's confirmation (as in
    /// PostgreSQL, the commit waits).
    pub(crate) fn sync_decision(&self, p: usize, lsn: u64) -> SyncDecision<usize> {
        self.sync_decided(p, lsn, sync_rep::decide)
    }

    /// The synchronous standby `lsn` on primary `p` waits for, `None` once
    /// confirmed: [`WalShippingGroup::sync_decision`]'s answer without its
    /// list of confirmers.
    fn sync_waiting_for(&self, p: usize, lsn: u64) -> Option<usize> {
        self.sync_decided(p, lsn, sync_rep::waiting_for)
    }

    /// `decide` applied to `p`'s synchronous standbys as candidates.
    fn sync_decided<R>(
        &self,
        p: usize,
        lsn: u64,
        decide: impl FnOnce(crate::SyncQuorum, u64, &[Candidate<usize>]) -> R,
    ) -> R {
        /// Candidates judged without a heap allocation (the judge runs
        /// after every tick while a commit waits); longer lists use a Vec.
        const ON_STACK: usize = 8;
        let candidate = |s: usize| {
            let primary = &self.nodes[p];
            Candidate {
                id: s,
                connected: s != p
                    && self.cluster.is_alive(s)
                    && self.nodes[s].streams_from(p, primary.timeline())
                    && self.cluster.linked(p, s),
                reached: if s == p {
                    None
                } else {
                    primary.reported(s, self.config.synchronous_commit)
                },
            }
        };
        let quorum = self.config.sync_quorum;
        let listed = &self.synchronous;
        if let [only] = listed[..] {
            // One synchronous standby, the usual setting: no buffer.
            decide(quorum, lsn, &[candidate(only)])
        } else if listed.len() <= ON_STACK {
            let mut buf = [Candidate {
                id: 0,
                connected: false,
                reached: None,
            }; ON_STACK];
            for (slot, &s) in buf.iter_mut().zip(listed) {
                *slot = candidate(s);
            }
            decide(quorum, lsn, &buf[..listed.len()])
        } else {
            let candidates: Vec<Candidate<usize>> = listed.iter().map(|&s| candidate(s)).collect();
            decide(quorum, lsn, &candidates)
        }
    }
}
