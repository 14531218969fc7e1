//! A node's role.

/// A node's role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
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
