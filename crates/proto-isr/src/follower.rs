//! The follower's half of [`IsrNode`]: fencing, then appending a leader's
//! packet (live or catch-up, with divergence repair) or installing a full
//! snapshot.

use std::sync::Arc;

use crate::log::LogEntry;
use crate::message::{Append, AppendKind, IsrMessage};
use crate::node::IsrNode;
use crate::output::{NodeEvent, Output, RejectReason, TruncationReason};
use crate::probe::CatchUpMode;

impl IsrNode {
    /// Packet fencing: epoch first, then source. Nothing is touched.
    fn fence(&self, epoch: u64, source: usize) -> Option<RejectReason> {
        crate::planted::assert_current_epoch(self.planted, epoch, self.known_epoch);
        if crate::planted::takes_stale_epoch(self.planted, epoch, self.known_epoch) {
            // The bug: an older epoch's packet is taken as current.
            return None;
        }
        let from_known_leader = source == self.known_leader && source != self.me;
        if self
            .decide
            .accepts_packet(epoch, self.known_epoch, from_known_leader)
        {
            None
        } else if epoch != self.known_epoch {
            Some(RejectReason::StaleLeaderEpoch)
        } else {
            Some(RejectReason::NonCurrentLeader)
        }
    }

    /// Records a refused packet (and counts it when it was fenced).
    fn reject(
        &mut self,
        from: usize,
        reason: RejectReason,
        packet_epoch: u64,
        out: &mut Vec<Output>,
    ) {
        if reason.is_fencing() {
            self.fenced_packets += 1;
        }
        out.push(Output::Event(NodeEvent::AppendRejected {
            from,
            reason,
            packet_epoch,
            known_epoch: self.known_epoch,
        }));
    }

    /// A leader's append packet (live or catch-up). Refused when fenced,
    /// or — asking the sender to resynchronise it with a
    /// [`IsrMessage::Fetch`] — when it does not continue this log.
    /// Otherwise entries this log already holds in the same epoch are kept,
    /// a conflicting suffix (and, for a catch-up, anything beyond the
    /// leader's log end) is dropped first, the rest appended; the log is
    /// then confirmed against the sender's epoch through its end.
    pub(crate) fn on_append(&mut self, from: usize, p: &Append<'_>, out: &mut Vec<Output>) {
        if let Some(reason) = self.fence(p.leader_epoch, p.source) {
            self.reject(from, reason, p.leader_epoch, out);
            return;
        }
        let fits = self.decide.continues_log(
            p.prev_offset,
            p.prev_epoch,
            self.log.end(),
            self.log.epoch_at(p.prev_offset),
        );
        if !fits {
            self.reject(from, RejectReason::LogMismatch, p.leader_epoch, out);
            out.push(Output::Send {
                to: from,
                msg: IsrMessage::Fetch {
                    leader_epoch: self.known_epoch,
                    log_end: self.log.end(),
                },
            });
            return;
        }
        // First entry the log does not already hold with the same epoch.
        let entries = p.entries;
        let mut skip = 0usize;
        while skip < entries.len() {
            let e = &entries[skip];
            if self.log.epoch_at(e.offset) != e.epoch || self.log.get(e.offset).is_none() {
                break;
            }
            skip += 1;
        }
        let mut truncated_to = None;
        let conflict_at = p.prev_offset + skip as u64;
        if skip < entries.len() && self.log.truncate_above(conflict_at) {
            truncated_to = Some(conflict_at);
        }
        // A catch-up also cuts a suffix the leader did not have when it
        // sent it — unless this log is already confirmed in the packet's
        // epoch: then it is a prefix of that leader's log, and a catch-up
        // sent earlier (a late or duplicated datagram) knows only a shorter
        // prefix of the same log. Cutting there threw away entries below
        // HW, and the controller then elected an ISR member holding less
        // than HW.
        if p.kind == AppendKind::CatchUp
            && self.matched_epoch != p.leader_epoch
            && self.log.truncate_above(p.leader_log_end)
        {
            truncated_to = Some(p.leader_log_end);
        }
        if let Some(above) = truncated_to {
            // One event for the final cut, however many suffixes went.
            self.durable_offset = self.durable_offset.min(above);
            out.push(Output::Event(NodeEvent::LogTruncated {
                above,
                reason: TruncationReason::Divergence,
            }));
        }
        let first = self.log.end() + 1;
        for e in &entries[skip..] {
            self.log.push(e.clone());
        }
        let last = self.log.end();
        self.matched_epoch = p.leader_epoch;
        self.matched_end = self.log.end();
        self.log
            .apply_through(p.high_watermark.min(self.matched_end));
        self.catch_up_mode = match (p.kind, self.catch_up_mode) {
            (AppendKind::CatchUp, _) => CatchUpMode::Incremental,
            (AppendKind::Live, CatchUpMode::Never) => CatchUpMode::Streaming,
            (AppendKind::Live, mode) => mode,
        };
        out.push(Output::Event(NodeEvent::EntriesAppended {
            first,
            last,
            packet_epoch: p.leader_epoch,
        }));
    }

    /// A full snapshot from the leader: unless fenced, replaces the whole
    /// log (the durable marker drops to 0 when entries were replaced: the
    /// new log is not on disk) and confirms it against the sender's epoch.
    pub(crate) fn on_snapshot(
        &mut self,
        from: usize,
        epoch: u64,
        source: usize,
        log: &[Arc<LogEntry>],
        high_watermark: u64,
        out: &mut Vec<Output>,
    ) {
        if let Some(reason) = self.fence(epoch, source) {
            self.reject(from, reason, epoch, out);
            return;
        }
        if self.matched_epoch == epoch && log.len() as u64 <= self.log.end() {
            // Confirmed in this epoch already: the snapshot is an earlier
            // prefix of the same leader's log (a late or duplicated
            // datagram), and installing it would drop entries below HW.
            return;
        }
        if self.log.end() > 0 {
            self.durable_offset = 0;
        }
        self.log.replace(log);
        self.matched_epoch = epoch;
        self.matched_end = self.log.end();
        self.log.apply_through(high_watermark.min(self.matched_end));
        self.catch_up_mode = CatchUpMode::Full;
        out.push(Output::Event(NodeEvent::SnapshotInstalled {
            log_end: self.log.end(),
            applied_hw: self.log.applied_hw,
            packet_epoch: epoch,
        }));
    }
}
