//! Faults on the shared harness and what they mean for a partition: the
//! neutral fault events, crash semantics (in-flight traffic discarded at
//! the crash, a send to a down broker failing at once), the slow mark an
//! election lifts, the fenced-packet counter, and fault errors that change
//! nothing.

use proto_isr::{IsrConfig, IsrGroup};
use replication::{AckLevel, Bytes, GroupError, NodeId, ReplicationGroup};
use sim_core::Value;

fn n(name: &str) -> NodeId {
    NodeId::new(name)
}

fn b(text: &str) -> Bytes {
    Bytes::copy_from_slice(text.as_bytes())
}

fn default_group() -> IsrGroup {
    IsrGroup::new(IsrConfig::default()).expect("valid config")
}

/// The `message_dropped` reasons recorded so far, in order.
fn drop_reasons(g: &IsrGroup) -> Vec<String> {
    g.trace()
        .of_kind("message_dropped")
        .filter_map(|e| e.str_field("reason").map(str::to_owned))
        .collect()
}

#[test]
fn a_crash_discards_the_crashed_nodes_traffic_in_flight_at_once() {
    let mut g = default_group();
    g.client_write(b("k"), b("v"), AckLevel::Leader).unwrap();
    g.crash(&n("node-1"), false).unwrap();
    assert_eq!(drop_reasons(&g), ["node_crashed", "node_crashed"]);
    assert_eq!(g.trace().count("node_crashed"), 1);
    g.run_until_idle(10).unwrap();
    let p = g.probe();
    assert!(
        p.nodes
            .iter()
            .all(|n| n.id == "node-1" || n.log_end_offset == 0),
        "nothing sent before the crash arrives"
    );
}

/// A broker that is down accepts no connection: what the leader sends it
/// is dropped at the send, so its restart before the delivery tick cannot
/// resurrect the packet; it catches up instead.
#[test]
fn a_send_to_a_down_follower_fails_at_once_and_its_restart_does_not_resurrect_it() {
    let mut g = default_group();
    g.crash(&n("node-2"), false).unwrap();
    g.client_write(b("k"), b("v"), AckLevel::Leader).unwrap();
    assert_eq!(drop_reasons(&g), ["receiver_down"]);
    g.restart(&n("node-2")).unwrap();
    g.run_until_idle(10).unwrap();
    let delivered: Vec<String> = g
        .trace()
        .of_kind("message_delivered")
        .filter(|e| e.field("dst") == Some(Value::Node(n("node-2"))))
        .filter_map(|e| e.str_field("msg").map(str::to_owned))
        .collect();
    assert_eq!(delivered, ["isr_catch_up"]);
    assert_eq!(g.probe().node(&n("node-2")).unwrap().log_end_offset, 1);
}

#[test]
fn faults_are_recorded_with_the_neutral_events() {
    let mut g = default_group();
    g.set_replica_slow(&n("node-3"), true).unwrap();
    g.isolate(&n("node-2")).unwrap();
    g.cut_link(&n("node-1"), &n("node-3")).unwrap();
    g.restore_link(&n("node-1"), &n("node-3")).unwrap();
    g.heal(&n("node-2")).unwrap();
    g.crash(&n("node-2"), true).unwrap();
    g.restart(&n("node-2")).unwrap();
    let kinds: Vec<&str> = g
        .trace()
        .events()
        .map(|e| e.kind)
        .filter(|k| k.starts_with("node_") || k.starts_with("link_"))
        .collect();
    assert_eq!(
        kinds,
        [
            "node_slow",
            "node_isolated",
            "link_cut",
            "link_restored",
            "node_healed",
            "node_crashed",
            "node_restarted"
        ]
    );
    assert!(g.trace().events().all(|e| !e.kind.starts_with("isr_node")
        && !e.kind.starts_with("isr_link")
        && e.kind != "isr_replica_slow"));
}

/// Electing a replica that is marked slow lifts the mark (a leader is never
/// slow) without a `node_slow` event: the election is the event.
#[test]
fn an_elected_slow_replica_is_no_longer_slow_and_no_node_slow_is_recorded() {
    let mut g = default_group();
    g.set_replica_slow(&n("node-2"), true).unwrap();
    g.controller_elect(&n("node-2")).unwrap();
    let p = g.probe();
    assert!(!p.node(&n("node-2")).unwrap().slow);
    assert_eq!(
        g.trace().count("node_slow"),
        1,
        "only the fault call records"
    );
    // Displaced, node-1 is an ordinary follower again: it gets the stream.
    g.client_write(b("k"), b("v"), AckLevel::AllIsr).unwrap();
    assert_eq!(g.trace().count("isr_replication_delayed"), 0);
}

#[test]
fn the_fenced_packet_counter_matches_the_fencing_rejections_in_the_trace() {
    let mut g = default_group();
    g.client_write(b("k"), b("base"), AckLevel::AllIsr).unwrap();
    g.isolate(&n("node-1")).unwrap();
    g.controller_elect(&n("node-2")).unwrap();
    g.write_at(&n("node-1"), b("k"), b("old"), AckLevel::Leader)
        .unwrap();
    g.heal(&n("node-1")).unwrap();
    g.run_until_idle(100).unwrap();
    let fenced_in_trace = g
        .trace()
        .of_kind("isr_append_rejected")
        .filter(|e| {
            matches!(
                e.str_field("reason"),
                Some("stale_leader_epoch" | "non_current_leader")
            )
        })
        .count() as u64;
    let p = g.probe();
    let counted: u64 = p.nodes.iter().map(|n| n.fenced_packets).sum();
    assert!(fenced_in_trace > 0);
    assert_eq!(counted, fenced_in_trace);
    assert_eq!(p.node(&n("node-1")).unwrap().fenced_packets, 0);
}

/// Every refused fault or operator call leaves the partition and the trace
/// as they were, and lets no time pass.
#[test]
fn a_refused_fault_changes_nothing() {
    let mut g = default_group();
    g.client_write(b("k"), b("v"), AckLevel::AllIsr).unwrap();
    g.crash(&n("node-3"), false).unwrap();
    let (before, events) = (g.probe(), g.trace().len());
    assert!(matches!(
        g.set_replica_slow(&n("node-1"), true),
        Err(GroupError::NotPermitted { .. })
    ));
    assert!(matches!(
        g.set_slow(&n("ghost"), true),
        Err(GroupError::UnknownNode(_))
    ));
    assert_eq!(
        g.crash(&n("node-3"), true),
        Err(GroupError::NodeDown(n("node-3")))
    );
    assert_eq!(
        g.restart(&n("node-2")),
        Err(GroupError::AlreadyRunning(n("node-2")))
    );
    assert!(matches!(
        g.controller_elect(&n("node-1")),
        Err(GroupError::NotPermitted { .. })
    ));
    assert_eq!(
        g.controller_elect(&n("node-3")),
        Err(GroupError::NodeDown(n("node-3")))
    );
    assert!(matches!(
        g.cut_link(&n("node-1"), &n("ghost")),
        Err(GroupError::UnknownNode(_))
    ));
    assert_eq!(g.probe(), before);
    assert_eq!(g.trace().len(), events);
}

/// Regression from the explorer (seed 30514, shrunk to 7 steps): the
/// leader, cut off, loses power and restarts while the controller elects
/// another replica. It used to come back believing it still led epoch 1
/// and append a new write at offset 1 — where the committed epoch-1 entry
/// had been — so after the heal its log and the new leader's agreed on
/// (offset 1, epoch 1) but held different records below the high
/// watermark. A restarted broker leads nothing until the controller tells
/// it.
#[test]
fn a_leader_restarted_after_a_power_loss_while_cut_off_leads_nothing_until_told() {
    let mut g = default_group();
    let leader = n("node-1");
    assert!(
        g.client_write(b("k0"), b("v4"), AckLevel::AllIsr)
            .unwrap()
            .accepted
    );
    g.isolate(&leader).unwrap();
    g.crash(&leader, true).unwrap();
    g.failover(None).unwrap();
    g.restart(&leader).unwrap();
    let refused = g
        .write_at(&leader, b("k0"), b("v67"), AckLevel::AllIsr)
        .expect_err("a restarted replica that has not heard from the controller leads nothing");
    assert!(
        refused
            .to_string()
            .contains("not (yet) given the leadership back"),
        "{refused}"
    );
    g.heal(&leader).unwrap();
    g.run_until_idle(50).unwrap();
    g.check_invariants()
        .expect("logs agree below the high watermark");
    assert_eq!(
        g.probe().nodes[0].committed_data.get(&b("k0")).cloned(),
        Some(b("v4"))
    );
}
