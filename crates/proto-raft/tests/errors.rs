//! Every bad call is a `GroupError` naming the node or level, and changes
//! no protocol state.

use proto_raft::{RaftConfig, RaftGroup};
use replication::{AckLevel, GroupError, NodeId, ReadLevel, ReplicationGroup};

fn elected() -> (RaftGroup, NodeId) {
    let mut g = RaftGroup::new(RaftConfig::default()).expect("group");
    let leader = g.run_until_leader(None, 100).expect("leader");
    g.run_until_idle(100).expect("idle");
    (g, leader)
}

#[test]
fn unknown_node_is_refused_by_every_operation_without_changing_state() {
    let (mut g, _) = elected();
    let ghost = NodeId::new("ghost");
    let before = g.probe();
    let unknown = GroupError::UnknownNode(ghost.clone());
    assert_eq!(g.crash(&ghost, false), Err(unknown.clone()));
    assert_eq!(g.restart(&ghost), Err(unknown.clone()));
    assert_eq!(g.isolate(&ghost), Err(unknown.clone()));
    assert_eq!(g.heal(&ghost), Err(unknown.clone()));
    assert_eq!(g.fsync(&ghost), Err(unknown.clone()));
    assert_eq!(g.failover(Some(&ghost)), Err(unknown.clone()));
    assert_eq!(g.run_until_leader(Some(&ghost), 10), Err(unknown.clone()));
    assert_eq!(
        g.partition(&ghost, &before.nodes[0].id),
        Err(unknown.clone())
    );
    for level in ReadLevel::ALL {
        assert_eq!(
            g.client_read(b"k", level, Some(&ghost)),
            Err(unknown.clone()),
            "{level}"
        );
    }
    assert_eq!(
        g.write_at(&ghost, "k".into(), "v".into(), AckLevel::Quorum),
        Err(unknown.clone())
    );
    assert_eq!(g.propose_at(&ghost, "k".into(), "v".into()), Err(unknown));
    assert_eq!(g.probe(), before);
    assert!(unknown_named(&g.crash(&ghost, false)));
}

fn unknown_named(result: &Result<(), GroupError>) -> bool {
    matches!(result, Err(e) if e.to_string().contains("ghost"))
}

#[test]
fn crashed_node_refuses_operations_that_need_it_alive() {
    let (mut g, leader) = elected();
    let f = g
        .node_ids()
        .into_iter()
        .find(|n| *n != leader)
        .expect("follower");
    g.crash(&f, false).expect("crash");
    let before = g.probe();
    let down = GroupError::NodeDown(f.clone());
    assert_eq!(g.crash(&f, false), Err(down.clone()));
    assert_eq!(g.fsync(&f), Err(down.clone()));
    assert_eq!(
        g.client_read(b"k", ReadLevel::Local, Some(&f)),
        Err(down.clone())
    );
    assert_eq!(
        g.client_read(b"k", ReadLevel::Linearizable, Some(&f)),
        Err(down.clone())
    );
    assert_eq!(
        g.write_at(&f, "k".into(), "v".into(), AckLevel::Quorum),
        Err(down)
    );
    assert_eq!(g.probe(), before);
}

#[test]
fn restarting_a_running_node_is_an_error() {
    let (mut g, leader) = elected();
    assert_eq!(g.restart(&leader), Err(GroupError::AlreadyRunning(leader)));
}

#[test]
fn writes_and_reads_without_a_leader_are_no_leader_errors() {
    let mut g = RaftGroup::new(RaftConfig::default()).expect("group");
    let err = g
        .client_write("k".into(), "v".into(), AckLevel::Quorum)
        .expect_err("no leader yet");
    assert!(matches!(err, GroupError::NoLeader(_)), "{err}");
    assert!(matches!(
        g.client_read(b"k", ReadLevel::Leader, None),
        Err(GroupError::NoLeader(_))
    ));
    assert!(matches!(
        g.client_read(b"k", ReadLevel::Linearizable, None),
        Err(GroupError::NoLeader(_))
    ));
    assert!(matches!(
        g.propose("k".into(), "v".into()),
        Err(GroupError::NoLeader(_))
    ));
    assert_eq!(g.now(), 0, "no tick was driven");
}

#[test]
fn writing_or_reading_linearizably_at_a_follower_is_refused() {
    let (mut g, leader) = elected();
    let f = g
        .node_ids()
        .into_iter()
        .find(|n| *n != leader)
        .expect("follower");
    let before = g.probe();
    assert!(
        matches!(g.write_at(&f, "k".into(), "v".into(), AckLevel::Quorum), Err(GroupError::NotPermitted { node, .. }) if node == f)
    );
    match g.client_read(b"k", ReadLevel::Linearizable, Some(&f)) {
        Err(GroupError::ReadBlocked { guard, node, .. }) => {
            assert_eq!((guard, node), ("not leader", f))
        }
        other => panic!("expected blocked, got {other:?}"),
    }
    assert_eq!(g.probe(), before);
}

#[test]
fn exhausted_tick_bounds_are_not_idle_errors() {
    let mut g = RaftGroup::new(RaftConfig::default()).expect("group");
    assert!(matches!(
        g.run_until_leader(None, 1),
        Err(GroupError::NotIdle { ticks: 1, .. })
    ));
    assert!(matches!(
        g.run_until_converged(1),
        Err(GroupError::NotIdle { ticks: 1, .. })
    ));
    let leader = g.run_until_leader(None, 100).expect("leader");
    g.isolate(&leader).expect("isolate");
    g.propose("k".into(), "v".into())
        .expect("appended at the isolated leader");
    assert!(matches!(
        g.run_until_idle(20),
        Err(GroupError::NotIdle { ticks: 20, .. })
    ));
}
