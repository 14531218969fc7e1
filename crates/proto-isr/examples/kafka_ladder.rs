//! KIP-101's first scenario on every rung of the Kafka ladder: a follower
//! restarts before it learns that HW covers the record it fetched, then the
//! leader fails and the follower is elected.
//!
//! `cargo run -p proto-isr --example kafka_ladder`

use proto_isr::fetch::{FetchGroup, Rung};
use proto_isr::{
    AckLevel, Bytes, GroupError, IsrConfig, IsrMode, NodeId, ReadLevel, ReplicationGroup,
};

fn main() -> Result<(), GroupError> {
    for rung in Rung::ALL {
        let mut g = FetchGroup::new(IsrConfig::default().with_mode(IsrMode::Fetch(rung)))?;
        g.client_write(Bytes::from("a"), Bytes::from("m1"), AckLevel::AllIsr)?;
        let m2 = g.client_write(Bytes::from("b"), Bytes::from("m2"), AckLevel::AllIsr)?;
        g.crash(&NodeId::new("node-2"), false)?;
        g.restart(&NodeId::new("node-2"))?;
        g.crash(&NodeId::new("node-1"), false)?;
        g.run_until_idle(100)?;
        let read = g.client_read(b"b", ReadLevel::Linearizable, None)?;
        let kept = read.value.as_deref() == Some(b"m2".as_slice());
        println!(
            "{:<7} m2 acked={} at offset {:?}; new leader {}: {}",
            rung.name(),
            m2.accepted,
            m2.offset,
            read.node,
            if kept { "kept" } else { "LOST" }
        );
    }
    Ok(())
}
