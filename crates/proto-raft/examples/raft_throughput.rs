//! Measures QUORUM write throughput of a five-node group with the trace
//! off (the issue-8 benchmark shape): `cargo run --release -p proto-raft
//! --example raft_throughput -- 200000`.

use std::time::Instant;

use bytes::Bytes;
use proto_raft::{RaftConfig, RaftGroup};
use replication::{AckLevel, GroupError, NodeId, ReplicationGroup};

fn run(n: u64, trace: bool) -> Result<f64, GroupError> {
    let mut group = RaftGroup::new(RaftConfig {
        nodes: (1..=5).map(|i| NodeId::new(format!("n{i}"))).collect(),
        seed: 7,
        ..RaftConfig::default()
    })?;
    group.trace_mut().set_enabled(trace);
    group.run_until_leader(None, 1_000)?;
    let start = Instant::now();
    for i in 0..n {
        let w = group.client_write(
            Bytes::from(format!("k{}", i % 64)),
            Bytes::from(format!("v{i}")),
            AckLevel::Quorum,
        )?;
        assert!(w.accepted, "write {i} refused: {}", w.message);
    }
    Ok(start.elapsed().as_secs_f64())
}

fn main() -> Result<(), GroupError> {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200_000);
    let secs = run(n, false)?;
    println!(
        "trace off: {n} writes in {secs:.3} s = {:.0} writes/s",
        n as f64 / secs
    );
    let secs = run(2_000, true)?;
    println!("trace on: 2000 writes in {:.1} ms", secs * 1e3);
    Ok(())
}
