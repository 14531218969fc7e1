//! How fast the simulator runs the asynchronous write path: N `LEADER`
//! writes with the trace switched off, then delivery of everything queued.
//!
//! Run: `cargo run --release -p proto-async --example async_throughput [N]`

use std::time::Instant;

use proto_async::{AsyncConfig, AsyncPrimaryGroup};
use replication::{AckLevel, Bytes, GroupError, ReplicationGroup};

fn run(n: u64, trace: bool) -> Result<(f64, f64), GroupError> {
    let mut group = AsyncPrimaryGroup::new(AsyncConfig::default())?;
    group.trace_mut().set_enabled(trace);
    let writes: Vec<(Bytes, Bytes)> = (0..n)
        .map(|i| {
            (
                Bytes::from(format!("k{}", i % 64)),
                Bytes::from(format!("v{i}")),
            )
        })
        .collect();
    let start = Instant::now();
    for (key, value) in writes {
        let ack = group.client_write(key, value, AckLevel::Leader)?;
        assert!(ack.accepted, "a LEADER write is accepted");
    }
    let written = start.elapsed().as_secs_f64();
    group.run_until_idle(10)?;
    let total = start.elapsed().as_secs_f64();
    assert!(group.summary().alive_nodes_agree(), "replicas converge");
    Ok((written, total))
}

fn main() -> Result<(), GroupError> {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200_000);
    let (written, total) = run(n, false)?;
    println!(
        "trace off: {n} writes in {:.1} ms ({:.2} M writes/s); with delivery {:.1} ms",
        written * 1e3,
        n as f64 / written / 1e6,
        total * 1e3
    );
    let (_, total) = run(2_000, true)?;
    println!("trace on: 2000 writes + delivery in {:.2} ms", total * 1e3);
    Ok(())
}
