//! Raft beyond Figure 2, with every mechanism on: leadership transfer to a
//! named node, a follower that missed compacted entries catching up with
//! InstallSnapshot, an isolated leader stepping down by itself
//! (CheckQuorum), and a healed node that rejoins without raising the term
//! (PreVote).
//!
//! Run: `cargo run -p proto-raft --example raft_production`

use proto_raft::{AckLevel, GroupError, RaftConfig, RaftGroup, ReplicationGroup};

fn main() -> Result<(), GroupError> {
    // PreVote, CheckQuorum, transfer, and a snapshot every 4 applied entries.
    let mut group = RaftGroup::new(RaftConfig::default().with_all_features(4))?;
    let leader = group.run_until_leader(None, 100)?;
    let others: Vec<_> = group
        .node_ids()
        .into_iter()
        .filter(|n| *n != leader)
        .collect();
    println!("tick {}: {leader} elected", group.now());

    let target = group.failover(Some(&others[0]))?;
    println!("tick {}: leadership transferred to {target}", group.now());

    let lagging = others[1].clone();
    group.crash(&lagging, false)?;
    for i in 0..10 {
        group.client_write(format!("k{i}").into(), "v".into(), AckLevel::Quorum)?;
    }
    group.restart(&lagging)?;
    group.run_until_converged(200)?;
    let probe = group.probe();
    let node = probe.node(&lagging).expect("a configured node");
    println!(
        "tick {}: {lagging} caught up by {} snapshot(s): snapshot index {}, {} keys",
        group.now(),
        group.trace().count("raft_snapshot_installed"),
        node.snapshot_index,
        node.data.len()
    );

    let term = probe.node(&target).expect("a configured node").term;
    group.isolate(&target)?;
    let next = group.failover(None)?;
    for _ in 0..40 {
        group.tick();
    }
    let old = group
        .probe()
        .node(&target)
        .expect("a configured node")
        .clone();
    println!(
        "tick {}: {next} leads; isolated {target} is a {} and still in term {} (was {term})",
        group.now(),
        old.role,
        old.term
    );
    group.heal(&target)?;
    group.run_until_converged(200)?;
    println!(
        "tick {}: healed; {} still leads, {} leader step-down(s) by CheckQuorum",
        group.now(),
        group.leader().expect("a leader"),
        group.trace().count("raft_leader_stepped_down")
    );
    Ok(())
}
