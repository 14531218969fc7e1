//! A node's standing: its role and how it last caught up.

use std::fmt;

/// What a node believes it is.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    /// Accepts writes and streams them to replicas.
    Primary,
    /// Applies what its configured primary streams.
    Replica,
}

impl Role {
    /// `primary` or `replica`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Role::Primary => "primary",
            Role::Replica => "replica",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a node most recently received data from a primary: the catch-up
/// mode the matrix prints (experiment 5: `partial / full`).
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CatchUpMode {
    /// Nothing received yet.
    Never,
    /// Applied an entry of the live replication stream.
    Streaming,
    /// Caught up from the primary's backlog (`+CONTINUE`).
    Partial,
    /// Replaced its whole data set (`+FULLRESYNC`).
    Full,
}

impl CatchUpMode {
    /// `never`, `streaming`, `partial` or `full` (Redis's words: a partial
    /// resync is `+CONTINUE`, a full one `+FULLRESYNC`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            CatchUpMode::Never => "never",
            CatchUpMode::Streaming => "streaming",
            CatchUpMode::Partial => "partial",
            CatchUpMode::Full => "full",
        }
    }
}

impl fmt::Display for CatchUpMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
