//! Client writes: `Leader` and `AllIsr` at the controller's leader, and a
//! produce request sent to a named broker (as a client with stale metadata
//! would): admission, the append, and how a pending write ends.

use std::sync::Arc;

use bytes::Bytes;
use replication::{
    AckLevel, ClientOp, GroupError, NodeId, OpId, Outcome, ReplicationGroup, WriteResult,
};
use sim_core::record;

use crate::group::IsrGroup;
use crate::log::LogEntry;
use crate::message::{AppendKind, IsrMessage};
use crate::pending::{PendingWrite, Verdict, WriteFacts, WriteWait};

impl IsrGroup {
    fn check_level(level: AckLevel) -> Result<(), GroupError> {
        match level {
            AckLevel::Leader | AckLevel::AllIsr => Ok(()),
            other => Err(GroupError::UnsupportedAck {
                protocol: "isr",
                level: other,
            }),
        }
    }

    /// Appends at replica `idx` in the epoch it knows, then streams the
    /// entry to every peer that is not marked slow.
    fn append_local(&mut self, idx: usize, key: Bytes, value: Bytes, level: AckLevel) -> u64 {
        let now = self.tick_now();
        let node = &mut self.nodes[idx];
        let epoch = node.known_epoch;
        let prev_offset = node.log.end();
        let prev_epoch = node.log.epoch_at(prev_offset);
        let offset = prev_offset + 1;
        let entry = Arc::new(LogEntry {
            offset,
            epoch,
            key,
            value,
        });
        node.log.push(entry.clone());
        if idx == self.leader {
            node.matched_epoch = epoch;
            node.matched_end = offset;
        }
        record!(
            self.trace,
            now,
            "isr_leader_appended",
            node = &self.nodes[idx].id,
            offset = offset,
            epoch = epoch,
            key = &entry.key,
            value = &entry.value,
            level = level.name()
        );
        let hw = if idx == self.leader {
            self.high_watermark
        } else {
            self.nodes[idx].log.applied_hw
        };
        let shared: Arc<[Arc<LogEntry>]> = Arc::from([entry.clone()]);
        for j in 0..self.nodes.len() {
            if j == idx {
                continue;
            }
            if self.slow[j] {
                record!(
                    self.trace,
                    now,
                    "isr_replication_delayed",
                    leader = &self.nodes[idx].id,
                    node = &self.nodes[j].id,
                    offset = offset
                );
                continue;
            }
            let msg = IsrMessage::Append {
                kind: AppendKind::Live,
                leader_epoch: epoch,
                source: self.nodes[idx].id.clone(),
                prev_offset,
                prev_epoch,
                entries: Arc::clone(&shared),
                leader_log_end: offset,
                high_watermark: hw,
            };
            self.send(idx, j, msg);
        }
        offset
    }

    /// Checks that a write at `level` can start at `target` (the controller's
    /// leader when `None`) without changing anything. The errors, and their
    /// order, are those of the blocking calls: unsupported level, unknown or
    /// crashed target, a target that is not a leader, a crashed leader, a
    /// leader outside the ISR.
    pub(crate) fn admit_write(
        &self,
        level: AckLevel,
        target: Option<&NodeId>,
    ) -> Result<Writer, GroupError> {
        Self::check_level(level)?;
        if let Some(node) = target {
            let idx = self.alive_index(node)?;
            if idx != self.leader {
                if !self.nodes[idx].believes_leader() {
                    return Err(GroupError::not_permitted(
                        node,
                        format!(
                            "not the leader: it knows leader {} in epoch {}",
                            self.nodes[idx].known_leader, self.nodes[idx].known_epoch
                        ),
                    ));
                }
                return Ok(Writer::StaleLeader(idx));
            }
        }
        let l = self.leader;
        if !self.nodes[l].alive {
            return Err(GroupError::NodeDown(self.nodes[l].id.clone()));
        }
        if !self.in_isr[l] {
            return Err(GroupError::NoLeader(format!(
                "leader {} restarted without the committed prefix (log end {} < HW {}); \
                 elect another ISR member",
                self.nodes[l].id,
                self.nodes[l].log.end(),
                self.high_watermark
            )));
        }
        Ok(Writer::Leader(l))
    }

    /// Starts an admitted write: refuses it before appending (an `AllIsr`
    /// write while the ISR is below min.insync) or acknowledges it at once
    /// (`Leader`) — completing it — or appends it and returns it pending.
    /// `op` is the submitted operation, kept for its completion; `key`,
    /// `value` and `level` are its fields.
    pub(crate) fn start_write(
        &mut self,
        writer: Writer,
        id: OpId,
        op: ClientOp,
        key: Bytes,
        value: Bytes,
        level: AckLevel,
    ) -> Option<PendingWrite> {
        let submitted = self.tick_now();
        let (idx, wait, epoch) = match writer {
            Writer::Leader(l) => {
                let min = self.config.min_insync_replicas;
                if level == AckLevel::AllIsr {
                    self.refresh();
                    let size = self.isr_len();
                    if size < min {
                        self.record_refused(None, "isr_below_min_insync");
                        let outcome = Outcome::refused_before_append(format!(
                            "refused before append: ISR size {size} is below min.insync.replicas {min}"
                        ));
                        let node = Some(self.nodes[l].id.clone());
                        self.complete(id, op, submitted, node, outcome);
                        return None;
                    }
                }
                debug_assert_eq!(
                    self.nodes[l].known_epoch, self.leader_epoch,
                    "the controller's leader knows the current epoch"
                );
                (l, WriteWait::AllIsr, self.leader_epoch)
            }
            Writer::StaleLeader(idx) => (idx, WriteWait::StaleLeader, self.nodes[idx].known_epoch),
        };
        let offset = self.append_local(idx, key, value, level);
        if level == AckLevel::Leader {
            let node = self.nodes[idx].id.clone();
            let (high_watermark, message) = match wait {
                WriteWait::AllIsr => (
                    self.high_watermark,
                    "appended on the leader; not yet replicated".to_owned(),
                ),
                WriteWait::StaleLeader => (
                    self.nodes[idx].log.applied_hw,
                    format!("appended on {node}, which still believes it leads epoch {epoch}"),
                ),
            };
            record!(
                self.trace,
                self.tick_now(),
                "isr_write_acknowledged",
                offset = offset,
                level = level.name(),
                high_watermark = high_watermark
            );
            let outcome = Outcome::Written { offset, message };
            self.complete(id, op, submitted, Some(node), outcome);
            return None;
        }
        Some(PendingWrite {
            id,
            op,
            submitted,
            wait,
            writer: idx,
            epoch,
            offset,
        })
    }

    /// The facts `write` is judged on now, and its verdict.
    pub(crate) fn judge(&self, write: &PendingWrite) -> Option<Verdict> {
        let offset = write.offset;
        let writer = &self.nodes[write.writer];
        let isr_holds = (0..self.nodes.len())
            .filter(|&j| self.in_isr[j])
            .all(|j| self.match_of(j) >= offset);
        let confirmed = self
            .nodes
            .iter()
            .enumerate()
            .filter(|(j, n)| {
                *j != write.writer && n.matched_epoch == write.epoch && n.matched_end >= offset
            })
            .count()
            + 1;
        write.decide(&WriteFacts {
            now: self.tick_now(),
            ack_timeout: self.config.ack_timeout,
            writer: &writer.id,
            writer_alive: writer.alive,
            writer_epoch: writer.known_epoch,
            leader: &self.nodes[self.leader].id,
            leader_epoch: self.leader_epoch,
            isr_len: self.isr_len(),
            min_insync: self.config.min_insync_replicas,
            isr_holds,
            high_watermark: self.high_watermark,
            confirmed,
            replicas: self.nodes.len(),
        })
    }

    /// Records how `write` ended and completes it: *done* when
    /// acknowledged, *unknown* otherwise (it is in the writer's log).
    pub(crate) fn finish_write(&mut self, write: PendingWrite, verdict: Verdict) {
        let writer = self.nodes[write.writer].id.clone();
        let offset = write.offset;
        let (node, outcome) = match verdict {
            Verdict::Acknowledged => {
                record!(
                    self.trace,
                    self.tick_now(),
                    "isr_write_acknowledged",
                    offset = offset,
                    level = write.op.level_name(),
                    high_watermark = self.high_watermark
                );
                let message = "all current ISR replicas acknowledged and HW advanced";
                (
                    Some(writer),
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
                    answered.then_some(writer),
                    Outcome::unknown(Some(offset), message),
                )
            }
        };
        self.complete(write.id, write.op, write.submitted, node, outcome);
    }

    fn record_refused(&mut self, offset: Option<u64>, reason: &'static str) {
        record!(
            self.trace,
            self.tick_now(),
            "isr_write_refused",
            offset = offset,
            reason = reason,
            isr = self.isr_sorted(),
            high_watermark = self.high_watermark
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
    pub fn produce_to(
        &mut self,
        node: &NodeId,
        key: Bytes,
        value: Bytes,
        level: AckLevel,
    ) -> Result<WriteResult, GroupError> {
        let id = self.submit(ClientOp::write(key, value, level).at(node))?;
        self.await_completion(id)?.outcome.into_write_result()
    }
}

/// Where an admitted write goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Writer {
    /// The controller's leader (index).
    Leader(usize),
    /// A displaced leader that still believes it leads (index).
    StaleLeader(usize),
}
