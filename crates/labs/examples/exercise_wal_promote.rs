//! Guide exercise (wal): experiment 2's `quorum` variant survives because
//! failover promotes `standby-1`, the synchronous standby. Cut the
//! asynchronous `standby-2` off before the write (so it lacks the record),
//! then promote it instead: is the acknowledged QUORUM write still there?
//!
//! Run: `cargo run -p labs --example exercise_wal_promote`

use proto_wal::{
    AckLevel, Bytes, GroupError, NodeId, ReadLevel, ReplicationGroup, WalConfig, WalShippingGroup,
};

/// With `standby-2` cut off, acks `k = v` at QUORUM, crashes the primary,
/// heals `standby-2`, promotes `candidate`, and reads `k` on the new primary.
fn promote_after_ack(candidate: &str) -> Result<(bool, Option<Bytes>), GroupError> {
    let sync = NodeId::new("standby-1");
    let mut g = WalShippingGroup::new(WalConfig::default().with_synchronous_standbys([sync]))?;
    let lagging = NodeId::new("standby-2");
    g.isolate(&lagging)?;
    let ack = g.client_write(Bytes::from("k"), Bytes::from("v"), AckLevel::Quorum)?;
    g.crash(&NodeId::new("primary"), false)?;
    g.heal(&lagging)?;
    let new = g.failover(Some(&NodeId::new(candidate)))?;
    g.run_until_idle(200)?;
    let read = g.client_read(b"k", ReadLevel::Leader, None)?;
    assert_eq!(read.node, new);
    Ok((ack.accepted, read.value))
}

fn show(value: &Option<Bytes>) -> String {
    value.as_ref().map_or("none".to_owned(), |v| {
        String::from_utf8_lossy(v).into_owned()
    })
}

fn main() -> Result<(), GroupError> {
    for candidate in ["standby-1", "standby-2"] {
        let (acked, value) = promote_after_ack(candidate)?;
        println!(
            "promote {candidate}: acked {acked}, new primary reads {}",
            show(&value)
        );
        assert!(acked);
        let expected = (candidate == "standby-1").then(|| Bytes::from("v"));
        assert_eq!(value, expected, "promoting {candidate}");
    }
    Ok(())
}
