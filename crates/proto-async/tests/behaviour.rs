//! Streaming, levels and resynchronisation (SPEC §4, issue 4).

use proto_async::{AsyncConfig, AsyncPrimaryGroup, CatchUpMode};
use replication::{AckLevel, Bytes, GroupError, ReadLevel, ReplicationGroup};
use sim_core::Value;

mod common;
use common::{group, id, local, write};

#[test]
fn leader_write_is_acknowledged_while_the_replica_lacks_it_and_the_replica_converges_after_delivery()
 {
    let mut g = group();
    let offset = write(&mut g, "k", "v");
    assert_eq!(offset, 1);
    assert_eq!(local(&mut g, "replica-1", "k"), None);
    assert_eq!(local(&mut g, "replica-2", "k"), None);
    assert_eq!(g.probe().node(&id("replica-1")).map(|n| n.offset), Some(0));
    g.run_until_idle(10).unwrap();
    for replica in ["replica-1", "replica-2"] {
        assert_eq!(local(&mut g, replica, "k"), Some(Bytes::from("v")));
        let probe = g.probe();
        let node = probe.node(&id(replica)).unwrap();
        assert_eq!(
            (node.offset, node.catch_up_mode),
            (1, CatchUpMode::Streaming)
        );
    }
    assert!(g.summary().alive_nodes_agree());
}

#[test]
fn none_level_is_acknowledged_like_leader() {
    let mut g = group();
    let ack = g
        .client_write(Bytes::from("k"), Bytes::from("v"), AckLevel::None)
        .unwrap();
    assert!(ack.accepted);
    assert_eq!(ack.offset, Some(1));
}

#[test]
fn quorum_and_all_isr_writes_are_unsupported_and_change_nothing() {
    let mut g = group();
    for level in [AckLevel::Quorum, AckLevel::AllIsr] {
        let before = (g.probe(), g.trace().len());
        let err = g
            .client_write(Bytes::from("k"), Bytes::from("v"), level)
            .unwrap_err();
        assert_eq!(
            err,
            GroupError::UnsupportedAck {
                protocol: "async",
                level
            }
        );
        assert_eq!((g.probe(), g.trace().len()), before);
    }
}

#[test]
fn linearizable_read_is_unsupported_not_blocked() {
    let mut g = group();
    for node in [None, Some(id("primary")), Some(id("replica-1"))] {
        let err = g
            .client_read(b"k", ReadLevel::Linearizable, node.as_ref())
            .unwrap_err();
        assert_eq!(
            err,
            GroupError::UnsupportedRead {
                protocol: "async",
                level: ReadLevel::Linearizable
            }
        );
    }
}

#[test]
fn leader_read_is_served_by_the_current_primary_even_when_a_node_is_named() {
    let mut g = group();
    write(&mut g, "k", "v");
    let read = g
        .client_read(b"k", ReadLevel::Leader, Some(&id("replica-1")))
        .unwrap();
    assert_eq!(
        (read.node, read.value, read.offset),
        (id("primary"), Some(Bytes::from("v")), 1)
    );
}

#[test]
fn restart_inside_the_backlog_is_a_partial_resync() {
    let mut g = group();
    write(&mut g, "a", "1");
    g.run_until_idle(10).unwrap();
    g.crash(&id("replica-1"), false).unwrap();
    write(&mut g, "b", "2");
    write(&mut g, "c", "3");
    g.restart(&id("replica-1")).unwrap();
    g.run_until_idle(10).unwrap();
    let probe = g.probe();
    let node = probe.node(&id("replica-1")).unwrap();
    assert_eq!((node.offset, node.catch_up_mode), (3, CatchUpMode::Partial));
    assert_eq!(node.data, probe.node(&id("primary")).unwrap().data);
    assert_eq!(g.trace().count("async_full_sync_applied"), 0);
}

#[test]
fn restart_outside_the_backlog_is_a_full_resync() {
    let mut g = AsyncPrimaryGroup::new(AsyncConfig::default().with_backlog_size(3)).unwrap();
    write(&mut g, "a", "1");
    g.run_until_idle(10).unwrap();
    g.crash(&id("replica-1"), false).unwrap();
    for i in 0..4 {
        write(&mut g, "b", &i.to_string());
    }
    assert_eq!(g.probe().backlog_offsets, vec![3, 4, 5]);
    g.restart(&id("replica-1")).unwrap();
    g.run_until_idle(10).unwrap();
    let probe = g.probe();
    let node = probe.node(&id("replica-1")).unwrap();
    assert_eq!((node.offset, node.catch_up_mode), (5, CatchUpMode::Full));
    assert_eq!(node.data, probe.node(&id("primary")).unwrap().data);
}

#[test]
fn a_level_replica_restart_is_a_partial_resync_with_no_entries() {
    let mut g = group();
    write(&mut g, "a", "1");
    g.run_until_idle(10).unwrap();
    g.crash(&id("replica-2"), false).unwrap();
    g.restart(&id("replica-2")).unwrap();
    g.run_until_idle(10).unwrap();
    let probe = g.probe();
    assert_eq!(
        probe.node(&id("replica-2")).unwrap().catch_up_mode,
        CatchUpMode::Partial
    );
}

#[test]
fn a_gap_in_the_stream_is_detected_and_never_applied_out_of_order() {
    let mut g = AsyncPrimaryGroup::new(AsyncConfig::default().with_replication_delay(2)).unwrap();
    write(&mut g, "a", "1");
    g.tick(); // entry 1 is on the wire
    g.isolate(&id("replica-1")).unwrap();
    g.tick(); // entry 1 to replica-1 is dropped at delivery
    g.heal(&id("replica-1")).unwrap(); // nothing buffered: replica-1 sends PSYNC
    write(&mut g, "b", "2"); // entry 2 arrives before the PSYNC answer
    g.run_until_idle(10).unwrap();
    let gap = g
        .trace()
        .of_kind("async_gap_detected")
        .next()
        .expect("a gap is detected");
    assert_eq!(gap.field("expected"), Some(Value::UInt(1)));
    assert_eq!(gap.field("got"), Some(Value::UInt(2)));
    let probe = g.probe();
    let node = probe.node(&id("replica-1")).unwrap();
    assert_eq!((node.offset, node.catch_up_mode), (2, CatchUpMode::Partial));
    assert!(g.summary().alive_nodes_agree());
}

#[test]
fn an_isolated_replica_catches_up_from_the_primary_output_buffer_on_heal() {
    let mut g = group();
    g.isolate(&id("replica-2")).unwrap();
    write(&mut g, "a", "1");
    write(&mut g, "b", "2");
    g.run_until_idle(10).unwrap();
    assert_eq!(local(&mut g, "replica-2", "a"), None);
    g.heal(&id("replica-2")).unwrap();
    g.run_until_idle(10).unwrap();
    assert_eq!(g.trace().count("async_stream_flushed"), 1);
    assert!(g.summary().alive_nodes_agree());
}

#[test]
fn trace_off_changes_no_behaviour() {
    let script = |g: &mut AsyncPrimaryGroup| {
        write(g, "a", "1");
        g.isolate(&id("primary")).unwrap();
        g.promote(&id("replica-1")).unwrap();
        write(g, "a", "2");
        g.tick();
        g.heal(&id("primary")).unwrap();
        g.run_until_idle(20).unwrap();
        g.probe()
    };
    let mut on = group();
    let mut off = group();
    off.trace_mut().set_enabled(false);
    assert_eq!(script(&mut on), script(&mut off));
    assert_eq!(
        off.trace().len(),
        1,
        "only the construction event, recorded before the switch"
    );
}

#[test]
fn probe_lists_nodes_in_configuration_order_and_a_leader_only_while_the_primary_is_alive() {
    let config = AsyncConfig::new(id("zeta"), [id("beta"), id("alpha")])
        .with_backlog_size(2)
        .with_replication_delay(3)
        .with_seed(9);
    assert_eq!(
        (config.backlog_size, config.replication_delay, config.seed),
        (2, 3, 9)
    );
    let mut g = AsyncPrimaryGroup::new(config).unwrap();
    let probe = g.probe();
    let order: Vec<&str> = probe.nodes.iter().map(|n| n.id.as_str()).collect();
    assert_eq!(order, ["zeta", "beta", "alpha"]);
    assert_eq!(probe.leader, Some(id("zeta")));
    assert_eq!(
        probe.node(&id("alpha")).map(|n| n.role.name()),
        Some("replica")
    );
    g.crash(&id("zeta"), false).unwrap();
    let probe = g.probe();
    assert_eq!((probe.leader, probe.primary), (None, id("zeta")));
}
