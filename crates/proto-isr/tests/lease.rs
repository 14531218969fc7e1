//! The leader's lease: renewed while an ISR quorum is reachable, lost when
//! followers are slow or cut, and never granted at a follower.

use proto_isr::{IsrConfig, IsrGroup};
use replication::{AckLevel, Bytes, GroupError, NodeId, ReplicationGroup};

fn n(name: &str) -> NodeId {
    NodeId::new(name)
}

fn guard_of(result: Result<replication::ReadResult, GroupError>) -> &'static str {
    match result {
        Err(GroupError::ReadBlocked { guard, .. }) => guard,
        other => panic!("expected ReadBlocked, got {other:?}"),
    }
}

/// Followers stay in the ISR for a long time: only the lease can refuse.
fn patient_group() -> IsrGroup {
    IsrGroup::new(IsrConfig::default().with_replica_lag_timeout(1_000)).expect("valid config")
}

#[test]
fn lease_is_renewed_in_a_healthy_group_well_past_lease_duration() {
    let mut g = patient_group();
    g.client_write(Bytes::from("k"), Bytes::from("v"), AckLevel::AllIsr)
        .unwrap();
    let lease = g.config().lease_duration;
    for _ in 0..lease * 10 {
        g.tick();
    }
    assert!(g.now() > lease * 10);
    let read = g.lease_read(&n("node-1"), "k").expect("healthy lease");
    assert_eq!(read.value.as_deref(), Some(&b"v"[..]));
    assert!(g.probe().lease_expiry > g.now());
}

#[test]
fn lease_expires_once_every_follower_is_slow() {
    let mut g = patient_group();
    g.set_replica_slow(&n("node-2"), true).unwrap();
    g.set_replica_slow(&n("node-3"), true).unwrap();
    for _ in 0..g.config().lease_duration * 3 {
        g.tick();
    }
    assert_eq!(
        g.probe().isr.len(),
        3,
        "slow followers are still ISR members"
    );
    assert_eq!(guard_of(g.lease_read(&n("node-1"), "k")), "lease expired");
}

#[test]
fn lease_expires_once_the_leader_is_cut_one_way_from_every_follower() {
    let mut g = patient_group();
    for f in ["node-2", "node-3"] {
        g.cut_link(&n("node-1"), &n(f)).unwrap();
    }
    for _ in 0..g.config().lease_duration * 3 {
        g.tick();
    }
    assert_eq!(guard_of(g.lease_read(&n("node-1"), "k")), "lease expired");
}

#[test]
fn lease_expires_once_every_follower_is_cut_one_way_from_the_leader() {
    let mut g = patient_group();
    for f in ["node-2", "node-3"] {
        g.cut_link(&n(f), &n("node-1")).unwrap();
    }
    for _ in 0..g.config().lease_duration * 3 {
        g.tick();
    }
    assert_eq!(guard_of(g.lease_read(&n("node-1"), "k")), "lease expired");
}

#[test]
fn lease_read_at_a_follower_in_the_isr_is_refused_as_fenced() {
    let mut g = patient_group();
    g.client_write(Bytes::from("k"), Bytes::from("v"), AckLevel::AllIsr)
        .unwrap();
    assert!(g.probe().in_isr(&n("node-2")));
    assert_eq!(guard_of(g.lease_read(&n("node-2"), "k")), "lease fenced");
}
