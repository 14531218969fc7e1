//! Elections: seeded, one leader per term, a no-op first, failover.

use proto_raft::{InvariantChecker, RaftConfig, RaftGroup, Role};
use replication::{AckLevel, GroupError, ReplicationGroup};

#[test]
fn seeded_timeouts_elect_exactly_one_leader_per_term() {
    for seed in 0..200 {
        let mut g = RaftGroup::new(RaftConfig::default().with_seed(seed)).expect("group");
        let mut checker = InvariantChecker::new();
        let leader = g.run_until_leader(None, 100).expect("a leader");
        for _ in 0..60 {
            g.tick();
            checker
                .check(&g)
                .unwrap_or_else(|v| panic!("seed {seed}: {v}"));
        }
        let probe = g.probe();
        let leaders: Vec<_> = probe
            .nodes
            .iter()
            .filter(|n| n.role == Role::Leader)
            .collect();
        assert_eq!(leaders.len(), 1, "seed {seed}");
        assert_eq!(
            leaders[0].id, leader,
            "a healthy leader keeps its term (seed {seed})"
        );
        assert!(
            probe.nodes.iter().all(|n| n.term == leaders[0].term),
            "seed {seed}"
        );
    }
}

#[test]
fn a_different_seed_draws_different_election_deadlines() {
    let trace = |seed| {
        let mut g = RaftGroup::new(RaftConfig::default().with_seed(seed)).expect("group");
        g.run_until_leader(None, 100).expect("leader");
        g.trace().to_text()
    };
    assert_ne!(trace(1), trace(2));
}

#[test]
fn new_leader_appends_a_noop_so_the_first_write_lands_at_index_2() {
    let mut g = RaftGroup::new(RaftConfig::default()).expect("group");
    let leader = g.run_until_leader(None, 100).expect("leader");
    let w = g
        .client_write("k".into(), "v".into(), AckLevel::Quorum)
        .expect("write");
    assert_eq!((w.accepted, w.offset), (true, Some(2)));
    let probe = g.probe();
    let node = probe.node(&leader).expect("leader probe");
    assert_eq!(node.log[0].command, proto_raft::Command::Noop);
    assert_eq!(node.log[0].term, node.term);
    assert_eq!(g.trace().count("raft_leader_elected"), 1);
}

#[test]
fn failover_waits_for_a_new_elected_leader_and_refuses_a_named_candidate_with_transfer_off() {
    let mut g =
        RaftGroup::new(RaftConfig::default().with_leadership_transfer(false)).expect("group");
    let old = g.run_until_leader(None, 100).expect("leader");
    let other = g.node_ids().into_iter().find(|n| *n != old).expect("peer");
    let before = g.probe();
    assert!(matches!(
        g.failover(Some(&other)),
        Err(GroupError::NotPermitted { .. })
    ));
    assert_eq!(g.probe(), before, "a refused failover changes nothing");
    g.crash(&old, false).expect("crash");
    let new = g.failover(None).expect("new leader");
    assert_ne!(new, old);
    let probe = g.probe();
    assert!(probe.node(&new).expect("probe").term > probe.node(&old).expect("probe").term);
}

#[test]
fn failover_without_a_fault_times_out_with_a_clear_error() {
    let mut g = RaftGroup::new(RaftConfig::default()).expect("group");
    let leader = g.run_until_leader(None, 100).expect("leader");
    match g.failover(None) {
        Err(GroupError::NotIdle { waiting_for, .. }) => {
            assert!(waiting_for.contains(leader.as_str()), "{waiting_for}")
        }
        other => panic!("expected NotIdle, got {other:?}"),
    }
}

#[test]
fn restart_keeps_term_vote_and_log_and_rebuilds_the_state_machine() {
    let mut g = RaftGroup::new(RaftConfig::default()).expect("group");
    let leader = g.run_until_leader(None, 100).expect("leader");
    g.client_write("k".into(), "v".into(), AckLevel::Quorum)
        .expect("write");
    g.run_until_idle(100).expect("idle");
    let f = g
        .node_ids()
        .into_iter()
        .find(|n| *n != leader)
        .expect("follower");
    let before = g.probe().node(&f).cloned().expect("probe");
    g.crash(&f, true).expect("crash");
    let crashed = g.probe().node(&f).cloned().expect("probe");
    assert_eq!(
        (crashed.term, &crashed.voted_for, &crashed.log),
        (before.term, &before.voted_for, &before.log)
    );
    assert_eq!(
        (
            crashed.commit_index,
            crashed.last_applied,
            crashed.data.len()
        ),
        (0, 0, 0)
    );
    assert_eq!(
        crashed.durable_index, before.durable_index,
        "raft persists before it answers"
    );
    g.restart(&f).expect("restart");
    g.run_until_idle(100).expect("idle");
    let after = g.probe().node(&f).cloned().expect("probe");
    assert_eq!(after.role, Role::Follower);
    assert_eq!(
        (after.commit_index, after.last_applied),
        (before.commit_index, before.last_applied)
    );
    assert_eq!(after.data, before.data);
}
