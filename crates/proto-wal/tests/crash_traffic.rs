//! Crash traffic: a crash discards exactly the messages to and from the
//! crashed node; the survivors' messages are still delivered.

mod common;

use common::{b, id, lsns};
use proto_wal::{AckLevel, ReplicationGroup, WalConfig, WalShippingGroup};

/// The `message_dropped` lines of the trace with `reason`.
fn dropped(g: &WalShippingGroup, reason: &str) -> Vec<String> {
    g.trace()
        .to_text()
        .lines()
        .filter(|l| l.contains("message_dropped") && l.contains(&format!("reason=\"{reason}\"")))
        .map(str::to_owned)
        .collect()
}

#[test]
fn crash_drops_the_crashed_standbys_in_flight_records_and_keeps_the_others() {
    let config = WalConfig::default().with_delay(3);
    let mut g = WalShippingGroup::new(config).expect("valid config");
    g.client_write(b("k"), b("v"), AckLevel::Leader).unwrap();
    g.crash(&id("standby-1"), false).unwrap();
    let lost = dropped(&g, "node_crashed");
    assert!(!lost.is_empty(), "the record to standby-1 was on the wire");
    assert!(
        lost.iter().all(|l| l.contains("standby-1")),
        "only standby-1's traffic is dropped: {lost:?}"
    );
    g.run_until_idle(50).unwrap();
    assert_eq!(lsns(&g, "standby-2").0, 1, "standby-2 still applies");
    assert_eq!(
        lsns(&g, "standby-1").0,
        0,
        "the crashed standby got nothing"
    );
}
