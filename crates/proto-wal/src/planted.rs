//! Planted bugs: small, historically real WAL-shipping mistakes, compiled
//! only with the `planted` feature and switched on per group with
//! [`WalConfig::with_planted`](crate::WalConfig::with_planted) (scenario
//! setting `planted=NAME`): the explorer's positive controls.

use replication::PlantedBug;

/// A synchronous commit whose wait times out is reported committed — the
/// PostgreSQL hazard of a cancelled synchronous-replication wait (the
/// transaction is already committed locally and becomes visible): a
/// failover to the standby that never received it loses it.
pub const ACK_ON_WAIT_TIMEOUT: &str = "wal_ack_on_wait_timeout";
/// A standby applies WAL from whichever node sends it, of any timeline (no
/// timeline or sender check): a displaced primary's records land on the
/// standbys of the new timeline.
pub const NO_TIMELINE_FENCE: &str = "wal_no_timeline_fence";

/// Every planted WAL bug with the explorer row and property it breaks.
pub fn bugs() -> Vec<PlantedBug> {
    let row = ("quorum", "leader", "sync_standby_all");
    vec![
        PlantedBug {
            name: ACK_ON_WAIT_TIMEOUT,
            doc: "a timed-out synchronous commit is reported committed",
            row,
            breaks: "durable",
        },
        PlantedBug {
            name: NO_TIMELINE_FENCE,
            doc: "a standby applies records of any sender and timeline",
            row,
            breaks: "invariants",
        },
    ]
}

/// True when the planted bug `name` is on; always false in a build
/// without the `planted` feature.
#[inline]
pub(crate) fn on(planted: Option<&'static str>, name: &str) -> bool {
    cfg!(feature = "planted") && planted == Some(name)
}
