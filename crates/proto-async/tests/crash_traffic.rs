//! Crash traffic: a crash discards exactly the messages to and from the
//! crashed node; the survivors' messages are still delivered.

use proto_async::{AsyncConfig, AsyncPrimaryGroup};
use replication::{AckLevel, Bytes, NodeId, ReadLevel, ReplicationGroup};

fn n(name: &str) -> NodeId {
    NodeId::new(name)
}

/// The `message_dropped` lines of the trace with `reason`.
fn dropped(g: &AsyncPrimaryGroup, reason: &str) -> Vec<String> {
    g.trace()
        .to_text()
        .lines()
        .filter(|l| l.contains("message_dropped") && l.contains(&format!("reason=\"{reason}\"")))
        .map(str::to_owned)
        .collect()
}

#[test]
fn crash_drops_the_crashed_replicas_in_flight_stream_and_keeps_the_others() {
    let mut g = AsyncPrimaryGroup::new(AsyncConfig::default().with_replication_delay(3))
        .expect("valid config");
    g.client_write(Bytes::from("k"), Bytes::from("v"), AckLevel::None)
        .unwrap();
    g.tick(); // the stream leaves the primary: on the wire for 3 ticks
    g.crash(&n("replica-1"), false).unwrap();
    let lost = dropped(&g, "node_crashed");
    assert!(!lost.is_empty(), "the stream to replica-1 was on the wire");
    assert!(
        lost.iter().all(|l| l.contains("replica-1")),
        "only replica-1's traffic is dropped: {lost:?}"
    );
    g.run_until_idle(50).unwrap();
    let read = g
        .client_read(b"k", ReadLevel::Local, Some(&n("replica-2")))
        .unwrap();
    assert_eq!(
        read.value,
        Some(Bytes::from("v")),
        "replica-2 still applies"
    );
    assert!(
        dropped(&g, "receiver_down").is_empty(),
        "nothing reaches the crashed replica later: {:?}",
        dropped(&g, "receiver_down")
    );
}
