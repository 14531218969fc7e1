//! The fetch mode and the Kafka ladder (`proto_isr::fetch`): each rung's
//! historical counterexample, run on every rung, and the regressions the
//! explorer found in this implementation, each from its shrunk schedule.

use proto_isr::fetch::{FetchGroup, Rung};
use proto_isr::{IsrConfig, IsrGroup, IsrMode};
use replication::{
    AckLevel, Bytes, ClientOp, GroupError, NodeId, ReadLevel, Registration, ReplicationGroup,
};

fn n(name: &str) -> NodeId {
    NodeId::new(name)
}

fn b(text: &str) -> Bytes {
    Bytes::copy_from_slice(text.as_bytes())
}

fn group(rung: Rung) -> FetchGroup {
    FetchGroup::new(IsrConfig::default().with_mode(IsrMode::Fetch(rung))).expect("valid config")
}

fn flushing(rung: Rung, delay: u64) -> FetchGroup {
    let config = IsrConfig::default()
        .with_mode(IsrMode::Fetch(rung))
        .with_flush_messages(1)
        .with_delay(delay);
    FetchGroup::new(config).expect("valid config")
}

fn acked(g: &mut FetchGroup, key: &str, value: &str) {
    let w = g.client_write(b(key), b(value), AckLevel::AllIsr).unwrap();
    assert!(w.accepted, "{w:?}");
}

/// The committed value of `key` once the partition is idle.
fn final_read(g: &mut FetchGroup, key: &str) -> Option<Bytes> {
    g.run_until_idle(200).unwrap();
    g.client_read(key.as_bytes(), ReadLevel::Linearizable, None)
        .unwrap()
        .value
}

/// Heals and restarts everything, as the explorer does before its final
/// reads.
fn heal_everything(g: &mut FetchGroup) {
    for id in g.node_ids() {
        g.heal(&id).unwrap();
    }
    for id in g.node_ids() {
        let _ = g.restart(&id);
    }
}

/// KIP-101's first scenario: the follower restarts before it learns that
/// HW covers m2, the leader fails, the follower is elected.
fn kip101_scenario_1(rung: Rung) -> Option<Bytes> {
    let mut g = group(rung);
    acked(&mut g, "a", "m1");
    acked(&mut g, "b", "m2");
    let follower = g.replica(&n("node-2")).unwrap();
    assert_eq!((follower.log_end(), follower.high_watermark()), (2, 1));
    g.crash(&n("node-2"), false).unwrap();
    g.restart(&n("node-2")).unwrap();
    g.crash(&n("node-1"), false).unwrap();
    assert_eq!(g.leader(), Some(n("node-2")));
    final_read(&mut g, "b")
}

#[test]
fn kip101_scenario_1_loses_an_acks_all_record_on_the_hw_rung_only() {
    assert_eq!(kip101_scenario_1(Rung::Hw), None);
    for rung in [Rung::Kip101, Rung::Kip279, Rung::Kip320, Rung::Elr] {
        assert_eq!(kip101_scenario_1(rung), Some(b("m2")), "{rung}");
    }
}

#[test]
fn the_hw_rungs_restart_truncation_breaks_strong_isr_as_it_happens() {
    let mut g = group(Rung::Hw);
    acked(&mut g, "a", "m1");
    acked(&mut g, "b", "m2");
    g.crash(&n("node-2"), false).unwrap();
    g.restart(&n("node-2")).unwrap();
    let err = g.check_invariants().unwrap_err();
    assert!(
        err.contains("truncated to 1, below the leader node-1's HW 2"),
        "{err}"
    );
}

/// KIP-966's last replica standing: the ISR shrinks to the leader, which
/// loses its unflushed log in a power loss and is elected again.
fn last_replica_standing(rung: Rung) -> Option<Bytes> {
    let mut g = group(rung);
    acked(&mut g, "a", "m1");
    g.set_slow(&n("node-2"), true).unwrap();
    g.set_slow(&n("node-3"), true).unwrap();
    for _ in 0..6 {
        g.tick();
    }
    assert_eq!(g.controller().isr(), &[0]);
    g.crash(&n("node-1"), true).unwrap();
    g.restart(&n("node-1")).unwrap();
    g.set_slow(&n("node-2"), false).unwrap();
    g.set_slow(&n("node-3"), false).unwrap();
    final_read(&mut g, "a")
}

#[test]
fn the_last_replica_standing_loses_a_committed_record_below_the_elr_rung() {
    for rung in [Rung::Hw, Rung::Kip101, Rung::Kip279, Rung::Kip320] {
        assert_eq!(last_replica_standing(rung), None, "{rung}");
    }
    assert_eq!(last_replica_standing(Rung::Elr), Some(b("m1")));
}

#[test]
fn with_a_flush_per_record_a_power_loss_loses_nothing_on_any_rung() {
    for rung in Rung::ALL {
        let config = IsrConfig::default()
            .with_mode(IsrMode::Fetch(rung))
            .with_flush_messages(1);
        let mut g = FetchGroup::new(config).unwrap();
        acked(&mut g, "a", "m1");
        g.set_slow(&n("node-2"), true).unwrap();
        g.set_slow(&n("node-3"), true).unwrap();
        for _ in 0..6 {
            g.tick();
        }
        g.crash(&n("node-1"), true).unwrap();
        g.restart(&n("node-1")).unwrap();
        g.set_slow(&n("node-2"), false).unwrap();
        g.set_slow(&n("node-3"), false).unwrap();
        assert_eq!(final_read(&mut g, "a"), Some(b("m1")), "{rung}");
        assert!(g.check_invariants().is_ok(), "{rung}");
    }
}

/// Three controller elections before a tick passes (the explorer's
/// schedule isr.all_isr.linearizable.fetch_kip320-s138, shrunk to five
/// steps): node-1 holds an epoch-1 record, node-2 an epoch-2 one at the
/// same offset; node-1 leads epoch 3 without appending, node-2 epoch 4.
/// From KIP-279 on node-1 cached epoch 3 at its election, so it asks about
/// epoch 3, which node-2 never had: node-2 answers "epoch 2 ends at 1".
/// node-1 has no epoch 2 either and must ask again about epoch 1 — the
/// explorer found this implementation truncating to its own log end
/// instead and keeping the divergent record.
#[test]
fn back_to_back_failovers_leave_no_divergent_record_on_any_rung() {
    for rung in Rung::ALL {
        let mut g = flushing(rung, 1);
        g.submit(ClientOp::write("k1", "v94", AckLevel::AllIsr))
            .unwrap();
        assert_eq!(g.failover(None).unwrap(), n("node-2"));
        g.submit(ClientOp::write("k1", "v102", AckLevel::AllIsr))
            .unwrap();
        assert_eq!(g.failover(None).unwrap(), n("node-1"));
        assert_eq!(g.failover(None).unwrap(), n("node-2"));
        g.run_until_idle(200).unwrap();
        assert_eq!(g.check_invariants(), Ok(()), "{rung}");
        let logs: Vec<_> = g.replicas().iter().map(|r| r.log().to_vec()).collect();
        assert!(logs.iter().all(|l| *l == logs[0]), "{rung}: {logs:?}");
    }
}

/// The explorer's schedule isr.all_isr.linearizable.fetch_kip320-s627
/// (eight steps): two crashed leaders in a row leave node-3
/// with an epoch-4 record where the leader node-1 has an epoch-1 one. The
/// second epoch query (about epoch 1) must truncate to node-3's own end of
/// epoch 1, not to its log end.
#[test]
fn a_repeated_epoch_query_truncates_to_the_followers_own_end_of_that_epoch() {
    let mut g = flushing(Rung::Kip320, 1);
    g.submit(ClientOp::write("k2", "v18", AckLevel::AllIsr))
        .unwrap();
    for _ in 0..4 {
        g.tick();
    }
    g.submit(ClientOp::write("k1", "v24", AckLevel::AllIsr))
        .unwrap();
    assert_eq!(g.failover(None).unwrap(), n("node-2"));
    g.crash(&n("node-2"), false).unwrap();
    assert_eq!(g.failover(None).unwrap(), n("node-3"));
    g.submit(ClientOp::write("k2", "v46", AckLevel::AllIsr))
        .unwrap();
    g.crash(&n("node-3"), false).unwrap();
    heal_everything(&mut g);
    g.run_until_idle(200).unwrap();
    assert_eq!(g.check_invariants(), Ok(()));
    let logs: Vec<u64> = g.replicas().iter().map(|r| r.log_end()).collect();
    assert_eq!(logs, [2, 2, 2]);
}

/// The explorer's schedule isr.all_isr.linearizable.fetch_elr_flush_1-s139
/// (eight steps): node-2, crashed with an empty log, left an ISR of one and
/// became an Eligible Leader Replica; the ISR grew back to two and
/// committed k1; both ISR members lost power. An ELR kept past that point
/// elected node-2 and lost k1 — KIP-966 empties the ELR once the ISR is at
/// min.insync again.
#[test]
fn an_eligible_leader_replica_is_dropped_once_the_isr_is_back_at_min_insync() {
    let mut g = flushing(Rung::Elr, 1);
    g.crash(&n("node-1"), false).unwrap();
    g.restart(&n("node-1")).unwrap();
    g.crash(&n("node-2"), false).unwrap();
    for _ in 0..4 {
        g.tick();
    }
    assert_eq!(g.controller().isr(), &[0, 2]);
    assert!(g.controller().elr().is_empty(), "{:?}", g.controller());
    acked(&mut g, "k1", "v62");
    g.crash(&n("node-1"), true).unwrap();
    g.crash(&n("node-3"), true).unwrap();
    heal_everything(&mut g);
    assert_eq!(final_read(&mut g, "k1"), Some(b("v62")));
}

#[test]
fn a_fetch_setting_on_the_wrong_mode_is_an_error_naming_it() {
    let chapter = IsrGroup::new(IsrConfig::default().with_mode(IsrMode::Fetch(Rung::Hw)));
    assert!(matches!(chapter, Err(GroupError::Config { ref setting, .. }) if setting == "mode"));
    let fetch = FetchGroup::new(IsrConfig::default());
    assert!(matches!(fetch, Err(GroupError::Config { ref setting, .. }) if setting == "mode"));
    let flush = IsrGroup::new(IsrConfig::default().with_flush_messages(1));
    assert!(
        matches!(flush, Err(GroupError::Config { ref setting, .. }) if setting == "flush_messages")
    );
    let zero = FetchGroup::new(
        IsrConfig::default()
            .with_mode(IsrMode::Fetch(Rung::Elr))
            .with_flush_messages(0),
    );
    assert!(
        matches!(zero, Err(GroupError::Config { ref setting, .. }) if setting == "flush_messages")
    );
}

#[test]
fn a_write_below_min_insync_is_refused_before_append_and_changes_no_log() {
    let mut g = group(Rung::Elr);
    g.set_slow(&n("node-2"), true).unwrap();
    g.set_slow(&n("node-3"), true).unwrap();
    for _ in 0..6 {
        g.tick();
    }
    let w = g.client_write(b("k"), b("v"), AckLevel::AllIsr).unwrap();
    assert!(
        !w.accepted && w.message.contains("NOT_ENOUGH_REPLICAS"),
        "{w:?}"
    );
    assert_eq!(g.replica(&n("node-1")).unwrap().log_end(), 0);
    assert!(matches!(
        g.client_write(b("k"), b("v"), AckLevel::Quorum),
        Err(GroupError::UnsupportedAck { .. })
    ));
    assert!(matches!(
        g.set_slow(&n("node-1"), true),
        Err(GroupError::NotPermitted { .. })
    ));
}

/// The schedule an independent fuzzer found on the `elr` rung (7 steps,
/// stream transport, delays of 2–4 ticks): the leader crashes, an ALL_ISR
/// write is acknowledged by the new leader node-2 and node-3, node-3 loses
/// power and restarts in the same tick, a tick passes, node-2 crashes.
/// Returns the final linearizable read of the write's key once everything
/// is healed and restarted.
fn power_loss_then_rejoin(config: IsrConfig) -> Option<Bytes> {
    let mut g = FetchGroup::new(config).expect("valid config");
    g.set_network(sim_core::NetConfig::default().with_delay_range(2, 4))
        .unwrap();
    g.crash(&n("node-1"), false).unwrap();
    assert_eq!(g.leader(), Some(n("node-2")));
    acked(&mut g, "k0", "v");
    g.crash(&n("node-3"), true).unwrap();
    g.restart(&n("node-3")).unwrap();
    g.tick();
    g.crash(&n("node-2"), false).unwrap();
    heal_everything(&mut g);
    final_read(&mut g, "k0")
}

#[test]
fn a_broker_restarted_after_a_power_loss_does_not_rejoin_on_the_leaders_stale_view() {
    // Every fetch-mode explorer row, as the row builds it. Before KIP-903
    // the leader's record of node-3's last fetch (offset 1, from before the
    // power loss) brought it back into the ISR one tick after its restart,
    // with an empty log, and it was elected: the write was lost on every
    // rung (KAFKA-14139). From the `elr` rung on, the controller refuses an
    // ISR addition under a broker epoch older than the broker's current
    // registration. The rows that flush every record lose nothing to the
    // power loss, except on the `hw` rung, whose restart truncates to the
    // broker's own HW (KIP-101's first scenario, a row already violated);
    // the rung below `elr` without a flush keeps its hole. Every row that
    // claims durable keeps the write.
    let rows = proto_isr::IsrRegistration.explorer_rows();
    let fetch_rows: Vec<_> = rows
        .iter()
        .filter(|row| row.settings.get("mode") == Some("fetch"))
        .collect();
    assert_eq!(fetch_rows.len(), 8, "every fetch-mode row is run");
    for row in fetch_rows {
        let config = proto_isr::IsrRegistration::config(&row.settings).unwrap();
        let kept = power_loss_then_rejoin(config);
        let lost = matches!(row.setting, "fetch_hw" | "fetch_kip320_one_power_loss");
        assert_eq!(
            kept.is_none(),
            lost,
            "{}: the acknowledged write of k0 {}",
            row.setting,
            if lost {
                "survived where the rung has the hole"
            } else {
                "was lost"
            }
        );
    }
}
