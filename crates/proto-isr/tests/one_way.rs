//! One-way cuts: a link that carries packets in one direction only is not a
//! link for ISR membership.

use proto_isr::{IsrConfig, IsrGroup};
use replication::{AckLevel, Bytes, NodeId, ReplicationGroup};

fn n(name: &str) -> NodeId {
    NodeId::new(name)
}

fn run(cut_from: &str, cut_to: &str) -> IsrGroup {
    let mut g = IsrGroup::new(IsrConfig::default()).expect("valid config");
    g.client_write(Bytes::from("k"), Bytes::from("v1"), AckLevel::AllIsr)
        .unwrap();
    g.cut_link(&n(cut_from), &n(cut_to)).unwrap();
    for _ in 0..g.config().replica_lag_timeout + 2 {
        g.tick();
    }
    g
}

#[test]
fn follower_cut_one_way_from_the_leader_leaves_the_isr() {
    let g = run("node-1", "node-2");
    let isr = g.probe().isr;
    assert_eq!(isr, vec![n("node-1"), n("node-3")]);
}

#[test]
fn follower_whose_replies_are_cut_one_way_leaves_the_isr() {
    let g = run("node-2", "node-1");
    let isr = g.probe().isr;
    assert_eq!(isr, vec![n("node-1"), n("node-3")]);
}

#[test]
fn follower_rejoins_the_isr_once_the_one_way_cut_is_restored() {
    let mut g = run("node-1", "node-2");
    g.client_write(Bytes::from("k"), Bytes::from("v2"), AckLevel::AllIsr)
        .unwrap();
    g.restore_link(&n("node-1"), &n("node-2")).unwrap();
    g.run_until_idle(50).unwrap();
    g.tick();
    assert!(g.probe().in_isr(&n("node-2")));
    assert_eq!(
        g.probe().node(&n("node-2")).unwrap().log_end_offset,
        2,
        "the restored follower caught up"
    );
    assert!(g.check_invariants().is_ok());
}
