//! Why a healed group may not serve, said two ways: `unavailable` is a
//! claim of certainty (the explorer checks it with a write), and
//! `outside_assumptions` says the network breaks the lag bound Kafka
//! assumes, so serving is chance.

use proto_isr::{IsrConfig, IsrGroup};
use replication::{AckLevel, Bytes, NetConfig, ReplicationGroup};

fn group(min_insync: usize, delays: (u64, u64)) -> IsrGroup {
    let config = IsrConfig::default()
        .with_replica_lag_timeout(3)
        .with_min_insync_replicas(min_insync);
    let mut g = IsrGroup::new(config).expect("valid config");
    g.set_network(NetConfig::default().with_delay_range(delays.0, delays.1))
        .expect("nothing sent yet");
    g
}

#[test]
fn a_network_that_may_outpace_the_lag_bound_is_outside_the_assumptions_not_an_outage() {
    let mut g = group(2, (2, 6));
    assert_eq!(g.unavailable(), None);
    let why = g
        .outside_assumptions()
        .expect("a 6-tick delay reaches the 3-tick bound");
    assert!(why.contains("may leave the ISR"), "{why}");
    // And indeed some writes are acknowledged on it.
    let done = (0..20)
        .filter(|i| {
            let v = Bytes::from(format!("v{i}"));
            g.client_write(Bytes::from("k"), v, AckLevel::AllIsr)
                .is_ok_and(|w| w.accepted)
        })
        .count();
    assert!(done > 0, "no write of 20 was acknowledged");
}

#[test]
fn a_network_slower_than_the_lag_bound_at_its_fastest_is_an_outage_unless_one_replica_suffices() {
    let mut g = group(2, (4, 6));
    let why = g
        .unavailable()
        .expect("even a 4-tick delay outlasts the bound");
    assert!(why.contains("every follower leaves the ISR"), "{why}");
    let w = g
        .client_write(Bytes::from("k"), Bytes::from("v"), AckLevel::AllIsr)
        .expect("answered");
    assert!(!w.accepted, "{w:?}");
    // With min.insync.replicas 1 the leader alone acknowledges.
    assert_eq!(group(1, (4, 6)).unavailable(), None);
}
