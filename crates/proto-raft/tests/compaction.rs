//! Snapshots and log compaction (§7): nodes compact applied prefixes; a
//! follower that needs compacted entries gets InstallSnapshot and converges.

use proto_raft::{InvariantChecker, RaftConfig, RaftGroup, Value};
use replication::{AckLevel, ReplicationGroup};

const THRESHOLD: u64 = 4;

fn modes_for(g: &RaftGroup, follower: &proto_raft::NodeId, from: usize) -> Vec<String> {
    g.trace()
        .since(from)
        .filter(|e| e.kind == "raft_catch_up")
        .filter(|e| e.field("follower") == Some(Value::Node(follower.clone())))
        .filter_map(|e| e.str_field("mode").map(str::to_owned))
        .collect()
}

/// Crashes a follower, writes `writes` entries, restarts it and converges,
/// checking the invariants after every tick. Returns the catch-up modes.
fn reconnect(g: &mut RaftGroup, checker: &mut InvariantChecker, writes: usize) -> Vec<String> {
    let leader = g.leader().expect("leader");
    let follower = g
        .node_ids()
        .into_iter()
        .find(|n| *n != leader)
        .expect("peer");
    g.crash(&follower, false).expect("crash");
    for i in 0..writes {
        g.client_write(
            format!("k{i}").into(),
            format!("v{i}").into(),
            AckLevel::Quorum,
        )
        .expect("write");
        checker.check(g).expect("invariants");
    }
    g.restart(&follower).expect("restart");
    let mark = g.trace().len();
    for _ in 0..200 {
        if g.is_converged() {
            break;
        }
        g.tick();
        checker.check(g).expect("invariants");
    }
    assert!(g.is_converged(), "{:#?}", g.probe());
    modes_for(g, &follower, mark)
}

#[test]
fn follower_needing_compacted_entries_gets_install_snapshot_and_converges() {
    let config = RaftConfig::default().with_snapshot_threshold(THRESHOLD);
    let mut g = RaftGroup::new(config).expect("group");
    let mut checker = InvariantChecker::new();
    g.run_until_leader(None, 100).expect("leader");
    let modes = reconnect(&mut g, &mut checker, 10);
    assert_eq!(modes, ["snapshot"]);
    assert!(g.trace().count("raft_snapshot_taken") > 0);
    assert_eq!(g.trace().count("raft_snapshot_installed"), 1);
    let probe = g.probe();
    let leader = probe
        .node(probe.leader.as_ref().expect("leader"))
        .expect("probe");
    for node in &probe.nodes {
        assert_eq!(node.data, leader.data, "{} converged", node.id);
        assert_eq!(node.data.len(), 10);
        assert!(node.snapshot_index > 0, "{} compacted", node.id);
        assert!(node.snapshot_index <= node.commit_index);
    }
}

#[test]
fn follower_missing_only_retained_entries_gets_log_replay() {
    let config = RaftConfig::default().with_snapshot_threshold(THRESHOLD);
    let mut g = RaftGroup::new(config).expect("group");
    let mut checker = InvariantChecker::new();
    g.run_until_leader(None, 100).expect("leader");
    let modes = reconnect(&mut g, &mut checker, 2);
    assert_eq!(modes, ["log replay"]);
    assert_eq!(g.trace().count("raft_snapshot_sent"), 0);
}

#[test]
fn a_restarted_node_recovers_its_state_machine_from_its_snapshot() {
    let config = RaftConfig::default().with_snapshot_threshold(THRESHOLD);
    let mut g = RaftGroup::new(config).expect("group");
    let leader = g.run_until_leader(None, 100).expect("leader");
    for i in 0..6 {
        g.client_write(format!("k{i}").into(), "v".into(), AckLevel::Quorum)
            .expect("write");
    }
    let snap = g.probe().node(&leader).expect("probe").snapshot_index;
    assert!(snap >= THRESHOLD);
    g.crash(&leader, false).expect("crash");
    let down = g.probe().node(&leader).expect("probe").clone();
    assert_eq!((down.commit_index, down.last_applied), (snap, snap));
    assert_eq!(
        down.data.len() as u64,
        snap - 1,
        "every entry but the no-op is a write"
    );
}

#[test]
fn snapshot_threshold_zero_is_a_config_error() {
    let err = RaftGroup::new(RaftConfig::default().with_snapshot_threshold(0)).expect_err("zero");
    assert!(err.to_string().contains("snapshot_threshold"), "{err}");
}
