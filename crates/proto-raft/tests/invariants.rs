//! Figure 3's properties (and snapshot consistency), checked after every
//! tick of 1,000 seeded runs with random writes, crashes, restarts,
//! isolations and partitions — once with textbook Raft, once with PreVote,
//! CheckQuorum, leadership transfers and snapshots all on.

use bytes::Bytes;
use proto_raft::{InvariantChecker, RaftConfig, RaftGroup};
use replication::ReplicationGroup;
use sim_core::Rng;

fn ticks(g: &mut RaftGroup, checker: &mut InvariantChecker, n: u64, seed: u64) {
    for _ in 0..n {
        g.tick();
        if let Err(violation) = checker.check(g) {
            panic!("seed {seed} tick {}: {violation}", g.now());
        }
    }
}

/// What one schedule ended with.
struct Outcome {
    /// Highest term any node reached.
    term: u64,
    /// Final commit index of the first node.
    commit: u64,
    /// Highest snapshot index of any node.
    snapshot: u64,
}

/// Runs one schedule; with `all_features`, PreVote, CheckQuorum and
/// snapshots every 3 applied entries are on and some ticks start a
/// leadership transfer to a random node.
fn run_schedule(seed: u64, all_features: bool) -> Outcome {
    let cluster = if seed.is_multiple_of(2) { 3 } else { 5 };
    let mut config = RaftConfig::new((1..=cluster).map(|i| format!("n{i}"))).with_seed(seed);
    if all_features {
        config = config.with_all_features(3);
    }
    let mut g = RaftGroup::new(config).expect("valid config");
    g.trace_mut().set_enabled(false);
    let ids = g.node_ids();
    let mut ops = Rng::new(seed ^ 0x5eed_5eed);
    let mut checker = InvariantChecker::new();
    let pick = |ops: &mut Rng| ids[ops.range_inclusive(0, ids.len() as u64 - 1) as usize].clone();
    for op in 0..60u64 {
        let roll = ops.range_inclusive(0, 99);
        match roll {
            0..=39 => {
                let key = Bytes::from(format!("k{}", op % 4));
                let _ = g.propose(key, Bytes::from(format!("v{op}")));
                let n = ops.range_inclusive(1, 3);
                ticks(&mut g, &mut checker, n, seed);
            }
            40..=44 if all_features => {
                let _ = g.transfer_leadership(&pick(&mut ops));
                let n = ops.range_inclusive(1, 6);
                ticks(&mut g, &mut checker, n, seed);
            }
            40..=64 => {
                let n = ops.range_inclusive(1, 6);
                ticks(&mut g, &mut checker, n, seed);
            }
            65..=72 => {
                let _ = g.crash(&pick(&mut ops), false);
            }
            73..=82 => {
                let _ = g.restart(&pick(&mut ops));
            }
            83..=88 => {
                let _ = g.isolate(&pick(&mut ops));
            }
            89..=93 => {
                let (a, b) = (pick(&mut ops), pick(&mut ops));
                let _ = g.partition(&a, &b);
            }
            _ => g.heal_all(),
        }
        checker
            .check(&g)
            .unwrap_or_else(|v| panic!("seed {seed} op {op}: {v}"));
    }
    // Liveness after the storm: heal, restart, converge (still checking).
    g.heal_all();
    for id in &ids {
        let _ = g.restart(id);
    }
    for _ in 0..400 {
        if g.is_converged() {
            break;
        }
        ticks(&mut g, &mut checker, 1, seed);
    }
    assert!(
        g.is_converged(),
        "seed {seed}: no convergence after heal:\n{:#?}",
        g.probe()
    );
    let probe = g.probe();
    Outcome {
        term: probe.nodes.iter().map(|n| n.term).max().unwrap_or(0),
        commit: probe.nodes[0].commit_index,
        snapshot: probe
            .nodes
            .iter()
            .map(|n| n.snapshot_index)
            .max()
            .unwrap_or(0),
    }
}

/// `MINIDIST_SEEDS=50000 cargo test --release …` sweeps further.
fn seed_count() -> u64 {
    match std::env::var("MINIDIST_SEEDS") {
        Err(std::env::VarError::NotPresent) => 1000,
        Ok(text) => text.trim().parse().unwrap_or_else(|_| {
            panic!("MINIDIST_SEEDS={text:?}: expected a whole number of seeds, e.g. 50000")
        }),
        Err(e) => panic!("MINIDIST_SEEDS is not a seed count: {e}"),
    }
}

#[test]
fn thousand_seeded_runs_keep_election_safety_log_matching_leader_completeness_and_state_machine_safety()
 {
    let (mut re_elections, mut committed) = (0, 0);
    let seeds = seed_count();
    for seed in 0..seeds {
        let outcome = run_schedule(seed, false);
        re_elections += u64::from(outcome.term > 1);
        committed += outcome.commit;
        assert_eq!(
            outcome.snapshot, 0,
            "seed {seed}: textbook Raft never compacts"
        );
    }
    // The schedules must actually exercise failover and replication.
    assert!(
        re_elections * 2 > seeds,
        "only {re_elections} runs saw a second term"
    );
    assert!(
        committed > seeds * 10,
        "only {committed} entries committed in total"
    );
}

#[test]
fn thousand_seeded_runs_keep_every_invariant_with_pre_vote_check_quorum_transfer_and_snapshots() {
    let (mut re_elections, mut committed, mut compacted) = (0, 0, 0);
    let seeds = seed_count();
    for seed in 0..seeds {
        let outcome = run_schedule(seed, true);
        re_elections += u64::from(outcome.term > 1);
        committed += outcome.commit;
        compacted += u64::from(outcome.snapshot > 0);
    }
    assert!(
        re_elections * 2 > seeds,
        "only {re_elections} runs saw a second term"
    );
    assert!(
        committed > seeds * 10,
        "only {committed} entries committed in total"
    );
    assert!(
        compacted * 2 > seeds,
        "only {compacted} runs compacted a log"
    );
}
