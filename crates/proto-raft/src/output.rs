//! What a step asks the group to do: messages to send and transitions to
//! record.

use crate::message::Message;
use crate::role::{CatchUpMode, Role};

/// A state transition worth a trace event. Node positions are indices into
/// the group's node list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum NodeEvent {
    ElectionStarted {
        term: u64,
    },
    VoteCast {
        candidate: usize,
        term: u64,
        granted: bool,
    },
    LeaderElected {
        term: u64,
        noop_index: u64,
    },
    TermAdopted {
        from: usize,
        previous: u64,
        term: u64,
        was: Role,
    },
    LeaderDiscovered {
        leader: usize,
        term: u64,
    },
    StaleTermRejected {
        from: usize,
        msg: &'static str,
        msg_term: u64,
        term: u64,
    },
    EntriesAppended {
        leader: usize,
        first: u64,
        last: u64,
        truncated_from: Option<u64>,
    },
    AppendRejected {
        leader: usize,
        prev_log_index: u64,
        conflict_index: u64,
    },
    CatchUp {
        follower: usize,
        from_index: u64,
        to_index: u64,
        mode: CatchUpMode,
    },
    CommitAdvanced {
        term: u64,
        commit_index: u64,
    },
    PreVoteStarted {
        term: u64,
        campaign_term: u64,
    },
    PreVoteCast {
        candidate: usize,
        term: u64,
        granted: bool,
        reason: &'static str,
    },
    LeaderSteppedDown {
        term: u64,
        active: usize,
        needed: usize,
    },
    TransferStarted {
        target: usize,
        match_index: u64,
        last_index: u64,
    },
    TimeoutNowSent {
        target: usize,
        last_index: u64,
    },
    TimeoutNowReceived {
        leader: usize,
        term: u64,
    },
    TransferAbandoned {
        target: usize,
        timeout_now_sent: bool,
    },
    SnapshotTaken {
        index: u64,
        term: u64,
    },
    SnapshotSent {
        follower: usize,
        index: u64,
        term: u64,
    },
    SnapshotInstalled {
        leader: usize,
        index: u64,
        term: u64,
        kept_log_suffix: bool,
    },
}

/// What a step asks the group to do.
pub(crate) type Output = replication::Output<Message, NodeEvent>;
