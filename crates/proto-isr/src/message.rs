//! Wire messages between replicas.

use std::sync::Arc;

use replication::NodeId;

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
/// leader epoch and its id; each entry carries its own *entry* epoch.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum IsrMessage {
    /// Leader → follower: entries after `prev_offset`.
    Append {
        /// Live stream or catch-up.
        kind: AppendKind,
        /// The sender's leader epoch when it sent the packet.
        leader_epoch: u64,
        /// The sending leader.
        source: NodeId,
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
        /// The sending leader.
        source: NodeId,
        /// The leader's whole log (shared, not copied per receiver).
        log: Arc<[Arc<LogEntry>]>,
        /// The leader's high watermark.
        high_watermark: u64,
    },
    /// Follower → leader: "my log did not fit your packet, resynchronise me"
    /// (the fetch a Kafka follower would issue).
    Fetch {
        /// The epoch the follower knows.
        leader_epoch: u64,
        /// The follower's log end.
        log_end: u64,
    },
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
