//! A node's write-ahead log and its durability: appending frames,
//! replaying them into the data (at once or after a replay delay),
//! flushing, and cutting the log back to a durable mark after a power
//! loss.

use bytes::Bytes;
use sim_core::Tick;

use super::{DurableMark, Output, WalEvent, WalMsg, WalNode};
use crate::record::WalRecord;
use crate::role::Role;

impl WalNode {
    /// `fsync`: marks the whole WAL flushed and asks for it to be stored
    /// ([`WalEvent::Fsync`]); a standby reports its new flush position.
    pub fn flush(&mut self, out: &mut Vec<Output>) {
        self.flushed_lsn = self.lsn();
        out.push(Output::Event(WalEvent::Fsync(self.durable_mark())));
        if self.role == Role::Standby
            && let Some(primary) = self.following
        {
            out.push(Output::Send {
                to: primary,
                msg: WalMsg::FlushAck {
                    timeline: self.timeline,
                    flushed_lsn: self.flushed_lsn,
                },
            });
        }
    }

    /// A power loss: back to `durable` (the last mark this node asked to
    /// be stored): the WAL is truncated to its LSN, the data rebuilt by
    /// replaying what is left, the timeline restored, every standby
    /// position forgotten. Records [`WalEvent::PowerLossRestored`].
    pub fn power_loss(&mut self, durable: DurableMark, out: &mut Vec<Output>) {
        let lsn_before = self.lsn();
        self.restore(durable.lsn, durable.timeline);
        out.push(Output::Event(WalEvent::PowerLossRestored {
            lsn_before,
            lsn: self.lsn(),
            timeline: self.timeline,
        }));
    }

    /// Appends a record to the WAL and replays it at once.
    pub(super) fn push_record(&mut self, frame: &[u8], key: Bytes, value: Bytes) {
        debug_assert!(
            self.replay_due.is_empty(),
            "replay is in LSN order: nothing may be waiting"
        );
        self.wal.extend_from_slice(frame);
        self.record_ends.push(self.wal.len());
        self.data.insert(key, value);
        self.applied_lsn = self.lsn();
    }

    /// Appends a received record to the WAL; it is replayed at `due`.
    pub(super) fn push_received(&mut self, frame: &[u8], due: Tick) {
        self.wal.extend_from_slice(frame);
        self.record_ends.push(self.wal.len());
        self.replay_due.push_back(due);
    }

    /// The decoded record at `lsn` (1-based) of this node's own WAL.
    fn own_record(&self, lsn: u64) -> WalRecord {
        let k = lsn as usize;
        let start = if k == 1 { 0 } else { self.record_ends[k - 2] };
        WalRecord::decode(&self.wal[start..self.record_ends[k - 1]])
            .expect("a node's own WAL always decodes (it only holds frames that decoded)")
    }

    /// Replays every received record due at or before `until` (all of them
    /// with `Tick::MAX`), reporting each. Returns whether any was replayed.
    pub(super) fn replay_until(&mut self, until: Tick, out: &mut Vec<Output>) -> bool {
        let before = self.applied_lsn;
        while self.replay_due.front().is_some_and(|&due| due <= until) {
            self.replay_due.pop_front();
            let record = self.own_record(self.applied_lsn + 1);
            self.applied_lsn += 1;
            if self.reporting() {
                out.push(Output::Event(WalEvent::RecordReplayed {
                    lsn: record.lsn,
                    key: record.key.clone(),
                    value: record.value.clone(),
                }));
            }
            self.data.insert(record.key, record.value);
        }
        self.applied_lsn > before
    }

    /// Back to the durable image (LSN and timeline): the WAL and the
    /// retained tail lose what came after it, the replay queue keeps only
    /// the records kept, and the data is rebuilt if it held more.
    pub(super) fn restore(&mut self, durable_lsn: u64, durable_timeline: u64) {
        let keep = durable_lsn.min(self.lsn()) as usize;
        let bytes = if keep == 0 {
            0
        } else {
            self.record_ends[keep - 1]
        };
        let dropped = self.record_ends.len() - keep;
        self.wal.truncate(bytes);
        self.record_ends.truncate(keep);
        for _ in 0..dropped.min(self.retained.len()) {
            self.retained.pop_back();
        }
        let applied = self.applied_lsn.min(keep as u64);
        let unreplayed = keep - applied as usize;
        self.replay_due.truncate(unreplayed);
        self.timeline = durable_timeline;
        self.flushed_lsn = self.flushed_lsn.min(self.lsn());
        self.requested_at = None;
        self.forget_peers();
        if applied < self.applied_lsn {
            self.applied_lsn = applied;
            self.data.clear();
            for lsn in 1..=applied {
                let record = self.own_record(lsn);
                self.data.insert(record.key, record.value);
            }
        }
    }

    /// Decodes a whole WAL and checks its LSNs run 1, 2, 3, …
    pub(crate) fn contiguous(wal: &Bytes) -> Result<Vec<WalRecord>, String> {
        let records = WalRecord::decode_all(wal).map_err(|e| e.to_string())?;
        for (i, record) in records.iter().enumerate() {
            if record.lsn != i as u64 + 1 {
                return Err(format!("LSN {} at position {}", record.lsn, i + 1));
            }
        }
        Ok(records)
    }
}
