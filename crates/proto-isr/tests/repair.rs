//! Repair paths: a live append that does not fit makes the follower fetch
//! and the leader resynchronise it; a truncation lowers the durable marker so
//! a later power loss cannot resurrect what was never fsynced.

use proto_isr::{IsrConfig, IsrGroup};
use replication::{AckLevel, Bytes, NodeId, ReplicationGroup};

fn n(name: &str) -> NodeId {
    NodeId::new(name)
}

fn events(g: &IsrGroup, kind: &str) -> usize {
    g.trace().count(kind)
}

#[test]
fn follower_that_missed_an_append_fetches_and_is_resynchronised() {
    let mut g =
        IsrGroup::new(IsrConfig::default().with_replica_lag_timeout(1_000)).expect("valid config");
    let (leader, f) = (n("node-1"), n("node-2"));
    // Cut both ways: node-2 misses offset 1.
    g.cut_link(&leader, &f).unwrap();
    g.cut_link(&f, &leader).unwrap();
    g.client_write(Bytes::from("k"), Bytes::from("v1"), AckLevel::Leader)
        .unwrap();
    g.run_until_idle(20).unwrap();
    // Restoring leader → node-2 alone starts no catch-up (not linked both
    // ways); the next live append does not fit, and the fetch is lost.
    g.restore_link(&leader, &f).unwrap();
    g.client_write(Bytes::from("k"), Bytes::from("v2"), AckLevel::Leader)
        .unwrap();
    g.run_until_idle(20).unwrap();
    assert_eq!(g.probe().node(&f).unwrap().log_end_offset, 0);
    assert!(events(&g, "isr_append_rejected") >= 1);
    // With replies flowing, the next mismatch's fetch reaches the leader,
    // which resynchronises node-2.
    g.restore_link(&f, &leader).unwrap();
    g.client_write(Bytes::from("k"), Bytes::from("v3"), AckLevel::Leader)
        .unwrap();
    g.run_until_idle(20).unwrap();
    assert!(events(&g, "isr_fetch_received") >= 1);
    let p = g.probe();
    let follower = p.node(&f).unwrap();
    assert_eq!(follower.log_end_offset, 3, "node-2 holds the leader's log");
    assert_eq!(follower.log, p.node(&leader).unwrap().log);
    assert!(g.check_invariants().is_ok());
}

#[test]
fn truncation_then_power_loss_keeps_nothing_that_was_not_fsynced() {
    let mut g =
        IsrGroup::new(IsrConfig::default().with_replica_lag_timeout(1_000)).expect("valid config");
    // node-3 slow: HW stays 0 while node-2 receives and fsyncs 1..=2.
    g.set_replica_slow(&n("node-3"), true).unwrap();
    g.client_write(Bytes::from("k"), Bytes::from("v1"), AckLevel::Leader)
        .unwrap();
    g.client_write(Bytes::from("k"), Bytes::from("v2"), AckLevel::Leader)
        .unwrap();
    g.run_until_idle(20).unwrap();
    g.fsync(&n("node-2")).unwrap();
    assert_eq!(g.probe().node(&n("node-2")).unwrap().durable_offset, 2);
    // The clean election truncates node-2 to HW 0, and its durable marker.
    g.controller_elect(&n("node-2")).unwrap();
    let p = g.probe();
    assert_eq!(p.high_watermark, 0);
    assert_eq!(p.node(&n("node-2")).unwrap().log_end_offset, 0);
    assert_eq!(p.node(&n("node-2")).unwrap().durable_offset, 0);
    // A new, never-fsynced entry, then power loss: it must not survive.
    g.client_write(Bytes::from("k"), Bytes::from("v3"), AckLevel::Leader)
        .unwrap();
    g.crash(&n("node-2"), true).unwrap();
    assert_eq!(g.probe().node(&n("node-2")).unwrap().log_end_offset, 0);
}
