//! Each lab's catalogue: its stages, and its protocol on a student's rules.

use replication::Protocol;

use crate::lab::{Lab, Student};
use crate::stage::Stage;

impl Lab {
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
