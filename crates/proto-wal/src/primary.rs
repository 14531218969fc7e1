//! Primary-side step logic: appending records, answering catch-up
//! requests (incremental or base backup) and tracking standby flushes.

use bytes::Bytes;
use sim_core::{NodeId, Tick, Trace, record};

use crate::message::WalMsg;
use crate::node::{Effects, WalNode};
use crate::record::WalRecord;
use crate::role::Role;

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
        if self.role != Role::Primary || timeline != self.timeline {
            record!(
                trace,
                now,
                "wal_request_ignored",
                node = &self.id,
                src = src,
                reason = "stale_flush_ack"
            );
            return;
        }
        match self.peer_flush.get_mut(src) {
            Some(flushed) => *flushed = (*flushed).max(flushed_lsn),
            None => {
                self.peer_flush.insert(src.clone(), flushed_lsn);
            }
        }
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
