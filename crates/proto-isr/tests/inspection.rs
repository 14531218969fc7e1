//! The inspection calls outside the trait — `Debug`, `config`,
//! `committed_value` — answer from the group's real state (each was
//! pinned because a mutation of it survived every other test:
//! `cargo xtask mutants --package proto-isr`).

use bytes::Bytes;
use proto_isr::{AckLevel, IsrConfig, IsrGroup, NodeId, ReplicationGroup};

fn id(name: &str) -> NodeId {
    NodeId::new(name)
}

#[test]
fn debug_output_names_the_group_and_its_leader() {
    let g = IsrGroup::new(IsrConfig::default()).expect("valid config");
    let text = format!("{g:?}");
    assert!(text.starts_with("IsrGroup"), "{text}");
    assert!(text.contains("node-1"), "the leader is named: {text}");
}

#[test]
fn config_returns_the_configuration_the_group_was_built_with() {
    let config = IsrConfig::default()
        .with_min_insync_replicas(3)
        .with_seed(42);
    let g = IsrGroup::new(config.clone()).expect("valid config");
    assert_eq!(g.config(), &config);
    assert_eq!(g.config().min_insync_replicas, 3);
}

#[test]
fn committed_value_is_a_nodes_committed_state_not_its_log_end() {
    let mut g = IsrGroup::new(IsrConfig::default()).expect("valid config");
    let leader = id("node-1");
    // LEADER: appended on the leader, above the high watermark.
    g.client_write(Bytes::from("k"), Bytes::from("v1"), AckLevel::Leader)
        .unwrap();
    assert_eq!(g.committed_value(&leader, b"k").unwrap(), None);
    g.run_until_idle(100).unwrap();
    assert_eq!(
        g.committed_value(&leader, b"k").unwrap(),
        Some(Bytes::from("v1"))
    );
    assert!(g.committed_value(&id("node-9"), b"k").is_err());
}
