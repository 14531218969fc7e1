//! Planted bugs: small, historically real ISR mistakes, compiled only with
//! the `planted` feature and switched on per group with
//! [`IsrConfig::with_planted`](crate::IsrConfig::with_planted) (scenario
//! setting `planted=NAME`): the explorer's positive controls.

use replication::PlantedBug;

/// The high watermark follows the leader's own log end, not the slowest
/// ISR member's (a broken `maybeIncrementLeaderHW`): committed data the
/// followers lack is served, then lost with the leader.
pub const HW_FROM_LEADER: &str = "isr_hw_from_leader";
/// A follower rejoins the ISR because its log end equals the leader's,
/// without having fetched the current leader's entries (the Python
/// original's bug, SPEC §6 invariant 3): a divergent log counts as in sync.
pub const REJOIN_ON_EQUAL_LEO: &str = "isr_rejoin_on_equal_leo";
/// A follower accepts appends of an older leader epoch (no epoch fencing):
/// a displaced leader's suffix lands on its followers.
pub const NO_EPOCH_FENCE: &str = "isr_no_epoch_fence";

/// A follower panics on a packet of an older leader epoch — the `assert!`
/// of a programmer who took fencing for "cannot happen": the explorer's
/// positive control for a panic inside a protocol, which it reports as an
/// *invariants* violation naming the panic, and goes on.
pub const PANIC_ON_STALE_EPOCH: &str = "isr_panic_on_stale_epoch";

/// Every planted ISR bug with the explorer row and property it breaks.
pub fn bugs() -> Vec<PlantedBug> {
    let row = ("all_isr", "linearizable", "default");
    vec![
        PlantedBug {
            name: HW_FROM_LEADER,
            doc: "HW advanced to the leader's log end, not the ISR's minimum",
            row,
            breaks: "linearizable",
        },
        PlantedBug {
            name: REJOIN_ON_EQUAL_LEO,
            doc: "a follower rejoins the ISR on an equal log end, unconfirmed",
            row,
            breaks: "invariants",
        },
        PlantedBug {
            name: NO_EPOCH_FENCE,
            doc: "a follower accepts a stale leader epoch's appends",
            row,
            breaks: "durable",
        },
        PlantedBug {
            name: PANIC_ON_STALE_EPOCH,
            doc: "a follower panics on a stale leader epoch's packet",
            row,
            breaks: "invariants",
        },
    ]
}

/// [`PANIC_ON_STALE_EPOCH`]'s assertion (here, for the same reason as
/// the others): with it on, a packet of an older epoch than the one
/// `known` panics.
pub(crate) fn assert_current_epoch(planted: Option<&'static str>, epoch: u64, known: u64) {
    assert!(
        !(on(planted, PANIC_ON_STALE_EPOCH) && epoch < known),
        "planted: a packet of leader epoch {epoch} reached a follower of epoch {known}"
    );
}

/// [`REJOIN_ON_EQUAL_LEO`]'s test: reachable, and a log end equal to the
/// leader's (here, so that mutation testing of the protocol's files does
/// not count mutants of code only a planted build runs).
pub(crate) fn caught_up_on_equal_leo(
    follower: &crate::controller::ReplicaFacts,
    leader_end: u64,
) -> bool {
    follower.alive
        && !follower.slow
        && follower.linked_to_leader
        && follower.log_end_offset == leader_end
}

/// [`NO_EPOCH_FENCE`]'s change to fencing (here, for the same reason):
/// with it on, a packet of an older epoch than the one `known` is taken
/// as current.
pub(crate) fn takes_stale_epoch(planted: Option<&'static str>, epoch: u64, known: u64) -> bool {
    on(planted, NO_EPOCH_FENCE) && epoch < known
}

/// True when the planted bug `name` is on; always false in a build
/// without the `planted` feature.
#[inline]
pub(crate) fn on(planted: Option<&'static str>, name: &str) -> bool {
    cfg!(feature = "planted") && planted == Some(name)
}
