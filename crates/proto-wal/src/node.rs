//! One node's state and the helpers both roles share. The step logic,
//! `handle(message) -> effects`, is split by role: `primary.rs` (append,
//! answer catch-up, track flushes) and `standby.rs` (fence, then apply).
//!
//! Nothing here touches the simulator. A node reports what it wants sent and
//! whether it fsynced through [`Effects`]; the group delivers and persists.

use std::collections::{BTreeMap, VecDeque};

use bytes::Bytes;
use sim_core::{NodeId, Tick, Trace, record};

use crate::message::WalMsg;
use crate::record::WalRecord;
use crate::role::{Role, SyncMode};

/// What one step of a node asks the group to do.
#[derive(Debug, Default)]
pub(crate) struct Effects {
    /// Messages to send, in order.
    pub sends: Vec<(NodeId, WalMsg)>,
    /// The node fsynced: store its durable mark.
    pub fsync: bool,
}

/// The outcome of the authority check made before anything is applied.
pub(crate) enum Fence {
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
    pub role: Role,
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
    pub retention: usize,
    /// Primary only: flushed LSN each standby reported on this timeline.
    pub peer_flush: BTreeMap<NodeId, u64>,
    /// The applied LSN at which catch-up was last requested (dedupes).
    pub requested_at: Option<u64>,
}

impl WalNode {
    pub fn new(
        id: NodeId,
        role: Role,
        primary: &NodeId,
        synchronous: bool,
        retention: usize,
    ) -> Self {
        WalNode {
            following: (role == Role::Standby).then(|| primary.clone()),
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
        if self.role == Role::Standby
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

    pub(crate) fn push_record(&mut self, frame: &[u8], key: Bytes, value: Bytes) {
        self.wal.extend_from_slice(frame);
        self.record_ends.push(self.wal.len());
        self.data.insert(key, value);
    }

    /// The authority check for a message from `src` carrying `timeline`.
    pub(crate) fn fence(&self, src: &NodeId, timeline: u64) -> Fence {
        if timeline < self.timeline {
            Fence::Reject("stale_timeline")
        } else if timeline > self.timeline {
            Fence::NewerPrimary
        } else if self.role == Role::Primary || self.following.as_ref() != Some(src) {
            Fence::Reject("non_current_primary")
        } else {
            Fence::Accept
        }
    }

    pub(crate) fn reject(
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
    pub(crate) fn adopt(
        &mut self,
        primary: &NodeId,
        timeline: u64,
        announced: bool,
        now: Tick,
        trace: &mut Trace,
        fx: &mut Effects,
    ) {
        if self.role == Role::Standby && self.following.as_ref() == Some(primary) {
            // Already switched; the base backup is normally on its way.
            return self.request_catchup(announced, now, trace, fx);
        }
        if self.role == Role::Primary {
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
        self.role = Role::Standby;
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
        if self.role != Role::Standby || (!force && self.requested_at == Some(self.lsn())) {
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

    /// Becomes the primary of `timeline`: retention cleared, no standby
    /// positions known yet.
    pub fn promote(&mut self, timeline: u64, fx: &mut Effects) {
        self.role = Role::Primary;
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
