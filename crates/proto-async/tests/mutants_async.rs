//! Behaviour pinned because a mutation of it survived every other test
//! (`cargo xtask mutants --package proto-async`).

mod common;

use common::{id, write};
use proto_async::{AsyncConfig, AsyncPrimaryGroup, CatchUpMode};
use replication::{GroupError, ReplicationGroup};
use sim_core::Value;

/// `(node, reason)` of every `async_resync_requested` record.
fn resync_requests(g: &AsyncPrimaryGroup) -> Vec<(String, String)> {
    g.trace()
        .of_kind("async_resync_requested")
        .map(|e| {
            let text = |f| match e.field(f) {
                Some(Value::Str(s)) => s.to_string(),
                Some(v) => v.to_string(),
                None => String::new(),
            };
            (text("node"), text("reason"))
        })
        .collect()
}

#[test]
fn a_gap_seen_with_no_psync_outstanding_asks_to_resync_naming_the_gap() {
    let mut g = AsyncPrimaryGroup::new(AsyncConfig::default().with_replication_delay(2)).unwrap();
    write(&mut g, "a", "1");
    g.tick(); // entry 1 is on the wire
    g.cut_link(&id("primary"), &id("replica-1")).unwrap();
    g.tick(); // entry 1 to replica-1 is dropped at delivery
    g.restore_link(&id("primary"), &id("replica-1")).unwrap(); // no PSYNC
    write(&mut g, "b", "2");
    g.run_until_idle(20).unwrap();
    assert!(
        g.trace().of_kind("async_gap_detected").next().is_some(),
        "{}",
        g.trace().to_text()
    );
    assert_eq!(
        resync_requests(&g),
        vec![("replica-1".to_owned(), "gap".to_owned())],
        "{}",
        g.trace().to_text()
    );
}

#[test]
fn a_replica_restarting_while_its_primary_is_down_asks_nobody_to_resync() {
    let mut g = AsyncPrimaryGroup::new(AsyncConfig::default()).unwrap();
    write(&mut g, "a", "1");
    g.run_until_idle(20).unwrap();
    g.crash(&id("replica-1"), false).unwrap();
    g.crash(&id("primary"), false).unwrap();
    g.restart(&id("replica-1")).unwrap();
    g.run_until_idle(20).unwrap();
    assert_eq!(resync_requests(&g), vec![], "{}", g.trace().to_text());
    g.restart(&id("primary")).unwrap();
    g.run_until_idle(20).unwrap();
    assert!(
        resync_requests(&g).iter().any(|(n, _)| n == "replica-1"),
        "once the primary is back the replica resyncs: {}",
        g.trace().to_text()
    );
}

#[test]
fn crashing_a_replica_keeps_the_entries_queued_for_the_other_replica() {
    let mut g = AsyncPrimaryGroup::new(AsyncConfig::default()).unwrap();
    write(&mut g, "a", "1"); // queued in the primary's output buffers
    g.crash(&id("replica-1"), false).unwrap();
    g.run_until_idle(20).unwrap();
    let probe = g.probe();
    assert_eq!(probe.node(&id("replica-2")).unwrap().offset, 1);
    assert_eq!(probe.node(&id("replica-1")).unwrap().offset, 0);
}

#[test]
fn a_primary_whose_power_loss_lost_nothing_keeps_its_history_on_restart() {
    let mut g = AsyncPrimaryGroup::new(AsyncConfig::default()).unwrap();
    write(&mut g, "a", "1");
    g.run_until_idle(20).unwrap();
    g.fsync(&id("primary")).unwrap();
    g.crash(&id("primary"), true).unwrap();
    g.restart(&id("primary")).unwrap();
    g.run_until_idle(20).unwrap();
    assert_eq!(g.generation(), 1, "{}", g.trace().to_text());
    assert!(g.trace().of_kind("async_history_reset").next().is_none());
}

#[test]
fn a_primary_whose_power_loss_lost_writes_starts_a_new_history_on_restart() {
    let mut g = AsyncPrimaryGroup::new(AsyncConfig::default()).unwrap();
    write(&mut g, "a", "1");
    g.run_until_idle(20).unwrap();
    g.crash(&id("primary"), true).unwrap();
    g.restart(&id("primary")).unwrap();
    assert_eq!(g.generation(), 2);
    assert!(g.trace().of_kind("async_history_reset").next().is_some());
}

#[test]
fn restoring_a_cut_link_lets_the_stream_through_again() {
    let mut g = AsyncPrimaryGroup::new(AsyncConfig::default()).unwrap();
    g.cut_link(&id("primary"), &id("replica-1")).unwrap();
    g.restore_link(&id("primary"), &id("replica-1")).unwrap();
    write(&mut g, "a", "1");
    g.run_until_idle(20).unwrap();
    assert_eq!(g.probe().node(&id("replica-1")).unwrap().offset, 1);
    assert!(g.trace().of_kind("async_stream_buffered").next().is_none());
    assert!(matches!(
        g.restore_link(&id("primary"), &id("nobody")),
        Err(GroupError::UnknownNode(n)) if n == id("nobody")
    ));
}

#[test]
fn a_buffered_stream_that_fell_out_of_the_backlog_is_discarded_on_heal_and_the_replica_resyncs_in_full()
 {
    let mut g = AsyncPrimaryGroup::new(AsyncConfig::default().with_backlog_size(2)).unwrap();
    g.isolate(&id("replica-1")).unwrap();
    for (k, v) in [("a", "1"), ("b", "2"), ("c", "3"), ("d", "4")] {
        write(&mut g, k, v);
        g.tick();
    }
    g.heal(&id("replica-1")).unwrap();
    g.run_until_idle(20).unwrap();
    let text = g.trace().to_text();
    assert!(text.contains("async_stream_buffer_discarded"), "{text}");
    assert!(!text.contains("async_stream_flushed"), "{text}");
    assert!(
        g.trace().of_kind("async_gap_detected").next().is_none(),
        "{text}"
    );
    let probe = g.probe();
    let r = probe.node(&id("replica-1")).unwrap();
    assert_eq!(
        (r.offset, r.catch_up_mode),
        (4, CatchUpMode::Full),
        "{text}"
    );
}

#[test]
fn a_demoted_primary_never_flushes_its_stale_output_buffer_on_heal() {
    let mut g = AsyncPrimaryGroup::new(AsyncConfig::default()).unwrap();
    g.cut_link(&id("primary"), &id("replica-2")).unwrap();
    write(&mut g, "a", "1"); // queued for both replicas, not yet sent
    g.failover(Some(&id("replica-1"))).unwrap(); // the old primary is demoted
    g.tick(); // its queued stream to replica-2 is held: the link is cut
    g.heal(&id("replica-2")).unwrap();
    g.run_until_idle(20).unwrap();
    let text = g.trace().to_text();
    let from_old_primary = |kind: &str| {
        text.lines()
            .any(|l| l.contains(kind) && l.contains("primary=primary"))
    };
    assert!(!from_old_primary("async_stream_flushed"), "{text}");
    assert!(!from_old_primary("async_stream_buffer_discarded"), "{text}");
}

#[test]
fn a_replica_healed_with_its_stream_buffered_catches_up_from_the_buffer_without_a_psync() {
    let mut g = AsyncPrimaryGroup::new(AsyncConfig::default()).unwrap();
    g.isolate(&id("replica-2")).unwrap();
    write(&mut g, "a", "1");
    write(&mut g, "b", "2");
    g.run_until_idle(20).unwrap();
    g.heal(&id("replica-2")).unwrap();
    g.run_until_idle(20).unwrap();
    let text = g.trace().to_text();
    assert!(text.contains("async_stream_flushed"), "{text}");
    assert_eq!(resync_requests(&g), vec![], "{text}");
    let probe = g.probe();
    let r = probe.node(&id("replica-2")).unwrap();
    assert_eq!(
        (r.offset, r.catch_up_mode),
        (2, CatchUpMode::Streaming),
        "{text}"
    );
}
