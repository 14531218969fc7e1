//! Shared helpers for the cross-crate tests: every matrix run, computed once.

#![allow(dead_code)]

use std::sync::OnceLock;

use bytes::Bytes;
use labs::{Observed, Protocol, Run};

/// The built-in protocols, by name (as the matrix columns).
pub const ASYNC: Protocol = labs::BUILTIN[0];
/// WAL shipping.
pub const WAL: Protocol = labs::BUILTIN[1];
/// ISR.
pub const ISR: Protocol = labs::BUILTIN[2];
/// Raft.
pub const RAFT: Protocol = labs::BUILTIN[3];

/// Every run of the matrix (computed once per test binary).
pub fn runs() -> &'static [Run] {
    static RUNS: OnceLock<Vec<Run>> = OnceLock::new();
    RUNS.get_or_init(|| labs::all_runs().expect("every experiment runs to completion"))
}

/// The one run of `experiment` × `protocol` × `variant`.
pub fn run(experiment: u8, protocol: Protocol, variant: &str) -> &'static Run {
    runs()
        .iter()
        .find(|r| r.experiment == experiment && r.protocol == protocol && r.variant == variant)
        .unwrap_or_else(|| panic!("no run for experiment {experiment} {protocol} {variant}"))
}

/// `Some(bytes)` from a literal.
pub fn b(text: &'static str) -> Option<Bytes> {
    Some(Bytes::from_static(text.as_bytes()))
}

/// The observation of a run, for `matches!`-style destructuring.
pub fn observed(experiment: u8, protocol: Protocol, variant: &str) -> &'static Observed {
    &run(experiment, protocol, variant).observed
}
