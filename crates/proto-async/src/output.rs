//! What a node's step hands back: [`Output`]s — messages to send and
//! [`AsyncEvent`]s to record — and the answers of [`AsyncNode::write`](crate::node::AsyncNode::write)
//! and [`AsyncNode::heartbeat`](crate::node::AsyncNode::heartbeat).
//!
//! [`AsyncEvent`] is the whole `async_*` trace vocabulary: the nodes report
//! their transitions with it, and the group its own (the sentinel's
//! promotions, client reads and `WAIT`); `events.rs` renders each one.

use std::sync::Arc;

use bytes::Bytes;
use replication::{AckLevel, ReadLevel};

use crate::message::{AsyncMsg, Entry, ReplicationId};
use crate::role::CatchUpMode;

/// What a node's step asks its caller to do: send a message to a node
/// position, or record an [`AsyncEvent`].
pub type Output = replication::Output<AsyncMsg, AsyncEvent>;

/// Why [`AsyncNode::write`](crate::node::AsyncNode::write) refused a write
/// (nothing was applied).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteRefused {
    /// The node is a replica (Redis `READONLY`).
    ReadOnly,
    /// `min-replicas-to-write` is not met (`-NOREPLICAS`).
    NoReplicas {
        /// Replicas heard from within `min-replicas-max-lag`.
        good_replicas: usize,
        /// The setting.
        min_replicas_to_write: usize,
        /// The setting, in ticks.
        min_replicas_max_lag: u64,
    },
}

/// A replica's per-tick heartbeat (Redis' once-a-second `REPLCONF ACK`,
/// modelled without a message): whom it is for and under which generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Heartbeat {
    /// The primary the replica follows.
    pub to: usize,
    /// The replica's generation.
    pub generation: u64,
}

/// One transition of a node (or, for the sentinel's and the client's
/// events, of the group at that node). Node fields are positions in the
/// group's node list.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AsyncEvent {
    /// A primary applied a client write (`async_write_applied`).
    WriteApplied {
        /// The level the client asked for.
        level: AckLevel,
        /// The entry: its generation, offset, key and value.
        entry: Arc<Entry>,
    },
    /// `min-replicas-to-write` refused a write before it was applied
    /// (`async_write_refused`, `-NOREPLICAS`).
    WriteRefused {
        /// Replicas heard from within `min-replicas-max-lag`.
        good_replicas: usize,
        /// The setting.
        min_replicas_to_write: usize,
        /// The setting, in ticks.
        min_replicas_max_lag: u64,
    },
    /// A primary put a replica's output buffer on the wire
    /// (`async_stream_sent`).
    StreamSent {
        /// The replica.
        replica: usize,
        /// First offset sent.
        from_offset: u64,
        /// Last offset sent.
        to_offset: u64,
    },
    /// The link to a replica was cut: the output buffer is kept from
    /// `from_offset` (`async_stream_buffered`).
    StreamBuffered {
        /// The replica.
        replica: usize,
        /// First offset held.
        from_offset: u64,
    },
    /// On heal, a kept output buffer went out from the backlog
    /// (`async_stream_flushed`).
    StreamFlushed {
        /// The replica.
        replica: usize,
        /// First offset sent.
        from_offset: u64,
        /// The primary's offset.
        to_offset: u64,
    },
    /// On heal, a kept output buffer no longer in the backlog was dropped
    /// (`async_stream_buffer_discarded`).
    StreamBufferDiscarded {
        /// The replica.
        replica: usize,
        /// First offset that was held.
        from_offset: u64,
        /// The backlog's oldest offset, if any.
        backlog_start: Option<u64>,
    },
    /// A replica applied streamed entries (`async_stream_applied`).
    StreamApplied {
        /// The primary that sent them.
        from: usize,
        /// The stream's generation.
        generation: u64,
        /// The replica's offset before.
        prev_offset: u64,
        /// Entries applied.
        entries: u64,
        /// The replica's offset after.
        offset: u64,
    },
    /// Streamed entries at or below the replica's offset were ignored
    /// (`async_stream_duplicate`).
    StreamDuplicate {
        /// The sender.
        from: usize,
        /// The stream's last offset (the replica's, for an empty stream).
        offset: u64,
        /// The replica's offset.
        node_offset: u64,
    },
    /// A message was refused before it touched state
    /// (`async_message_rejected`).
    MessageRejected {
        /// The sender.
        from: usize,
        /// The message's label.
        msg: &'static str,
        /// `non_current_primary`, `stale_generation`,
        /// `stale_replication_id` or `not_primary`.
        reason: &'static str,
        /// The generation the message was sent under.
        msg_generation: u64,
        /// The receiver's generation.
        node_generation: u64,
    },
    /// A replica found a hole in the stream (`async_gap_detected`).
    GapDetected {
        /// The sender.
        from: usize,
        /// The offset the replica needed.
        expected: u64,
        /// The offset it got.
        got: u64,
    },
    /// A replica sent `PSYNC` (`async_resync_requested`).
    ResyncRequested {
        /// The primary asked.
        primary: usize,
        /// `reconfigured`, `restarted`, `healed`, `gap` or
        /// `stale_replication_id`.
        reason: &'static str,
        /// The replica's replication id.
        replication_id: ReplicationId,
        /// The first offset it is missing.
        next_offset: u64,
    },
    /// A primary answered `PSYNC` (`async_resync_served`).
    ResyncServed {
        /// The replica.
        replica: usize,
        /// `partial` or `full`.
        mode: CatchUpMode,
        /// The replica's next offset.
        next_offset: u64,
        /// The primary's offset.
        offset: u64,
    },
    /// A `PSYNC` reached a node that cannot serve it
    /// (`async_psync_refused`).
    PsyncRefused {
        /// The replica that asked.
        from: usize,
        /// `not_primary` or `stale_generation`.
        reason: &'static str,
    },
    /// A replica applied `+CONTINUE` (`async_partial_sync_applied`).
    PartialSyncApplied {
        /// The primary.
        from: usize,
        /// Its generation.
        generation: u64,
        /// The replica's offset before.
        prev_offset: u64,
        /// Entries applied.
        entries: u64,
        /// The replica's offset after.
        offset: u64,
    },
    /// A replica applied `+FULLRESYNC` (`async_full_sync_applied`).
    FullSyncApplied {
        /// The primary.
        from: usize,
        /// Its generation.
        generation: u64,
        /// The replica's replication id now.
        replication_id: ReplicationId,
        /// Its offset now.
        offset: u64,
        /// Keys in the new data set.
        keys: usize,
    },
    /// A primary recorded a `REPLCONF ACK` (`async_ack_received`).
    AckReceived {
        /// The replica.
        replica: usize,
        /// The offset now counted for it.
        offset: u64,
    },
    /// The sentinel promoted this node (`async_promoted`).
    Promoted {
        /// The primary it replaces.
        previous: usize,
        /// The new generation.
        generation: u64,
        /// The new history's id.
        replication_id: ReplicationId,
        /// The node's offset.
        offset: u64,
    },
    /// The sentinel pointed this replica at a new primary
    /// (`async_replica_reconfigured`).
    ReplicaReconfigured {
        /// The primary it follows now.
        primary: usize,
        /// The generation.
        generation: u64,
    },
    /// The sentinel turned this old primary into a replica
    /// (`async_demoted`).
    Demoted {
        /// The primary it follows now.
        primary: usize,
        /// The generation.
        generation: u64,
    },
    /// The sentinel could not demote this old primary yet
    /// (`async_demotion_deferred`).
    DemotionDeferred {
        /// `unreachable` or `crashed`.
        reason: &'static str,
    },
    /// The current primary restarted without writes a power loss took,
    /// so the sentinel started a new history (`async_history_reset`).
    HistoryReset {
        /// The new generation.
        generation: u64,
        /// The new history's id.
        replication_id: ReplicationId,
        /// The node's offset.
        offset: u64,
    },
    /// A power loss rolled the node back to its last fsync
    /// (`async_power_loss_restored`).
    PowerLossRestored {
        /// The offset before the crash.
        offset: u64,
        /// The offset of the fsynced image it restarts from.
        restored_offset: u64,
    },
    /// The node stored its state as its durable image (`async_fsync`).
    Fsync {
        /// The offset made durable.
        offset: u64,
    },
    /// A read was answered from this node's map (`async_read_served`).
    ReadServed {
        /// The level asked for.
        level: ReadLevel,
        /// The key read.
        key: Bytes,
        /// The node's offset.
        offset: u64,
        /// Whether the key was there.
        found: bool,
    },
    /// `WAIT` started at this primary (`async_wait_started`).
    WaitStarted {
        /// The offset waited for.
        offset: u64,
        /// Replicas needed.
        numreplicas: usize,
        /// Ticks it blocks at most.
        timeout: u64,
    },
    /// `WAIT` returned (`async_wait_returned`).
    WaitReturned {
        /// The offset waited for.
        offset: u64,
        /// Replicas that acknowledged it.
        acked: usize,
        /// Replicas needed.
        numreplicas: usize,
        /// `reached`, `timeout`, `primary_crashed` or `demoted`.
        result: &'static str,
    },
}
