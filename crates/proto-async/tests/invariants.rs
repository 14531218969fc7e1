//! Safety invariants over 1,000 seeded random schedules, checked after every
//! operation and every tick:
//!
//! - every node's data equals its history's data at its offset (a replica
//!   never holds anything but a prefix of the lineage its replication id
//!   names);
//! - applying streamed or backlog entries advances a node's offset by
//!   exactly one per entry (`prev_offset + entries == offset`);
//! - nothing from a superseded generation is ever applied;
//! - the group's own structural checks (`check_invariants`) hold.
//!
//! After healing and restarting everything, every node converges.

use std::collections::BTreeMap;

use proto_async::{AsyncConfig, AsyncPrimaryGroup, AsyncProbe};
use replication::{AckLevel, Bytes, NodeId, ReadLevel, ReplicationGroup};
use sim_core::{Rng, Value};

/// One history: the data it started from and the writes appended to it.
struct Lineage {
    base_offset: u64,
    base: BTreeMap<Bytes, Bytes>,
    writes: Vec<(Bytes, Bytes)>,
}

impl Lineage {
    fn at(&self, offset: u64) -> Option<BTreeMap<Bytes, Bytes>> {
        let n = usize::try_from(offset.checked_sub(self.base_offset)?).ok()?;
        let mut data = self.base.clone();
        for (k, v) in self.writes.get(..n)? {
            data.insert(k.clone(), v.clone());
        }
        Some(data)
    }
}

struct Model {
    lineages: BTreeMap<String, Lineage>,
    generation: u64,
    checked_events: usize,
}

impl Model {
    fn new() -> Self {
        let mut lineages = BTreeMap::new();
        lineages.insert(
            "repl-1".to_owned(),
            Lineage {
                base_offset: 0,
                base: BTreeMap::new(),
                writes: vec![],
            },
        );
        Model {
            lineages,
            generation: 1,
            checked_events: 0,
        }
    }

    /// Registers a lineage started by a promotion or a history reset.
    fn observe_generation(&mut self, probe: &AsyncProbe) {
        if probe.generation != self.generation {
            self.generation = probe.generation;
            let primary = probe.node(&probe.primary).expect("primary is probed");
            let fresh = self.lineages.insert(
                probe.replication_id.clone(),
                Lineage {
                    base_offset: primary.offset,
                    base: primary.data.clone(),
                    writes: vec![],
                },
            );
            assert!(
                fresh.is_none(),
                "replication id {} reused",
                probe.replication_id
            );
        }
    }

    fn record_write(&mut self, probe: &AsyncProbe, node: &NodeId, offset: u64, k: Bytes, v: Bytes) {
        let replid = &probe.node(node).expect("writer is probed").replication_id;
        let lineage = self
            .lineages
            .get_mut(replid)
            .expect("writer's lineage is known");
        assert_eq!(
            lineage.base_offset + lineage.writes.len() as u64 + 1,
            offset,
            "write offsets are dense"
        );
        lineage.writes.push((k, v));
    }

    fn check(&mut self, g: &AsyncPrimaryGroup, context: &str) {
        if let Err(broken) = g.check_invariants() {
            panic!("{context}: {broken}");
        }
        let probe = g.probe();
        for node in &probe.nodes {
            let lineage = self.lineages.get(&node.replication_id).unwrap_or_else(|| {
                panic!(
                    "{context}: {} holds unknown history {}",
                    node.id, node.replication_id
                )
            });
            let expected = lineage.at(node.offset).unwrap_or_else(|| {
                panic!(
                    "{context}: {} at offset {} outside history {}",
                    node.id, node.offset, node.replication_id
                )
            });
            assert_eq!(
                node.data, expected,
                "{context}: {} diverges from {} at offset {}",
                node.id, node.replication_id, node.offset
            );
        }
        for event in g.trace().since(self.checked_events) {
            let uint = |k: &str| match event.field(k) {
                Some(Value::UInt(v)) => v,
                other => panic!("{context}: {} field {k} = {other:?}", event.kind),
            };
            match event.kind {
                "async_stream_applied" | "async_partial_sync_applied" => {
                    assert_eq!(
                        uint("prev_offset") + uint("entries"),
                        uint("offset"),
                        "{context}: {event}"
                    );
                    assert_eq!(
                        uint("generation"),
                        self.generation,
                        "{context}: superseded apply {event}"
                    );
                }
                "async_full_sync_applied" => {
                    assert_eq!(
                        uint("generation"),
                        self.generation,
                        "{context}: superseded apply {event}"
                    );
                }
                _ => {}
            }
        }
        self.checked_events = g.trace().len();
    }
}

fn run_schedule(seed: u64, seen: &mut BTreeMap<String, usize>) {
    let mut g = AsyncPrimaryGroup::new(AsyncConfig::default().with_backlog_size(3).with_seed(seed))
        .expect("valid config");
    let ids = g.node_ids();
    let mut rng = Rng::new(seed ^ 0xA5A5_5A5A);
    let mut model = Model::new();
    let keys = [Bytes::from("a"), Bytes::from("b"), Bytes::from("c")];
    for step in 0..60 {
        let node = ids[rng.range_inclusive(0, ids.len() as u64 - 1) as usize].clone();
        let roll = rng.range_inclusive(0, 99);
        let context = format!("seed {seed} step {step} roll {roll} node {node}");
        let key = keys[rng.range_inclusive(0, 2) as usize].clone();
        let value = Bytes::from(format!("s{seed}-{step}"));
        match roll {
            0..=24 => {
                if let Ok(ack) = g.client_write(key.clone(), value.clone(), AckLevel::Leader) {
                    let writer = g.leader().expect("a write succeeded at the primary");
                    model.record_write(
                        &g.probe(),
                        &writer,
                        ack.offset.expect("offset"),
                        key,
                        value,
                    );
                }
            }
            25..=31 => {
                if let Ok(ack) = g.write_at(&node, key.clone(), value.clone(), AckLevel::None) {
                    model.record_write(&g.probe(), &node, ack.offset.expect("offset"), key, value);
                }
            }
            32..=35 => {
                let _ = g.client_read(&key, ReadLevel::Local, Some(&node));
            }
            36..=41 => {
                let _ = g.crash(&node, rng.chance(0.5));
            }
            42..=49 => {
                let _ = g.restart(&node);
            }
            50..=54 => {
                let _ = g.isolate(&node);
            }
            55..=61 => {
                let _ = g.heal(&node);
            }
            62..=66 => {
                let _ = g.promote(&node);
            }
            67..=70 => {
                let _ = g.fsync(&node);
            }
            _ => g.tick(),
        }
        model.observe_generation(&g.probe());
        model.check(&g, &context);
    }
    // Heal and restart everything: the group converges on the primary.
    for node in &ids {
        let _ = g.restart(node);
        model.observe_generation(&g.probe());
    }
    for node in &ids {
        g.heal(node).expect("known node");
        model.observe_generation(&g.probe());
    }
    for _ in 0..50 {
        if g.run_until_idle(1).is_ok() {
            break;
        }
        model.check(&g, &format!("seed {seed} drain"));
    }
    model.check(&g, &format!("seed {seed} end"));
    let summary = g.summary();
    assert!(
        summary.alive_nodes_agree(),
        "seed {seed}: not converged: {:?}",
        g.probe()
    );
    for event in g.trace().events() {
        *seen.entry(event.kind.to_string()).or_default() += 1;
    }
}

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

#[test]
fn invariants_hold_after_every_step_of_1000_random_schedules() {
    let mut seen = BTreeMap::new();
    for seed in 0..seed_count() {
        run_schedule(seed, &mut seen);
    }
    // The schedules really exercise every mechanism.
    for kind in [
        "async_promoted",
        "async_demoted",
        "async_demotion_deferred",
        "async_history_reset",
        "async_full_sync_applied",
        "async_partial_sync_applied",
        "async_gap_detected",
        "async_stream_flushed",
        "async_message_rejected",
        "async_psync_refused",
    ] {
        assert!(
            seen.get(kind).copied().unwrap_or(0) > 0,
            "no {kind} in any schedule: {seen:?}"
        );
    }
}
