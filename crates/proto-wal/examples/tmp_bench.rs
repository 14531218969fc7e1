//! tmp
use bytes::Bytes;
use proto_wal::{WalConfig, WalShippingGroup};
use replication::{AckLevel, ReplicationGroup};
use sim_core::NodeId;
fn run(n: usize, trace: bool, level: AckLevel) -> f64 {
    let cfg = WalConfig { synchronous_standbys: vec![NodeId::new("standby-1")], ..WalConfig::default() };
    let mut g = WalShippingGroup::new(cfg).unwrap();
    g.trace_mut().set_enabled(trace);
    let t = std::time::Instant::now();
    for i in 0..n {
        let r = g.client_write(Bytes::from(format!("k{}", i % 64)), Bytes::from(format!("v{i}")), level).unwrap();
        assert!(r.accepted);
    }
    t.elapsed().as_secs_f64()
}
fn main() {
    for n in [2000usize, 20000, 200000] {
        let s = run(n, false, AckLevel::Quorum);
        println!("quorum n={n} off: {:.1} ms, {:.0} w/s", s*1e3, n as f64 / s);
    }
    let s = run(200000, false, AckLevel::Leader);
    println!("leader n=200000 off: {:.0} w/s", 200000.0 / s);
    for _ in 0..3 { let s = run(2000, true, AckLevel::Quorum);
    println!("quorum n=2000 trace on: {:.2} ms", s*1e3); }
    let cfg = WalConfig { synchronous_standbys: vec![NodeId::new("standby-1")], ..WalConfig::default() };
    let mut g = WalShippingGroup::new(cfg).unwrap();
    for i in 0..2000 { g.client_write(Bytes::from(format!("k{}", i % 64)), Bytes::from(format!("v{i}")), AckLevel::Quorum).unwrap(); }
    println!("events {}", g.trace().len());
}
