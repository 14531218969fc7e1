//! A node's role, and how a lagging follower catches up.

/// A node's role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Role {
    /// Answers RPCs; starts an election when its deadline passes.
    Follower,
    /// Asking for pre-votes (PreVote on) without raising its term.
    PreCandidate,
    /// Asking for votes in its current term.
    Candidate,
    /// Won a majority of votes in its current term.
    Leader,
}

impl Role {
    /// `follower`, `pre-candidate`, `candidate` or `leader`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Role::Follower => "follower",
            Role::PreCandidate => "pre-candidate",
            Role::Candidate => "candidate",
            Role::Leader => "leader",
        }
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How a leader brings a lagging follower up to date (the `mode` of
/// `raft_catch_up` trace events, and the word the matrix prints for
/// experiment 5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum CatchUpMode {
    /// The leader re-sends the missing entries from its log, batch by batch
    /// from the follower's `next_index` (the only mode when snapshots are
    /// off, inside or outside any window).
    LogReplay,
    /// The follower needs entries the leader has compacted: the leader
    /// sends its snapshot (InstallSnapshot), then log replay from there.
    Snapshot,
}

impl CatchUpMode {
    /// `log replay` or `snapshot`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            CatchUpMode::LogReplay => "log replay",
            CatchUpMode::Snapshot => "snapshot",
        }
    }
}

impl std::fmt::Display for CatchUpMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
