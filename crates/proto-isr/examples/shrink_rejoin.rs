//! The chapter's hands-on run: a slow follower leaves the ISR, writes go on,
//! and it rejoins only after catching up.
//!
//! Run: `cargo run -p proto-isr --example shrink_rejoin`

use proto_isr::{
    AckLevel, Bytes, GroupError, IsrConfig, IsrGroup, IsrProbe, NodeId, ReplicationGroup,
};

fn python_list(nodes: &[NodeId]) -> String {
    let items: Vec<String> = nodes.iter().map(|n| format!("'{n}'")).collect();
    format!("[{}]", items.join(", "))
}

fn python_bool(b: bool) -> &'static str {
    if b { "True" } else { "False" }
}

fn main() -> Result<(), GroupError> {
    let mut g = IsrGroup::new(
        IsrConfig::default()
            .with_replica_lag_timeout(2)
            .with_min_insync_replicas(2),
    )?;
    let leader = g.probe().controller_leader;
    let slow = g
        .node_ids()
        .into_iter()
        .find(|n| n != &leader)
        .ok_or_else(|| GroupError::NoLeader("no follower".into()))?;
    g.set_replica_slow(&slow, true)?;
    let mut accepted = false;
    for i in 0..3 {
        let result = g.client_write(
            Bytes::from(format!("k{i}")),
            Bytes::from(i.to_string()),
            AckLevel::AllIsr,
        )?;
        accepted = result.accepted;
    }
    let state = g.probe();
    let slow_leo = |p: &IsrProbe| p.node(&slow).map_or(0, |n| n.log_end_offset);
    println!("write: {}", python_bool(accepted));
    println!("ISR after lag: {}", python_list(&state.isr));
    println!(
        "slow LEO / HW: {} {}",
        slow_leo(&state),
        state.high_watermark
    );
    g.set_replica_slow(&slow, false)?;
    g.run_until_idle(1_000)?;
    let state = g.probe();
    println!("ISR after catch-up: {}", python_list(&state.isr));
    println!(
        "slow LEO / HW: {} {}",
        slow_leo(&state),
        state.high_watermark
    );
    Ok(())
}
