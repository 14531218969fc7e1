//! A replica's role, as the replica itself believes it.

use std::fmt;

/// What a replica believes it is. A displaced leader that has not heard of
/// the election (e.g. it is isolated) still reports [`Role::Leader`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Role {
    /// Believes it leads the partition (in the epoch it knows).
    Leader,
    /// Follows the leader it knows.
    Follower,
}

impl Role {
    /// `leader` or `follower`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Role::Leader => "leader",
            Role::Follower => "follower",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
