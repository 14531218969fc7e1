//! The labs, and a student's implementation of one.

use proto_isr::decisions::IsrDecisions;
use proto_raft::decisions::RaftDecisions;

/// A lab: a protocol a student rebuilds, stage by stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lab {
    /// The ISR chapter's rules: acknowledgement, the high watermark, ISR
    /// membership, controller election and fencing, leases.
    Isr,
    /// Raft's rules: elections, log replication and the commit rule,
    /// read-index reads, PreVote.
    Raft,
}

impl Lab {
    /// Both labs.
    pub const ALL: [Lab; 2] = [Lab::Isr, Lab::Raft];

    /// `isr` or `raft`: the lab's name, and its protocol's.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Lab::Isr => "isr",
            Lab::Raft => "raft",
        }
    }

    /// The lab called `name`.
    #[must_use]
    pub fn named(name: &str) -> Option<Lab> {
        Lab::ALL.into_iter().find(|l| l.name() == name)
    }
}

/// A student's implementation of one lab's decision functions.
#[derive(Clone, Copy)]
pub enum Student {
    /// The ISR lab's.
    Isr(&'static dyn IsrDecisions),
    /// The Raft lab's.
    Raft(&'static dyn RaftDecisions),
}

impl Student {
    /// The lab it implements.
    #[must_use]
    pub fn lab(self) -> Lab {
        match self {
            Student::Isr(_) => Lab::Isr,
            Student::Raft(_) => Lab::Raft,
        }
    }
}
