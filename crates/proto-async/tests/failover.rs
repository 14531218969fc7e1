//! Promotion, fencing of the old lineage, crashes and power loss (SPEC §4, issue 4).

use proto_async::{AsyncConfig, AsyncPrimaryGroup, CatchUpMode, Role};
use replication::{AckLevel, Bytes, ReadLevel, ReplicationGroup};

mod common;
use common::{group, id, local, rejections, write};

#[test]
fn promoting_a_stale_replica_loses_an_acknowledged_write() {
    let mut g = group();
    write(&mut g, "k", "old");
    g.run_until_idle(10).unwrap();
    write(&mut g, "k", "acked");
    g.crash(&id("primary"), false).unwrap();
    assert_eq!(g.failover(None).unwrap(), id("replica-1"));
    g.run_until_idle(10).unwrap();
    let read = g.client_read(b"k", ReadLevel::Leader, None).unwrap();
    assert_eq!(
        (read.node, read.value),
        (id("replica-1"), Some(Bytes::from("old")))
    );
    // The old primary, restarted, is demoted and loses the write too.
    g.restart(&id("primary")).unwrap();
    g.run_until_idle(10).unwrap();
    assert_eq!(local(&mut g, "primary", "k"), Some(Bytes::from("old")));
    assert_eq!(g.probe().node(&id("primary")).unwrap().role, Role::Replica);
}

#[test]
fn a_queued_full_sync_and_a_queued_backlog_entry_from_the_old_primary_are_rejected_after_promotion()
{
    // replica-2 misses more than the 1-entry backlog: it needs a full sync.
    let mut h = AsyncPrimaryGroup::new(AsyncConfig::default().with_backlog_size(1)).unwrap();
    write(&mut h, "a", "1");
    h.run_until_idle(10).unwrap();
    h.crash(&id("replica-2"), false).unwrap();
    write(&mut h, "b", "2");
    write(&mut h, "c", "3");
    h.restart(&id("replica-2")).unwrap();
    h.tick(); // PSYNC delivered: +FULLRESYNC queued towards replica-2
    write(&mut h, "d", "4"); // a stream entry queued towards both replicas
    h.promote(&id("replica-1")).unwrap();
    h.run_until_idle(10).unwrap();
    let fenced = rejections(&h, "non_current_primary");
    assert!(
        fenced.contains(&("replica-2".into(), "\"full_sync\"".into())),
        "{fenced:?}"
    );
    assert!(
        fenced.contains(&("replica-2".into(), "\"replication_stream\"".into())),
        "{fenced:?}"
    );
    assert!(
        fenced.contains(&("replica-1".into(), "\"replication_stream\"".into())),
        "{fenced:?}"
    );
    // Neither was applied: everyone converged on replica-1's history.
    let probe = h.probe();
    for node in &probe.nodes {
        assert_eq!(node.replication_id, "repl-2");
        assert_eq!(
            node.data.get(&Bytes::from("d")),
            None,
            "{} applied a fenced entry",
            node.id
        );
    }
    assert!(h.summary().alive_nodes_agree());
}

#[test]
fn promotion_converges_alive_replicas_without_a_new_write() {
    let mut g = group();
    write(&mut g, "k", "v");
    g.run_until_idle(10).unwrap();
    g.promote(&id("replica-2")).unwrap();
    assert_eq!(g.leader(), Some(id("replica-2")));
    g.run_until_idle(10).unwrap();
    let probe = g.probe();
    assert_eq!(
        (probe.generation, probe.replication_id.as_str()),
        (2, "repl-2")
    );
    assert!(probe.backlog_offsets.is_empty());
    for node in ["primary", "replica-1"] {
        let n = probe.node(&id(node)).unwrap();
        assert_eq!(
            (n.role, n.replication_id.as_str(), n.catch_up_mode),
            (Role::Replica, "repl-2", CatchUpMode::Full)
        );
        assert_eq!(n.following, Some(id("replica-2")));
    }
    assert!(g.summary().alive_nodes_agree());
}

#[test]
fn a_delivery_needs_the_current_source_generation_and_replication_id() {
    // Source: an entry queued by the old primary reaches a replica after promotion.
    let mut g = group();
    write(&mut g, "k", "from-old");
    g.promote(&id("replica-1")).unwrap();
    g.run_until_idle(10).unwrap();
    assert!(!rejections(&g, "non_current_primary").is_empty());

    // Generation: the same node is primary again, but the queued entry is of
    // a generation it no longer leads.
    let mut g = group();
    write(&mut g, "k", "gen-1");
    g.promote(&id("replica-1")).unwrap();
    g.promote(&id("primary")).unwrap();
    g.run_until_idle(10).unwrap();
    let stale = rejections(&g, "stale_generation");
    assert!(
        stale.contains(&("replica-2".into(), "\"replication_stream\"".into())),
        "{stale:?}"
    );

    // Replication id: the current primary's entry reaches a replica that
    // still holds the previous history (its full sync is still on the way).
    let mut g = group();
    g.promote(&id("replica-1")).unwrap();
    write(&mut g, "k", "gen-2");
    g.tick();
    let stale = rejections(&g, "stale_replication_id");
    assert!(
        stale.contains(&("replica-2".into(), "\"replication_stream\"".into())),
        "{stale:?}"
    );
    assert_eq!(local(&mut g, "replica-2", "k"), None);
    g.run_until_idle(10).unwrap();
    assert_eq!(local(&mut g, "replica-2", "k"), Some(Bytes::from("gen-2")));
}

#[test]
fn power_loss_discards_an_acknowledged_but_unfsynced_primary_write() {
    let mut g = group();
    write(&mut g, "k", "durable");
    g.fsync(&id("primary")).unwrap();
    g.run_until_idle(10).unwrap();
    write(&mut g, "k", "volatile");
    assert_eq!(g.probe().backlog_offsets, vec![1, 2]);
    g.crash(&id("primary"), true).unwrap();
    let probe = g.probe();
    let primary = probe.node(&id("primary")).unwrap();
    assert_eq!((primary.offset, primary.durable_offset), (1, 1));
    assert_eq!(
        probe.backlog_offsets,
        vec![1],
        "backlog trimmed to the fsync"
    );
    g.restart(&id("primary")).unwrap();
    g.run_until_idle(10).unwrap();
    assert_eq!(local(&mut g, "primary", "k"), Some(Bytes::from("durable")));
    // A new history starts so no replica can splice new writes onto the lost one.
    let probe = g.probe();
    assert_eq!(
        (probe.generation, probe.replication_id.as_str()),
        (2, "repl-2")
    );
    assert_eq!(g.trace().count("async_history_reset"), 1);
    write(&mut g, "k", "next");
    g.run_until_idle(10).unwrap();
    assert!(g.summary().alive_nodes_agree());
}

#[test]
fn a_process_crash_keeps_the_data_set() {
    let mut g = group();
    write(&mut g, "k", "v");
    g.crash(&id("primary"), false).unwrap();
    g.restart(&id("primary")).unwrap();
    assert_eq!(local(&mut g, "primary", "k"), Some(Bytes::from("v")));
    assert_eq!(g.probe().generation, 1);
}

#[test]
fn a_replica_power_loss_rolls_back_and_catches_up_partially() {
    let mut g = group();
    write(&mut g, "a", "1");
    g.run_until_idle(10).unwrap();
    g.fsync(&id("replica-1")).unwrap();
    write(&mut g, "b", "2");
    g.run_until_idle(10).unwrap();
    g.crash(&id("replica-1"), true).unwrap();
    assert_eq!(g.probe().node(&id("replica-1")).unwrap().offset, 1);
    g.restart(&id("replica-1")).unwrap();
    g.run_until_idle(10).unwrap();
    let probe = g.probe();
    let node = probe.node(&id("replica-1")).unwrap();
    assert_eq!((node.offset, node.catch_up_mode), (2, CatchUpMode::Partial));
}

#[test]
fn an_isolated_old_primary_acks_a_dirty_write_that_is_gone_after_heal() {
    let mut g = group();
    write(&mut g, "k", "base");
    g.run_until_idle(10).unwrap();
    g.isolate(&id("primary")).unwrap();
    g.promote(&id("replica-1")).unwrap();
    let dirty = g
        .write_at(
            &id("primary"),
            Bytes::from("k"),
            Bytes::from("minority"),
            AckLevel::Leader,
        )
        .unwrap();
    assert!(dirty.accepted);
    write(&mut g, "k", "majority");
    g.run_until_idle(10).unwrap();
    assert_eq!(g.probe().node(&id("primary")).unwrap().role, Role::Primary);
    g.heal(&id("primary")).unwrap();
    g.run_until_idle(10).unwrap();
    assert!(!rejections(&g, "non_current_primary").is_empty());
    assert_eq!(g.probe().node(&id("primary")).unwrap().role, Role::Replica);
    assert_eq!(local(&mut g, "primary", "k"), Some(Bytes::from("majority")));
    assert!(g.summary().alive_nodes_agree());
}

#[test]
fn a_replica_isolated_across_a_promotion_full_syncs_when_healed() {
    let mut g = group();
    write(&mut g, "k", "v1");
    g.run_until_idle(10).unwrap();
    g.isolate(&id("replica-2")).unwrap();
    g.promote(&id("replica-1")).unwrap(); // replica-2's PSYNC is dropped
    write(&mut g, "k", "v2"); // buffered for replica-2
    g.run_until_idle(10).unwrap();
    g.heal(&id("replica-2")).unwrap();
    g.run_until_idle(10).unwrap();
    let probe = g.probe();
    let node = probe.node(&id("replica-2")).unwrap();
    assert_eq!(
        (node.replication_id.as_str(), node.catch_up_mode),
        ("repl-2", CatchUpMode::Full)
    );
    assert_eq!(local(&mut g, "replica-2", "k"), Some(Bytes::from("v2")));
    assert!(g.summary().alive_nodes_agree());
}
