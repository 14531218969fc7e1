//! Acknowledgement and read levels.

use std::fmt;

/// How much replication a write waits for before it is acknowledged.
///
/// The names are shared vocabulary, not portable semantics: each protocol
/// supports a subset and defines what its supported levels mean.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AckLevel {
    /// Fire and forget (no acknowledgement boundary at all).
    None,
    /// The leader / primary has applied or persisted it locally.
    Leader,
    /// A protocol-defined quorum (Raft majority; WAL synchronous standbys).
    Quorum,
    /// Every current in-sync replica (Kafka `acks=all`).
    AllIsr,
}

/// Which authority a read consults.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ReadLevel {
    /// A named node's local state; may be stale.
    Local,
    /// The current leader's local state; fresh only as long as it leads.
    Leader,
    /// Only a value that no later acknowledged write can contradict.
    Linearizable,
}

impl AckLevel {
    /// Every level, in declaration order.
    pub const ALL: [AckLevel; 4] = [
        AckLevel::None,
        AckLevel::Leader,
        AckLevel::Quorum,
        AckLevel::AllIsr,
    ];

    /// SCREAMING_SNAKE name, as in the course material (`ALL_ISR`).
    pub fn name(self) -> &'static str {
        match self {
            AckLevel::None => "NONE",
            AckLevel::Leader => "LEADER",
            AckLevel::Quorum => "QUORUM",
            AckLevel::AllIsr => "ALL_ISR",
        }
    }

    /// snake_case name, as used for experiment variants (`all_isr`).
    pub fn snake(self) -> &'static str {
        match self {
            AckLevel::None => "none",
            AckLevel::Leader => "leader",
            AckLevel::Quorum => "quorum",
            AckLevel::AllIsr => "all_isr",
        }
    }
}

impl ReadLevel {
    /// Every level, in declaration order.
    pub const ALL: [ReadLevel; 3] = [ReadLevel::Local, ReadLevel::Leader, ReadLevel::Linearizable];

    /// SCREAMING_SNAKE name (`LINEARIZABLE`).
    pub fn name(self) -> &'static str {
        match self {
            ReadLevel::Local => "LOCAL",
            ReadLevel::Leader => "LEADER",
            ReadLevel::Linearizable => "LINEARIZABLE",
        }
    }
}

impl fmt::Display for AckLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for ReadLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
