//! Planted bugs: small, historically real Redis-replication mistakes,
//! compiled only with the `planted` feature and switched on per group with
//! [`AsyncConfig::with_planted`](crate::AsyncConfig::with_planted)
//! (scenario setting `planted=NAME`): the explorer's positive controls.

use replication::PlantedBug;

/// A replica applies a stream from any node of any generation (no check
/// of its configured primary or the replication generation): an old
/// primary's writes land on the replicas of the new one.
///
/// It skips the replica's two replication-id checks too (a Redis replica
/// has no such per-command check): with them the bug was masked — an old
/// primary's stream was refused once the replica held the new history, and
/// nothing the explorer checks could tell (0 of 20,000 schedules). Without
/// them a replica applies an old primary's writes on top of the new
/// history, and the "replica ahead of primary" invariant catches it.
pub const ACCEPT_ANY_PRIMARY: &str = "async_accept_any_primary";
/// A replica never asks to resynchronise (its `PSYNC` is never sent): after
/// a restart, a heal or a promotion it stays behind for good, and `WAIT`
/// never returns.
pub const NEVER_PSYNC: &str = "async_never_psync";

/// Every planted async bug with the explorer row and property it breaks.
pub fn bugs() -> Vec<PlantedBug> {
    vec![
        PlantedBug {
            name: ACCEPT_ANY_PRIMARY,
            doc: "a replica applies streams of any primary and generation",
            row: ("leader", "leader", "default"),
            breaks: "invariants",
        },
        PlantedBug {
            name: NEVER_PSYNC,
            doc: "a replica never sends PSYNC",
            row: ("leader", "leader", "wait_1"),
            breaks: "recovers",
        },
    ]
}

/// True when the planted bug `name` is on; always false in a build
/// without the `planted` feature.
#[inline]
pub(crate) fn on(planted: Option<&'static str>, name: &str) -> bool {
    cfg!(feature = "planted") && planted == Some(name)
}
