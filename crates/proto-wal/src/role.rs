//! A node's role and how it last caught up (received WAL).

use std::fmt;

/// A node's role as it believes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Role {
    /// Accepts writes and ships WAL.
    Primary,
    /// Replays WAL received from the primary it follows.
    Standby,
}

impl Role {
    /// `primary` or `standby`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Role::Primary => "primary",
            Role::Standby => "standby",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a node most recently received WAL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum CatchUpMode {
    /// Nothing received yet.
    Never,
    /// Records streamed one by one as the primary wrote them.
    Streaming,
    /// Catch-up with the missing records from the primary's retained WAL.
    Incremental,
    /// Catch-up by a base backup replacing WAL, records and data.
    Full,
}

impl CatchUpMode {
    /// `never`, `streaming`, `incremental` or `full`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            CatchUpMode::Never => "never",
            CatchUpMode::Streaming => "streaming",
            CatchUpMode::Incremental => "incremental",
            CatchUpMode::Full => "full",
        }
    }
}

impl fmt::Display for CatchUpMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
