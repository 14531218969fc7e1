//! SPEC §6 safety invariants over 1,000 seeded random schedules of writes at
//! both levels, LINEARIZABLE reads, isolate / heal, crash (with and without
//! power loss) / restart, slow replicas and controller elections, checked
//! after every operation and every tick (including the ticks an `AllIsr`
//! write drives while it waits), with a single client checking that
//! no LINEARIZABLE read returns a value older than the last acknowledged
//! ALL_ISR write of its key.

use std::collections::BTreeMap;

use proto_isr::{IsrConfig, IsrGroup, IsrProbe, LogEntry};
use replication::{AckLevel, Bytes, NodeId, ReadLevel, ReplicationGroup};
use sim_core::Rng;

/// Seeded schedules to run: 1,000 by default; `MINIDIST_SEEDS=50000 cargo
/// test --release …` sweeps further.
fn seed_count() -> u64 {
    match std::env::var("MINIDIST_SEEDS") {
        Err(std::env::VarError::NotPresent) => 1_000,
        Ok(text) => text.trim().parse().unwrap_or_else(|_| {
            panic!("MINIDIST_SEEDS={text:?}: expected a whole number of seeds, e.g. 50000")
        }),
        Err(e) => panic!("MINIDIST_SEEDS is not a seed count: {e}"),
    }
}
const OPS: usize = 60;

/// State the checker carries across steps.
#[derive(Default)]
struct History {
    hw: u64,
    applied: BTreeMap<NodeId, u64>,
    /// Acknowledged ALL_ISR writes: the entry as the leader held it at ack.
    acked: Vec<LogEntry>,
    /// Per key: index (in write order) of the last acknowledged ALL_ISR write.
    last_acked: BTreeMap<Bytes, u64>,
    /// Per value: its write index (values are unique).
    write_index: BTreeMap<Bytes, u64>,
}

fn check(g: &IsrGroup, h: &mut History, seed: u64, step: &str) {
    if let Err(v) = g.check_invariants() {
        panic!("seed {seed} after {step}: {v}");
    }
    if let Some(v) = g.invariant_violation() {
        panic!("seed {seed} during {step}: {v}");
    }
    let p: IsrProbe = g.probe();
    assert!(
        p.high_watermark >= h.hw,
        "seed {seed} after {step}: HW moved back"
    );
    h.hw = p.high_watermark;
    for node in &p.nodes {
        let id = &node.id;
        let prev = h.applied.insert(id.clone(), node.applied_hw).unwrap_or(0);
        assert!(
            node.applied_hw >= prev,
            "seed {seed} after {step}: {id} applied_hw moved back"
        );
    }
    // 1. Acknowledged ALL_ISR writes are never lost nor replaced: the
    //    current leader (when it can serve) holds each at its offset, and
    //    every alive ISR member that holds that offset holds the same entry.
    if let Some(leader) = p.leader.as_ref().and_then(|l| p.node(l)) {
        for entry in &h.acked {
            let at = leader.log.get((entry.offset - 1) as usize);
            assert_eq!(
                at,
                Some(entry),
                "seed {seed} after {step}: acked write lost on leader"
            );
            assert!(
                entry.offset <= p.high_watermark,
                "seed {seed}: acked above HW"
            );
        }
    }
}

fn run_seed(seed: u64) {
    let mut rng = Rng::new(seed ^ 0xD1CE);
    let nodes: Vec<NodeId> = (1..=3).map(|i| NodeId::new(format!("node-{i}"))).collect();
    let config = IsrConfig::default()
        .with_seed(seed)
        .with_min_insync_replicas(rng.range_inclusive(1, 3) as usize)
        .with_replica_lag_timeout(rng.range_inclusive(1, 4))
        .with_retention(rng.range_inclusive(2, 6) as usize)
        .with_ack_timeout(rng.range_inclusive(4, 10))
        .with_lease_duration(rng.range_inclusive(1, 6));
    let mut g = IsrGroup::new(config).expect("valid config");
    g.trace_mut().set_enabled(seed.is_multiple_of(10));
    g.set_invariant_checks(true);
    let mut h = History::default();
    let mut writes = 0u64;
    for op in 0..OPS {
        let pick = |rng: &mut Rng| nodes[rng.range_inclusive(0, 2) as usize].clone();
        let roll = rng.range_inclusive(0, 99);
        let step = format!("op {op} roll {roll}");
        let before = g.probe();
        let result: Result<(), replication::GroupError> = match roll {
            0..=19 => {
                let key = Bytes::from(format!("k{}", rng.range_inclusive(0, 2)));
                let value = Bytes::from(format!("v{writes}"));
                h.write_index.insert(value.clone(), writes);
                let level = if roll < 8 {
                    AckLevel::Leader
                } else {
                    AckLevel::AllIsr
                };
                let r = g.client_write(key.clone(), value.clone(), level);
                let acked = matches!(&r, Ok(w) if w.accepted) && level == AckLevel::AllIsr;
                if let (true, Ok(w)) = (acked, &r) {
                    let offset = w.offset.expect("accepted write has an offset");
                    let p = g.probe();
                    let leader = p.node(&p.controller_leader).expect("the leader is a node");
                    let entry = leader.log[(offset - 1) as usize].clone();
                    assert_eq!((&entry.key, &entry.value), (&key, &value));
                    h.acked.push(entry);
                    h.last_acked.insert(key, writes);
                }
                writes += 1;
                r.map(|_| ())
            }
            20..=29 => {
                let key = Bytes::from(format!("k{}", rng.range_inclusive(0, 2)));
                let r = if roll < 25 {
                    g.client_read(&key, ReadLevel::Linearizable, None)
                } else {
                    let node = pick(&mut rng);
                    g.lease_read(&node, &key)
                };
                if let Ok(read) = &r {
                    match (&read.value, h.last_acked.get(&key)) {
                        (Some(v), last) => {
                            let idx = h.write_index.get(v).copied();
                            assert!(idx.is_some(), "seed {seed}: read a value nobody wrote");
                            if let (Some(idx), Some(last)) = (idx, last) {
                                assert!(
                                    idx >= *last,
                                    "seed {seed} {step}: LINEARIZABLE read older than acked write"
                                );
                            }
                        }
                        (None, Some(_)) => {
                            panic!("seed {seed} {step}: LINEARIZABLE read lost an acked write")
                        }
                        (None, None) => {}
                    }
                }
                r.map(|_| ())
            }
            30..=49 => {
                let n = rng.range_inclusive(1, 3);
                for t in 0..n {
                    g.tick();
                    check(&g, &mut h, seed, &format!("{step} tick {t}"));
                }
                Ok(())
            }
            50..=55 => g.isolate(&pick(&mut rng)),
            56..=63 => g.heal(&pick(&mut rng)),
            64..=68 => {
                let node = pick(&mut rng);
                let power_loss = roll == 68;
                if power_loss {
                    // A power loss may shorten the log below the node's
                    // applied HW, which then drops to the new log end.
                    h.applied.remove(&node);
                }
                g.crash(&node, power_loss)
            }
            69..=77 => g.restart(&pick(&mut rng)),
            78..=82 => g.set_replica_slow(&pick(&mut rng), true),
            83..=88 => g.set_replica_slow(&pick(&mut rng), false),
            89..=93 => g.failover(None).map(|_| ()),
            94..=96 => g.controller_elect(&pick(&mut rng)).map(|_| ()),
            _ => g.fsync(&pick(&mut rng)),
        };
        if result.is_err() {
            assert_eq!(
                g.probe(),
                before,
                "seed {seed} {step}: an Err changed state: {result:?}"
            );
        }
        check(&g, &mut h, seed, &step);
    }
    // Heal everything and settle: still safe.
    for node in &nodes {
        let _ = g.restart(node);
        let _ = g.heal(node);
        let _ = g.set_replica_slow(node, false);
    }
    let _ = g.run_until_idle(500);
    check(&g, &mut h, seed, "final settle");
}

#[test]
fn safety_invariants_hold_after_every_step_over_1000_seeded_schedules() {
    for seed in 0..seed_count() {
        run_seed(seed);
    }
}
