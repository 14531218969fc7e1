//! One test per behaviour of SPEC §6 / chapter 10, through the public API.

use proto_isr::{CatchUpMode, IsrConfig, IsrGroup, IsrProbe, Role};
use replication::{AckLevel, Bytes, GroupError, NodeId, ReadLevel, ReplicationGroup};

fn n(name: &str) -> NodeId {
    NodeId::new(name)
}

fn b(text: &str) -> Bytes {
    Bytes::copy_from_slice(text.as_bytes())
}

fn group(config: IsrConfig) -> IsrGroup {
    IsrGroup::new(config).expect("valid config")
}

fn default_group() -> IsrGroup {
    group(IsrConfig::default())
}

fn node<'a>(p: &'a IsrProbe, name: &str) -> &'a proto_isr::NodeProbe {
    p.node(&n(name)).expect("node exists")
}

fn guard_of(err: &GroupError) -> &'static str {
    match err {
        GroupError::ReadBlocked { guard, .. } => guard,
        other => panic!("expected ReadBlocked, got {other:?}"),
    }
}

#[test]
fn chapter_hands_on_all_isr_write_is_refused_before_append_when_isr_below_min() {
    let mut g = group(
        IsrConfig::default()
            .with_replica_lag_timeout(1)
            .with_min_insync_replicas(2),
    );
    let leader = g.probe().controller_leader;
    for f in g.node_ids().into_iter().filter(|x| x != &leader) {
        g.set_replica_slow(&f, true).unwrap();
    }
    g.tick();
    g.tick();
    let before = node(&g.probe(), "node-1").log_end_offset;
    let result = g.client_write(b("k"), b("v"), AckLevel::AllIsr).unwrap();
    assert!(!result.accepted);
    assert_eq!(result.offset, None);
    assert!(result.message.contains("min.insync"), "{}", result.message);
    assert_eq!(node(&g.probe(), "node-1").log_end_offset, before);
}

#[test]
fn isr_may_shrink_below_min_insync_while_leader_writes_still_work() {
    let mut g = group(IsrConfig::default().with_replica_lag_timeout(1));
    g.set_replica_slow(&n("node-2"), true).unwrap();
    g.set_replica_slow(&n("node-3"), true).unwrap();
    g.tick();
    assert_eq!(g.probe().isr, vec![n("node-1")]);
    let w = g.client_write(b("k"), b("v"), AckLevel::Leader).unwrap();
    assert!(w.accepted);
    assert_eq!(w.offset, Some(1));
    g.tick();
    // HW is the minimum over the (shrunken) ISR: the leader alone.
    assert_eq!(g.probe().high_watermark, 1);
    let refused = g.client_write(b("k"), b("w"), AckLevel::AllIsr).unwrap();
    assert!(!refused.accepted);
}

#[test]
fn slow_follower_rejoins_only_after_catching_up() {
    let mut g = group(IsrConfig::default().with_replica_lag_timeout(2));
    g.set_replica_slow(&n("node-2"), true).unwrap();
    for i in 0..3 {
        assert!(
            g.client_write(b(&format!("k{i}")), b("x"), AckLevel::AllIsr)
                .unwrap()
                .accepted
        );
    }
    for _ in 0..5 {
        g.tick();
        assert!(!g.probe().in_isr(&n("node-2")), "slow node stays out");
    }
    g.set_replica_slow(&n("node-2"), false).unwrap();
    // Catch-up is in flight: not a member until the entries arrive.
    assert!(!g.probe().in_isr(&n("node-2")));
    g.tick();
    let p = g.probe();
    assert!(p.in_isr(&n("node-2")));
    assert_eq!(node(&p, "node-2").log_end_offset, 3);
    assert_eq!(node(&p, "node-2").catch_up_mode, CatchUpMode::Incremental);
    g.check_invariants().unwrap();
}

#[test]
fn follower_cut_off_from_the_leader_cannot_rejoin_even_when_level() {
    let mut g = group(IsrConfig::default().with_replica_lag_timeout(1));
    g.isolate(&n("node-3")).unwrap();
    for _ in 0..4 {
        g.tick();
    }
    let p = g.probe();
    // Same log end (0) as the leader, but unreachable: not in sync.
    assert_eq!(
        node(&p, "node-3").log_end_offset,
        node(&p, "node-1").log_end_offset
    );
    assert!(!p.in_isr(&n("node-3")));
    g.heal(&n("node-3")).unwrap();
    g.run_until_idle(100).unwrap();
    assert!(g.probe().in_isr(&n("node-3")));
}

#[test]
fn queued_old_epoch_append_is_rejected_after_an_election_and_does_not_touch_state() {
    let mut g = default_group();
    assert!(
        g.client_write(b("k"), b("v"), AckLevel::Leader)
            .unwrap()
            .accepted
    );
    // The appends to node-2 and node-3 are still queued.
    assert_eq!(g.controller_elect(&n("node-2")).unwrap(), 2);
    g.tick();
    let rejected: Vec<String> = g
        .trace()
        .of_kind("isr_append_rejected")
        .map(|e| format!("{e}"))
        .collect();
    assert_eq!(rejected.len(), 2, "{rejected:?}");
    assert!(rejected.iter().all(|e| e.contains("stale_leader_epoch")));
    let p = g.probe();
    assert_eq!(node(&p, "node-3").log_end_offset, 0);
    assert_eq!(node(&p, "node-2").log_end_offset, 0);
    assert!(node(&p, "node-3").data.is_empty());
    // The old leader's unacknowledged entry was truncated by divergence repair.
    g.run_until_idle(100).unwrap();
    assert_eq!(node(&g.probe(), "node-1").log_end_offset, 0);
    g.check_invariants().unwrap();
}

#[test]
fn committed_entry_of_an_older_epoch_is_replayed_by_the_new_leader() {
    let mut g = group(IsrConfig::default().with_replica_lag_timeout(1));
    g.set_replica_slow(&n("node-3"), true).unwrap();
    assert!(
        g.client_write(b("k"), b("v"), AckLevel::AllIsr)
            .unwrap()
            .accepted
    );
    g.controller_elect(&n("node-2")).unwrap();
    g.set_replica_slow(&n("node-3"), false).unwrap();
    g.run_until_idle(100).unwrap();
    let p = g.probe();
    let n3 = node(&p, "node-3");
    assert_eq!(n3.log.len(), 1);
    assert_eq!(n3.log[0].epoch, 1, "entry epoch keeps its origin");
    assert_eq!(p.leader_epoch, 2);
    assert_eq!(n3.committed_data.get(&b("k")), Some(&b("v")));
    assert!(p.in_isr(&n("node-3")));
}

#[test]
fn clean_election_bumps_both_epochs_truncates_to_hw_and_drops_the_old_leader_from_isr() {
    let mut g = group(IsrConfig::default().with_replica_lag_timeout(10));
    assert!(
        g.client_write(b("a"), b("1"), AckLevel::AllIsr)
            .unwrap()
            .accepted
    );
    g.set_replica_slow(&n("node-3"), true).unwrap();
    g.client_write(b("b"), b("2"), AckLevel::Leader).unwrap();
    g.tick();
    let p0 = g.probe();
    // node-2 holds offset 2, but node-3 (still in the ISR) holds HW back.
    assert_eq!(p0.high_watermark, 1);
    assert_eq!(node(&p0, "node-2").log_end_offset, 2);
    assert!(p0.in_isr(&n("node-3")));
    assert_eq!(g.failover(None).unwrap(), n("node-2"));
    let p = g.probe();
    assert_eq!(
        (p.leader_epoch, p.controller_epoch),
        (p0.leader_epoch + 1, p0.controller_epoch + 1)
    );
    assert_eq!(p.leader, Some(n("node-2")));
    assert!(!p.in_isr(&n("node-1")));
    assert_eq!(node(&p, "node-2").log_end_offset, 1, "truncated to HW");
    assert_eq!(
        node(&p, "node-2").data.get(&b("b")),
        None,
        "data rebuilt from the prefix"
    );
    assert!(p.lease_expiry > p.tick);
    assert_eq!(p.retained_offsets, vec![1]);
    assert!(g.trace().to_text().contains("reason=\"clean_election\""));
    g.check_invariants().unwrap();
}

#[test]
fn leader_write_acknowledged_then_leader_crash_is_lost_but_all_isr_survives() {
    for (level, survives) in [(AckLevel::Leader, false), (AckLevel::AllIsr, true)] {
        let mut g = default_group();
        assert!(g.client_write(b("k"), b("v"), level).unwrap().accepted);
        g.crash(&n("node-1"), false).unwrap();
        g.failover(None).unwrap();
        g.run_until_idle(100).unwrap();
        let read = g.client_read(b"k", ReadLevel::Leader, None).unwrap();
        assert_eq!(read.value.is_some(), survives, "{level}");
    }
}

#[test]
fn displaced_leaders_divergent_suffix_is_repaired_after_heal() {
    let mut g = default_group();
    g.client_write(b("k"), b("base"), AckLevel::AllIsr).unwrap();
    g.isolate(&n("node-1")).unwrap();
    g.controller_elect(&n("node-2")).unwrap();
    // Same offset (2), different epochs.
    g.write_at(&n("node-1"), b("k"), b("old"), AckLevel::Leader)
        .unwrap();
    g.client_write(b("k"), b("new"), AckLevel::AllIsr).unwrap();
    g.heal(&n("node-1")).unwrap();
    g.run_until_idle(100).unwrap();
    let p = g.probe();
    assert_eq!(node(&p, "node-1").log, node(&p, "node-2").log);
    assert_eq!(node(&p, "node-1").role, Role::Follower);
    assert_eq!(
        node(&p, "node-1").committed_data.get(&b("k")),
        Some(&b("new"))
    );
    assert!(g.trace().count("isr_append_rejected") > 0);
    g.check_invariants().unwrap();
}

#[test]
fn reconnect_inside_retention_is_incremental_and_outside_is_full() {
    let mut g = default_group();
    let f = n("node-3");
    g.crash(&f, false).unwrap();
    for i in 0..2 {
        g.client_write(b(&format!("k{i}")), b("x"), AckLevel::AllIsr)
            .unwrap();
    }
    g.restart(&f).unwrap();
    g.run_until_idle(100).unwrap();
    assert_eq!(
        node(&g.probe(), "node-3").catch_up_mode,
        CatchUpMode::Incremental
    );
    g.crash(&f, false).unwrap();
    for i in 0..10 {
        g.client_write(b(&format!("k{i}")), b("y"), AckLevel::AllIsr)
            .unwrap();
    }
    g.restart(&f).unwrap();
    g.run_until_idle(100).unwrap();
    let p = g.probe();
    assert_eq!(node(&p, "node-3").catch_up_mode, CatchUpMode::Full);
    assert_eq!(node(&p, "node-3").log, node(&p, "node-1").log);
    assert!(p.in_isr(&f));
    assert!(g.trace().to_text().contains("mode=\"full\""));
}

#[test]
fn local_read_is_stale_while_linearizable_returns_committed_data() {
    let mut g = default_group();
    g.client_write(b("k"), b("v1"), AckLevel::AllIsr).unwrap();
    g.run_until_idle(100).unwrap();
    g.set_replica_slow(&n("node-3"), true).unwrap();
    g.client_write(b("k"), b("v2"), AckLevel::AllIsr).unwrap();
    let local = g
        .client_read(b"k", ReadLevel::Local, Some(&n("node-3")))
        .unwrap();
    assert_eq!(local.value, Some(b("v1")));
    let lin = g.client_read(b"k", ReadLevel::Linearizable, None).unwrap();
    assert_eq!(lin.value, Some(b("v2")));
}

#[test]
fn linearizable_is_blocked_when_the_leader_has_an_entry_above_hw() {
    let mut g = default_group();
    g.client_write(b("k"), b("v"), AckLevel::Leader).unwrap();
    let err = g
        .client_read(b"k", ReadLevel::Linearizable, None)
        .unwrap_err();
    assert_eq!(guard_of(&err), "above high watermark");
    // LEADER read still sees it.
    assert_eq!(
        g.client_read(b"k", ReadLevel::Leader, None).unwrap().value,
        Some(b("v"))
    );
}

#[test]
fn linearizable_is_blocked_when_the_lease_has_expired() {
    let mut g = group(
        IsrConfig::default()
            .with_lease_duration(1)
            .with_replica_lag_timeout(50),
    );
    g.isolate(&n("node-2")).unwrap();
    g.isolate(&n("node-3")).unwrap();
    g.tick();
    g.tick();
    assert_eq!(
        g.probe().isr.len(),
        3,
        "still in ISR: lag timeout not reached"
    );
    let err = g
        .client_read(b"k", ReadLevel::Linearizable, None)
        .unwrap_err();
    assert_eq!(guard_of(&err), "lease expired");
}

#[test]
fn linearizable_is_blocked_when_isr_is_below_min_insync() {
    let mut g = group(IsrConfig::default().with_replica_lag_timeout(1));
    g.crash(&n("node-2"), false).unwrap();
    g.crash(&n("node-3"), false).unwrap();
    let err = g
        .client_read(b"k", ReadLevel::Linearizable, None)
        .unwrap_err();
    assert_eq!(guard_of(&err), "isr below min.insync");
}

#[test]
fn lease_read_on_a_displaced_leader_fails_closed() {
    let mut g = default_group();
    g.client_write(b("k"), b("v"), AckLevel::AllIsr).unwrap();
    g.isolate(&n("node-1")).unwrap();
    g.controller_elect(&n("node-2")).unwrap();
    let err = g.lease_read(&n("node-1"), b"k").unwrap_err();
    assert_eq!(guard_of(&err), "lease fenced");
    assert_eq!(
        g.lease_read(&n("node-2"), b"k").unwrap().value,
        Some(b("v"))
    );
}

#[test]
fn unsupported_ack_levels_are_unsupported_ack_and_change_nothing() {
    let mut g = default_group();
    for level in [AckLevel::None, AckLevel::Quorum] {
        let before = g.probe();
        let err = g.client_write(b("k"), b("v"), level).unwrap_err();
        assert_eq!(
            err,
            GroupError::UnsupportedAck {
                protocol: "isr",
                level
            }
        );
        assert_eq!(g.probe(), before);
    }
}

#[test]
fn every_invalid_config_is_an_error_naming_its_setting() {
    let d = IsrConfig::default;
    let cases: Vec<(IsrConfig, &str)> = vec![
        (IsrConfig::with_nodes(vec![n("node-1")]), "nodes"),
        (
            IsrConfig::with_nodes(vec![n("node-1"), n("node-1")]),
            "nodes",
        ),
        (IsrConfig::with_nodes(vec![n("node-1"), n("")]), "nodes"),
        (d().with_leader(n("node-9")), "leader"),
        (d().with_min_insync_replicas(0), "min_insync_replicas"),
        (d().with_min_insync_replicas(4), "min_insync_replicas"),
        (d().with_replica_lag_timeout(0), "replica_lag_timeout"),
        (d().with_retention(0), "retention"),
        (d().with_delay(0), "delay"),
        (d().with_ack_timeout(0), "ack_timeout"),
        (d().with_lease_duration(0), "lease_duration"),
    ];
    for (config, setting) in cases {
        match IsrGroup::new(config) {
            Err(GroupError::Config { setting: s, .. }) => assert_eq!(s, setting),
            Err(other) => panic!("expected Config({setting}), got {other:?}"),
            Ok(_) => panic!("expected Config({setting}), got a group"),
        }
    }
}

#[test]
fn defaults_match_the_spec() {
    let c = IsrConfig::default();
    assert_eq!(c.nodes, vec![n("node-1"), n("node-2"), n("node-3")]);
    assert_eq!(c.leader, n("node-1"));
    assert_eq!(
        (
            c.min_insync_replicas,
            c.replica_lag_timeout,
            c.retention,
            c.delay,
            c.ack_timeout,
            c.lease_duration,
            c.seed
        ),
        (2, 3, 8, 1, 32, 4, 0)
    );
    let p = IsrGroup::new(c).unwrap().probe();
    assert_eq!(
        (p.leader_epoch, p.controller_epoch, p.high_watermark),
        (1, 1, 0)
    );
    assert_eq!(p.isr.len(), 3);
}

#[test]
fn every_bad_node_call_is_an_error_and_changes_nothing() {
    let mut g = default_group();
    g.client_write(b("k"), b("v"), AckLevel::AllIsr).unwrap();
    g.crash(&n("node-3"), false).unwrap();
    let ghost = n("ghost");
    let before = g.probe();
    let errors: Vec<(GroupError, GroupError)> = vec![
        (
            g.crash(&ghost, false).unwrap_err(),
            GroupError::UnknownNode(ghost.clone()),
        ),
        (
            g.restart(&ghost).unwrap_err(),
            GroupError::UnknownNode(ghost.clone()),
        ),
        (
            g.isolate(&ghost).unwrap_err(),
            GroupError::UnknownNode(ghost.clone()),
        ),
        (
            g.heal(&ghost).unwrap_err(),
            GroupError::UnknownNode(ghost.clone()),
        ),
        (
            g.fsync(&ghost).unwrap_err(),
            GroupError::UnknownNode(ghost.clone()),
        ),
        (
            g.set_replica_slow(&ghost, true).unwrap_err(),
            GroupError::UnknownNode(ghost.clone()),
        ),
        (
            g.controller_elect(&ghost).unwrap_err(),
            GroupError::UnknownNode(ghost.clone()),
        ),
        (
            g.lease_read(&ghost, b"k").unwrap_err(),
            GroupError::UnknownNode(ghost.clone()),
        ),
        (
            g.write_at(&ghost, b("k"), b("v"), AckLevel::Leader)
                .unwrap_err(),
            GroupError::UnknownNode(ghost.clone()),
        ),
        (
            g.client_read(b"k", ReadLevel::Local, Some(&ghost))
                .unwrap_err(),
            GroupError::UnknownNode(ghost.clone()),
        ),
        (
            g.crash(&n("node-3"), true).unwrap_err(),
            GroupError::NodeDown(n("node-3")),
        ),
        (
            g.fsync(&n("node-3")).unwrap_err(),
            GroupError::NodeDown(n("node-3")),
        ),
        (
            g.controller_elect(&n("node-3")).unwrap_err(),
            GroupError::NodeDown(n("node-3")),
        ),
        (
            g.client_read(b"k", ReadLevel::Local, Some(&n("node-3")))
                .unwrap_err(),
            GroupError::NodeDown(n("node-3")),
        ),
        (
            g.restart(&n("node-2")).unwrap_err(),
            GroupError::AlreadyRunning(n("node-2")),
        ),
    ];
    for (got, want) in errors {
        assert_eq!(got, want);
    }
    for err in [
        g.set_replica_slow(&n("node-1"), true).unwrap_err(),
        g.controller_elect(&n("node-1")).unwrap_err(),
        g.write_at(&n("node-2"), b("k"), b("v"), AckLevel::Leader)
            .unwrap_err(),
    ] {
        assert!(matches!(err, GroupError::NotPermitted { .. }), "{err:?}");
    }
    assert_eq!(g.probe(), before);
    // Not in the ISR: node-3 after restart, before catching up.
    g.restart(&n("node-3")).unwrap();
    let before = g.probe();
    let err = g.controller_elect(&n("node-3")).unwrap_err();
    assert!(matches!(err, GroupError::NotPermitted { .. }), "{err:?}");
    assert_eq!(g.probe(), before);
    // A crashed leader: writes and reads through it are errors.
    g.crash(&n("node-1"), false).unwrap();
    let before = g.probe();
    assert_eq!(
        g.client_write(b("k"), b("v"), AckLevel::Leader)
            .unwrap_err(),
        GroupError::NodeDown(n("node-1"))
    );
    assert_eq!(
        g.client_read(b"k", ReadLevel::Linearizable, None)
            .unwrap_err(),
        GroupError::NodeDown(n("node-1"))
    );
    assert_eq!(g.probe(), before);
    assert!(matches!(
        g.run_until_idle(0),
        Ok(_) | Err(GroupError::NotIdle { .. })
    ));
}

#[test]
fn run_until_idle_reports_exhausted_budget() {
    let mut g = default_group();
    g.client_write(b("k"), b("v"), AckLevel::Leader).unwrap();
    assert!(matches!(
        g.run_until_idle(0),
        Err(GroupError::NotIdle { ticks: 0, .. })
    ));
    assert_eq!(g.run_until_idle(10).unwrap(), 1);
}

#[test]
fn power_loss_restores_the_fsynced_log_and_the_node_catches_up() {
    let mut g = default_group();
    g.client_write(b("a"), b("1"), AckLevel::AllIsr).unwrap();
    g.fsync(&n("node-3")).unwrap();
    g.client_write(b("b"), b("2"), AckLevel::AllIsr).unwrap();
    assert_eq!(node(&g.probe(), "node-3").durable_offset, 1);
    g.crash(&n("node-3"), true).unwrap();
    let p = g.probe();
    assert_eq!(node(&p, "node-3").log_end_offset, 1);
    assert_eq!(node(&p, "node-3").data.get(&b("b")), None);
    g.restart(&n("node-3")).unwrap();
    g.run_until_idle(100).unwrap();
    let p = g.probe();
    assert_eq!(node(&p, "node-3").log_end_offset, 2);
    assert!(p.in_isr(&n("node-3")));
    g.check_invariants().unwrap();
}

#[test]
fn restarted_leader_is_re_established_in_a_new_epoch() {
    let mut g = default_group();
    g.client_write(b("a"), b("1"), AckLevel::AllIsr).unwrap();
    g.crash(&n("node-1"), false).unwrap();
    assert_eq!(g.leader(), None);
    g.restart(&n("node-1")).unwrap();
    let p = g.probe();
    assert_eq!(p.leader_epoch, 2);
    assert_eq!(g.leader(), Some(n("node-1")));
    assert!(
        g.client_write(b("b"), b("2"), AckLevel::AllIsr)
            .unwrap()
            .accepted
    );
}

fn scripted_trace(seed: u64, trace_on: bool) -> (String, IsrProbe) {
    let mut g = group(IsrConfig::default().with_seed(seed));
    g.trace_mut().set_enabled(trace_on);
    g.set_replica_slow(&n("node-2"), true).unwrap();
    for i in 0..5 {
        g.client_write(b(&format!("k{i}")), b("v"), AckLevel::AllIsr)
            .unwrap();
    }
    g.isolate(&n("node-1")).unwrap();
    g.failover(None).unwrap();
    g.set_replica_slow(&n("node-2"), false).unwrap();
    g.client_write(b("k"), b("w"), AckLevel::Leader).unwrap();
    g.heal(&n("node-1")).unwrap();
    g.run_until_idle(100).unwrap();
    (g.trace().to_text(), g.probe())
}

#[test]
fn same_seed_gives_the_identical_trace_and_trace_off_changes_nothing() {
    let (a, pa) = scripted_trace(9, true);
    let (b2, pb) = scripted_trace(9, true);
    assert_eq!(a, b2);
    assert_eq!(pa, pb);
    let (off, poff) = scripted_trace(9, false);
    // Only the construction event, recorded before recording was switched off.
    assert_eq!(off.lines().count(), 1, "{off}");
    assert!(off.contains("isr_group_started"));
    assert_eq!(poff, pa);
}

#[test]
fn extreme_settings_refuse_or_time_out_without_panicking() {
    let mut g = group(
        IsrConfig::default()
            .with_lease_duration(u64::MAX)
            .with_replica_lag_timeout(u64::MAX)
            .with_delay(1_000)
            .with_ack_timeout(3),
    );
    let w = g.client_write(b("k"), b("v"), AckLevel::AllIsr).unwrap();
    assert!(!w.accepted);
    assert_eq!(
        w.offset,
        Some(1),
        "a timed-out write was appended, as the probe shows"
    );
    assert!(w.message.contains("ack timeout"), "{}", w.message);
    assert_eq!(node(&g.probe(), "node-1").log_end_offset, 1);
    assert!(g.run_until_idle(5_000).is_ok());
    g.tick();
    assert_eq!(g.probe().high_watermark, 1);
}

/// A slow replica is sent nothing — not even the catch-up a restart would
/// start — until it is marked not slow.
#[test]
fn a_slow_replica_that_restarts_is_not_caught_up_until_it_is_no_longer_slow() {
    let mut g = default_group();
    let slow = n("node-2");
    g.set_replica_slow(&slow, true).unwrap();
    g.crash(&slow, false).unwrap();
    g.client_write(b("k"), b("v"), AckLevel::Leader).unwrap();
    g.restart(&slow).unwrap();
    for _ in 0..5 {
        g.tick();
    }
    let caught_up = |g: &IsrGroup| {
        g.trace()
            .of_kind("isr_catch_up_started")
            .any(|e| e.field("node") == Some(sim_core::Value::Node(n("node-2"))))
    };
    assert!(!caught_up(&g), "{}", g.trace().to_text());
    assert_eq!(g.probe().node(&slow).unwrap().log_end_offset, 0);
    g.set_replica_slow(&slow, false).unwrap();
    g.run_until_idle(100).unwrap();
    assert!(caught_up(&g));
    assert_eq!(g.probe().node(&slow).unwrap().log_end_offset, 1);
}
