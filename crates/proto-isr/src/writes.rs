//! Client writes: `Leader` and `AllIsr` at the controller's leader, and a
//! produce request sent to a named broker (as a client with stale metadata
//! would).

use std::sync::Arc;

use bytes::Bytes;
use replication::{AckLevel, GroupError, NodeId, WriteResult};
use sim_core::record;

use crate::group::IsrGroup;
use crate::log::LogEntry;
use crate::message::{AppendKind, IsrMessage};

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

    fn refuse(
        &mut self,
        offset: Option<u64>,
        reason: &'static str,
        message: String,
    ) -> WriteResult {
        record!(
            self.trace,
            self.tick_now(),
            "isr_write_refused",
            offset = offset,
            reason = reason,
            isr = self.isr_sorted(),
            high_watermark = self.high_watermark
        );
        WriteResult::refused(offset, message)
    }

    /// A write at the controller's leader.
    pub(crate) fn write(
        &mut self,
        key: Bytes,
        value: Bytes,
        level: AckLevel,
    ) -> Result<WriteResult, GroupError> {
        Self::check_level(level)?;
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
        let min = self.config.min_insync_replicas;
        if level == AckLevel::AllIsr {
            self.refresh();
            let size = self.isr_len();
            if size < min {
                let msg = format!(
                    "refused before append: ISR size {size} is below min.insync.replicas {min}"
                );
                return Ok(self.refuse(None, "isr_below_min_insync", msg));
            }
        }
        let offset = self.append_local(l, key, value, level);
        if level == AckLevel::Leader {
            record!(
                self.trace,
                self.tick_now(),
                "isr_write_acknowledged",
                offset = offset,
                level = level.name(),
                high_watermark = self.high_watermark
            );
            return Ok(WriteResult::accepted(
                offset,
                "appended on the leader; not yet replicated",
            ));
        }
        let mut waited = 0;
        loop {
            let size = self.isr_len();
            if size < min {
                let msg = format!(
                    "ISR shrank to {size}, below min.insync.replicas {min}, while waiting for offset {offset}"
                );
                return Ok(self.refuse(Some(offset), "isr_below_min_insync", msg));
            }
            let all_have = (0..self.nodes.len())
                .filter(|&j| self.in_isr[j])
                .all(|j| self.match_of(j) >= offset);
            if all_have && self.high_watermark >= offset {
                record!(
                    self.trace,
                    self.tick_now(),
                    "isr_write_acknowledged",
                    offset = offset,
                    level = level.name(),
                    high_watermark = self.high_watermark
                );
                return Ok(WriteResult::accepted(
                    offset,
                    "all current ISR replicas acknowledged and HW advanced",
                ));
            }
            if waited >= self.config.ack_timeout {
                let msg = format!(
                    "ack timeout after {waited} ticks: HW {} has not reached offset {offset}",
                    self.high_watermark
                );
                return Ok(self.refuse(Some(offset), "ack_timeout", msg));
            }
            self.step_tick();
            waited += 1;
        }
    }

    /// A produce request sent to `node` by a client whose metadata may be
    /// stale. At the controller's leader it is an ordinary
    /// [`client_write`](replication::ReplicationGroup::client_write). At a
    /// displaced leader that has not yet heard of the election (e.g. it is
    /// isolated) the broker still appends in its old epoch and streams the
    /// entry, as a real stale leader would: `Leader` is acknowledged at once
    /// (the `acks=1` hazard), `AllIsr` waits up to `ack_timeout` ticks for
    /// confirmations that no replica of the new epoch will give, and is
    /// refused. At any other replica it is [`GroupError::NotPermitted`].
    pub fn produce_to(
        &mut self,
        node: &NodeId,
        key: Bytes,
        value: Bytes,
        level: AckLevel,
    ) -> Result<WriteResult, GroupError> {
        Self::check_level(level)?;
        let idx = self.alive_index(node)?;
        if idx == self.leader {
            return self.write(key, value, level);
        }
        if !self.nodes[idx].believes_leader() {
            return Err(GroupError::not_permitted(
                node,
                format!(
                    "not the leader: it knows leader {} in epoch {}",
                    self.nodes[idx].known_leader, self.nodes[idx].known_epoch
                ),
            ));
        }
        let epoch = self.nodes[idx].known_epoch;
        let offset = self.append_local(idx, key, value, level);
        if level == AckLevel::Leader {
            record!(
                self.trace,
                self.tick_now(),
                "isr_write_acknowledged",
                offset = offset,
                level = level.name(),
                high_watermark = self.nodes[idx].log.applied_hw
            );
            return Ok(WriteResult::accepted(
                offset,
                format!("appended on {node}, which still believes it leads epoch {epoch}"),
            ));
        }
        let mut waited = 0;
        loop {
            let node_state = &self.nodes[idx];
            let confirmed = self
                .nodes
                .iter()
                .enumerate()
                .filter(|(j, n)| *j != idx && n.matched_epoch == epoch && n.matched_end >= offset)
                .count()
                + 1;
            if waited >= self.config.ack_timeout || node_state.known_epoch != epoch {
                let msg = format!(
                    "not acknowledged by the ISR of leader epoch {epoch} ({confirmed} of {} replicas \
                     confirmed offset {offset}); the controller's epoch is {}",
                    self.nodes.len(),
                    self.leader_epoch
                );
                return Ok(self.refuse(Some(offset), "stale_leader", msg));
            }
            self.step_tick();
            waited += 1;
        }
    }
}
