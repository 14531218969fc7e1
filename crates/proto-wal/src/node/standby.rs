//! Standby-side handling: streamed records, catch-up batches and base
//! backups, each fenced (`follow.rs`) before anything is applied.

use bytes::Bytes;
use sim_core::Tick;

use super::follow::Fence;
use super::{Output, WalEvent, WalMsg, WalNode};
use crate::record::{RecordError, WalRecord};
use crate::role::{CatchUpMode, Role};

impl WalNode {
    /// Decodes, fences and applies one record frame from `src`.
    pub(super) fn receive_frame(
        &mut self,
        src: usize,
        frame: &Bytes,
        mode: CatchUpMode,
        now: Tick,
        out: &mut Vec<Output>,
    ) -> Result<(), RecordError> {
        let record = match WalRecord::decode_shared(frame) {
            Ok(record) => record,
            Err(err) => {
                out.push(Output::Event(WalEvent::RecordMalformed {
                    src,
                    reason: err.to_string(),
                }));
                return Err(err);
            }
        };
        match self.fence(src, record.timeline) {
            Fence::Reject(reason) => {
                out.push(Output::Event(WalEvent::Fenced {
                    src,
                    msg: "wal_record",
                    lsn: Some(record.lsn),
                    msg_timeline: record.timeline,
                    node_timeline: self.timeline,
                    reason,
                }));
            }
            Fence::NewerPrimary => self.adopt(src, record.timeline, false, out),
            Fence::Accept => self.apply(record, frame, mode, now, out),
        }
        Ok(())
    }

    /// Applies a fenced record: in LSN order only (a duplicate is skipped,
    /// a gap asks for catch-up), replayed at once or after the replay
    /// delay, flushed on receipt by a synchronous standby, confirmed to the
    /// primary at the `synchronous_commit` position.
    fn apply(
        &mut self,
        record: WalRecord,
        frame: &[u8],
        mode: CatchUpMode,
        now: Tick,
        out: &mut Vec<Output>,
    ) {
        let next = self.lsn() + 1;
        if record.lsn < next {
            out.push(Output::Event(WalEvent::RecordSkipped {
                lsn: record.lsn,
                reason: "duplicate",
            }));
            return;
        }
        if record.lsn > next {
            out.push(Output::Event(WalEvent::GapDetected {
                applied_lsn: self.lsn(),
                primary_lsn: record.lsn,
            }));
            self.request_catchup(false, out);
            return;
        }
        debug_assert_eq!(
            record.timeline, self.timeline,
            "a standby applies only its own timeline"
        );
        self.requested_at = None;
        self.catch_up_mode = mode;
        if self.apply_delay == 0 {
            if self.reporting() {
                out.push(Output::Event(WalEvent::RecordApplied {
                    timeline: record.timeline,
                    node_timeline: self.timeline,
                    lsn: record.lsn,
                    key: record.key.clone(),
                    value: record.value.clone(),
                    mode,
                    flushed: self.flushes_on_receipt(),
                }));
            }
            self.push_record(frame, record.key, record.value);
        } else {
            // `recovery_min_apply_delay`: written to the WAL now, replayed
            // (visible to reads) later.
            let due = now + self.apply_delay;
            out.push(Output::Event(WalEvent::RecordReceived {
                timeline: record.timeline,
                lsn: record.lsn,
                key: record.key,
                value: record.value,
                mode,
                flushed: self.flushes_on_receipt(),
                replay_at: due,
            }));
            self.push_received(frame, due);
        }
        if self.flushes_on_receipt() {
            self.flush(out);
        } else if self.synchronous
            && let Some(primary) = self.following
        {
            // `remote_write`: confirm the receipt; the record stays
            // unflushed until an fsync or a base backup.
            out.push(Output::Send {
                to: primary,
                msg: WalMsg::WriteAck {
                    timeline: self.timeline,
                    written_lsn: self.lsn(),
                },
            });
        }
        if self.apply_delay == 0 && self.reports_apply() {
            self.report_applied(out);
        }
    }

    /// Incremental catch-up: the retained records from this standby's next
    /// LSN, applied one by one.
    pub(super) fn on_batch(
        &mut self,
        src: usize,
        timeline: u64,
        frames: Vec<Bytes>,
        now: Tick,
        out: &mut Vec<Output>,
    ) {
        match self.fence(src, timeline) {
            Fence::Reject(reason) => self.reject(src, "wal_batch", timeline, reason, out),
            Fence::NewerPrimary => self.adopt(src, timeline, false, out),
            Fence::Accept => {
                for frame in &frames {
                    if self
                        .receive_frame(src, frame, CatchUpMode::Incremental, now, out)
                        .is_err()
                    {
                        break;
                    }
                }
                self.catch_up_mode = CatchUpMode::Incremental;
                out.push(Output::Event(WalEvent::IncrementalApplied {
                    records: frames.len(),
                    lsn: self.lsn(),
                }));
            }
        }
    }

    /// Full catch-up: a base backup replacing this node's WAL, data and
    /// timeline (also how a node that heard a newer timeline is rebased).
    pub(super) fn on_base_backup(
        &mut self,
        src: usize,
        timeline: u64,
        wal: &Bytes,
        lsn: u64,
        out: &mut Vec<Output>,
    ) {
        match self.fence(src, timeline) {
            Fence::Reject(reason) => {
                return self.reject(src, "base_backup", timeline, reason, out);
            }
            Fence::NewerPrimary => {
                self.role = Role::Standby;
                self.retained.clear();
                self.forget_peers();
                self.following = Some(src);
            }
            Fence::Accept if lsn <= self.lsn() => {
                // Overtaken by streaming on the same timeline: installing it
                // would move this standby backwards.
                out.push(Output::Event(WalEvent::RecordSkipped {
                    lsn,
                    reason: "stale_base_backup",
                }));
                return;
            }
            Fence::Accept => {}
        }
        let records = match Self::contiguous(wal) {
            Ok(records) => records,
            Err(reason) => {
                out.push(Output::Event(WalEvent::RecordMalformed { src, reason }));
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
        self.catch_up_mode = CatchUpMode::Full;
        self.requested_at = None;
        out.push(Output::Event(WalEvent::BaseBackupApplied {
            records: lsn,
            lsn: self.lsn(),
            timeline,
        }));
        // A base backup is written and fsynced before the standby starts.
        self.flush(out);
        if self.reports_apply() {
            self.report_applied(out);
        }
    }
}
