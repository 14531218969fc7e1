//! Log entries and the Raft RPC messages: Figure 2's four, PreVote and its
//! reply (thesis §9.6), InstallSnapshot (§7) and TimeoutNow (thesis §3.10).

use std::collections::BTreeMap;

use bytes::Bytes;
use sim_core::Payload;

/// What a log entry asks the state machine to do.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Command {
    /// The empty entry a new leader appends in its own term (§8), so it can
    /// commit everything before it without counting old-term replicas.
    Noop,
    /// `key = value` in the key/value state machine.
    Set {
        /// The key.
        key: Bytes,
        /// The value.
        value: Bytes,
    },
}

/// One entry of a node's log. Its index is its position (index 0 is a
/// sentinel of term 0 that never appears in probes).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LogEntry {
    /// Term of the leader that created the entry.
    pub term: u64,
    /// The command.
    pub command: Command,
}

impl LogEntry {
    /// The sentinel at the log's first position: it stands for the
    /// snapshot's last entry (index 0 of term 0 before any compaction).
    pub(crate) fn sentinel(term: u64) -> Self {
        LogEntry {
            term,
            command: Command::Noop,
        }
    }
}

/// A Raft RPC or its reply. The sender is the envelope's `src`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Message {
    /// RequestVote (§5.2, §5.4.1).
    RequestVote {
        /// Candidate's term.
        term: u64,
        /// Index of the candidate's last log entry.
        last_log_index: u64,
        /// Term of the candidate's last log entry.
        last_log_term: u64,
    },
    /// Reply to RequestVote.
    RequestVoteResponse {
        /// Voter's current term.
        term: u64,
        /// True when the vote was granted.
        granted: bool,
    },
    /// AppendEntries (§5.3); a heartbeat when `entries` is empty.
    AppendEntries {
        /// Leader's term.
        term: u64,
        /// Index of the entry just before `entries`.
        prev_log_index: u64,
        /// Term of that entry.
        prev_log_term: u64,
        /// New entries (only those from the follower's `next_index`).
        entries: Vec<LogEntry>,
        /// Leader's commit index.
        leader_commit: u64,
        /// The leader's read-index round this message belongs to (§6.4);
        /// echoed in the reply.
        read_round: u64,
    },
    /// Reply to AppendEntries.
    AppendEntriesResponse {
        /// Follower's current term.
        term: u64,
        /// True when the prev index/term check passed.
        success: bool,
        /// On success, the index of the last entry known to match the leader.
        match_index: u64,
        /// On failure, where the leader should retry: the first index of the
        /// conflicting term, or one past the follower's last entry.
        conflict_index: u64,
        /// Echo of the request's `read_round`.
        read_round: u64,
    },
    /// PreVote (thesis §9.6): "would you vote for me in `term`?" — asked
    /// without raising the sender's own term.
    PreVote {
        /// The term the sender would campaign in (its current term + 1).
        term: u64,
        /// Index of the sender's last log entry.
        last_log_index: u64,
        /// Term of the sender's last log entry.
        last_log_term: u64,
    },
    /// Reply to PreVote: a grant carries the asked term, a refusal the
    /// voter's own term.
    PreVoteResponse {
        /// The asked term when granted, else the voter's current term.
        term: u64,
        /// True when the voter would grant a vote.
        granted: bool,
    },
    /// InstallSnapshot (§7), in one chunk: the leader's snapshot for a
    /// follower that needs entries the leader has compacted. Answered with
    /// an [`Message::AppendEntriesResponse`] whose `match_index` is the
    /// snapshot's index (as etcd answers `MsgSnap` with `MsgAppResp`).
    InstallSnapshot {
        /// Leader's term.
        term: u64,
        /// Index of the last entry the snapshot replaces.
        last_included_index: u64,
        /// Term of that entry.
        last_included_term: u64,
        /// The state machine at `last_included_index`.
        data: BTreeMap<Bytes, Bytes>,
        /// The leader's read-index round (echoed in the reply).
        read_round: u64,
    },
    /// TimeoutNow (thesis §3.10): the leader hands over; the receiver starts
    /// an election at once, without PreVote.
    TimeoutNow {
        /// Leader's term.
        term: u64,
    },
}

impl Message {
    /// The sender's term carried by every message.
    #[must_use]
    pub fn term(&self) -> u64 {
        match self {
            Message::RequestVote { term, .. }
            | Message::RequestVoteResponse { term, .. }
            | Message::AppendEntries { term, .. }
            | Message::AppendEntriesResponse { term, .. }
            | Message::PreVote { term, .. }
            | Message::PreVoteResponse { term, .. }
            | Message::InstallSnapshot { term, .. }
            | Message::TimeoutNow { term } => *term,
        }
    }

    /// True for traffic that exists only to keep leadership alive: empty
    /// AppendEntries and their replies. Everything else (entries, votes) is
    /// protocol work that `run_until_idle` waits for.
    #[must_use]
    pub fn is_heartbeat_traffic(&self) -> bool {
        match self {
            Message::AppendEntries { entries, .. } => entries.is_empty(),
            Message::AppendEntriesResponse { .. } => true,
            _ => false,
        }
    }
}

impl Payload for Message {
    fn label(&self) -> &'static str {
        match self {
            Message::RequestVote { .. } => "request_vote",
            Message::RequestVoteResponse { .. } => "request_vote_response",
            Message::AppendEntries { entries, .. } if entries.is_empty() => "heartbeat",
            Message::AppendEntries { .. } => "append_entries",
            Message::AppendEntriesResponse { .. } => "append_entries_response",
            Message::PreVote { .. } => "pre_vote",
            Message::PreVoteResponse { .. } => "pre_vote_response",
            Message::InstallSnapshot { .. } => "install_snapshot",
            Message::TimeoutNow { .. } => "timeout_now",
        }
    }

    /// Raft tolerates a message delivered twice (the Raft paper's network
    /// may duplicate), so a datagram network may copy any of them.
    fn duplicate(&self) -> Option<Self> {
        Some(self.clone())
    }
}

/// A node's last snapshot: the state machine after applying every entry
/// through `index`, whose term was `term`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub(crate) struct Snapshot {
    pub(crate) index: u64,
    pub(crate) term: u64,
    pub(crate) data: BTreeMap<Bytes, Bytes>,
}
