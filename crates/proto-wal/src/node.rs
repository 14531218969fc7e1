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
use crate::sync_names::SynchronousCommit;

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
    /// Listed in `synchronous_standby_names`.
    pub synchronous: bool,
    /// The `synchronous_commit` position this node reports when synchronous.
    pub commit: SynchronousCommit,
    /// Ticks between receiving a record and replaying it
    /// (`recovery_min_apply_delay`).
    pub apply_delay: u64,
    /// The concatenated encoded records, LSN 1 first (append-only except
    /// for a power-loss truncation or a base backup replacing it).
    pub wal: Vec<u8>,
    /// End offset in `wal` of record `i + 1`; its length is the last LSN.
    pub record_ends: Vec<usize>,
    /// The data after replaying LSN 1..=`applied_lsn`.
    pub data: BTreeMap<Bytes, Bytes>,
    /// The last replayed LSN (≤ the WAL end; equal unless a replay delay
    /// holds records back).
    pub applied_lsn: u64,
    /// The tick each received but not yet replayed record is due, LSN
    /// `applied_lsn + 1` first.
    pub replay_due: VecDeque<Tick>,
    pub flushed_lsn: u64,
    pub sync_mode: SyncMode,
    /// Primary only: the last `retention` encoded records.
    pub retained: VecDeque<Bytes>,
    pub retention: usize,
    /// Primary only: flushed LSN each standby reported on this timeline.
    pub peer_flush: BTreeMap<NodeId, u64>,
    /// Primary only: received (written, maybe unflushed) LSN each standby
    /// reported on this timeline (`synchronous_commit = remote_write`).
    pub peer_written: BTreeMap<NodeId, u64>,
    /// Primary only: replayed LSN each standby reported on this timeline
    /// (`synchronous_commit = remote_apply`).
    pub peer_applied: BTreeMap<NodeId, u64>,
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
            commit: SynchronousCommit::On,
            apply_delay: 0,
            wal: Vec::new(),
            record_ends: Vec::new(),
            data: BTreeMap::new(),
            applied_lsn: 0,
            replay_due: VecDeque::new(),
            flushed_lsn: 0,
            sync_mode: SyncMode::Never,
            retained: VecDeque::new(),
            retention,
            peer_flush: BTreeMap::new(),
            peer_written: BTreeMap::new(),
            peer_applied: BTreeMap::new(),
            requested_at: None,
        }
    }

    /// The last LSN in this node's WAL (received; replayed too unless a
    /// replay delay holds records back, see `applied_lsn`).
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

    /// Appends a record to the WAL and replays it at once.
    pub(crate) fn push_record(&mut self, frame: &[u8], key: Bytes, value: Bytes) {
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
    pub(crate) fn push_received(&mut self, frame: &[u8], due: Tick) {
        self.wal.extend_from_slice(frame);
        self.record_ends.push(self.wal.len());
        self.replay_due.push_back(due);
    }

    /// A synchronous standby flushes on receipt unless it confirms on
    /// receipt alone (`remote_write`).
    pub(crate) fn flushes_on_receipt(&self) -> bool {
        self.synchronous && self.commit != SynchronousCommit::RemoteWrite
    }

    /// Whether this node reports replay positions to its primary.
    pub(crate) fn reports_apply(&self) -> bool {
        self.synchronous && self.commit == SynchronousCommit::RemoteApply
    }

    /// Tells the followed primary how far this standby has replayed.
    pub(crate) fn report_applied(&self, fx: &mut Effects) {
        if self.role == Role::Standby
            && let Some(primary) = &self.following
        {
            fx.sends.push((
                primary.clone(),
                WalMsg::ApplyAck {
                    timeline: self.timeline,
                    applied_lsn: self.applied_lsn,
                },
            ));
        }
    }

    /// The decoded record at `lsn` (1-based) of this node's own WAL.
    fn own_record(&self, lsn: u64) -> WalRecord {
        let k = lsn as usize;
        let start = if k == 1 { 0 } else { self.record_ends[k - 2] };
        WalRecord::decode(&self.wal[start..self.record_ends[k - 1]])
            .expect("a node's own WAL always decodes (it only holds frames that decoded)")
    }

    /// Replays every received record due at or before `until` (all of them
    /// with `Tick::MAX`), recording each. Returns whether any was replayed.
    pub(crate) fn replay_until(&mut self, until: Tick, now: Tick, trace: &mut Trace) -> bool {
        let before = self.applied_lsn;
        while self.replay_due.front().is_some_and(|&due| due <= until) {
            self.replay_due.pop_front();
            let record = self.own_record(self.applied_lsn + 1);
            self.applied_lsn += 1;
            record!(
                trace,
                now,
                "wal_record_replayed",
                node = &self.id,
                lsn = record.lsn,
                key = &record.key,
                value = &record.value
            );
            self.data.insert(record.key, record.value);
        }
        self.applied_lsn > before
    }

    /// Replays what is due now; a `remote_apply` synchronous standby
    /// reports its new replay position.
    pub fn replay_due_records(&mut self, now: Tick, trace: &mut Trace, fx: &mut Effects) {
        if self.replay_until(now, now, trace) && self.reports_apply() {
            self.report_applied(fx);
        }
    }

    /// Forgets every standby position (a new timeline, a step-down, a
    /// power loss).
    pub(crate) fn forget_peers(&mut self) {
        self.peer_flush.clear();
        self.peer_written.clear();
        self.peer_applied.clear();
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
        self.forget_peers();
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
    /// positions known yet. Received records still waiting for their
    /// replay delay must have been replayed (recovery ends first).
    pub fn promote(&mut self, timeline: u64, fx: &mut Effects) {
        debug_assert!(self.replay_due.is_empty(), "recovery ends before promotion");
        self.role = Role::Primary;
        self.timeline = timeline;
        self.following = None;
        self.retained.clear();
        self.forget_peers();
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
}
