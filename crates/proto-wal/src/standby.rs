//! Standby-side step logic: streamed records, catch-up batches and base
//! backups, each fenced before anything is applied.

use bytes::Bytes;
use sim_core::{NodeId, Tick, Trace, record};

use crate::message::WalMsg;
use crate::node::{Effects, Fence, WalNode};
use crate::record::{RecordError, WalRecord};
use crate::role::{Role, SyncMode};

impl WalNode {
    /// Handles one delivered message.
    pub fn handle(
        &mut self,
        src: &NodeId,
        msg: WalMsg,
        now: Tick,
        trace: &mut Trace,
        fx: &mut Effects,
    ) {
        match msg {
            WalMsg::Record { frame } => {
                // Decode errors are recorded inside; nothing is applied.
                let _ = self.receive_frame(src, &frame, SyncMode::Streaming, now, trace, fx);
            }
            WalMsg::Batch { timeline, frames } => {
                self.on_batch(src, timeline, frames, now, trace, fx)
            }
            WalMsg::BaseBackup { timeline, wal, lsn } => {
                self.on_base_backup(src, timeline, &wal, lsn, now, trace, fx)
            }
            WalMsg::StartReplication { timeline, next_lsn } => {
                self.on_start_replication(src, timeline, next_lsn, now, trace, fx)
            }
            WalMsg::FlushAck {
                timeline,
                flushed_lsn,
            } => self.on_flush_ack(src, timeline, flushed_lsn, now, trace),
            WalMsg::WriteAck {
                timeline,
                written_lsn,
            } => self.on_write_ack(src, timeline, written_lsn, now, trace),
            WalMsg::ApplyAck {
                timeline,
                applied_lsn,
            } => self.on_apply_ack(src, timeline, applied_lsn, now, trace),
            WalMsg::Keepalive { timeline, lsn } => match self.fence(src, timeline) {
                Fence::Reject(reason) => {
                    self.reject(src, "keepalive", timeline, reason, now, trace)
                }
                Fence::NewerPrimary => self.adopt(src, timeline, true, now, trace, fx),
                Fence::Accept if lsn > self.lsn() => {
                    record!(
                        trace,
                        now,
                        "wal_gap_detected",
                        node = &self.id,
                        applied_lsn = self.lsn(),
                        primary_lsn = lsn
                    );
                    // A keepalive is a reconnect: ask again even if an earlier
                    // request was lost.
                    self.request_catchup(true, now, trace, fx);
                }
                Fence::Accept => {}
            },
        }
    }

    /// Decodes, fences and applies one record frame from `src`.
    pub fn receive_frame(
        &mut self,
        src: &NodeId,
        frame: &Bytes,
        mode: SyncMode,
        now: Tick,
        trace: &mut Trace,
        fx: &mut Effects,
    ) -> Result<(), RecordError> {
        let record = match WalRecord::decode_shared(frame) {
            Ok(record) => record,
            Err(err) => {
                record!(
                    trace,
                    now,
                    "wal_record_malformed",
                    node = &self.id,
                    src = src,
                    reason = err.to_string()
                );
                return Err(err);
            }
        };
        match self.fence(src, record.timeline) {
            Fence::Reject(reason) => {
                record!(
                    trace,
                    now,
                    "wal_fenced",
                    node = &self.id,
                    src = src,
                    msg = "wal_record",
                    lsn = record.lsn,
                    msg_timeline = record.timeline,
                    node_timeline = self.timeline,
                    reason = reason
                );
            }
            Fence::NewerPrimary => self.adopt(src, record.timeline, false, now, trace, fx),
            Fence::Accept => self.apply(record, frame, mode, now, trace, fx),
        }
        Ok(())
    }

    pub(crate) fn apply(
        &mut self,
        record: WalRecord,
        frame: &[u8],
        mode: SyncMode,
        now: Tick,
        trace: &mut Trace,
        fx: &mut Effects,
    ) {
        let next = self.lsn() + 1;
        if record.lsn < next {
            record!(
                trace,
                now,
                "wal_record_skipped",
                node = &self.id,
                lsn = record.lsn,
                reason = "duplicate"
            );
            return;
        }
        if record.lsn > next {
            record!(
                trace,
                now,
                "wal_gap_detected",
                node = &self.id,
                applied_lsn = self.lsn(),
                primary_lsn = record.lsn
            );
            self.request_catchup(false, now, trace, fx);
            return;
        }
        debug_assert_eq!(
            record.timeline, self.timeline,
            "a standby applies only its own timeline"
        );
        self.requested_at = None;
        self.sync_mode = mode;
        if self.apply_delay == 0 {
            record!(
                trace,
                now,
                "wal_record_applied",
                node = &self.id,
                timeline = record.timeline,
                node_timeline = self.timeline,
                lsn = record.lsn,
                key = &record.key,
                value = &record.value,
                mode = mode.name(),
                flushed = self.flushes_on_receipt()
            );
            self.push_record(frame, record.key, record.value);
        } else {
            // `recovery_min_apply_delay`: written to the WAL now, replayed
            // (visible to reads) later.
            let due = now + self.apply_delay;
            record!(
                trace,
                now,
                "wal_record_received",
                node = &self.id,
                timeline = record.timeline,
                lsn = record.lsn,
                key = &record.key,
                value = &record.value,
                mode = mode.name(),
                flushed = self.flushes_on_receipt(),
                replay_at = due
            );
            self.push_received(frame, due);
        }
        if self.flushes_on_receipt() {
            self.flush(fx);
        } else if self.synchronous
            && let Some(primary) = &self.following
        {
            // `remote_write`: confirm the receipt; the record stays
            // unflushed until an fsync or a base backup.
            fx.sends.push((
                primary.clone(),
                WalMsg::WriteAck {
                    timeline: self.timeline,
                    written_lsn: self.lsn(),
                },
            ));
        }
        if self.apply_delay == 0 && self.reports_apply() {
            self.report_applied(fx);
        }
    }

    pub(crate) fn on_batch(
        &mut self,
        src: &NodeId,
        timeline: u64,
        frames: Vec<Bytes>,
        now: Tick,
        trace: &mut Trace,
        fx: &mut Effects,
    ) {
        match self.fence(src, timeline) {
            Fence::Reject(reason) => self.reject(src, "wal_batch", timeline, reason, now, trace),
            Fence::NewerPrimary => self.adopt(src, timeline, false, now, trace, fx),
            Fence::Accept => {
                for frame in &frames {
                    if self
                        .receive_frame(src, frame, SyncMode::Incremental, now, trace, fx)
                        .is_err()
                    {
                        break;
                    }
                }
                self.sync_mode = SyncMode::Incremental;
                record!(
                    trace,
                    now,
                    "wal_catchup_applied",
                    node = &self.id,
                    mode = "incremental",
                    records = frames.len(),
                    lsn = self.lsn()
                );
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn on_base_backup(
        &mut self,
        src: &NodeId,
        timeline: u64,
        wal: &Bytes,
        lsn: u64,
        now: Tick,
        trace: &mut Trace,
        fx: &mut Effects,
    ) {
        match self.fence(src, timeline) {
            Fence::Reject(reason) => {
                return self.reject(src, "base_backup", timeline, reason, now, trace);
            }
            Fence::NewerPrimary => {
                self.role = Role::Standby;
                self.retained.clear();
                self.forget_peers();
                self.following = Some(src.clone());
            }
            Fence::Accept if lsn <= self.lsn() => {
                // Overtaken by streaming on the same timeline: installing it
                // would move this standby backwards.
                record!(
                    trace,
                    now,
                    "wal_record_skipped",
                    node = &self.id,
                    lsn = lsn,
                    reason = "stale_base_backup"
                );
                return;
            }
            Fence::Accept => {}
        }
        let records = match Self::contiguous(wal) {
            Ok(records) => records,
            Err(reason) => {
                record!(
                    trace,
                    now,
                    "wal_record_malformed",
                    node = &self.id,
                    src = src,
                    reason = reason
                );
                return;
            }
        };
        debug_assert_eq!(records.len() as u64, lsn, "a base backup holds LSN 1..=lsn");
        self.wal.clear();
        self.record_ends.clear();
        self.data.clear();
        let mut end = 0;
        for record in records {
            end += record.encoded_len();
            self.record_ends.push(end);
            self.data.insert(record.key, record.value);
        }
        self.wal.extend_from_slice(wal);
        self.applied_lsn = lsn;
        self.replay_due.clear();
        self.timeline = timeline;
        self.sync_mode = SyncMode::Full;
        self.requested_at = None;
        record!(
            trace,
            now,
            "wal_catchup_applied",
            node = &self.id,
            mode = "full",
            records = lsn,
            lsn = self.lsn(),
            timeline = timeline
        );
        // A base backup is written and fsynced before the standby starts.
        self.flush(fx);
        if self.reports_apply() {
            self.report_applied(fx);
        }
    }

    /// Decodes a whole WAL and checks its LSNs run 1, 2, 3, …
    pub fn contiguous(wal: &Bytes) -> Result<Vec<WalRecord>, String> {
        let records = WalRecord::decode_all(wal).map_err(|e| e.to_string())?;
        for (i, record) in records.iter().enumerate() {
            if record.lsn != i as u64 + 1 {
                return Err(format!("LSN {} at position {}", record.lsn, i + 1));
            }
        }
        Ok(records)
    }
}
