//! Wire messages between replicas. Replicas are named by their position in
//! the group's node list, as in a [`Delivery`](replication::Delivery).

use std::sync::Arc;

use crate::log::LogEntry;

/// How a leader's append packet was produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum AppendKind {
    /// A new entry streamed to a follower as it is appended.
    Live,
    /// A catch-up from the retained window: the follower must drop any
    /// suffix the leader's log does not share (divergence repair).
    CatchUp,
}

/// A replication message. Every leader packet carries the sender's *packet*
/// leader epoch and its position; each entry carries its own *entry* epoch.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum IsrMessage {
    /// Leader → follower: entries after `prev_offset`.
    Append {
        /// Live stream or catch-up.
        kind: AppendKind,
        /// The sender's leader epoch when it sent the packet.
        leader_epoch: u64,
        /// The sending leader's position.
        source: usize,
        /// Offset of the entry just before `entries` (0 = log start).
        prev_offset: u64,
        /// Entry epoch at `prev_offset` (0 when `prev_offset` is 0).
        prev_epoch: u64,
        /// The entries, in offset order (shared by every receiver).
        entries: Arc<[Arc<LogEntry>]>,
        /// The leader's log end when it sent the packet.
        leader_log_end: u64,
        /// The leader's high watermark when it sent the packet.
        high_watermark: u64,
    },
    /// Leader → follower: the whole log, replacing the follower's state
    /// (catch-up from outside the retained window).
    Snapshot {
        /// The sender's leader epoch.
        leader_epoch: u64,
        /// The sending leader's position.
        source: usize,
        /// The leader's whole log (shared, not copied per receiver).
        log: Arc<[Arc<LogEntry>]>,
        /// The leader's high watermark.
        high_watermark: u64,
    },
    /// Follower → leader: "my log did not fit your packet, resynchronise me"
    /// (the fetch a Kafka follower would issue; in this push-based chapter
    /// mode a follower sends it only after a `log_mismatch`).
    Fetch {
        /// The epoch the follower knows.
        leader_epoch: u64,
        /// The follower's log end.
        log_end: u64,
    },
}

/// The fields of an [`IsrMessage::Append`], borrowed.
#[derive(Debug)]
pub(crate) struct Append<'a> {
    pub(crate) kind: AppendKind,
    pub(crate) leader_epoch: u64,
    pub(crate) source: usize,
    pub(crate) prev_offset: u64,
    pub(crate) prev_epoch: u64,
    pub(crate) entries: &'a [Arc<LogEntry>],
    pub(crate) leader_log_end: u64,
    pub(crate) high_watermark: u64,
}

impl sim_core::Payload for IsrMessage {
    fn label(&self) -> &'static str {
        match self {
            IsrMessage::Append {
                kind: AppendKind::Live,
                ..
            } => "isr_append",
            IsrMessage::Append {
                kind: AppendKind::CatchUp,
                ..
            } => "isr_catch_up",
            IsrMessage::Snapshot { .. } => "isr_snapshot",
            IsrMessage::Fetch { .. } => "isr_fetch",
        }
    }
}
