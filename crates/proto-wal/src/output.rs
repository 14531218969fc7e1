//! What a [`WalNode`](crate::node::WalNode) step asks its group to do:
//! messages to send, transitions to record, and fsyncs to carry out.
//!
//! Node positions are indices into the group's node list (configuration
//! order: the initial primary first, then the standbys as listed).

use bytes::Bytes;
use sim_core::Tick;

use crate::message::WalMsg;
use crate::role::CatchUpMode;

/// What survives a power loss: an O(1) marker (LSN and timeline) into a
/// node's append-only WAL. A node asks for it to be stored with
/// [`WalEvent::Fsync`] and is handed it back by
/// [`WalNode::power_loss`](crate::node::WalNode::power_loss).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DurableMark {
    /// The last durable LSN.
    pub lsn: u64,
    /// The node's timeline when it fsynced.
    pub timeline: u64,
}

/// One thing a step asks for: [`replication::Output::Send`] (a message to
/// the node at a position) or [`replication::Output::Event`].
pub type Output = replication::Output<WalMsg, WalEvent>;

/// A state transition of one node, in the order it happened. Every variant
/// but [`WalEvent::Fsync`] is a trace event; the comment of each names the
/// kind the group records (the node that stepped is its `node` field).
///
/// A step's events are recorded before its messages are sent (as a real
/// server logs while it builds its replies), so a driver that keeps the
/// trace's order records every event of one step's outputs, then sends
/// every message, each in output order.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum WalEvent {
    /// Not a trace event: the node fsynced, store this mark as its durable
    /// image (what [`WalNode::power_loss`](crate::node::WalNode::power_loss)
    /// is given back).
    Fsync(DurableMark),
    /// `wal_record_appended`: the primary appended, flushed and applied a
    /// new record.
    RecordAppended {
        /// The primary's timeline.
        timeline: u64,
        /// The record's LSN.
        lsn: u64,
        /// The key set.
        key: Bytes,
        /// The value it is set to.
        value: Bytes,
        /// The WAL's length in bytes after the append.
        wal_bytes: usize,
    },
    /// `wal_record_applied`: a standby appended and replayed a record.
    RecordApplied {
        /// The record's timeline tag.
        timeline: u64,
        /// The standby's timeline.
        node_timeline: u64,
        /// The record's LSN.
        lsn: u64,
        /// The key set.
        key: Bytes,
        /// The value it is set to.
        value: Bytes,
        /// How it arrived: streamed or in an incremental catch-up.
        mode: CatchUpMode,
        /// Whether the standby fsynced it on receipt.
        flushed: bool,
    },
    /// `wal_record_received`: a standby with a replay delay appended a
    /// record it replays later.
    RecordReceived {
        /// The record's timeline tag.
        timeline: u64,
        /// The record's LSN.
        lsn: u64,
        /// The key set.
        key: Bytes,
        /// The value it is set to.
        value: Bytes,
        /// How it arrived.
        mode: CatchUpMode,
        /// Whether the standby fsynced it on receipt.
        flushed: bool,
        /// The tick it is due for replay.
        replay_at: Tick,
    },
    /// `wal_record_replayed`: a delayed record was replayed.
    RecordReplayed {
        /// Its LSN.
        lsn: u64,
        /// The key set.
        key: Bytes,
        /// The value it is set to.
        value: Bytes,
    },
    /// `wal_record_skipped`: a duplicate record, or a base backup overtaken
    /// by streaming.
    RecordSkipped {
        /// The record's (or the backup's last) LSN.
        lsn: u64,
        /// `duplicate` or `stale_base_backup`.
        reason: &'static str,
    },
    /// `wal_record_malformed`: bytes from `src` did not decode; nothing was
    /// applied.
    RecordMalformed {
        /// The sender's position.
        src: usize,
        /// What was wrong.
        reason: String,
    },
    /// `wal_gap_detected`: the primary is ahead of what this standby holds.
    GapDetected {
        /// The standby's last LSN.
        applied_lsn: u64,
        /// The LSN that revealed the gap.
        primary_lsn: u64,
    },
    /// `wal_fenced`: a message of an old lineage was rejected before
    /// anything was applied.
    Fenced {
        /// The sender's position.
        src: usize,
        /// The message's label (`wal_record`, `wal_batch`, `base_backup`,
        /// `keepalive`).
        msg: &'static str,
        /// The record's LSN (record frames only).
        lsn: Option<u64>,
        /// The timeline the message carried.
        msg_timeline: u64,
        /// The receiver's timeline.
        node_timeline: u64,
        /// `stale_timeline` or `non_current_primary`.
        reason: &'static str,
    },
    /// `wal_catchup_requested`: a standby asked its primary to stream from
    /// `next_lsn`.
    CatchUpRequested {
        /// The primary's position.
        primary: usize,
        /// The standby's timeline.
        timeline: u64,
        /// The first LSN it lacks.
        next_lsn: u64,
    },
    /// `wal_catchup_incremental`: the primary answers with retained
    /// records.
    CatchUpIncremental {
        /// The standby's position.
        standby: usize,
        /// The first LSN sent.
        from_lsn: u64,
        /// The primary's last LSN.
        to_lsn: u64,
        /// Records sent.
        records: usize,
    },
    /// `wal_catchup_full`: the primary answers with a base backup.
    CatchUpFull {
        /// The standby's position.
        standby: usize,
        /// The LSN the standby asked for.
        from_lsn: u64,
        /// The primary's last LSN.
        to_lsn: u64,
        /// `timeline_changed`, `standby_ahead` or `outside_retention`.
        reason: &'static str,
    },
    /// `wal_catchup_applied mode="incremental"`: a standby applied a batch.
    IncrementalApplied {
        /// Records in the batch.
        records: usize,
        /// The standby's last LSN after it.
        lsn: u64,
    },
    /// `wal_catchup_applied mode="full"`: a standby installed a base backup.
    BaseBackupApplied {
        /// Records in the backup.
        records: u64,
        /// The standby's last LSN after it.
        lsn: u64,
        /// The timeline it adopted.
        timeline: u64,
    },
    /// `wal_request_ignored`: a request or report that does not count here.
    RequestIgnored {
        /// The sender's position.
        src: usize,
        /// `not_primary` or `stale_flush_ack`.
        reason: &'static str,
    },
    /// `wal_flush_acked`: a standby reported its flush position.
    FlushAcked {
        /// The standby's position.
        standby: usize,
        /// Its flushed LSN.
        flushed_lsn: u64,
    },
    /// `wal_write_reported`: a `remote_write` standby reported its receive
    /// position.
    WriteReported {
        /// The standby's position.
        standby: usize,
        /// Its received LSN.
        written_lsn: u64,
    },
    /// `wal_apply_reported`: a `remote_apply` standby reported its replay
    /// position.
    ApplyReported {
        /// The standby's position.
        standby: usize,
        /// Its replayed LSN.
        applied_lsn: u64,
    },
    /// `wal_primary_demoted`: a primary heard a newer timeline and stepped
    /// down.
    PrimaryDemoted {
        /// The newer primary's position.
        new_primary: usize,
        /// The demoted node's timeline.
        timeline: u64,
        /// The newer timeline.
        new_timeline: u64,
    },
    /// `wal_following_changed`: a node now follows another primary.
    FollowingChanged {
        /// The primary's position.
        primary: usize,
        /// The primary's timeline.
        timeline: u64,
    },
    /// `wal_promoted`: the node became the primary of a new timeline.
    Promoted {
        /// The new timeline.
        timeline: u64,
        /// Its last LSN.
        lsn: u64,
        /// The primary it replaces, as the operator knew it.
        previous_primary: Option<usize>,
    },
    /// `wal_power_loss_restored`: a power loss rolled the node back to its
    /// durable image.
    PowerLossRestored {
        /// Its last LSN before the power loss.
        lsn_before: u64,
        /// Its last LSN after it (the durable LSN, or less).
        lsn: u64,
        /// Its timeline after it (the durable one).
        timeline: u64,
    },
}
