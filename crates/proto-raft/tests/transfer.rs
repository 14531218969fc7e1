//! Leadership transfer (thesis §3.10): `failover(Some(node))` catches the
//! target up and sends it TimeoutNow; refused for an unknown, down or
//! cut-off target; abandoned after an election timeout.

use bytes::Bytes;
use proto_raft::{NodeId, RaftConfig, RaftGroup, Role};
use replication::{AckLevel, GroupError, ReadLevel, ReplicationGroup};

fn elected() -> (RaftGroup, NodeId, Vec<NodeId>) {
    let mut g = RaftGroup::new(RaftConfig::default()).expect("group");
    let leader = g.run_until_leader(None, 100).expect("leader");
    g.run_until_idle(100).expect("idle");
    let followers = g.node_ids().into_iter().filter(|n| *n != leader).collect();
    (g, leader, followers)
}

#[test]
fn failover_to_a_named_node_transfers_leadership_to_it() {
    let (mut g, old, followers) = elected();
    let target = followers[0].clone();
    let term = g.probe().node(&old).expect("probe").term;
    assert_eq!(g.failover(Some(&target)).expect("transfer"), target);
    let probe = g.probe();
    assert_eq!(probe.leader, Some(target.clone()));
    assert_eq!(probe.node(&target).expect("probe").term, term + 1);
    assert_ne!(probe.node(&old).expect("probe").role, Role::Leader);
    for kind in [
        "raft_transfer_started",
        "raft_timeout_now_sent",
        "raft_timeout_now_received",
    ] {
        assert_eq!(g.trace().count(kind), 1, "{kind}");
    }
    // The new leader serves writes and linearizable reads.
    g.client_write("k".into(), "after".into(), AckLevel::Quorum)
        .expect("write");
    let read = g
        .client_read(b"k", ReadLevel::Linearizable, None)
        .expect("read");
    assert_eq!(read.value, Some(Bytes::from_static(b"after")));
}

#[test]
fn failover_to_a_lagging_node_catches_it_up_before_timeout_now() {
    let (mut g, leader, followers) = elected();
    let target = followers[0].clone();
    g.cut_link(&leader, &target).expect("cut");
    for i in 0..5 {
        g.propose(format!("k{i}").into(), "v".into())
            .expect("proposed");
    }
    // Committed on the other follower, well before the target times out.
    for _ in 0..4 {
        g.tick();
    }
    g.restore_link(&leader, &target).expect("restore");
    let behind = g.probe().node(&target).expect("probe").last_index();
    let end = g.probe().node(&leader).expect("probe").last_index();
    assert!(behind < end, "the target lags");
    assert_eq!(g.failover(Some(&target)).expect("transfer"), target);
    let sent = g
        .trace()
        .events()
        .find(|e| e.kind == "raft_timeout_now_sent")
        .expect("TimeoutNow sent");
    assert_eq!(
        sent.field("last_index"),
        Some(proto_raft::Value::UInt(end)),
        "TimeoutNow only once the target holds the leader's whole log"
    );
    let data = g.probe().node(&target).expect("probe").data.clone();
    assert_eq!(
        data.len(),
        5,
        "the new leader holds every acknowledged write"
    );
}

#[test]
fn failover_to_the_current_leader_is_a_no_op() {
    let (mut g, leader, _) = elected();
    let before = g.probe();
    assert_eq!(g.failover(Some(&leader)).expect("no-op"), leader);
    assert_eq!(g.probe(), before);
}

#[test]
fn failover_to_an_unknown_down_or_cut_off_node_is_refused_and_changes_nothing() {
    let (mut g, leader, followers) = elected();
    let ghost = NodeId::new("node-9");
    let before = (g.probe(), g.trace().len());
    assert!(matches!(
        g.failover(Some(&ghost)),
        Err(GroupError::UnknownNode(n)) if n == ghost
    ));
    assert_eq!((g.probe(), g.trace().len()), before);

    g.crash(&followers[0], false).expect("crash");
    let before = (g.probe(), g.trace().len());
    assert!(matches!(
        g.failover(Some(&followers[0])),
        Err(GroupError::NodeDown(n)) if n == followers[0]
    ));
    assert_eq!((g.probe(), g.trace().len()), before);

    g.cut_link(&followers[1], &leader).expect("cut one way");
    let before = (g.probe(), g.trace().len());
    let err = g.failover(Some(&followers[1])).expect_err("cut off");
    assert!(
        matches!(&err, GroupError::NotPermitted { node, reason }
            if *node == followers[1] && reason.contains("cut off from leader")),
        "{err}"
    );
    assert_eq!((g.probe(), g.trace().len()), before);
}

#[test]
fn failover_to_a_named_node_is_refused_when_transfer_is_off() {
    let mut g =
        RaftGroup::new(RaftConfig::default().with_leadership_transfer(false)).expect("group");
    let leader = g.run_until_leader(None, 100).expect("leader");
    let other = g
        .node_ids()
        .into_iter()
        .find(|n| *n != leader)
        .expect("peer");
    let err = g.failover(Some(&other)).expect_err("refused");
    assert!(
        err.to_string().contains("leadership transfer is off"),
        "{err}"
    );
    assert_eq!(g.leader(), Some(leader));
}

#[test]
fn transfer_is_abandoned_after_an_election_timeout_and_the_leader_keeps_leading() {
    let (mut g, leader, followers) = elected();
    let target = followers[0].clone();
    assert_eq!(g.transfer_leadership(&target).expect("started"), leader);
    // The target dies before it can campaign (its TimeoutNow is lost).
    g.crash(&target, false).expect("crash");
    let timeout = g.config().election_timeout.1;
    for _ in 0..timeout {
        g.tick();
    }
    assert_eq!(g.trace().count("raft_transfer_abandoned"), 1);
    assert_eq!(g.leader(), Some(leader.clone()));
    // Leadership stays usable: a write commits on the remaining majority.
    let w = g
        .client_write("k".into(), "v".into(), AckLevel::Quorum)
        .expect("write");
    assert!(w.accepted);
    g.restart(&target).expect("restart");
    assert_eq!(g.failover(Some(&target)).expect("transfer"), target);
}
