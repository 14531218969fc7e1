//! Guide exercise (isr), the ISR chapter's hands-on exercise: mark both
//! followers slow, let two ticks pass, and check that an `ALL_ISR` write is
//! refused *before append* — the leader's log end offset does not move.
//!
//! Run: `cargo run -p labs --example exercise_isr_min_insync`

use proto_isr::{AckLevel, Bytes, GroupError, IsrConfig, IsrGroup, NodeId, ReplicationGroup};

fn main() -> Result<(), GroupError> {
    let mut g = IsrGroup::new(
        IsrConfig::default()
            .with_replica_lag_timeout(1)
            .with_min_insync_replicas(2),
    )?;
    let leader = g.probe().controller_leader;
    let followers: Vec<NodeId> = g.node_ids().into_iter().filter(|n| *n != leader).collect();
    for node in &followers {
        g.set_replica_slow(node, true)?;
    }
    g.tick();
    g.tick();
    let leo = |g: &IsrGroup| g.probe().node(&leader).map_or(0, |n| n.log_end_offset);
    let before = leo(&g);
    let isr = g.probe().isr;
    let result = g.client_write(Bytes::from("k"), Bytes::from("v"), AckLevel::AllIsr)?;
    let after = leo(&g);
    println!("ISR after two ticks: {isr:?}");
    println!("ALL_ISR write accepted: {}", result.accepted);
    println!("why: {}", result.message);
    println!("leader log end offset: {before} before, {after} after");
    assert!(!result.accepted);
    assert_eq!(before, after, "refused before append");
    assert_eq!(isr, vec![leader]);
    Ok(())
}
