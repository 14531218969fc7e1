//! Configuration validation: every bad setting is a `GroupError::Config`
//! naming it.

use proto_raft::{RaftConfig, RaftGroup};
use replication::{GroupError, NodeId};

fn setting_of(config: RaftConfig) -> String {
    match RaftGroup::new(config) {
        Err(GroupError::Config { setting, .. }) => setting,
        Err(other) => panic!("expected a config error, got {other}"),
        Ok(_) => panic!("expected a config error, got a group"),
    }
}

#[test]
fn default_config_is_spec_section_7() {
    let c = RaftConfig::default();
    assert_eq!(
        c.nodes,
        ["node-1", "node-2", "node-3"].map(NodeId::new).to_vec()
    );
    assert_eq!(
        (c.seed, c.election_timeout, c.heartbeat, c.delay),
        (0, (8, 14), 2, 1)
    );
    assert!(RaftGroup::new(c).is_ok());
}

#[test]
fn fewer_than_three_nodes_is_refused() {
    let nodes = vec![NodeId::new("a"), NodeId::new("b")];
    assert_eq!(setting_of(RaftConfig::new(nodes)), "nodes");
}

#[test]
fn duplicate_or_empty_node_ids_are_refused() {
    let dup = ["a", "b", "a"].map(NodeId::new).to_vec();
    assert_eq!(setting_of(RaftConfig::new(dup)), "nodes");
    let empty = ["a", "b", ""].map(NodeId::new).to_vec();
    assert_eq!(setting_of(RaftConfig::new(empty)), "nodes");
}

#[test]
fn election_timeout_range_must_be_ordered() {
    let c = RaftConfig::default().with_election_timeout(14, 8);
    assert_eq!(setting_of(c), "election_timeout");
}

#[test]
fn lowest_timeout_must_exceed_two_delays_plus_heartbeat() {
    // 2 × 2 + 2 = 6: a lowest timeout of 6 is refused, 7 accepted.
    let c = RaftConfig::default()
        .with_election_timeout(6, 10)
        .with_delay(2);
    let err = RaftGroup::new(c).expect_err("refused");
    assert!(err.to_string().contains("2 × delay + heartbeat"), "{err}");
    let ok = RaftConfig::default()
        .with_election_timeout(7, 10)
        .with_delay(2);
    assert!(RaftGroup::new(ok).is_ok());
}

#[test]
fn lowest_timeout_must_exceed_heartbeat() {
    let c = RaftConfig::default()
        .with_election_timeout(5, 9)
        .with_heartbeat(5);
    assert_eq!(setting_of(c), "election_timeout");
}

#[test]
fn zero_heartbeat_or_delay_is_refused() {
    assert_eq!(
        setting_of(RaftConfig::default().with_heartbeat(0)),
        "heartbeat"
    );
    assert_eq!(setting_of(RaftConfig::default().with_delay(0)), "delay");
}

#[test]
fn extreme_but_valid_timings_do_not_panic() {
    let c = RaftConfig::default()
        .with_election_timeout(u64::MAX - 1, u64::MAX)
        .with_heartbeat(u64::MAX / 4)
        .with_delay(u64::MAX / 4);
    let mut g = RaftGroup::new(c).expect("valid");
    assert!(g.run_until_leader(None, 5).is_err());
}

#[test]
fn default_config_is_textbook_raft_with_leadership_transfer() {
    let c = RaftConfig::default();
    assert_eq!(
        (
            c.pre_vote,
            c.check_quorum,
            c.leadership_transfer,
            c.snapshot_threshold
        ),
        (false, false, true, None)
    );
    let all = c.with_all_features(16);
    assert_eq!(
        (
            all.pre_vote,
            all.check_quorum,
            all.leadership_transfer,
            all.snapshot_threshold
        ),
        (true, true, true, Some(16))
    );
    assert!(RaftGroup::new(all).is_ok());
}

#[test]
fn zero_snapshot_threshold_is_refused() {
    assert_eq!(
        setting_of(RaftConfig::default().with_snapshot_threshold(0)),
        "snapshot_threshold"
    );
}
