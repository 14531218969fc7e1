//! A seed reaches every protocol's trace: the snapshots pin a seeded run,
//! not a seed-independent script.

use bytes::Bytes;
use replication::{AckLevel, ReplicationGroup};

fn scripted<G: ReplicationGroup>(mut group: G, level: AckLevel) -> String {
    group
        .client_write(Bytes::from_static(b"k"), Bytes::from_static(b"v"), level)
        .expect("write");
    group.run_until_idle(200).expect("idle");
    group.trace().to_text()
}

fn differs(a: String, b: String) {
    assert_ne!(a, b, "a different seed must give a different trace");
}

#[test]
fn changing_the_seed_changes_every_protocols_trace() {
    use proto_async::{AsyncConfig, AsyncPrimaryGroup};
    use proto_isr::{IsrConfig, IsrGroup};
    use proto_wal::{WalConfig, WalShippingGroup};
    let async_run = |seed| {
        scripted(
            AsyncPrimaryGroup::new(AsyncConfig::default().with_seed(seed)).expect("valid"),
            AckLevel::Leader,
        )
    };
    differs(async_run(0), async_run(1));
    let wal_run = |seed| {
        scripted(
            WalShippingGroup::new(WalConfig::default().with_seed(seed)).expect("valid"),
            AckLevel::Leader,
        )
    };
    differs(wal_run(0), wal_run(1));
    let isr_run = |seed| {
        scripted(
            IsrGroup::new(IsrConfig::default().with_seed(seed)).expect("valid"),
            AckLevel::AllIsr,
        )
    };
    differs(isr_run(0), isr_run(1));
}

#[test]
fn changing_the_raft_seed_changes_who_is_elected_when() {
    use proto_raft::{RaftConfig, RaftGroup};
    let elected = |seed| {
        let mut group = RaftGroup::new(RaftConfig::default().with_seed(seed)).expect("valid");
        let leader = group.run_until_leader(None, 200).expect("a leader");
        (leader, group.now())
    };
    let runs: Vec<_> = (0..8).map(elected).collect();
    assert!(
        runs.iter().any(|r| r != &runs[0]),
        "eight seeds, one outcome: {runs:?}"
    );
}
