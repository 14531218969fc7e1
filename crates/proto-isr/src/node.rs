//! Per-replica state and the pure step logic for one delivered packet.
//! No simulator access: the group delivers, records and sends.

use std::sync::Arc;

use replication::NodeId;

use crate::log::{LogEntry, ReplicaLog};
use crate::message::AppendKind;
use crate::probe::CatchUpMode;

/// One replica.
#[derive(Debug, Clone)]
pub(crate) struct IsrNode {
    pub(crate) id: NodeId,
    pub(crate) alive: bool,
    /// The leader epoch this replica knows (from the controller).
    pub(crate) known_epoch: u64,
    /// The leader this replica knows (from the controller).
    pub(crate) known_leader: NodeId,
    pub(crate) log: ReplicaLog,
    /// Epoch in which the log was last confirmed against the leader.
    pub(crate) matched_epoch: u64,
    /// Offset through which the log is confirmed identical to the leader
    /// of `matched_epoch` (only meaningful when that epoch is current).
    pub(crate) matched_end: u64,
    pub(crate) catch_up_mode: CatchUpMode,
}

/// What a delivered leader packet did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StepOutcome {
    /// Accepted: entries `first..=last` appended (empty when `first > last`),
    /// a suffix above `truncated_to` dropped first if `Some`.
    Accepted {
        first: u64,
        last: u64,
        truncated_to: Option<u64>,
    },
    /// A snapshot replaced the whole log.
    Installed { dropped: bool },
    /// Refused before touching state.
    Rejected { reason: &'static str },
}

impl IsrNode {
    pub(crate) fn new(id: NodeId, leader: NodeId) -> Self {
        IsrNode {
            id,
            alive: true,
            known_epoch: 1,
            known_leader: leader,
            log: ReplicaLog::default(),
            matched_epoch: 1,
            matched_end: 0,
            catch_up_mode: CatchUpMode::Never,
        }
    }

    /// True when this replica believes it leads.
    pub(crate) fn believes_leader(&self) -> bool {
        self.known_leader == self.id
    }

    /// Packet fencing: epoch first, then source. Nothing is touched.
    fn fence(&self, epoch: u64, source: &NodeId) -> Option<&'static str> {
        if epoch != self.known_epoch {
            Some("stale_leader_epoch")
        } else if source != &self.known_leader || source == &self.id {
            Some("non_current_leader")
        } else {
            None
        }
    }

    /// Handles an append packet (live or catch-up).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn step_append(
        &mut self,
        kind: AppendKind,
        epoch: u64,
        source: &NodeId,
        prev_offset: u64,
        prev_epoch: u64,
        entries: &[Arc<LogEntry>],
        leader_log_end: u64,
        high_watermark: u64,
    ) -> StepOutcome {
        if let Some(reason) = self.fence(epoch, source) {
            return StepOutcome::Rejected { reason };
        }
        let fits = prev_offset <= self.log.end() && self.log.epoch_at(prev_offset) == prev_epoch;
        if !fits {
            return StepOutcome::Rejected {
                reason: "log_mismatch",
            };
        }
        // First entry the log does not already hold with the same epoch.
        let mut skip = 0usize;
        while skip < entries.len() {
            let e = &entries[skip];
            if self.log.epoch_at(e.offset) != e.epoch || self.log.get(e.offset).is_none() {
                break;
            }
            skip += 1;
        }
        let mut truncated_to = None;
        let conflict_at = prev_offset + skip as u64;
        if skip < entries.len() && self.log.truncate_above(conflict_at) {
            truncated_to = Some(conflict_at);
        }
        if kind == AppendKind::CatchUp && self.log.truncate_above(leader_log_end) {
            truncated_to = Some(leader_log_end);
        }
        let first = self.log.end() + 1;
        for e in &entries[skip..] {
            self.log.push(e.clone());
        }
        let last = self.log.end();
        self.matched_epoch = epoch;
        self.matched_end = self.log.end();
        self.log.apply_through(high_watermark.min(self.matched_end));
        self.catch_up_mode = match (kind, self.catch_up_mode) {
            (AppendKind::CatchUp, _) => CatchUpMode::Incremental,
            (AppendKind::Live, CatchUpMode::Never) => CatchUpMode::Streaming,
            (AppendKind::Live, mode) => mode,
        };
        StepOutcome::Accepted {
            first,
            last,
            truncated_to,
        }
    }

    /// Handles a full snapshot.
    pub(crate) fn step_snapshot(
        &mut self,
        epoch: u64,
        source: &NodeId,
        log: &[Arc<LogEntry>],
        high_watermark: u64,
    ) -> StepOutcome {
        if let Some(reason) = self.fence(epoch, source) {
            return StepOutcome::Rejected { reason };
        }
        let dropped = self.log.end() > 0;
        self.log.replace(log);
        self.matched_epoch = epoch;
        self.matched_end = self.log.end();
        self.log.apply_through(high_watermark.min(self.matched_end));
        self.catch_up_mode = CatchUpMode::Full;
        StepOutcome::Installed { dropped }
    }
}
