//! Installing a student's implementation as the protocol the command line
//! serves.

use std::sync::OnceLock;

use replication::Registry;

use crate::lab::Student;

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
