//! Planted bugs: small, historically real Redis-replication mistakes,
//! compiled only with the `planted` feature and switched on per group with
//! [`AsyncConfig::with_planted`](crate::AsyncConfig::with_planted)
//! (scenario setting `planted=NAME`): the explorer's positive controls.

use replication::PlantedBug;

/// A replica applies a stream from any node of any generation (no check
/// of its configured primary or the replication generation): an old
/// primary's writes land on the replicas of the new one.
///
/// As planted it is masked: the replica still compares each stream's and
/// partial sync's replication id with its own, so an old primary's stream
/// is refused once the replica holds the new history; only a late full
/// sync lands, and it installs the other history whole (a replication id
/// the current primary does not have, so the invariants do not compare
/// it), which the next stream of the current primary then resynchronises.
/// Nothing the explorer checks on this row can tell (0 of 20,000
/// schedules). A Redis replica has no such per-command check: skipping the
/// two replication-id checks too under this bug (`node/replica.rs`) makes
/// a replica apply an old primary's writes on top of the new history, and
/// the "replica ahead of primary" invariant catches it (measured: 4 of 600
/// schedules, first at seed 317).
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
