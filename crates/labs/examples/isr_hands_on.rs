//! The ISR chapter's hands-on run (shrink, rejoin, HW) with the trace lines
//! that show each decision: the same script as
//! `cargo run -p proto-isr --example shrink_rejoin`, then the membership and
//! high-watermark events of its trace.
//!
//! Run: `cargo run -p labs --example isr_hands_on`

use proto_isr::{AckLevel, Bytes, GroupError, IsrConfig, IsrGroup, NodeId, ReplicationGroup};

/// The trace kinds that carry the chapter's three decisions (lag detection,
/// HW, rejoin after catch-up).
const KINDS: [&str; 6] = [
    "node_slow",
    "isr_replication_delayed",
    "isr_member_removed",
    "isr_high_watermark_advanced",
    "isr_catch_up_started",
    "isr_member_added",
];

fn main() -> Result<(), GroupError> {
    let mut g = IsrGroup::new(
        IsrConfig::default()
            .with_replica_lag_timeout(2)
            .with_min_insync_replicas(2),
    )?;
    let leader = g.probe().controller_leader;
    let slow = NodeId::new("node-2");
    assert_ne!(slow, leader);
    g.set_replica_slow(&slow, true)?;
    for i in 0..3 {
        let w = g.client_write(
            Bytes::from(format!("k{i}")),
            Bytes::from(i.to_string()),
            AckLevel::AllIsr,
        )?;
        let p = g.probe();
        println!(
            "write k{i} at tick {}: accepted {}, ISR {:?}, HW {}",
            p.tick, w.accepted, p.isr, p.high_watermark
        );
    }
    g.set_replica_slow(&slow, false)?;
    g.run_until_idle(1_000)?;
    let p = g.probe();
    let node = p.node(&slow).ok_or(GroupError::UnknownNode(slow.clone()))?;
    println!(
        "after catch-up at tick {}: ISR {:?}, {slow} LEO {}, HW {}",
        p.tick, p.isr, node.log_end_offset, p.high_watermark
    );
    println!("trace:");
    for event in g.trace().events() {
        if KINDS.contains(&event.kind) {
            println!("  {event}");
        }
    }
    Ok(())
}
