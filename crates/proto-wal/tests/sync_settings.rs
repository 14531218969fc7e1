//! `synchronous_standby_names` (`FIRST n` / `ANY n`), `synchronous_commit`
//! (`remote_write` / `on` / `remote_apply`) and `recovery_min_apply_delay`:
//! what each one acknowledges, what a read sees, what a power loss keeps.

mod common;

use common::{b, id};
use proto_wal::prelude::*;
use proto_wal::{SynchronousStandbyNames, WalConfig, WalShippingGroup};

fn group(names: &str, commit: SynchronousCommit, apply_delay: u64) -> WalShippingGroup {
    let config = WalConfig::default()
        .with_synchronous_standby_names(names)
        .expect("valid synchronous_standby_names")
        .with_synchronous_commit(commit)
        .with_recovery_min_apply_delay(apply_delay);
    WalShippingGroup::new(config).expect("valid config")
}

fn quorum(g: &mut WalShippingGroup, key: &str, value: &str) -> proto_wal::WriteResult {
    g.client_write(b(key), b(value), AckLevel::Quorum)
        .expect("QUORUM is supported")
}

/// The rendered `wal_sync_confirmed` events.
fn confirmations(g: &WalShippingGroup) -> Vec<String> {
    g.trace()
        .of_kind("wal_sync_confirmed")
        .map(|e| e.to_string())
        .collect()
}

fn config_error(result: Result<impl std::fmt::Debug, GroupError>) -> String {
    match result {
        Err(err @ GroupError::Config { .. }) => err.to_string(),
        other => panic!("expected a configuration error, got {other:?}"),
    }
}

#[test]
fn first_1_is_confirmed_by_the_first_listed_standby_and_not_by_a_lower_priority_one() {
    let mut g = group("FIRST 1 (standby-1, standby-2)", SynchronousCommit::On, 0);
    assert!(quorum(&mut g, "k", "v").accepted);
    let confirmed = confirmations(&g);
    assert_eq!(confirmed.len(), 1, "{confirmed:?}");
    assert!(
        confirmed[0].contains("confirmed_by=[standby-1]"),
        "{confirmed:?}"
    );
}

#[test]
fn first_1_falls_back_to_the_next_standby_when_the_first_is_cut_off() {
    let mut g = group("FIRST 1 (standby-1, standby-2)", SynchronousCommit::On, 0);
    g.isolate(&id("standby-1")).expect("isolate");
    let w = quorum(&mut g, "k", "v");
    assert!(w.accepted, "{w:?}");
    assert!(w.message.contains("flushed on standby-2"), "{}", w.message);
    assert!(confirmations(&g)[0].contains("confirmed_by=[standby-2]"));
}

#[test]
fn first_2_with_one_standby_cut_off_waits_naming_the_missing_standby_then_is_unknown() {
    let mut g = group("FIRST 2 (standby-1, standby-2)", SynchronousCommit::On, 0);
    g.isolate(&id("standby-2")).expect("isolate");
    let op = g
        .submit(ClientOp::write("k", "v", AckLevel::Quorum))
        .expect("submitted");
    let wait = g
        .trace()
        .of_kind("wal_commit_waits_for_sync_standby")
        .map(|e| e.to_string())
        .last()
        .expect("the wait is recorded");
    assert!(
        wait.contains("reason=\"fewer_synchronous_standbys_connected_than_needed\"")
            && wait.contains("waiting_for=standby-2"),
        "{wait}"
    );
    let done = g.await_completion(op).expect("completes");
    assert_eq!(done.outcome.status(), OutcomeStatus::Unknown);
    assert_eq!(done.completed - done.submitted, g.config().ack_timeout);
}

#[test]
fn any_1_is_confirmed_by_whichever_listed_standby_is_connected() {
    for (cut, confirmer) in [("standby-1", "standby-2"), ("standby-2", "standby-1")] {
        let mut g = group("ANY 1 (standby-1, standby-2)", SynchronousCommit::On, 0);
        g.isolate(&id(cut)).expect("isolate");
        assert!(quorum(&mut g, "k", "v").accepted, "{cut} cut off");
        let confirmed = confirmations(&g);
        assert!(
            confirmed[0].contains(&format!("confirmed_by=[{confirmer}]")),
            "{confirmed:?}"
        );
    }
}

#[test]
fn any_1_after_promoting_a_listed_standby_is_confirmed_by_the_other_never_by_itself() {
    let mut g = group("ANY 1 (standby-1, standby-2)", SynchronousCommit::On, 0);
    g.failover(Some(&id("standby-1"))).expect("promote");
    g.run_until_idle(100).expect("standbys follow");
    assert!(quorum(&mut g, "k", "v").accepted);
    assert!(confirmations(&g)[0].contains("confirmed_by=[standby-2]"));
    g.isolate(&id("standby-2")).expect("isolate");
    let w = quorum(&mut g, "k", "v2");
    assert!(!w.accepted, "its own flush never confirms: {w:?}");
}

/// Under the every-listed-standby rule a promoted listed standby can never
/// satisfy its own rule, so the group says why it cannot serve (the
/// explorer's recovers and available properties rely on it), while
/// `ANY 1` with another standby left still serves.
#[test]
fn every_listed_standby_after_promoting_one_of_them_is_stated_unavailable() {
    let config = WalConfig::default().with_synchronous_standbys([id("standby-1"), id("standby-2")]);
    let mut g = WalShippingGroup::new(config).expect("valid config");
    assert_eq!(g.unavailable(), None);
    g.failover(Some(&id("standby-1"))).expect("promote");
    g.run_until_idle(100).expect("standbys follow");
    let why = g.unavailable().expect("stated unavailable");
    assert!(why.contains("standby-1"), "{why}");
    assert!(!quorum(&mut g, "k", "v").accepted, "the commit waits");

    let mut any = group("ANY 1 (standby-1, standby-2)", SynchronousCommit::On, 0);
    any.failover(Some(&id("standby-1"))).expect("promote");
    assert_eq!(any.unavailable(), None);
}

#[test]
fn remote_apply_makes_the_write_visible_to_a_local_read_at_the_synchronous_standby_at_the_ack() {
    let mut g = group("standby-1", SynchronousCommit::RemoteApply, 3);
    let w = quorum(&mut g, "k", "v");
    assert!(w.accepted, "{w:?}");
    assert!(w.message.contains("applied on standby-1"), "{}", w.message);
    let read = g
        .client_read(b"k", ReadLevel::Local, Some(&id("standby-1")))
        .expect("read");
    assert_eq!(read.value, Some(b("v")));
    assert_eq!(read.offset, 1);
}

#[test]
fn on_with_a_replay_delay_acknowledges_before_the_synchronous_standby_can_read_the_write() {
    let mut g = group("standby-1", SynchronousCommit::On, 3);
    assert!(quorum(&mut g, "k", "v").accepted);
    let s1 = id("standby-1");
    let read = g
        .client_read(b"k", ReadLevel::Local, Some(&s1))
        .expect("read");
    assert_eq!(read.value, None, "flushed but not yet replayed");
    let probe = g.probe();
    let node = probe.node(&s1).expect("standby-1");
    assert_eq!(
        (node.received_lsn, node.flushed_lsn, node.applied_lsn),
        (1, 1, 0)
    );
    g.run_until_idle(100).expect("idle");
    let read = g
        .client_read(b"k", ReadLevel::Local, Some(&s1))
        .expect("read");
    assert_eq!(read.value, Some(b("v")), "replayed once the delay passed");
    assert_eq!(g.trace().count("wal_record_replayed"), 2);
}

/// Acknowledge `k = v` at QUORUM, crash the primary, power-cut standby-1
/// (losing what it had not fsynced), restart it and promote it; returns
/// whether the write was acknowledged and what the new primary reads.
fn ack_then_standby_power_loss_then_failover_to_it(
    commit: SynchronousCommit,
) -> (bool, Option<Bytes>) {
    let mut g = group("standby-1", commit, 0);
    let acked = quorum(&mut g, "k", "v").accepted;
    let s1 = id("standby-1");
    g.crash(&id("primary"), false).expect("crash primary");
    g.crash(&s1, true).expect("power loss");
    g.restart(&s1).expect("restart");
    g.failover(Some(&s1)).expect("promote standby-1");
    g.run_until_idle(100).expect("idle");
    let read = g.client_read(b"k", ReadLevel::Leader, None).expect("read");
    (acked, read.value)
}

#[test]
fn remote_write_loses_an_acknowledged_write_when_its_standby_loses_power_and_is_promoted() {
    let (acked, after) =
        ack_then_standby_power_loss_then_failover_to_it(SynchronousCommit::RemoteWrite);
    assert!(acked);
    assert_eq!(
        after, None,
        "received but never flushed: gone with the power"
    );
}

#[test]
fn on_keeps_an_acknowledged_write_through_the_same_standby_power_loss_and_failover() {
    let (acked, after) = ack_then_standby_power_loss_then_failover_to_it(SynchronousCommit::On);
    assert!(acked);
    assert_eq!(after, Some(b("v")));
}

#[test]
fn the_configuration_and_each_confirmation_are_named_in_the_trace() {
    let mut g = group(
        "ANY 1 (standby-1, standby-2)",
        SynchronousCommit::RemoteWrite,
        0,
    );
    assert!(quorum(&mut g, "k", "v").accepted);
    let configured = g
        .trace()
        .of_kind("wal_sync_replication_configured")
        .map(|e| e.to_string())
        .collect::<Vec<_>>();
    assert_eq!(configured.len(), 1);
    assert!(
        configured[0].contains("ANY 1 (standby-1, standby-2)")
            && configured[0].contains("synchronous_commit=\"remote_write\""),
        "{configured:?}"
    );
    let confirmed = confirmations(&g);
    assert!(
        confirmed[0].contains("position=\"written\"")
            && confirmed[0].contains("confirmed_by=[standby-1, standby-2]"),
        "{confirmed:?}"
    );
    assert!(g.trace().count("wal_write_reported") >= 1);
}

#[test]
fn the_classic_builder_records_no_extra_decision_events() {
    let mut g = common::group_with_sync(&["standby-1"]);
    assert!(quorum(&mut g, "k", "v").accepted);
    for kind in [
        "wal_sync_replication_configured",
        "wal_sync_confirmed",
        "wal_commit_waits_for_sync_standby",
    ] {
        assert_eq!(g.trace().count(kind), 0, "{kind}");
    }
}

#[test]
fn synchronous_standby_names_parses_the_postgresql_forms() {
    let parse = |text: &str| text.parse::<SynchronousStandbyNames>().expect("parses");
    let any = parse("any 2 ( standby-1 , \"standby-2\" )");
    assert_eq!(any.quorum, SyncQuorum::Any(2));
    assert_eq!(any.names, [id("standby-1"), id("standby-2")]);
    assert_eq!(parse("2 (a, b)").quorum, SyncQuorum::First(2));
    assert_eq!(parse("FIRST 1 (a)").quorum, SyncQuorum::First(1));
    assert_eq!(
        parse("b, a").quorum,
        SyncQuorum::First(1),
        "a plain list is FIRST 1"
    );
    assert_eq!(parse("  "), SynchronousStandbyNames::default());
    assert_eq!(parse("ANY 1 (a,b)").to_string(), "ANY 1 (a, b)");
}

#[test]
fn bad_synchronous_standby_names_are_configuration_errors_naming_the_setting() {
    let d = WalConfig::default;
    for text in [
        "SOME 1 (standby-1)",
        "ANY 0 (standby-1)",
        "FIRST x (standby-1)",
        "FIRST 1 (standby-1",
        "ANY 1 (standby-1, , standby-2)",
        "ANY 1 (*)",
        "FIRST 1 2 (standby-1)",
    ] {
        let err = config_error(d().with_synchronous_standby_names(text));
        assert!(err.contains("synchronous_standby_names"), "{text}: {err}");
    }
    for (text, setting) in [
        ("ANY 3 (standby-1, standby-2)", "synchronous_standby_names"),
        ("FIRST 1 (standby-1, ghost)", "synchronous_standbys"),
        ("ANY 1 (standby-1, standby-1)", "synchronous_standbys"),
        ("FIRST 1 (primary)", "synchronous_standbys"),
    ] {
        let config = d().with_synchronous_standby_names(text).expect("parses");
        let err = config_error(WalShippingGroup::new(config));
        assert!(err.contains(setting), "{text}: {err}");
    }
}

#[test]
fn synchronous_commit_parses_its_three_levels_and_refuses_the_others_naming_the_setting() {
    for (text, level) in [
        ("remote_write", SynchronousCommit::RemoteWrite),
        ("ON", SynchronousCommit::On),
        ("remote_apply", SynchronousCommit::RemoteApply),
    ] {
        assert_eq!(text.parse::<SynchronousCommit>().expect("parses"), level);
    }
    for text in ["local", "off", "always"] {
        let err = config_error(text.parse::<SynchronousCommit>());
        assert!(err.contains("synchronous_commit"), "{err}");
    }
}
