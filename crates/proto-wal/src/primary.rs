//! Primary-side step logic: appending records, answering catch-up
//! requests (incremental or base backup) and tracking standby flushes.

use std::collections::BTreeMap;

use bytes::Bytes;
use sim_core::{NodeId, Tick, Trace, record};

use crate::message::WalMsg;
use crate::node::{Effects, WalNode};
use crate::record::WalRecord;
use crate::role::Role;
use crate::sync_names::SynchronousCommit;

impl WalNode {
    /// Primary: appends a new record, applies and flushes it. Returns the
    /// encoded frame to ship.
    pub fn append(
        &mut self,
        key: Bytes,
        value: Bytes,
        now: Tick,
        trace: &mut Trace,
        fx: &mut Effects,
    ) -> Bytes {
        debug_assert_eq!(self.role, Role::Primary, "only a primary appends");
        let lsn = self.lsn() + 1;
        let record = WalRecord::new(self.timeline, lsn, key, value);
        let frame = record.encode();
        self.retained.push_back(frame.clone());
        if self.retained.len() > self.retention {
            self.retained.pop_front();
        }
        self.flushed_lsn = lsn;
        fx.fsync = true;
        record!(
            trace,
            now,
            "wal_record_appended",
            node = &self.id,
            timeline = self.timeline,
            lsn = lsn,
            key = &record.key,
            value = &record.value,
            wal_bytes = self.wal.len() + frame.len()
        );
        self.push_record(&frame, record.key, record.value);
        frame
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn on_start_replication(
        &mut self,
        src: &NodeId,
        timeline: u64,
        next_lsn: u64,
        now: Tick,
        trace: &mut Trace,
        fx: &mut Effects,
    ) {
        if self.role != Role::Primary {
            record!(
                trace,
                now,
                "wal_request_ignored",
                node = &self.id,
                src = src,
                reason = "not_primary"
            );
            return;
        }
        let end = self.lsn();
        let inside =
            timeline == self.timeline && next_lsn >= self.retained_first() && next_lsn <= end + 1;
        if inside {
            let skip = (next_lsn - self.retained_first()) as usize;
            let frames: Vec<Bytes> = self.retained.iter().skip(skip).cloned().collect();
            record!(
                trace,
                now,
                "wal_catchup_incremental",
                node = &self.id,
                standby = src,
                from_lsn = next_lsn,
                to_lsn = end,
                records = frames.len()
            );
            fx.sends.push((
                src.clone(),
                WalMsg::Batch {
                    timeline: self.timeline,
                    frames,
                },
            ));
        } else {
            let reason = if timeline != self.timeline {
                "timeline_changed"
            } else if next_lsn > end + 1 {
                "standby_ahead"
            } else {
                "outside_retention"
            };
            record!(
                trace,
                now,
                "wal_catchup_full",
                node = &self.id,
                standby = src,
                from_lsn = next_lsn,
                to_lsn = end,
                reason = reason
            );
            fx.sends.push((
                src.clone(),
                WalMsg::BaseBackup {
                    timeline: self.timeline,
                    wal: Bytes::copy_from_slice(&self.wal),
                    lsn: end,
                },
            ));
        }
    }

    pub(crate) fn on_flush_ack(
        &mut self,
        src: &NodeId,
        timeline: u64,
        flushed_lsn: u64,
        now: Tick,
        trace: &mut Trace,
    ) {
        if self.accepts_report(src, timeline, now, trace) {
            raise(&mut self.peer_flush, src, flushed_lsn);
            record!(
                trace,
                now,
                "wal_flush_acked",
                node = &self.id,
                standby = src,
                flushed_lsn = flushed_lsn
            );
        }
    }

    /// `remote_write`: a synchronous standby received (not flushed) up to
    /// `written_lsn`.
    pub(crate) fn on_write_ack(
        &mut self,
        src: &NodeId,
        timeline: u64,
        written_lsn: u64,
        now: Tick,
        trace: &mut Trace,
    ) {
        if self.accepts_report(src, timeline, now, trace) {
            raise(&mut self.peer_written, src, written_lsn);
            record!(
                trace,
                now,
                "wal_write_reported",
                node = &self.id,
                standby = src,
                written_lsn = written_lsn
            );
        }
    }

    /// `remote_apply`: a synchronous standby replayed up to `applied_lsn`.
    pub(crate) fn on_apply_ack(
        &mut self,
        src: &NodeId,
        timeline: u64,
        applied_lsn: u64,
        now: Tick,
        trace: &mut Trace,
    ) {
        if self.accepts_report(src, timeline, now, trace) {
            raise(&mut self.peer_applied, src, applied_lsn);
            record!(
                trace,
                now,
                "wal_apply_reported",
                node = &self.id,
                standby = src,
                applied_lsn = applied_lsn
            );
        }
    }

    /// A standby's position report counts only at a primary on its timeline.
    fn accepts_report(&self, src: &NodeId, timeline: u64, now: Tick, trace: &mut Trace) -> bool {
        if self.role != Role::Primary || timeline != self.timeline {
            record!(
                trace,
                now,
                "wal_request_ignored",
                node = &self.id,
                src = src,
                reason = "stale_flush_ack"
            );
            return false;
        }
        true
    }

    /// The position `standby` reported reaching at `commit`'s level
    /// (a flush also proves the write).
    pub(crate) fn reported(&self, standby: &NodeId, commit: SynchronousCommit) -> Option<u64> {
        let flushed = self.peer_flush.get(standby).copied();
        match commit {
            SynchronousCommit::On => flushed,
            SynchronousCommit::RemoteWrite => flushed.max(self.peer_written.get(standby).copied()),
            SynchronousCommit::RemoteApply => self.peer_applied.get(standby).copied(),
        }
    }
}

/// Raises `standby`'s reported position to `lsn` (positions never go back).
fn raise(positions: &mut BTreeMap<NodeId, u64>, standby: &NodeId, lsn: u64) {
    match positions.get_mut(standby) {
        Some(reached) => *reached = (*reached).max(lsn),
        None => {
            positions.insert(standby.clone(), lsn);
        }
    }
}
