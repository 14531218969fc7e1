//! Client operations: submission, writes (`Leader` and `AllIsr` at the
//! controller's leader, and a produce request at a named broker, as a
//! client with stale metadata would send it) and how a pending write ends;
//! reads are served by `reads.rs`.
//!
//! Reads and `Leader` writes are answered at submission; only writes that
//! were appended and wait for an acknowledgement (`AllIsr` at the
//! controller's leader, and any write at a displaced leader that still
//! believes it leads) stay pending, as [`PendingWrite`]s, until their
//! verdict ([`PendingWrite::decide`] over the [`WriteFacts`] of the moment).

use bytes::Bytes;
use replication::{
    AWAIT_BOUND, AckLevel, ClientOp, GroupError, NodeId, OpId, Outcome, ReadResult,
    ReplicationGroup, WriteResult,
};
use sim_core::{Tick, record};

use crate::group::IsrGroup;
use crate::pending::{PendingWrite, Verdict, WriteFacts, WriteWait};
use crate::reads;

/// Where an admitted write goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Writer {
    /// The controller's leader (position).
    Leader(usize),
    /// A displaced leader that still believes it leads (position).
    StaleLeader(usize),
}

impl IsrGroup {
    /// Starts `op`; see [`ReplicationGroup::submit`] on [`IsrGroup`] for
    /// what a named node means.
    pub(crate) fn submit_op(&mut self, op: ClientOp) -> Result<OpId, GroupError> {
        match &op {
            ClientOp::Write {
                key,
                value,
                level,
                node,
            } => {
                let writer = self.admit_write(*level, node.as_ref())?;
                let (key, value, level) = (key.clone(), value.clone(), *level);
                let id = self.cluster.submitted(&op);
                if let Some(write) = self.start_write(writer, id, Some(op), key, value, level) {
                    // A write just appended cannot be decided before a tick
                    // passes: no follower has it (HW is below it), its
                    // leader and epoch are those it was appended in, the ISR
                    // was at least min.insync a moment ago, and no time has
                    // passed. So it waits; judged here it would wait too.
                    #[cfg(debug_assertions)]
                    {
                        self.gather_facts();
                        debug_assert_eq!(self.judge(&write), None, "undecided at submission");
                    }
                    self.pending.push(write);
                }
                Ok(id)
            }
            ClientOp::Read { key, level, node } => {
                let served = reads::read(
                    &self.controller,
                    &self.nodes,
                    &self.cluster,
                    key,
                    *level,
                    node.as_ref(),
                );
                let (outcome, answered_by) = match served {
                    Ok(read) => {
                        let by = read.node.clone();
                        (Outcome::Read(read), by)
                    }
                    Err(err) => match &err {
                        GroupError::ReadBlocked { node: by, .. } => {
                            let by = by.clone();
                            (Outcome::failed_with(err), by)
                        }
                        _ => return Err(err),
                    },
                };
                let now = self.tick_now();
                let id = self.cluster.submitted(&op);
                self.cluster
                    .complete(id, op, now, Some(answered_by), outcome);
                Ok(id)
            }
            other => Err(GroupError::NoLeader(format!(
                "isr does not serve {} operations",
                other.kind()
            ))),
        }
    }

    /// Checks that a write at `level` can start at `target` (the controller's
    /// leader when `None`) without changing anything. The errors, and their
    /// order, are those of the blocking calls: unsupported level, unknown or
    /// crashed target, a target that is not a leader, a crashed leader, a
    /// leader outside the ISR.
    fn admit_write(&self, level: AckLevel, target: Option<&NodeId>) -> Result<Writer, GroupError> {
        if !matches!(level, AckLevel::Leader | AckLevel::AllIsr) {
            return Err(GroupError::UnsupportedAck {
                protocol: "isr",
                level,
            });
        }
        let l = self.controller.leader();
        if let Some(node) = target {
            let idx = self.cluster.alive_index(node)?;
            if idx != l {
                let n = &self.nodes[idx];
                if n.awaiting_controller() {
                    return Err(GroupError::not_permitted(
                        node,
                        "not the leader: restarted, and not (yet) given the leadership back by the controller",
                    ));
                }
                if !n.is_leader() {
                    return Err(GroupError::not_permitted(
                        node,
                        replication::message![
                            "not the leader: it knows leader ",
                            self.cluster.id(n.leader()),
                            " in epoch ",
                            n.leader_epoch()
                        ],
                    ));
                }
                return Ok(Writer::StaleLeader(idx));
            }
        }
        if !self.cluster.is_alive(l) {
            return Err(GroupError::NodeDown(self.cluster.id(l).clone()));
        }
        if !self.controller.in_isr(l) {
            return Err(GroupError::NoLeader(replication::message![
                "leader ",
                self.cluster.id(l),
                " restarted without the committed prefix (log end ",
                self.nodes[l].log_end_offset(),
                " < HW ",
                self.controller.high_watermark(),
                "); elect another ISR member"
            ]));
        }
        Ok(Writer::Leader(l))
    }

    /// [`client_write`](replication::ReplicationGroup::client_write):
    /// `submit` + `await_completion` without the in-flight machinery a
    /// blocking call does not need — no clone of the operation, no queued
    /// completion to look up after every tick; the same events, op id and
    /// answer. A pending write ends within `ack_timeout` ticks, so when
    /// that is below the await bound its answer is sure to come.
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
        let writer = self.admit_write(level, None)?;
        let op = ClientOp::write(key, value, level);
        let id = self.cluster.submitted(&op);
        let ClientOp::Write { key, value, .. } = op else {
            unreachable!("built as a write")
        };
        self.answered = None;
        if let Some(write) = self.start_write(writer, id, None, key, value, level) {
            #[cfg(debug_assertions)]
            {
                self.gather_facts();
                debug_assert_eq!(self.judge(&write), None, "undecided at submission");
            }
            self.pending.push(write);
        }
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

    /// Completes `id`, answered by node `answered_by`: queues its
    /// completion when a client submitted `op`, or, for the write of a
    /// blocking `client_write` (no `op`), records the same
    /// `client_op_completed` and hands the outcome to that call.
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

    /// Starts an admitted write: refuses it before appending (an `AllIsr`
    /// write while the ISR is below min.insync) or acknowledges it at once
    /// (`Leader`) — completing it — or appends it and returns it pending.
    /// `op` is the submitted operation, kept for its completion; `key`,
    /// `value` and `level` are its fields.
    fn start_write(
        &mut self,
        writer: Writer,
        id: OpId,
        op: Option<ClientOp>,
        key: Bytes,
        value: Bytes,
        level: AckLevel,
    ) -> Option<PendingWrite> {
        let submitted = self.tick_now();
        let (idx, wait, epoch) = match writer {
            Writer::Leader(l) => {
                if level == AckLevel::AllIsr {
                    self.refresh();
                    let (size, min) = (
                        self.controller.isr_len(),
                        self.controller.min_insync_replicas(),
                    );
                    if !self.config.decisions.admits(size, min) {
                        self.record_refused(None, "isr_below_min_insync");
                        let outcome = Outcome::refused_before_append(replication::message![
                            "refused before append: ISR size ",
                            size,
                            " is below min.insync.replicas ",
                            min
                        ]);
                        self.complete(id, op, submitted, Some(l), outcome);
                        return None;
                    }
                }
                debug_assert_eq!(
                    (self.nodes[l].leader_epoch(), self.nodes[l].high_watermark()),
                    (
                        self.controller.leader_epoch(),
                        self.controller.high_watermark()
                    ),
                    "the controller's leader knows the current epoch and applies HW"
                );
                (l, WriteWait::AllIsr, self.controller.leader_epoch())
            }
            Writer::StaleLeader(idx) => {
                (idx, WriteWait::StaleLeader, self.nodes[idx].leader_epoch())
            }
        };
        let mut out = std::mem::take(&mut self.out);
        let cluster = &self.cluster;
        let offset =
            self.nodes[idx].append_local(key, value, level, |j| cluster.is_slow(j), &mut out);
        self.dispatch(idx, &mut out);
        self.out = out;
        let acknowledged_at_append = self.config.decisions.acknowledged(
            level,
            offset,
            self.nodes[idx].high_watermark(),
            false,
        );
        if acknowledged_at_append {
            let node = self.cluster.id(idx).clone();
            let high_watermark = self.nodes[idx].high_watermark();
            let message = match wait {
                WriteWait::AllIsr => "appended on the leader; not yet replicated".to_owned(),
                WriteWait::StaleLeader => {
                    replication::message![
                        "appended on ",
                        node,
                        ", which still believes it leads epoch ",
                        epoch
                    ]
                }
            };
            record!(
                self.cluster.trace,
                self.tick_now(),
                "isr_write_acknowledged",
                offset = offset,
                level = level.name(),
                high_watermark = high_watermark
            );
            let outcome = Outcome::Written { offset, message };
            self.complete(id, op, submitted, Some(idx), outcome);
            return None;
        }
        Some(PendingWrite {
            id,
            op,
            level,
            submitted,
            wait,
            writer: idx,
            epoch,
            offset,
        })
    }

    /// The facts `write` is judged on now (from [`IsrGroup::facts`], which
    /// the caller refreshed), and its verdict.
    fn judge(&self, write: &PendingWrite) -> Option<Verdict> {
        let offset = write.offset;
        let writer = &self.nodes[write.writer];
        let confirmed = self
            .nodes
            .iter()
            .filter(|n| {
                n.me() != write.writer
                    && n.confirmed_log_end(write.epoch)
                        .is_some_and(|end| end >= offset)
            })
            .count()
            + 1;
        write.decide(&WriteFacts {
            now: self.tick_now(),
            ack_timeout: self.config.ack_timeout,
            writer: self.cluster.id(write.writer),
            writer_alive: self.cluster.is_alive(write.writer),
            writer_epoch: writer.leader_epoch(),
            leader: self.cluster.id(self.controller.leader()),
            leader_epoch: self.controller.leader_epoch(),
            isr_len: self.controller.isr_len(),
            min_insync: self.controller.min_insync_replicas(),
            isr_holds: self.controller.isr_holds(offset, &self.facts),
            high_watermark: self.controller.high_watermark(),
            confirmed,
            replicas: self.nodes.len(),
            decide: self.config.decisions,
        })
    }

    /// Judges a write and either completes it or keeps it.
    fn settle_one(&mut self, write: PendingWrite) {
        match self.judge(&write) {
            Some(verdict) => self.finish_write(write, verdict),
            None => self.pending.push(write),
        }
    }

    /// Re-evaluates every pending write after a tick's refresh, in
    /// submission order (so writes at one leader complete in offset order),
    /// and completes those whose fate is decided. The facts are those the
    /// refresh just gathered: it changed the controller and the replicas'
    /// applied HW, nothing the facts say.
    pub(crate) fn settle_pending(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let mut writes = std::mem::take(&mut self.settling);
        std::mem::swap(&mut writes, &mut self.pending);
        for write in writes.drain(..) {
            self.settle_one(write);
        }
        self.settling = writes;
    }

    /// Records how `write` ended and completes it: *done* when
    /// acknowledged, *unknown* otherwise (it is in the writer's log).
    fn finish_write(&mut self, write: PendingWrite, verdict: Verdict) {
        let offset = write.offset;
        let (node, outcome) = match verdict {
            Verdict::Acknowledged => {
                record!(
                    self.cluster.trace,
                    self.tick_now(),
                    "isr_write_acknowledged",
                    offset = offset,
                    level = write.level.name(),
                    high_watermark = self.controller.high_watermark()
                );
                let message = "all current ISR replicas acknowledged and HW advanced";
                (
                    Some(write.writer),
                    Outcome::Written {
                        offset,
                        message: message.to_owned(),
                    },
                )
            }
            Verdict::NotAcknowledged {
                reason,
                message,
                answered,
            } => {
                self.record_refused(Some(offset), reason);
                (
                    answered.then_some(write.writer),
                    Outcome::unknown(Some(offset), message),
                )
            }
        };
        self.complete(write.id, write.op, write.submitted, node, outcome);
    }

    fn record_refused(&mut self, offset: Option<u64>, reason: &'static str) {
        record!(
            self.cluster.trace,
            self.tick_now(),
            "isr_write_refused",
            offset = offset,
            reason = reason,
            isr = self.isr_ids(),
            high_watermark = self.controller.high_watermark()
        );
    }

    /// A produce request sent to `node` by a client whose metadata may be
    /// stale: [`submit`](ReplicationGroup::submit)`(ClientOp::write(key,
    /// value, level).at(node))`, then ticks until it completes. At the
    /// controller's leader it is an ordinary
    /// [`client_write`](ReplicationGroup::client_write). At a displaced
    /// leader that has not yet heard of the election (e.g. it is isolated)
    /// the broker still appends in its old epoch and streams the entry, as a
    /// real stale leader would: `Leader` is acknowledged at once (the
    /// `acks=1` hazard), `AllIsr` waits up to `ack_timeout` ticks for
    /// confirmations that no replica of the new epoch will give, and is
    /// refused (the completion is *unknown*: the entry is in the old
    /// leader's log). At any other replica it is [`GroupError::NotPermitted`].
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

    /// A lease-checked read addressed to `node`: it must be the controller's
    /// current leader with a live lease (else blocked with guard
    /// `lease fenced` / `lease expired`), then the `Linearizable` guards
    /// apply. A displaced old leader therefore fails closed. Changes
    /// nothing.
    pub fn lease_read(
        &mut self,
        node: &NodeId,
        key: impl AsRef<[u8]>,
    ) -> Result<ReadResult, GroupError> {
        reads::lease_read(
            &self.controller,
            &self.nodes,
            &self.cluster,
            node,
            key.as_ref(),
        )
    }

    /// The value of `key` in `node`'s `committed_data` (no guard; for
    /// inspection).
    pub fn committed_value(&self, node: &NodeId, key: &[u8]) -> Result<Option<Bytes>, GroupError> {
        let idx = self.cluster.index(node)?;
        Ok(self.nodes[idx].log().committed_data().get(key).cloned())
    }
}
