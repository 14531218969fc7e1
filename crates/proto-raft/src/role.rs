//! A node's role, and how a lagging follower catches up.

/// A node's role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Role {
    /// Answers RPCs; starts an election when its deadline passes.
    Follower,
    /// Asking for votes in its current term.
    Candidate,
    /// Won a majority of votes in its current term.
    Leader,
}

impl Role {
    /// `follower`, `candidate` or `leader`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Role::Follower => "follower",
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
    /// from the follower's `next_index` (no snapshots in this model, so
    /// this is the only mode, inside or outside any window).
    LogReplay,
}

impl CatchUpMode {
    /// `log replay`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            CatchUpMode::LogReplay => "log replay",
        }
    }
}

impl std::fmt::Display for CatchUpMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
