//! Same seed and script ⇒ the identical trace; trace off ⇒ same behaviour.

use proto_raft::{RaftConfig, RaftGroup};
use replication::{AckLevel, ReadLevel, ReplicationGroup};

/// An election, writes, a partition of the leader, failover, heal.
fn script(seed: u64, trace_on: bool) -> RaftGroup {
    let mut g = RaftGroup::new(RaftConfig::default().with_seed(seed)).expect("group");
    g.trace_mut().set_enabled(trace_on);
    let old = g.run_until_leader(None, 100).expect("leader");
    g.client_write("a".into(), "1".into(), AckLevel::Quorum)
        .expect("write");
    g.isolate(&old).expect("isolate");
    g.failover(None).expect("failover");
    let _ = g
        .write_at(&old, "a".into(), "lost".into(), AckLevel::Quorum)
        .expect("attempt");
    g.client_write("a".into(), "2".into(), AckLevel::Quorum)
        .expect("write");
    g.heal(&old).expect("heal");
    g.run_until_converged(200).expect("converged");
    g.client_read(b"a", ReadLevel::Linearizable, None)
        .expect("read");
    g
}

#[test]
fn same_seed_gives_identical_trace_through_election_partition_and_heal() {
    let (a, b) = (script(11, true), script(11, true));
    let text = a.trace().to_text();
    assert_eq!(text, b.trace().to_text());
    for kind in [
        "raft_leader_elected",
        "node_isolated",
        "node_healed",
        "raft_stale_term_rejected",
    ] {
        assert!(a.trace().count(kind) > 0, "script exercises {kind}");
    }
    assert_ne!(
        text,
        script(12, true).trace().to_text(),
        "another seed, another run"
    );
}

#[test]
fn switching_the_trace_off_changes_no_behaviour() {
    let (on, off) = (script(5, true), script(5, false));
    // Only the construction event, recorded before recording was switched off.
    assert_eq!(off.trace().len(), 1);
    assert_eq!(
        off.trace().get(0).map(|e| e.kind),
        Some("raft_group_started")
    );
    assert_eq!(on.probe(), off.probe());
}
