//! A QUORUM commit is confirmed only by a synchronous standby other than
//! the primary (regression for the gap the explorer shrank to three steps:
//! fail over to the synchronous standby, write at QUORUM, fail over back).

use proto_wal::prelude::*;
use proto_wal::{WalConfig, WalShippingGroup};

fn group() -> WalShippingGroup {
    WalShippingGroup::new(
        WalConfig::default().with_synchronous_standbys([NodeId::new("standby-1")]),
    )
    .expect("valid config")
}

#[test]
fn a_promoted_synchronous_standby_does_not_acknowledge_quorum_on_its_own_flush() {
    let mut g = group();
    let s1 = NodeId::new("standby-1");
    assert_eq!(g.failover(Some(&s1)).expect("promote"), s1);
    let w = g
        .client_write(Bytes::from("k0"), Bytes::from("v73"), AckLevel::Quorum)
        .expect("a supported level");
    assert!(!w.accepted, "{w:?}");
    assert!(
        w.message.contains("own flush never counts"),
        "{}",
        w.message
    );
    assert_eq!(g.trace().count("wal_commit_waits_for_sync_standby"), 1);
}

#[test]
fn a_write_in_flight_when_its_primary_is_promoted_away_is_unknown() {
    let mut g = group();
    let id = g
        .submit(ClientOp::write("k0", "v73", AckLevel::Quorum).at(&NodeId::new("primary")))
        .expect("submitted");
    g.failover(Some(&NodeId::new("standby-1")))
        .expect("promote");
    let done = g.await_completion(id).expect("completes");
    assert_eq!(done.outcome.status(), OutcomeStatus::Unknown, "{done:?}");
}
