//! One node's state and its step logic: `handle(message) -> effects`.
//!
//! Nothing here touches the simulator. A node reports what it wants sent and
//! whether it fsynced through [`Effects`]; the group delivers and persists.

use std::collections::{BTreeMap, VecDeque};

use bytes::Bytes;
use sim_core::{NodeId, Tick, Trace, record};

use crate::message::WalMsg;
use crate::probe::{SyncMode, WalRole};
use crate::record::{RecordError, WalRecord};

/// What one step of a node asks the group to do.
#[derive(Debug, Default)]
pub(crate) struct Effects {
    /// Messages to send, in order.
    pub sends: Vec<(NodeId, WalMsg)>,
    /// The node fsynced: store its durable mark.
    pub fsync: bool,
}

/// The outcome of the authority check made before anything is applied.
enum Fence {
    /// From the primary this node follows, on its timeline.
    Accept,
    /// Old lineage: rejected with this reason.
    Reject(&'static str),
    /// A primary of a newer timeline: follow it and resynchronise.
    NewerPrimary,
}

/// One PostgreSQL-shaped server.
#[derive(Debug)]
pub(crate) struct WalNode {
    pub id: NodeId,
    pub alive: bool,
    pub role: WalRole,
    pub timeline: u64,
    pub following: Option<NodeId>,
    pub synchronous: bool,
    /// The concatenated encoded records, LSN 1 first (append-only except
    /// for a power-loss truncation or a base backup replacing it).
    pub wal: Vec<u8>,
    /// End offset in `wal` of record `i + 1`; its length is the last LSN.
    pub record_ends: Vec<usize>,
    pub data: BTreeMap<Bytes, Bytes>,
    pub flushed_lsn: u64,
    pub sync_mode: SyncMode,
    /// Primary only: the last `retention` encoded records.
    pub retained: VecDeque<Bytes>,
    retention: usize,
    /// Primary only: flushed LSN each standby reported on this timeline.
    pub peer_flush: BTreeMap<NodeId, u64>,
    /// The applied LSN at which catch-up was last requested (dedupes).
    requested_at: Option<u64>,
}

impl WalNode {
    pub fn new(
        id: NodeId,
        role: WalRole,
        primary: &NodeId,
        synchronous: bool,
        retention: usize,
    ) -> Self {
        WalNode {
            following: (role == WalRole::Standby).then(|| primary.clone()),
            id,
            alive: true,
            role,
            timeline: 1,
            synchronous,
            wal: Vec::new(),
            record_ends: Vec::new(),
            data: BTreeMap::new(),
            flushed_lsn: 0,
            sync_mode: SyncMode::Never,
            retained: VecDeque::new(),
            retention,
            peer_flush: BTreeMap::new(),
            requested_at: None,
        }
    }

    /// The last LSN in this node's WAL (= applied: records apply on receipt).
    #[inline]
    pub fn lsn(&self) -> u64 {
        self.record_ends.len() as u64
    }

    /// First LSN still retained (the next LSN when nothing is).
    pub fn retained_first(&self) -> u64 {
        self.lsn() + 1 - self.retained.len() as u64
    }

    /// Marks everything applied as flushed; a standby reports it.
    pub fn flush(&mut self, fx: &mut Effects) {
        self.flushed_lsn = self.lsn();
        fx.fsync = true;
        if self.role == WalRole::Standby
            && let Some(primary) = &self.following
        {
            fx.sends.push((
                primary.clone(),
                WalMsg::FlushAck {
                    timeline: self.timeline,
                    flushed_lsn: self.flushed_lsn,
                },
            ));
        }
    }

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
        debug_assert_eq!(self.role, WalRole::Primary, "only a primary appends");
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

    fn push_record(&mut self, frame: &[u8], key: Bytes, value: Bytes) {
        self.wal.extend_from_slice(frame);
        self.record_ends.push(self.wal.len());
        self.data.insert(key, value);
    }

    /// The authority check for a message from `src` carrying `timeline`.
    fn fence(&self, src: &NodeId, timeline: u64) -> Fence {
        if timeline < self.timeline {
            Fence::Reject("stale_timeline")
        } else if timeline > self.timeline {
            Fence::NewerPrimary
        } else if self.role == WalRole::Primary || self.following.as_ref() != Some(src) {
            Fence::Reject("non_current_primary")
        } else {
            Fence::Accept
        }
    }

    fn reject(
        &self,
        src: &NodeId,
        msg: &'static str,
        timeline: u64,
        reason: &'static str,
        now: Tick,
        trace: &mut Trace,
    ) {
        record!(
            trace,
            now,
            "wal_fenced",
            node = &self.id,
            src = src,
            msg = msg,
            msg_timeline = timeline,
            node_timeline = self.timeline,
            reason = reason
        );
    }

    /// Follows `primary` of a newer timeline (a displaced primary steps
    /// down) and asks it for catch-up. `announced` (a keepalive) asks again
    /// even when already following it, in case the earlier request was lost.
    fn adopt(
        &mut self,
        primary: &NodeId,
        timeline: u64,
        announced: bool,
        now: Tick,
        trace: &mut Trace,
        fx: &mut Effects,
    ) {
        if self.role == WalRole::Standby && self.following.as_ref() == Some(primary) {
            // Already switched; the base backup is normally on its way.
            return self.request_catchup(announced, now, trace, fx);
        }
        if self.role == WalRole::Primary {
            record!(
                trace,
                now,
                "wal_primary_demoted",
                node = &self.id,
                new_primary = primary,
                timeline = self.timeline,
                new_timeline = timeline
            );
        }
        self.role = WalRole::Standby;
        self.retained.clear();
        self.peer_flush.clear();
        self.following = Some(primary.clone());
        record!(
            trace,
            now,
            "wal_following_changed",
            node = &self.id,
            primary = primary,
            timeline = timeline
        );
        self.request_catchup(true, now, trace, fx);
    }

    /// Asks the followed primary to stream from the next LSN (once per
    /// applied position unless `force`).
    pub fn request_catchup(&mut self, force: bool, now: Tick, trace: &mut Trace, fx: &mut Effects) {
        let Some(primary) = self.following.clone() else {
            return;
        };
        if self.role != WalRole::Standby || (!force && self.requested_at == Some(self.lsn())) {
            return;
        }
        self.requested_at = Some(self.lsn());
        record!(
            trace,
            now,
            "wal_catchup_requested",
            node = &self.id,
            primary = &primary,
            timeline = self.timeline,
            next_lsn = self.lsn() + 1
        );
        fx.sends.push((
            primary,
            WalMsg::StartReplication {
                timeline: self.timeline,
                next_lsn: self.lsn() + 1,
            },
        ));
    }

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

    fn apply(
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
            flushed = self.synchronous
        );
        self.push_record(frame, record.key, record.value);
        if self.synchronous {
            self.flush(fx);
        }
    }

    fn on_batch(
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
    fn on_base_backup(
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
                self.role = WalRole::Standby;
                self.retained.clear();
                self.peer_flush.clear();
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

    #[allow(clippy::too_many_arguments)]
    fn on_start_replication(
        &mut self,
        src: &NodeId,
        timeline: u64,
        next_lsn: u64,
        now: Tick,
        trace: &mut Trace,
        fx: &mut Effects,
    ) {
        if self.role != WalRole::Primary {
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

    fn on_flush_ack(
        &mut self,
        src: &NodeId,
        timeline: u64,
        flushed_lsn: u64,
        now: Tick,
        trace: &mut Trace,
    ) {
        if self.role != WalRole::Primary || timeline != self.timeline {
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

    /// Becomes the primary of `timeline`: retention cleared, no standby
    /// positions known yet.
    pub fn promote(&mut self, timeline: u64, fx: &mut Effects) {
        self.role = WalRole::Primary;
        self.timeline = timeline;
        self.following = None;
        self.retained.clear();
        self.peer_flush.clear();
        self.requested_at = None;
        self.flushed_lsn = self.lsn();
        fx.fsync = true;
    }

    /// Power loss: back to the durable image (LSN and timeline).
    pub fn restore(&mut self, durable_lsn: u64, durable_timeline: u64) {
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
        self.timeline = durable_timeline;
        self.flushed_lsn = self.flushed_lsn.min(self.lsn());
        self.requested_at = None;
        self.peer_flush.clear();
        if dropped > 0 {
            self.data.clear();
            let wal = Bytes::copy_from_slice(&self.wal);
            let records = WalRecord::decode_all(&wal)
                .expect("a node's own WAL always decodes (it only holds frames that decoded)");
            for record in records {
                self.data.insert(record.key, record.value);
            }
        }
    }
}
