//! MiniDist's staged labs: a student rebuilds the ISR chapter's rules, or
//! Raft's, in a skeleton crate, and each stage is graded by unit checks,
//! scenario files, the explorer's random sweep and the model checker —
//! every failure with its minimal counterexample and the commands that
//! replay, draw and open it in the debugger.
//!
//! **What it mirrors.** The Python original's "Self-Guided Rebuild" (a
//! lesson per stage, each with its tests) and DSLabs' grading (run tests
//! plus model-checking search tests over a student's implementation).
//! **What it omits.** A student writes the protocol's *rules* — pure
//! decision functions ([`proto_isr::decisions::IsrDecisions`],
//! [`proto_raft::decisions::RaftDecisions`]) — not its message plumbing:
//! the group, the messages and the registration are the laboratory's
//! own, so every tool judges exactly the student's rules.
//!
//! A student crate (`cargo xtask lab start isr DIR`) calls [`install`]
//! and then `xtask::main()`, so the whole command line — `lab grade`,
//! `run`, `explore --replay`, `check`, `debug` — runs on its protocol.
//! Grading in-process:
//!
//! ```
//! use grader::{Lab, Student, grade};
//! use proto_isr::decisions::Reference;
//!
//! // The laboratory's own rules pass stage 1 of the ISR lab.
//! let stage = &Lab::Isr.stages()[0];
//! let report = grade(Student::Isr(&Reference), stage);
//! assert!(report.passed(), "{}", report.render());
//! ```

mod catalogue;
mod grade;
mod install;
mod isr;
mod lab;
pub mod mistakes;
mod raft;
mod registration;
pub mod skeletons;
mod stage;
mod start;
mod unfinished;

pub use grade::{Outcome, StageReport, grade, grade_with};
pub use install::{install, installed, registry};
pub use lab::{Lab, Student};
pub use stage::{Check, Expect, Stage, UnitFn, bounds};
pub use start::{skeleton, start};
pub use unfinished::explain;

/// The untouched skeleton of `lab`, as a student.
#[must_use]
pub fn skeleton_student(lab: Lab) -> Student {
    match lab {
        Lab::Isr => Student::Isr(&skeletons::isr::Student),
        Lab::Raft => Student::Raft(&skeletons::raft::Student),
    }
}
