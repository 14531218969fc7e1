//! Safety invariants over 1,000 seeded random schedules: writes at both
//! levels, crash / restart with and without lose-unfsynced, isolate / heal,
//! promote, fsync, reads, with synchronous and asynchronous standbys and a
//! jittery network. After every step: `check_invariants()` (every WAL a
//! prefix of its timeline's history, contiguous LSNs, data = replay), plus
//! the checks below on QUORUM acknowledgements and applied timelines.

mod common;

use bytes::Bytes;
use proto_wal::{WalConfig, WalRecord, WalShippingGroup};
use replication::{AckLevel, GroupError, ReadLevel, ReplicationGroup};
use sim_core::{NetConfig, NodeId, Rng};

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

/// A QUORUM-acknowledged write and the synchronous standbys that vouched.
struct Acked {
    lsn: u64,
    key: Bytes,
    value: Bytes,
    witnesses: Vec<NodeId>,
}

fn has_record(g: &WalShippingGroup, node: &NodeId, acked: &Acked) -> bool {
    let probe = g.probe();
    let Some(n) = probe.node(node) else {
        return false;
    };
    let records = WalRecord::decode_all(&n.wal).expect("WAL decodes");
    records
        .get(acked.lsn as usize - 1)
        .is_some_and(|r| r.key == acked.key && r.value == acked.value)
}

fn pick<'a>(rng: &mut Rng, ids: &'a [NodeId]) -> &'a NodeId {
    &ids[rng.range_inclusive(0, ids.len() as u64 - 1) as usize]
}

/// Every `wal_record_applied` event since `from` applied a record of the
/// applying node's own timeline (no old-timeline record after promotion).
fn applied_only_current_timeline(g: &WalShippingGroup, from: usize) -> Result<(), String> {
    for event in g.trace().since(from) {
        if event.kind == "wal_record_applied"
            && event.field("timeline") != event.field("node_timeline")
        {
            return Err(format!("old-timeline record applied: {event}"));
        }
    }
    Ok(())
}

fn run_schedule(seed: u64, coverage: &mut Coverage) -> Result<(), String> {
    let mut rng = Rng::new(seed ^ 0x5eed);
    let ids = [
        NodeId::new("primary"),
        NodeId::new("standby-1"),
        NodeId::new("standby-2"),
    ];
    let sync: Vec<NodeId> = match rng.range_inclusive(0, 3) {
        0 => vec![],
        1 => vec![ids[1].clone()],
        2 => vec![ids[2].clone()],
        _ => vec![ids[1].clone(), ids[2].clone()],
    };
    let config = WalConfig::default()
        .with_synchronous_standbys(sync.clone())
        .with_retention(rng.range_inclusive(1, 6) as usize)
        .with_ack_timeout(8)
        .with_seed(seed);
    let net = if seed.is_multiple_of(2) {
        NetConfig::default()
    } else {
        NetConfig::default()
            .with_delay_range(1, 2)
            .with_reorder(0.2, 2)
    };
    let mut g = WalShippingGroup::with_network(config, net).map_err(|e| e.to_string())?;
    let mut acked: Vec<Acked> = Vec::new();
    let mut seen = 0;
    for op in 0..OPS {
        let what = rng.range_inclusive(0, 99);
        let node = pick(&mut rng, &ids).clone();
        let label = match what {
            0..=34 => {
                let level = if rng.chance(0.5) {
                    AckLevel::Quorum
                } else {
                    AckLevel::Leader
                };
                let key = Bytes::from(format!("k{}", rng.range_inclusive(0, 3)));
                let value = Bytes::from(format!("v{seed}-{op}"));
                let primary = g.leader();
                match g.client_write(key.clone(), value.clone(), level) {
                    Ok(w) if w.accepted && level == AckLevel::Quorum => {
                        let lsn = w.offset.ok_or("accepted write without LSN")?;
                        let witnesses: Vec<NodeId> = sync
                            .iter()
                            .filter(|s| Some(*s) != primary.as_ref())
                            .cloned()
                            .collect();
                        let entry = Acked {
                            lsn,
                            key,
                            value,
                            witnesses,
                        };
                        for w in &entry.witnesses {
                            if !has_record(&g, w, &entry) {
                                return Err(format!("op {op}: QUORUM ack at LSN {lsn} not on {w}"));
                            }
                        }
                        acked.push(entry);
                    }
                    Ok(_) | Err(GroupError::NodeDown(_)) | Err(GroupError::NoLeader(_)) => {}
                    Err(e) => return Err(format!("op {op}: write failed: {e}")),
                }
                "write"
            }
            35..=54 => {
                for _ in 0..rng.range_inclusive(1, 3) {
                    g.tick();
                }
                "tick"
            }
            55..=62 => {
                let _ = g.crash(&node, rng.chance(0.5));
                "crash"
            }
            63..=72 => {
                let _ = g.restart(&node);
                "restart"
            }
            73..=78 => {
                let _ = g.isolate(&node);
                "isolate"
            }
            79..=86 => {
                let _ = g.heal(&node);
                "heal"
            }
            87..=92 => {
                let candidate = rng.chance(0.5).then_some(&node);
                if let Ok(new_primary) = g.failover(candidate) {
                    // Acked writes the new primary vouched for must be on it;
                    // the others have no guarantee any more.
                    for entry in &acked {
                        if entry.witnesses.contains(&new_primary)
                            && !has_record(&g, &new_primary, entry)
                        {
                            return Err(format!(
                                "op {op}: QUORUM-acked LSN {} lost by promoting {new_primary}",
                                entry.lsn
                            ));
                        }
                    }
                    acked.retain(|e| e.witnesses.contains(&new_primary));
                }
                "failover"
            }
            93..=96 => {
                let _ = g.fsync(&node);
                "fsync"
            }
            _ => {
                let _ = g.client_read(b"k0", ReadLevel::Local, Some(&node));
                "read"
            }
        };
        g.check_invariants()
            .map_err(|e| format!("op {op} ({label}): {e}"))?;
        applied_only_current_timeline(&g, seen).map_err(|e| format!("op {op} ({label}): {e}"))?;
        seen = g.trace().len();
    }
    // Repair everything: all alive, all connected, then everyone converges.
    let repair_from = g.trace().len();
    for node in &ids {
        let _ = g.restart(node);
        g.heal(node).map_err(|e| e.to_string())?;
    }
    if g.leader().is_none() {
        g.failover(None).map_err(|e| e.to_string())?;
    }
    g.run_until_idle(500).map_err(|e| e.to_string())?;
    g.check_invariants()
        .map_err(|e| format!("after repair: {e}"))?;
    applied_only_current_timeline(&g, seen)?;
    if !g.summary().alive_nodes_agree() {
        let repair: String = g
            .trace()
            .since(repair_from)
            .map(|e| format!("{e}\n"))
            .collect();
        return Err(format!(
            "nodes did not converge after repair: {:?}\n{repair}",
            g.summary()
        ));
    }
    let probe = g.probe();
    if probe.nodes.iter().any(|n| n.timeline != probe.timeline) {
        return Err("a node is not on the newest timeline after repair".into());
    }
    coverage.add(&g);
    Ok(())
}

/// How often the interesting transitions happened over all schedules, so
/// the test cannot pass by never reaching them.
#[derive(Debug, Default)]
struct Coverage {
    counts: std::collections::BTreeMap<&'static str, usize>,
}

const COVERED: [&str; 9] = [
    "wal_promoted",
    "wal_primary_demoted",
    "wal_fenced",
    "wal_catchup_incremental",
    "wal_catchup_full",
    "wal_write_refused",
    "wal_gap_detected",
    "node_crashed",
    "wal_record_skipped",
];

impl Coverage {
    fn add(&mut self, g: &WalShippingGroup) {
        for kind in COVERED {
            *self.counts.entry(kind).or_default() += g.trace().count(kind);
        }
        let quorum = g
            .trace()
            .of_kind("wal_write_acked")
            .filter(|e| e.to_string().contains("QUORUM"))
            .count();
        *self.counts.entry("quorum_acked").or_default() += quorum;
    }
}

#[test]
fn invariants_hold_after_every_step_of_a_thousand_seeded_schedules() {
    let mut coverage = Coverage::default();
    let seeds = seed_count();
    let failures: Vec<String> = (0..seeds)
        .filter_map(|seed| {
            run_schedule(seed, &mut coverage)
                .err()
                .map(|e| format!("seed {seed}: {e}"))
        })
        .take(5)
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    println!("{coverage:?}");
    for (kind, count) in &coverage.counts {
        assert!(
            *count >= 50,
            "{kind} happened only {count} times over {seeds} schedules"
        );
    }
}

#[test]
fn a_seeded_schedule_is_reproducible() {
    let once = |seed| {
        let config = WalConfig::default().with_seed(seed);
        let net = NetConfig::default()
            .with_delay_range(1, 3)
            .with_reorder(0.3, 2);
        let mut g = WalShippingGroup::with_network(config, net).expect("valid config");
        for i in 0..10u32 {
            let _ = g.client_write(
                Bytes::from(format!("k{i}")),
                Bytes::from("v"),
                AckLevel::Leader,
            );
        }
        let _ = g.run_until_idle(100);
        g.trace().to_text()
    };
    assert_eq!(once(3), once(3));
}
