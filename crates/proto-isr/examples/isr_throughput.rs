//! Measures `AllIsr` write throughput of the default group: N = 200,000
//! writes with the trace off, and N = 2,000 with it on (key `k{i % 64}`,
//! value `v{i}`). Wall-clock time is read here only, never by the protocol.
//!
//! Run: `cargo run --release -p proto-isr --example isr_throughput`

use std::time::Instant;

use proto_isr::{IsrConfig, IsrGroup};
use replication::{AckLevel, Bytes, GroupError, ReplicationGroup};

fn run(n: u64, trace: bool) -> Result<(f64, usize), GroupError> {
    let mut g = IsrGroup::new(IsrConfig::default())?;
    g.trace_mut().set_enabled(trace);
    let start = Instant::now();
    for i in 0..n {
        let w = g.client_write(
            Bytes::from(format!("k{}", i % 64)),
            Bytes::from(format!("v{i}")),
            AckLevel::AllIsr,
        )?;
        if !w.accepted {
            return Err(GroupError::NoLeader(format!(
                "write {i} refused: {}",
                w.message
            )));
        }
    }
    Ok((start.elapsed().as_secs_f64(), g.trace().len()))
}

fn main() -> Result<(), GroupError> {
    // Trace on first: a fresh heap, as a user's single run would see.
    let (secs, events) = run(2_000, true)?;
    println!(
        "trace on:  N =    2000: {:>8.2} ms ({events} events)",
        secs * 1e3
    );
    for n in [2_000u64, 20_000, 200_000] {
        let (secs, _) = run(n, false)?;
        println!(
            "trace off: N = {n:>7}: {:>8.2} ms, {:>10.0} writes/s",
            secs * 1e3,
            n as f64 / secs
        );
    }
    Ok(())
}
