//! Behaviour pinned because a mutation of it survived every other test
//! (`cargo xtask mutants --package proto-wal`).

mod common;

use common::{b, id};
use proto_wal::{AckLevel, ReplicationGroup, WalConfig, WalShippingGroup};
use sim_core::Value;

#[test]
fn debug_output_names_the_live_primary_and_the_timeline() {
    let mut g = WalShippingGroup::new(WalConfig::default()).expect("valid config");
    g.client_write(b("k"), b("v"), AckLevel::Leader).unwrap();
    let text = format!("{g:?}");
    assert!(text.starts_with("WalShippingGroup"), "{text}");
    assert!(
        text.contains(r#"leader: Some("primary")"#),
        "the live primary is named: {text}"
    );
    assert!(text.contains("timeline: 1"), "{text}");
    assert!(text.contains("nodes: 3"), "{text}");
}

#[test]
fn config_returns_the_configuration_the_group_was_built_with() {
    let config = WalConfig::default().with_retention(7).with_seed(42);
    let g = WalShippingGroup::new(config.clone()).expect("valid config");
    assert_eq!(g.config(), &config);
    assert_eq!(g.config().retention, 7);
}

/// The probe's `(received, applied)` LSNs of `name`.
fn positions(g: &WalShippingGroup, name: &str) -> (u64, u64) {
    let probe = g.probe();
    let n = probe.node(&id(name)).expect("a node of the group");
    (n.received_lsn, n.applied_lsn)
}

/// `recovery_min_apply_delay`: a standby that crashes with records
/// waiting to be replayed does not replay them while it is down.
#[test]
fn a_crashed_standby_replays_nothing_while_down() {
    let config = WalConfig::default().with_recovery_min_apply_delay(4);
    let mut g = WalShippingGroup::new(config).expect("valid config");
    g.client_write(b("k"), b("v1"), AckLevel::Leader).unwrap();
    g.tick(); // received, due 4 ticks later
    assert_eq!(positions(&g, "standby-2"), (1, 0));
    g.crash(&id("standby-2"), false).unwrap();
    let mark = g.trace().len();
    for _ in 0..10 {
        g.tick();
    }
    let replayed_while_down = g.trace().since(mark).any(|e| {
        e.kind == "wal_record_replayed" && e.field("node") == Some(Value::Node(id("standby-2")))
    });
    assert!(!replayed_while_down, "{}", g.trace().to_text());
    assert_eq!(positions(&g, "standby-2"), (1, 0), "nothing replayed");
}

/// A power loss on a standby with records waiting to be replayed keeps the
/// replay queue of the records it keeps (the flushed ones) and drops the
/// rest: the invariant "one due time per received, unreplayed record"
/// still holds.
#[test]
fn a_power_loss_drops_the_replay_due_times_of_the_records_it_lost() {
    let config = WalConfig::default().with_recovery_min_apply_delay(4);
    let mut g = WalShippingGroup::new(config).expect("valid config");
    g.client_write(b("k"), b("v1"), AckLevel::Leader).unwrap();
    for _ in 0..5 {
        g.tick();
    }
    assert_eq!(positions(&g, "standby-2"), (1, 1), "v1 replayed");
    g.client_write(b("k"), b("v2"), AckLevel::Leader).unwrap();
    g.tick();
    g.fsync(&id("standby-2")).unwrap(); // v2 durable, not replayed
    g.client_write(b("k"), b("v3"), AckLevel::Leader).unwrap();
    g.tick(); // v3 received, neither durable nor replayed
    assert_eq!(positions(&g, "standby-2"), (3, 1));
    g.crash(&id("standby-2"), true).unwrap();
    assert_eq!(positions(&g, "standby-2"), (2, 1), "v3 lost, v2 kept");
    g.check_invariants().unwrap();
}
