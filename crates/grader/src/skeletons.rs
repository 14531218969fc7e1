//! The untouched skeletons, compiled as `lab start` writes them into a
//! student's crate (every function a `todo!()`): the grader's control
//! that an unwritten stage fails clearly.

/// The ISR lab's `src/lib.rs`, as `lab start isr` writes it.
#[allow(clippy::todo)]
#[path = "../templates/isr/lib.rs"]
pub mod isr;

/// The Raft lab's `src/lib.rs`, as `lab start raft` writes it.
#[allow(clippy::todo)]
#[path = "../templates/raft/lib.rs"]
pub mod raft;
