//! One test per WAL-shipping behaviour of SPEC §5, through the public API.

mod common;

use common::{b, group_with_sync, id, lsns, records};
use proto_wal::{
    AckLevel, Bytes, CatchUpMode, GroupError, NetConfig, ReadLevel, ReplicationGroup, Role,
    WalConfig, WalRecord, WalShippingGroup,
};

#[test]
fn leader_ack_exposes_ordered_wal_bytes_on_primary_before_any_standby_applies_them() {
    let mut g = group_with_sync(&[]);
    let first = g.client_write(b("a"), b("1"), AckLevel::Leader).unwrap();
    let second = g.client_write(b("b"), b("2"), AckLevel::Leader).unwrap();
    assert!(first.accepted && second.accepted);
    assert_eq!((first.offset, second.offset), (Some(1), Some(2)));

    let mut expected = WalRecord::new(1, 1, b("a"), b("1")).encode().to_vec();
    expected.extend_from_slice(&WalRecord::new(1, 2, b("b"), b("2")).encode());
    let probe = g.probe();
    assert_eq!(&probe.node(&id("primary")).unwrap().wal[..], &expected[..]);
    assert_eq!(
        lsns(&g, "primary"),
        (2, 2, 2),
        "the primary flushed both at the ack"
    );
    for standby in ["standby-1", "standby-2"] {
        let node = probe.node(&id(standby)).unwrap();
        assert!(
            node.wal.is_empty() && node.data.is_empty(),
            "{standby} applied nothing yet"
        );
        assert_eq!(node.catch_up_mode, CatchUpMode::Never);
    }

    g.run_until_idle(50).unwrap();
    let probe = g.probe();
    for standby in ["standby-1", "standby-2"] {
        let node = probe.node(&id(standby)).unwrap();
        assert_eq!(
            &node.wal[..],
            &expected[..],
            "{standby} holds byte-identical WAL"
        );
        assert_eq!(node.applied_lsn, 2);
        assert_eq!(node.catch_up_mode, CatchUpMode::Streaming);
        assert_eq!(node.data.get(&b("b")), Some(&b("2")));
    }
}

#[test]
fn async_standby_applies_without_flushing_and_sync_standby_flushes_on_apply() {
    let mut g = group_with_sync(&["standby-1"]);
    g.client_write(b("k"), b("v"), AckLevel::Quorum).unwrap();
    g.run_until_idle(50).unwrap();
    assert_eq!(lsns(&g, "standby-1"), (1, 1, 1));
    assert_eq!(lsns(&g, "standby-2"), (1, 0, 0));
    g.fsync(&id("standby-2")).unwrap();
    assert_eq!(lsns(&g, "standby-2"), (1, 1, 1));
}

#[test]
fn quorum_waits_for_every_synchronous_standby_not_a_majority() {
    let mut g = group_with_sync(&["standby-1", "standby-2"]);
    g.isolate(&id("standby-2")).unwrap();
    let start = g.now();
    let refused = g.client_write(b("k"), b("v"), AckLevel::Quorum).unwrap();
    assert!(
        !refused.accepted,
        "primary + standby-1 is a majority, yet QUORUM refuses"
    );
    assert_eq!(
        refused.offset,
        Some(1),
        "the record stays appended, as in PostgreSQL"
    );
    assert!(refused.message.contains("standby-2"), "{}", refused.message);
    assert_eq!(g.now() - start, 32, "it waited exactly ack_timeout ticks");
    let probe = g.probe();
    assert_eq!(probe.node(&id("standby-1")).unwrap().flushed_lsn, 1);
    assert_eq!(probe.node(&id("standby-2")).unwrap().applied_lsn, 0);

    g.heal(&id("standby-2")).unwrap();
    let ok = g.client_write(b("k"), b("w"), AckLevel::Quorum).unwrap();
    assert!(ok.accepted);
    for standby in ["standby-1", "standby-2"] {
        assert!(
            lsns(&g, standby).1 >= 2,
            "{standby} flushed LSN 2 at the ack"
        );
    }
}

#[test]
fn quorum_is_refused_when_a_synchronous_standby_is_down_and_accepted_without_sync_standbys() {
    let mut g = group_with_sync(&["standby-1"]);
    g.crash(&id("standby-1"), false).unwrap();
    let refused = g.client_write(b("k"), b("v"), AckLevel::Quorum).unwrap();
    assert!(!refused.accepted);

    let mut plain = group_with_sync(&[]);
    let ack = plain
        .client_write(b("k"), b("v"), AckLevel::Quorum)
        .unwrap();
    assert!(
        ack.accepted,
        "no synchronous standby configured: the local flush commits"
    );
}

#[test]
fn none_and_all_isr_are_unsupported_and_linearizable_reads_are_unsupported() {
    let mut g = group_with_sync(&[]);
    for level in [AckLevel::None, AckLevel::AllIsr] {
        assert_eq!(
            g.client_write(b("k"), b("v"), level),
            Err(GroupError::UnsupportedAck {
                protocol: "wal",
                level
            })
        );
    }
    assert_eq!(
        g.client_read(b"k", ReadLevel::Linearizable, Some(&id("primary"))),
        Err(GroupError::UnsupportedRead {
            protocol: "wal",
            level: ReadLevel::Linearizable
        })
    );
    assert_eq!(g.probe().nodes[0].applied_lsn, 0, "nothing was appended");
}

#[test]
fn promotion_increments_the_timeline_and_a_queued_old_timeline_record_is_rejected_unapplied() {
    let mut g = group_with_sync(&[]);
    g.client_write(b("k"), b("old"), AckLevel::Leader).unwrap();
    // The record is in flight to both standbys; promote before it lands.
    g.promote(&id("standby-1")).unwrap();
    let probe = g.probe();
    assert_eq!(probe.timeline, 2);
    assert_eq!(probe.leader, Some(id("standby-1")));
    assert_eq!(probe.node(&id("standby-1")).unwrap().timeline, 2);

    g.tick();
    let text = g.trace().to_text();
    assert!(
        text.contains(
            "wal_fenced node=standby-1 src=primary msg=\"wal_record\" lsn=1 msg_timeline=1 \
             node_timeline=2 reason=\"stale_timeline\""
        ),
        "{text}"
    );
    assert_eq!(
        lsns(&g, "standby-1").0,
        0,
        "the old-timeline record was not applied"
    );

    g.run_until_idle(100).unwrap();
    let probe = g.probe();
    for node in &probe.nodes {
        assert_eq!(node.timeline, 2, "{} moved to the new timeline", node.id);
        assert_eq!(
            node.applied_lsn, 0,
            "{} converged to the new (empty) branch",
            node.id
        );
        assert!(node.data.is_empty());
    }
    assert_eq!(probe.node(&id("primary")).unwrap().role, Role::Standby);
    assert_eq!(
        probe.node(&id("primary")).unwrap().catch_up_mode,
        CatchUpMode::Full
    );
    g.check_invariants().unwrap();
}

#[test]
fn a_record_from_a_node_that_is_no_longer_primary_is_rejected_as_non_current_primary() {
    let mut g = group_with_sync(&[]);
    g.client_write(b("k"), b("v1"), AckLevel::Leader).unwrap();
    g.run_until_idle(50).unwrap();
    g.isolate(&id("primary")).unwrap();
    g.promote(&id("standby-1")).unwrap();
    g.tick(); // standby-2 hears the announcement and now follows standby-1
    g.write_at(&id("primary"), b("k"), b("split"), AckLevel::Leader)
        .unwrap();
    g.heal(&id("primary")).unwrap();
    g.run_until_idle(100).unwrap();
    let text = g.trace().to_text();
    // standby-2 follows standby-1 but is still on timeline 1: the old
    // primary's same-timeline records are fenced as coming from a node it
    // does not follow, and never applied there.
    assert!(
        text.lines()
            .any(|l| l.contains("wal_fenced node=standby-2 src=primary")
                && l.contains("reason=\"non_current_primary\"")),
        "{text}"
    );
    assert!(
        !text
            .lines()
            .any(|l| l.contains("node=standby-2") && l.contains("value=b\"split\"")),
        "standby-2 never applied the old primary's record:\n{text}"
    );
    let summary = g.summary();
    assert!(summary.alive_nodes_agree());
    for node in &summary.nodes {
        assert_eq!(
            node.data.get(&b("k")),
            Some(&b("v1")),
            "{} dropped the split-brain write",
            node.id
        );
    }
    g.check_invariants().unwrap();
}

#[test]
fn reconnect_is_incremental_inside_retention_and_full_outside_it() {
    let mut g = group_with_sync(&[]);
    let s = id("standby-1");
    g.crash(&s, false).unwrap();
    for i in 0..2 {
        g.client_write(b(&format!("k{i}")), b("v"), AckLevel::Leader)
            .unwrap();
    }
    g.restart(&s).unwrap();
    g.run_until_idle(50).unwrap();
    assert_eq!(
        g.probe().node(&s).unwrap().catch_up_mode,
        CatchUpMode::Incremental
    );
    assert_eq!(lsns(&g, "standby-1").0, 2);

    g.crash(&s, false).unwrap();
    for i in 0..10 {
        g.client_write(b(&format!("k{i}")), b("w"), AckLevel::Leader)
            .unwrap();
    }
    assert_eq!(g.probe().retained_lsns, (5..=12).collect::<Vec<_>>());
    g.restart(&s).unwrap();
    g.run_until_idle(50).unwrap();
    assert_eq!(g.probe().node(&s).unwrap().catch_up_mode, CatchUpMode::Full);
    assert_eq!(records(&g, "standby-1"), records(&g, "primary"));
    assert!(g.trace().to_text().contains("reason=\"outside_retention\""));
}

#[test]
fn reconnect_across_a_timeline_change_is_full_even_inside_retention() {
    let mut g = group_with_sync(&[]);
    g.client_write(b("k"), b("v"), AckLevel::Leader).unwrap();
    g.run_until_idle(50).unwrap();
    g.crash(&id("standby-2"), false).unwrap();
    g.promote(&id("standby-1")).unwrap();
    g.client_write(b("k"), b("w"), AckLevel::Leader).unwrap();
    g.run_until_idle(50).unwrap();
    g.restart(&id("standby-2")).unwrap();
    g.run_until_idle(50).unwrap();
    let probe = g.probe();
    let node = probe.node(&id("standby-2")).unwrap();
    assert_eq!(node.catch_up_mode, CatchUpMode::Full);
    assert_eq!(node.timeline, 2);
    assert!(g.trace().to_text().contains("reason=\"timeline_changed\""));
    assert_eq!(records(&g, "standby-2"), records(&g, "standby-1"));
}

#[test]
fn lose_unfsynced_rolls_back_only_what_an_async_standby_had_not_flushed() {
    let mut g = group_with_sync(&["standby-1"]);
    g.client_write(b("a"), b("1"), AckLevel::Quorum).unwrap();
    g.run_until_idle(50).unwrap();
    g.fsync(&id("standby-2")).unwrap();
    g.client_write(b("b"), b("2"), AckLevel::Quorum).unwrap();
    g.client_write(b("c"), b("3"), AckLevel::Quorum).unwrap();
    g.run_until_idle(50).unwrap();

    for node in ["primary", "standby-1", "standby-2"] {
        g.crash(&id(node), true).unwrap();
    }
    assert_eq!(lsns(&g, "primary").0, 3, "the primary flushes every record");
    assert_eq!(
        lsns(&g, "standby-1").0,
        3,
        "a synchronous standby flushes on apply"
    );
    assert_eq!(
        lsns(&g, "standby-2"),
        (1, 1, 1),
        "the async standby kept its fsynced prefix"
    );
    let probe = g.probe();
    let async_data = &probe.node(&id("standby-2")).unwrap().data;
    assert_eq!(async_data.len(), 1, "data rebuilt from the surviving WAL");
    assert_eq!(async_data.get(&b("a")), Some(&b("1")));
    g.check_invariants().unwrap();

    // A process crash (no power loss) keeps everything.
    for node in ["primary", "standby-1", "standby-2"] {
        g.restart(&id(node)).unwrap();
    }
    g.run_until_idle(50).unwrap();
    g.crash(&id("standby-2"), false).unwrap();
    assert_eq!(lsns(&g, "standby-2").0, 3);
}

#[test]
fn a_malformed_record_is_rejected_with_an_error_and_never_applied() {
    let mut g = group_with_sync(&[]);
    let s = id("standby-1");
    let before = g.probe();
    for garbage in [
        &b"nonsense"[..],
        &[],
        &WalRecord::new(1, 1, b("k"), b("v")).encode()[..20],
    ] {
        match g.deliver_raw(&s, garbage) {
            Err(GroupError::Malformed { node, reason }) => {
                assert_eq!(node, s);
                assert!(!reason.is_empty());
            }
            other => panic!("expected Malformed, got {other:?}"),
        }
    }
    let after = g.probe();
    assert_eq!(before.node(&s), after.node(&s), "nothing was applied");
    assert_eq!(g.trace().count("wal_record_malformed"), 3);

    // A well-formed next record handed over the same way is applied.
    let good = WalRecord::new(1, 1, b("k"), b("v")).encode();
    g.deliver_raw(&s, &good).unwrap();
    assert_eq!(lsns(&g, "standby-1").0, 1);
    // …and one of an old timeline after promotion is fenced, not applied.
    g.promote(&id("standby-2")).unwrap();
    g.run_until_idle(50).unwrap();
    let stale = WalRecord::new(1, 2, b("k"), b("x")).encode();
    g.deliver_raw(&s, &stale).unwrap();
    assert!(g.trace().to_text().contains("reason=\"stale_timeline\""));
    assert_ne!(g.probe().node(&s).unwrap().data.get(&b("k")), Some(&b("x")));
}

fn scripted(seed: u64, net: NetConfig) -> WalShippingGroup {
    let config = WalConfig::default()
        .with_seed(seed)
        .with_synchronous_standbys([id("standby-1")]);
    let mut g = WalShippingGroup::with_network(config, net).unwrap();
    for i in 0..20u32 {
        let level = if i % 3 == 0 {
            AckLevel::Quorum
        } else {
            AckLevel::Leader
        };
        g.client_write(b(&format!("k{}", i % 4)), Bytes::from(i.to_string()), level)
            .unwrap();
        if i == 7 {
            g.crash(&id("standby-2"), true).unwrap();
        }
        if i == 12 {
            g.restart(&id("standby-2")).unwrap();
        }
    }
    let _ = g.run_until_idle(200);
    g
}

#[test]
fn same_seed_gives_the_identical_trace_and_another_seed_with_jitter_differs() {
    let net = NetConfig::default()
        .with_delay_range(1, 3)
        .with_reorder(0.3, 2)
        .with_drop_rate(0.05);
    let a = scripted(7, net.clone());
    let b = scripted(7, net.clone());
    assert_eq!(a.trace().to_text(), b.trace().to_text());
    assert_eq!(a.probe(), b.probe());
    let c = scripted(8, net);
    assert_ne!(a.trace().to_text(), c.trace().to_text());
}

#[test]
fn switching_the_trace_off_does_not_change_behaviour() {
    let run = |trace: bool| {
        let mut g = group_with_sync(&["standby-1"]);
        g.trace_mut().set_enabled(trace);
        for i in 0..30u32 {
            g.client_write(
                b(&format!("k{}", i % 5)),
                Bytes::from(i.to_string()),
                AckLevel::Quorum,
            )
            .unwrap();
        }
        g.crash(&id("standby-2"), true).unwrap();
        g.restart(&id("standby-2")).unwrap();
        g.run_until_idle(100).unwrap();
        g
    };
    let (on, off) = (run(true), run(false));
    assert_eq!(
        off.trace().len(),
        1,
        "only wal_group_created, recorded before switching off"
    );
    assert_eq!(on.probe(), off.probe());
    assert_eq!(on.summary(), off.summary());
}

#[test]
fn failover_without_a_candidate_prefers_a_synchronous_standby() {
    let mut g = group_with_sync(&["standby-2"]);
    g.client_write(b("k"), b("v"), AckLevel::Quorum).unwrap();
    g.crash(&id("primary"), false).unwrap();
    assert_eq!(g.failover(None).unwrap(), id("standby-2"));
    assert_eq!(g.leader(), Some(id("standby-2")));
    assert_eq!(
        g.client_read(b"k", ReadLevel::Leader, None).unwrap().value,
        Some(b("v")),
        "the QUORUM-acked write survived"
    );
}
