//! The fetch protocol's records and wire messages: `Fetch` and
//! `OffsetsForLeaderEpoch` requests and their answers. Replicas are named by
//! their position in the group's node list.

use std::sync::Arc;

use bytes::Bytes;

/// One record of a replica's log: the leader epoch it was appended in, and
/// the key and value. Its offset is its position (the first record is
/// offset 1, as the laboratory's offsets count entries).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The leader epoch the record was appended in.
    pub epoch: u64,
    /// The key.
    pub key: Bytes,
    /// The value.
    pub value: Bytes,
}

/// Why a leader refused a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FetchError {
    /// `NOT_LEADER_OR_FOLLOWER`: the receiver does not lead.
    NotLeader,
    /// `FENCED_LEADER_EPOCH`: the request's epoch is older than the
    /// leader's (KIP-320).
    FencedLeaderEpoch,
    /// `UNKNOWN_LEADER_EPOCH`: the request's epoch is newer than the
    /// leader's (KIP-320).
    UnknownLeaderEpoch,
    /// `OFFSET_OUT_OF_RANGE`: the fetch offset is past the leader's log end.
    OffsetOutOfRange,
}

impl FetchError {
    /// The Kafka error name, for the trace.
    pub fn name(self) -> &'static str {
        match self {
            FetchError::NotLeader => "NOT_LEADER_OR_FOLLOWER",
            FetchError::FencedLeaderEpoch => "FENCED_LEADER_EPOCH",
            FetchError::UnknownLeaderEpoch => "UNKNOWN_LEADER_EPOCH",
            FetchError::OffsetOutOfRange => "OFFSET_OUT_OF_RANGE",
        }
    }
}

/// A fetch-mode message.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FetchMessage {
    /// Follower → leader: "send me records from `fetch_offset`". The fetch
    /// offset is also how the leader learns the follower's log end.
    Fetch {
        /// The follower's log end.
        fetch_offset: u64,
        /// The epoch of the follower's last record (0 when empty).
        last_fetched_epoch: u64,
        /// The leader epoch the follower knows (checked from KIP-320 on).
        current_leader_epoch: u64,
        /// The follower's broker epoch: the registration it fetches from
        /// (KIP-903's `ReplicaEpoch`; a restart registers anew).
        broker_epoch: u64,
    },
    /// Leader → follower: records after `fetch_offset` and the leader's HW.
    FetchResponse {
        /// The leader's epoch when it answered.
        leader_epoch: u64,
        /// The fetch offset this answers.
        fetch_offset: u64,
        /// Records from `fetch_offset + 1` on (shared, not copied).
        records: Arc<[Arc<Record>]>,
        /// The leader's high watermark.
        high_watermark: u64,
        /// The leader's log end.
        leader_log_end: u64,
        /// Set when the leader refused.
        error: Option<FetchError>,
    },
    /// Follower → leader: `OffsetsForLeaderEpoch` — where does `epoch` end
    /// in your log?
    EpochQuery {
        /// The follower's last epoch.
        epoch: u64,
        /// The leader epoch the follower knows (checked from KIP-320 on).
        current_leader_epoch: u64,
    },
    /// Leader → follower: the answer.
    EpochAnswer {
        /// The epoch asked about.
        asked: u64,
        /// The largest epoch ≤ `asked` the leader has (KIP-279; before it,
        /// always `asked`).
        epoch: u64,
        /// The end offset of that epoch in the leader's log.
        end_offset: u64,
        /// The leader's epoch when it answered.
        leader_epoch: u64,
        /// Set when the leader refused.
        error: Option<FetchError>,
    },
}

impl sim_core::Payload for FetchMessage {
    fn label(&self) -> &'static str {
        match self {
            FetchMessage::Fetch { .. } => "fetch",
            FetchMessage::FetchResponse { .. } => "fetch_response",
            FetchMessage::EpochQuery { .. } => "offsets_for_leader_epoch",
            FetchMessage::EpochAnswer { .. } => "offsets_for_leader_epoch_response",
        }
    }

    /// Any request or answer may arrive twice on datagrams: every handler
    /// is idempotent (a stale or repeated answer is dropped by its offset).
    fn duplicate(&self) -> Option<Self> {
        Some(self.clone())
    }
}
