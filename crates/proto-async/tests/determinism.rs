//! Same seed and same script ⇒ the identical trace; the trace of a
//! split-brain failover is pinned as a reviewed snapshot.

use proto_async::{AsyncConfig, AsyncPrimaryGroup};
use replication::{AckLevel, Bytes, NodeId, ReplicationGroup};
use sim_core::Rng;

/// A seeded script of writes, faults, promotions and ticks.
fn scripted(seed: u64) -> AsyncPrimaryGroup {
    let mut g = AsyncPrimaryGroup::new(AsyncConfig::default().with_seed(seed)).unwrap();
    let ids = g.node_ids();
    let mut rng = Rng::new(seed);
    for step in 0..200u64 {
        let node = ids[rng.range_inclusive(0, 2) as usize].clone();
        match rng.range_inclusive(0, 9) {
            0..=3 => {
                let _ = g.client_write(
                    Bytes::from(format!("k{}", step % 4)),
                    Bytes::from(step.to_string()),
                    AckLevel::Leader,
                );
            }
            4 => {
                let _ = g.crash(&node, rng.chance(0.5));
            }
            5 => {
                let _ = g.restart(&node);
            }
            6 => {
                let _ = g.isolate(&node);
            }
            7 => {
                let _ = g.heal(&node);
            }
            8 => {
                let _ = g.promote(&node);
            }
            _ => g.tick(),
        }
    }
    g
}

#[test]
fn same_seed_gives_the_identical_trace() {
    for seed in [0, 1, 42] {
        let a = scripted(seed);
        let b = scripted(seed);
        assert!(a.trace().len() > 100);
        assert_eq!(a.trace().to_text(), b.trace().to_text());
        assert_eq!(a.probe(), b.probe());
    }
    assert_ne!(scripted(1).trace().to_text(), scripted(2).trace().to_text());
}

#[test]
fn split_brain_failover_trace_snapshot() {
    let mut g = AsyncPrimaryGroup::new(AsyncConfig::default()).unwrap();
    let primary = NodeId::new("primary");
    g.client_write(Bytes::from("k"), Bytes::from("base"), AckLevel::Leader)
        .unwrap();
    g.run_until_idle(10).unwrap();
    g.isolate(&primary).unwrap();
    g.promote(&NodeId::new("replica-1")).unwrap();
    g.write_at(
        &primary,
        Bytes::from("k"),
        Bytes::from("minority"),
        AckLevel::Leader,
    )
    .unwrap();
    g.client_write(Bytes::from("k"), Bytes::from("majority"), AckLevel::Leader)
        .unwrap();
    g.run_until_idle(10).unwrap();
    g.heal(&primary).unwrap();
    g.run_until_idle(10).unwrap();
    insta::assert_snapshot!("split_brain_failover", g.trace().to_text());
}
