//! One PostgreSQL-shaped server as a pure state machine: [`WalNode`].
//!
//! A node never sees the network, the clock or the trace. Its entry points
//! are [`WalNode::step`] (a [`WalMsg`] arrived from the node at a position)
//! and [`WalNode::tick`] (time passed: replay what a replay delay held
//! back), plus the calls an operator or a client makes on a server —
//! [`append`](WalNode::append) (a primary takes a write),
//! [`promote`](WalNode::promote) (`pg_promote`), [`flush`](WalNode::flush)
//! (`fsync`), [`reconnect`](WalNode::reconnect) /
//! [`peer_reconnected`](WalNode::peer_reconnected) (a connection came
//! back) and [`power_loss`](WalNode::power_loss). Each writes what it wants
//! done into an [`Output`] buffer: messages to send to a position,
//! [`WalEvent`]s to record, and [`WalEvent::Fsync`] — the durable mark to
//! store, which is all a power loss gives back.
//!
//! Role handling is split by role: `primary.rs` (append, answer catch-up,
//! track standby positions, promote), `standby.rs` (apply streamed
//! records, batches and base backups), `follow.rs` (the authority check
//! made before anything is applied, and switching to a newer primary).
//!
//! # Driving a node without the group
//!
//! A downstream model checker keeps its own nodes, in-flight messages and
//! durable marks, and delivers in any order it likes:
//!
//! ```
//! use proto_wal::node::{NodeSettings, Output, WalEvent, WalMsg, WalNode};
//! use proto_wal::{Bytes, WalRecord};
//!
//! let settings = NodeSettings::default().with_synchronous(true);
//! let mut primary = WalNode::new(0, 2, 0, settings)?;
//! let mut standby = WalNode::new(1, 2, 0, settings)?;
//! let mut out = Vec::new();
//! let lsn = primary.append(Bytes::from("k"), Bytes::from("v"), &mut out);
//! assert_eq!(lsn, Some(1));
//! // The primary fsynced its record and ships it to position 1.
//! assert!(out.contains(&Output::Event(WalEvent::Fsync(primary.durable_mark()))));
//! let shipped: Vec<WalMsg> = out
//!     .drain(..)
//!     .filter_map(|o| match o {
//!         Output::Send { to: 1, msg } => Some(msg),
//!         _ => None,
//!     })
//!     .collect();
//! assert_eq!(
//!     shipped,
//!     [WalMsg::Record { frame: WalRecord::new(1, 1, "k".into(), "v".into()).encode() }]
//! );
//! // The synchronous standby applies it, fsyncs and acknowledges its flush.
//! for msg in shipped {
//!     standby.step(1, 0, msg, &mut out);
//! }
//! assert_eq!(standby.applied_lsn(), 1);
//! let ack = out.iter().find_map(|o| match o {
//!     Output::Send { to: 0, msg } => Some(msg.clone()),
//!     _ => None,
//! });
//! assert_eq!(ack, Some(WalMsg::FlushAck { timeline: 1, flushed_lsn: 1 }));
//! primary.step(2, 1, ack.unwrap(), &mut out);
//! assert_eq!(primary.reported(1, proto_wal::SynchronousCommit::On), Some(1));
//! # Ok::<(), proto_wal::GroupError>(())
//! ```
//!
//! Positions are `0..size`; a message from a position outside that range
//! is a caller bug (it panics), as in [`replication::Cluster::id`].

mod check;
mod follow;
mod log;
mod primary;
mod settings;
mod standby;

#[cfg(test)]
mod catchup_tests;
#[cfg(test)]
mod primary_tests;
#[cfg(test)]
mod step_tests;

use std::collections::VecDeque;

use bytes::Bytes;
use replication::{GroupError, KvState};
use sim_core::Tick;

pub use crate::message::WalMsg;
pub use crate::output::{DurableMark, Output, WalEvent};
use crate::role::{CatchUpMode, Role};
use crate::sync_names::SynchronousCommit;
pub use settings::NodeSettings;

/// One PostgreSQL-shaped server: its WAL, the data replayed from it, its
/// timeline and the primary it follows, and — as a primary — the retained
/// WAL tail and the positions its standbys reported. See the
/// [module docs](self).
#[derive(Debug, Clone)]
pub struct WalNode {
    /// This node's position.
    me: usize,
    /// How many nodes there are (positions `0..size`).
    size: usize,
    role: Role,
    timeline: u64,
    /// The primary it streams from (standbys; a primary follows nobody).
    following: Option<usize>,
    synchronous: bool,
    commit: SynchronousCommit,
    apply_delay: u64,
    /// The concatenated encoded records, LSN 1 first (append-only except
    /// for a power-loss truncation or a base backup replacing it).
    wal: Vec<u8>,
    /// End offset in `wal` of record `i + 1`; its length is the last LSN.
    record_ends: Vec<usize>,
    /// The data after replaying LSN 1..=`applied_lsn`.
    data: KvState,
    /// The last replayed LSN (≤ the WAL end; equal unless a replay delay
    /// holds records back).
    applied_lsn: u64,
    /// The tick each received but not yet replayed record is due, LSN
    /// `applied_lsn + 1` first.
    replay_due: VecDeque<Tick>,
    flushed_lsn: u64,
    catch_up_mode: CatchUpMode,
    /// Primary only: the last `retention` encoded records.
    retained: VecDeque<Bytes>,
    retention: usize,
    /// Primary only, per position: the flushed LSN each standby reported
    /// on this timeline.
    peer_flush: Vec<Option<u64>>,
    /// Primary only: received (written, maybe unflushed) LSN each standby
    /// reported on this timeline (`synchronous_commit = remote_write`).
    peer_written: Vec<Option<u64>>,
    /// Primary only: replayed LSN each standby reported on this timeline
    /// (`synchronous_commit = remote_apply`).
    peer_applied: Vec<Option<u64>>,
    /// The LSN at which catch-up was last requested (dedupes requests).
    requested_at: Option<u64>,
    /// A planted bug switched on ([`crate::planted`]).
    planted: Option<&'static str>,
    /// Whether to report the per-record events that only a trace reads
    /// (appended, applied, replayed); see [`WalNode::set_reporting`].
    reporting: bool,
}

impl WalNode {
    /// Node `me` of `size`, on timeline 1 with an empty WAL: the primary
    /// when `me == primary`, else a standby streaming from `primary`.
    /// [`GroupError::Config`] when a position is not below `size` or the
    /// retention is 0.
    pub fn new(
        me: usize,
        size: usize,
        primary: usize,
        settings: NodeSettings,
    ) -> Result<Self, GroupError> {
        if me >= size || primary >= size {
            return Err(GroupError::config(
                "nodes",
                format!(
                    "node position {me} and primary position {primary} must be below the node count {size}"
                ),
            ));
        }
        if settings.retention == 0 {
            return Err(GroupError::config("retention", "must be at least 1 record"));
        }
        let role = if me == primary {
            Role::Primary
        } else {
            Role::Standby
        };
        Ok(WalNode {
            me,
            size,
            role,
            timeline: 1,
            following: (role == Role::Standby).then_some(primary),
            synchronous: settings.synchronous,
            commit: settings.synchronous_commit,
            apply_delay: settings.recovery_min_apply_delay,
            wal: Vec::new(),
            record_ends: Vec::new(),
            data: KvState::default(),
            applied_lsn: 0,
            replay_due: VecDeque::new(),
            flushed_lsn: 0,
            catch_up_mode: CatchUpMode::Never,
            retained: VecDeque::new(),
            retention: settings.retention,
            peer_flush: vec![None; size],
            peer_written: vec![None; size],
            peer_applied: vec![None; size],
            requested_at: None,
            planted: settings.planted,
            reporting: true,
        })
    }

    /// Whether the per-record events ([`WalEvent::RecordAppended`],
    /// [`WalEvent::RecordApplied`], [`WalEvent::RecordReplayed`]) are
    /// reported (on by default). They are for the trace alone, so a group
    /// whose trace is off switches them off and nothing copies a key or a
    /// value for them; every other output, [`WalEvent::Fsync`] included,
    /// is unchanged.
    pub fn set_reporting(&mut self, on: bool) {
        self.reporting = on;
    }

    /// See [`WalNode::set_reporting`].
    pub(super) fn reporting(&self) -> bool {
        self.reporting
    }

    /// A message from the node at position `from` arrived at `now`.
    /// Records, batches, base backups and keepalives are a standby's to
    /// apply (each fenced first: from the primary it follows, on its
    /// timeline); catch-up requests and position reports a primary's.
    pub fn step(&mut self, now: Tick, from: usize, msg: WalMsg, out: &mut Vec<Output>) {
        match msg {
            WalMsg::Record { frame } => {
                // A decode error is reported as an event; nothing is applied.
                let _ = self.receive_frame(from, &frame, CatchUpMode::Streaming, now, out);
            }
            WalMsg::Batch { timeline, frames } => self.on_batch(from, timeline, frames, now, out),
            WalMsg::BaseBackup { timeline, wal, lsn } => {
                self.on_base_backup(from, timeline, &wal, lsn, out);
            }
            WalMsg::Keepalive { timeline, lsn } => self.on_keepalive(from, timeline, lsn, out),
            WalMsg::StartReplication { timeline, next_lsn } => {
                self.on_start_replication(from, timeline, next_lsn, out);
            }
            WalMsg::FlushAck {
                timeline,
                flushed_lsn,
            } => self.on_flush_ack(from, timeline, flushed_lsn, out),
            WalMsg::WriteAck {
                timeline,
                written_lsn,
            } => self.on_write_ack(from, timeline, written_lsn, out),
            WalMsg::ApplyAck {
                timeline,
                applied_lsn,
            } => self.on_apply_ack(from, timeline, applied_lsn, out),
        }
    }

    /// Time passed: replays every received record whose replay delay is
    /// over at `now`; a `remote_apply` synchronous standby reports its new
    /// replay position.
    #[inline]
    pub fn tick(&mut self, now: Tick, out: &mut Vec<Output>) {
        if self.replay_due.is_empty() {
            return;
        }
        if self.replay_until(now, out) && self.reports_apply() {
            self.report_applied(out);
        }
    }

    /// This node's position.
    #[must_use]
    pub fn position(&self) -> usize {
        self.me
    }

    /// The role it believes it has.
    #[must_use]
    pub fn role(&self) -> Role {
        self.role
    }

    /// True while it believes it is a primary.
    #[must_use]
    pub fn is_primary(&self) -> bool {
        self.role == Role::Primary
    }

    /// Its timeline.
    #[must_use]
    pub fn timeline(&self) -> u64 {
        self.timeline
    }

    /// The primary it follows (`None` for a primary).
    #[must_use]
    pub fn following(&self) -> Option<usize> {
        self.following
    }

    /// The primary a standby streams from; `None` for a primary.
    #[must_use]
    pub fn upstream(&self) -> Option<usize> {
        self.following.filter(|_| self.role == Role::Standby)
    }

    /// True when it is a standby following `primary` on `timeline`: the
    /// stream a synchronous standby confirms commits on.
    #[must_use]
    pub fn streams_from(&self, primary: usize, timeline: u64) -> bool {
        self.role == Role::Standby && self.following == Some(primary) && self.timeline == timeline
    }

    /// Listed in `synchronous_standby_names`.
    #[must_use]
    pub fn is_synchronous(&self) -> bool {
        self.synchronous
    }

    /// Its whole WAL: the concatenated encoded records.
    #[must_use]
    pub fn wal(&self) -> &[u8] {
        &self.wal
    }

    /// The last LSN in its WAL (received; replayed too unless a replay
    /// delay holds records back, see [`WalNode::applied_lsn`]).
    #[inline]
    #[must_use]
    pub fn lsn(&self) -> u64 {
        self.record_ends.len() as u64
    }

    /// The last replayed LSN.
    #[must_use]
    pub fn applied_lsn(&self) -> u64 {
        self.applied_lsn
    }

    /// The last LSN flushed (fsynced).
    #[must_use]
    pub fn flushed_lsn(&self) -> u64 {
        self.flushed_lsn
    }

    /// The mark a fsync now would store: its last LSN and timeline.
    #[must_use]
    pub fn durable_mark(&self) -> DurableMark {
        DurableMark {
            lsn: self.lsn(),
            timeline: self.timeline,
        }
    }

    /// Its key/value data (the replay of its WAL up to the applied LSN).
    #[must_use]
    pub fn data(&self) -> &KvState {
        &self.data
    }

    /// How it most recently received WAL.
    #[must_use]
    pub fn catch_up_mode(&self) -> CatchUpMode {
        self.catch_up_mode
    }

    /// Received records a replay delay still holds back.
    #[must_use]
    pub fn records_awaiting_replay(&self) -> usize {
        self.replay_due.len()
    }

    /// First LSN still retained (the next LSN when nothing is).
    #[must_use]
    pub fn retained_first(&self) -> u64 {
        self.lsn() + 1 - self.retained.len() as u64
    }

    /// Forgets every standby position (a new timeline, a step-down, a
    /// power loss).
    fn forget_peers(&mut self) {
        self.peer_flush.fill(None);
        self.peer_written.fill(None);
        self.peer_applied.fill(None);
    }

    /// A synchronous standby flushes on receipt unless it confirms on
    /// receipt alone (`remote_write`).
    fn flushes_on_receipt(&self) -> bool {
        self.synchronous && self.commit != SynchronousCommit::RemoteWrite
    }

    /// Whether this node reports replay positions to its primary.
    fn reports_apply(&self) -> bool {
        self.synchronous && self.commit == SynchronousCommit::RemoteApply
    }

    /// Tells the followed primary how far this standby has replayed.
    fn report_applied(&self, out: &mut Vec<Output>) {
        if self.role == Role::Standby
            && let Some(primary) = self.following
        {
            out.push(Output::Send {
                to: primary,
                msg: WalMsg::ApplyAck {
                    timeline: self.timeline,
                    applied_lsn: self.applied_lsn,
                },
            });
        }
    }

    /// Every position but this node's.
    fn peers(&self) -> impl Iterator<Item = usize> + use<> {
        let me = self.me;
        (0..self.size).filter(move |&j| j != me)
    }
}
