//! The labs, a student's implementation of one, and installing it as the
//! protocol the command line serves.

use std::sync::OnceLock;

use proto_isr::decisions::IsrDecisions;
use proto_raft::decisions::RaftDecisions;
use replication::{Protocol, Registry};

use crate::stage::Stage;

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

    /// Its stages, in order.
    #[must_use]
    pub fn stages(self) -> Vec<Stage> {
        match self {
            Lab::Isr => crate::isr::stages(),
            Lab::Raft => crate::raft::stages(),
        }
    }

    /// Its protocol, deciding by `student`'s rules staged at each row's
    /// `stage` setting (the registry a student crate serves).
    pub(crate) fn protocol(self, student: Student) -> Protocol {
        match student {
            Student::Isr(d) => crate::isr::protocol(d),
            Student::Raft(d) => crate::raft::protocol(d),
        }
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

static INSTALLED: OnceLock<Student> = OnceLock::new();

/// Makes `student`'s lab protocol the one protocol this process serves
/// ([`labs::serve`]), `command` the command that reruns it (printed with
/// every counterexample), and `student` the implementation `lab grade`
/// grades. A student crate's `main` calls it, then `xtask::main()`.
/// Refused (with an explanation) when something was installed already.
pub fn install(student: Student, command: &str) -> Result<(), String> {
    INSTALLED
        .set(student)
        .map_err(|_| "a student implementation is installed already".to_owned())?;
    labs::serve(registry(student), command).map_err(|_| "a registry is served already".to_owned())
}

/// The registry of `student`'s lab protocol alone — what a student crate
/// serves, and what grading runs on.
#[must_use]
pub fn registry(student: Student) -> Registry {
    Registry::new(vec![student.lab().protocol(student)])
}

/// The student [`install`] installed.
#[must_use]
pub fn installed() -> Option<Student> {
    INSTALLED.get().copied()
}
