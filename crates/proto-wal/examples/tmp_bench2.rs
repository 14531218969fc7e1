//! tmp
use bytes::Bytes;
use proto_wal::{WalConfig, WalShippingGroup};
use replication::{AckLevel, ReplicationGroup};
use sim_core::NodeId;
fn main() {
    for round in 0..3 {
        let cfg = WalConfig { synchronous_standbys: vec![NodeId::new("standby-1")], ..WalConfig::default() };
        let mut g = WalShippingGroup::new(cfg).unwrap();
        let t = std::time::Instant::now();
        for i in 0..2000 {
            let r = g.client_write(Bytes::from(format!("k{}", i % 64)), Bytes::from(format!("v{i}")), AckLevel::Quorum).unwrap();
            assert!(r.accepted);
        }
        println!("round {round} trace on 2000: {:.2} ms ({} events)", t.elapsed().as_secs_f64() * 1e3, g.trace().len());
    }
}
