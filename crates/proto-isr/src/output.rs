//! What a node's step asks its group to do: messages to send and
//! transitions to record. Node positions are indices into the group's node
//! list; the group renders each [`NodeEvent`] as one `isr_*` trace event
//! (`events.rs`).

use std::sync::Arc;

use replication::AckLevel;

use crate::log::LogEntry;
use crate::message::IsrMessage;
use crate::probe::CatchUpMode;

/// Why a replica dropped a suffix of its log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TruncationReason {
    /// A leader's packet showed a suffix its log does not share (KIP-101's
    /// truncation by leader epoch): `divergence`.
    Divergence,
    /// Elected cleanly: the new leader keeps only the committed prefix
    /// (entries at or below HW): `clean_election`.
    CleanElection,
    /// A crash that lost everything after the last fsync: `power_loss`.
    PowerLoss,
}

impl TruncationReason {
    /// The trace word.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            TruncationReason::Divergence => "divergence",
            TruncationReason::CleanElection => "clean_election",
            TruncationReason::PowerLoss => "power_loss",
        }
    }
}

/// Why a replica refused a leader packet before touching its state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RejectReason {
    /// The packet's leader epoch is not the one this replica knows
    /// (`stale_leader_epoch`): fenced.
    StaleLeaderEpoch,
    /// The sender is not the leader this replica knows
    /// (`non_current_leader`): fenced.
    NonCurrentLeader,
    /// The packet does not continue this replica's log (`log_mismatch`): the
    /// replica asks the leader to resynchronise it.
    LogMismatch,
}

impl RejectReason {
    /// The trace word.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            RejectReason::StaleLeaderEpoch => "stale_leader_epoch",
            RejectReason::NonCurrentLeader => "non_current_leader",
            RejectReason::LogMismatch => "log_mismatch",
        }
    }

    /// True for the two fencing reasons (an old-lineage packet refused).
    #[must_use]
    pub fn is_fencing(self) -> bool {
        matches!(
            self,
            RejectReason::StaleLeaderEpoch | RejectReason::NonCurrentLeader
        )
    }
}

/// A state transition of one replica worth a trace event.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum NodeEvent {
    /// `isr_leader_appended`: this replica, believing it leads, appended a
    /// produce request's record at `offset` in its leader epoch.
    LeaderAppended {
        /// The new entry: its offset, its entry epoch (the leader epoch
        /// this replica knows), key and value.
        entry: Arc<LogEntry>,
        /// The produce request's acks.
        acks: AckLevel,
    },
    /// `isr_replication_delayed`: the leader skipped a slow follower.
    ReplicationDelayed {
        /// The follower's position.
        follower: usize,
        /// The entry it was not sent.
        offset: u64,
    },
    /// `isr_stale_leader_resent`: a displaced leader that reconnected
    /// before hearing of the election retransmitted its uncommitted suffix
    /// in its old epoch.
    StaleLeaderResent {
        /// The old epoch it still believes in.
        leader_epoch: u64,
        /// First offset resent.
        from_offset: u64,
        /// Its log end.
        log_end: u64,
    },
    /// `isr_fetch_received`: a follower asked to be resynchronised.
    /// `served` when this replica leads the epoch the follower named; the
    /// group then starts that follower's catch-up.
    FetchReceived {
        /// The follower's position.
        follower: usize,
        /// The follower's log end.
        log_end: u64,
        /// True when this replica leads the epoch in the fetch.
        served: bool,
    },
    /// `isr_catch_up_started`: the leader sent a catch-up.
    CatchUpStarted {
        /// The follower's position.
        follower: usize,
        /// [`CatchUpMode::Incremental`] or [`CatchUpMode::Full`].
        mode: CatchUpMode,
        /// First offset sent (one past the shared prefix).
        from_offset: u64,
        /// The leader's log end.
        leader_log_end: u64,
        /// First offset of the retained window.
        retained_first: u64,
    },
    /// `isr_append_rejected`: a leader packet refused before touching state.
    AppendRejected {
        /// The sender's position.
        from: usize,
        /// Why.
        reason: RejectReason,
        /// The packet's leader epoch.
        packet_epoch: u64,
        /// The leader epoch this replica knows.
        known_epoch: u64,
    },
    /// `isr_log_truncated`: entries above `above` dropped.
    LogTruncated {
        /// The new log end.
        above: u64,
        /// Why.
        reason: TruncationReason,
    },
    /// `isr_entry_appended` once per offset in `first..=last` (none when
    /// `first > last`): a leader packet's entries appended.
    EntriesAppended {
        /// First offset appended.
        first: u64,
        /// Last offset appended.
        last: u64,
        /// The packet's leader epoch.
        packet_epoch: u64,
    },
    /// `isr_snapshot_installed`: a full snapshot replaced the log.
    SnapshotInstalled {
        /// The new log end.
        log_end: u64,
        /// The high watermark applied after the install.
        applied_hw: u64,
        /// The packet's leader epoch.
        packet_epoch: u64,
    },
    /// `isr_leader_learned`: the controller told this replica the leader
    /// and epoch (Kafka's LeaderAndIsr).
    LeaderLearned {
        /// The leader's position.
        leader: usize,
        /// The leader epoch.
        leader_epoch: u64,
    },
}

/// What a node's step asks its group to do: [`replication::Output::Send`]
/// a message to a position, or record a [`NodeEvent`].
pub type Output = replication::Output<IsrMessage, NodeEvent>;
