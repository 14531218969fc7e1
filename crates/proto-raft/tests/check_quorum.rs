//! CheckQuorum: a leader that has not heard from a majority within an
//! election timeout steps down by itself.

use proto_raft::{RaftConfig, RaftGroup, Role};
use replication::ReplicationGroup;

fn isolated_leader_after(config: RaftConfig, ticks: u64) -> (RaftGroup, proto_raft::NodeId) {
    let mut g = RaftGroup::new(config).expect("group");
    let leader = g.run_until_leader(None, 100).expect("leader");
    g.run_until_idle(100).expect("idle");
    g.isolate(&leader).expect("isolate");
    for _ in 0..ticks {
        g.tick();
    }
    (g, leader)
}

#[test]
fn isolated_leader_steps_down_by_itself_with_check_quorum() {
    let config = RaftConfig::default().with_check_quorum(true);
    let lo = config.election_timeout.0;
    // Two checks are at most 2 × the lowest election timeout apart.
    let (g, leader) = isolated_leader_after(config, 2 * lo + 1);
    let node = g.probe().node(&leader).expect("probe").clone();
    assert_ne!(
        node.role,
        Role::Leader,
        "the isolated leader no longer leads"
    );
    let event = g
        .trace()
        .events()
        .find(|e| e.kind == "raft_leader_stepped_down")
        .expect("a step-down event");
    assert_eq!(event.str_field("reason"), Some("check quorum"));
}

#[test]
fn isolated_leader_keeps_leading_without_check_quorum() {
    let (g, leader) = isolated_leader_after(RaftConfig::default(), 100);
    assert_eq!(g.probe().node(&leader).expect("probe").role, Role::Leader);
    assert_eq!(g.trace().count("raft_leader_stepped_down"), 0);
}

#[test]
fn healthy_leader_keeps_leading_with_check_quorum() {
    let mut g = RaftGroup::new(RaftConfig::default().with_check_quorum(true)).expect("group");
    let leader = g.run_until_leader(None, 100).expect("leader");
    let follower = g
        .node_ids()
        .into_iter()
        .find(|n| *n != leader)
        .expect("peer");
    // One follower down: the other one is still a majority with the leader.
    g.crash(&follower, false).expect("crash");
    for _ in 0..200 {
        g.tick();
    }
    assert_eq!(g.leader(), Some(leader));
    assert_eq!(g.trace().count("raft_leader_stepped_down"), 0);
}
