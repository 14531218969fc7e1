//! The chapter's shrink / rejoin run, pinned as a reviewed trace.

use proto_isr::{IsrConfig, IsrGroup};
use replication::{AckLevel, Bytes, NodeId, ReplicationGroup};

#[test]
fn shrink_and_rejoin_trace_is_pinned() {
    let mut g = IsrGroup::new(IsrConfig::default().with_replica_lag_timeout(2)).unwrap();
    let slow = NodeId::new("node-2");
    g.set_replica_slow(&slow, true).unwrap();
    for i in 0..3 {
        let w = g
            .client_write(
                Bytes::from(format!("k{i}")),
                Bytes::from(i.to_string()),
                AckLevel::AllIsr,
            )
            .unwrap();
        assert!(w.accepted);
    }
    g.set_replica_slow(&slow, false).unwrap();
    g.run_until_idle(100).unwrap();
    insta::assert_snapshot!("shrink_rejoin_trace", g.trace().to_text());
}
