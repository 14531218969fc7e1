//! Faults go through the shared harness (`replication::Cluster`): link state
//! is derived from the fault state, a refused fault records nothing, and a
//! power loss says what it rolled back to.

mod common;

use common::{b, id, lsns};
use proto_wal::{AckLevel, GroupError, ReplicationGroup, WalConfig, WalShippingGroup};
use sim_core::Value;

fn group() -> WalShippingGroup {
    WalShippingGroup::new(WalConfig::default()).expect("the default config is valid")
}

#[test]
fn a_refused_fault_records_nothing_lets_no_time_pass_and_changes_no_link() {
    let mut g = group();
    g.isolate(&id("standby-1")).unwrap();
    let (trace, now, probe) = (g.trace().len(), g.now(), g.probe());
    let ghost = id("ghost");
    assert_eq!(
        g.cut_link(&ghost, &id("primary")),
        Err(GroupError::UnknownNode(ghost.clone()))
    );
    assert_eq!(
        g.restore_link(&id("primary"), &ghost),
        Err(GroupError::UnknownNode(ghost.clone()))
    );
    assert_eq!(
        g.restart(&id("standby-2")),
        Err(GroupError::AlreadyRunning(id("standby-2")))
    );
    assert!(matches!(
        g.set_slow(&id("standby-2"), true),
        Err(GroupError::NotPermitted { .. })
    ));
    assert_eq!((g.trace().len(), g.now()), (trace, now));
    assert_eq!(g.probe(), probe);
    // standby-1 is still isolated: a write does not reach it.
    g.client_write(b("k"), b("v"), AckLevel::Leader).unwrap();
    g.run_until_idle(20).unwrap();
    assert_eq!(lsns(&g, "standby-1").0, 0);
    assert_eq!(lsns(&g, "standby-2").0, 1);
}

#[test]
fn healing_the_primary_leaves_an_isolated_standby_isolated() {
    let mut g = group();
    g.isolate(&id("standby-2")).unwrap();
    g.isolate(&id("primary")).unwrap();
    g.heal(&id("primary")).unwrap();
    g.client_write(b("k"), b("v"), AckLevel::Leader).unwrap();
    g.run_until_idle(20).unwrap();
    assert_eq!(lsns(&g, "standby-1").0, 1, "linked again: streams");
    assert_eq!(lsns(&g, "standby-2").0, 0, "its own isolation stands");
    g.heal(&id("standby-2")).unwrap();
    g.run_until_idle(20).unwrap();
    assert_eq!(lsns(&g, "standby-2").0, 1, "catches up once healed");
}

#[test]
fn restoring_a_cut_link_does_not_undo_an_isolation() {
    let mut g = group();
    g.cut_link(&id("primary"), &id("standby-1")).unwrap();
    g.isolate(&id("standby-1")).unwrap();
    g.restore_link(&id("primary"), &id("standby-1")).unwrap();
    g.client_write(b("k"), b("v"), AckLevel::Leader).unwrap();
    g.run_until_idle(20).unwrap();
    assert_eq!(lsns(&g, "standby-1").0, 0, "still isolated");
}

#[test]
fn a_power_loss_records_the_lsn_and_timeline_it_rolled_back_to() {
    let mut g = group();
    g.client_write(b("k"), b("v1"), AckLevel::Leader).unwrap();
    g.run_until_idle(20).unwrap();
    g.fsync(&id("standby-2")).unwrap();
    g.client_write(b("k"), b("v2"), AckLevel::Leader).unwrap();
    g.run_until_idle(20).unwrap();
    let mark = g.trace().len();
    g.crash(&id("standby-2"), true).unwrap();
    let kinds: Vec<&str> = g.trace().since(mark).map(|e| e.kind).collect();
    assert_eq!(kinds, ["node_crashed", "wal_power_loss_restored"]);
    let restored = g
        .trace()
        .of_kind("wal_power_loss_restored")
        .last()
        .expect("recorded");
    assert_eq!(restored.field("node"), Some(Value::Node(id("standby-2"))));
    assert_eq!(restored.field("lsn_before"), Some(Value::UInt(2)));
    assert_eq!(restored.field("lsn"), Some(Value::UInt(1)));
    assert_eq!(restored.field("timeline"), Some(Value::UInt(1)));
    // A process crash loses nothing and records no rollback.
    let mark = g.trace().len();
    g.crash(&id("standby-1"), false).unwrap();
    assert_eq!(g.trace().since(mark).count(), 1);
}
