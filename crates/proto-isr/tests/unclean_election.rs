//! `unclean.leader.election.enable`, and the power-loss `applied_hw`
//! regression.

use proto_isr::{IsrConfig, IsrGroup};
use replication::{AckLevel, Bytes, ClientOp, GroupError, NodeId, ReadLevel, ReplicationGroup};

fn n(id: &str) -> NodeId {
    NodeId::new(id)
}

fn b(text: &'static str) -> Bytes {
    Bytes::from_static(text.as_bytes())
}

/// An acknowledged ALL_ISR write, then node-3 falls out of the ISR (cut
/// off), another ALL_ISR write (acknowledged by node-1 and node-2), then
/// both ISR members crash: only out-of-sync node-3 is alive.
fn every_isr_member_down(unclean: bool) -> IsrGroup {
    let config = IsrConfig::default().with_unclean_leader_election(unclean);
    let mut g = IsrGroup::new(config).unwrap();
    let first = g.client_write(b("k"), b("v1"), AckLevel::AllIsr).unwrap();
    assert!(first.accepted);
    g.isolate(&n("node-3")).unwrap();
    for _ in 0..5 {
        g.tick();
    }
    let second = g.client_write(b("k"), b("v2"), AckLevel::AllIsr).unwrap();
    assert!(second.accepted, "acknowledged by the ISR node-1, node-2");
    g.crash(&n("node-1"), false).unwrap();
    g.crash(&n("node-2"), false).unwrap();
    g.heal(&n("node-3")).unwrap();
    g
}

#[test]
fn without_unclean_election_a_partition_with_no_live_isr_member_stays_leaderless() {
    let mut g = every_isr_member_down(false);
    let err = g.failover(None).unwrap_err();
    assert!(matches!(err, GroupError::NoLeader(_)), "{err}");
    assert!(
        err.to_string()
            .contains("unclean.leader.election.enable is off")
    );
    let err = g.controller_elect(&n("node-3")).unwrap_err();
    assert!(
        err.to_string()
            .contains("unclean.leader.election.enable is off")
    );
    assert_eq!(g.leader(), None);
    assert!(
        g.submit(ClientOp::write("k", "v3", AckLevel::AllIsr))
            .is_err(),
        "writes are refused"
    );
    assert!(
        g.submit(ClientOp::read("k", ReadLevel::Linearizable))
            .is_err(),
        "authority reads are refused"
    );
}

#[test]
fn unclean_election_makes_the_partition_available_and_loses_acknowledged_all_isr_writes() {
    let mut g = every_isr_member_down(true);
    let elected = g.failover(None).unwrap();
    assert_eq!(elected, n("node-3"));
    assert_eq!(g.leader(), Some(n("node-3")));
    let event = g.trace().of_kind("isr_unclean_election").next().unwrap();
    assert_eq!(event.field("offsets_lost"), Some(sim_core::Value::UInt(1)));
    let read = g.client_read(b"k", ReadLevel::Leader, None).unwrap();
    assert_eq!(read.value, Some(b("v1")), "acknowledged v2 is gone");
    let write = g.client_write(b("k"), b("v3"), AckLevel::Leader).unwrap();
    assert!(write.accepted, "available again with the ISR {{node-3}}");
    // The old ISR members come back and truncate to the new leader's log.
    g.restart(&n("node-1")).unwrap();
    g.restart(&n("node-2")).unwrap();
    g.run_until_idle(100).unwrap();
    for _ in 0..3 {
        g.tick();
    }
    g.check_invariants().unwrap();
    let all = g.client_write(b("k"), b("v3"), AckLevel::AllIsr).unwrap();
    assert!(all.accepted, "the ISR regrew: {all:?}");
    let local = g.client_read(b"k", ReadLevel::Local, Some(&n("node-1")));
    assert_eq!(local.unwrap().value, Some(b("v3")));
}

#[test]
fn unclean_election_is_refused_while_an_isr_member_is_alive() {
    let config = IsrConfig::default().with_unclean_leader_election(true);
    let mut g = IsrGroup::new(config).unwrap();
    g.isolate(&n("node-3")).unwrap();
    for _ in 0..5 {
        g.tick();
    }
    g.client_write(b("k"), b("v"), AckLevel::AllIsr).unwrap();
    g.crash(&n("node-1"), false).unwrap();
    let err = g.controller_elect(&n("node-3")).unwrap_err();
    assert!(err.to_string().contains("elected cleanly"), "{err}");
    assert_eq!(g.failover(None).unwrap(), n("node-2"), "a clean election");
    assert_eq!(g.trace().of_kind("isr_unclean_election").count(), 0);
}

/// Regression: node-1 loses unfsynced entries to a power loss, keeps an
/// `applied_hw` above its shortened log, restarts isolated as a stale
/// leader and appends at or below that `applied_hw`.
#[test]
fn power_loss_lowers_applied_hw_so_a_stale_leader_append_keeps_committed_data_consistent() {
    let mut g = IsrGroup::new(IsrConfig::default()).unwrap();
    let acked = g.client_write(b("k"), b("v1"), AckLevel::AllIsr).unwrap();
    assert!(acked.accepted);
    g.crash(&n("node-1"), true).unwrap();
    g.check_invariants().unwrap();
    g.isolate(&n("node-1")).unwrap();
    g.failover(Some(&n("node-2"))).unwrap();
    g.restart(&n("node-1")).unwrap();
    let _ = g.write_at(&n("node-1"), b("k"), b("stale"), AckLevel::Leader);
    g.check_invariants().unwrap();
}
