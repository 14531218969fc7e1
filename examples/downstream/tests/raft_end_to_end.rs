//! A downstream user's test of `proto-raft` alone: build a group, write at
//! QUORUM, crash the leader, fail over, read LINEARIZABLE on the new leader
//! — and pin the whole trace with an `insta` snapshot, so any change in how
//! Raft gets there shows up as a reviewed diff (the README's "pin traces").
//!
//! Review a changed snapshot with `cargo insta review` (or run with
//! `INSTA_UPDATE=always` and read the diff in git).

use proto_raft::prelude::*;

#[test]
fn acknowledged_quorum_write_survives_leader_crash_and_is_read_linearizably() {
    let mut group = RaftGroup::new(RaftConfig::default().with_seed(42)).expect("valid config");
    let old_leader = group.run_until_leader(None, 100).expect("a first leader");

    let write = group
        .client_write("k".into(), "v".into(), AckLevel::Quorum)
        .expect("a leader takes the write");
    assert!(write.accepted, "{}", write.message);
    assert_eq!(write.offset, Some(2), "index 1 is the leader's no-op");

    // Crash before any further tick: only a majority's copy can save it.
    group.crash(&old_leader, false).expect("crash");
    let new_leader = group.failover(None).expect("the others elect a leader");
    assert_ne!(new_leader, old_leader);

    let read = group
        .client_read(b"k", ReadLevel::Linearizable, Some(&new_leader))
        .expect("a read-index round on the new leader");
    assert_eq!(read.node, new_leader);
    assert_eq!(read.value.as_deref(), Some(&b"v"[..]), "the acknowledged write survived");

    // Every step, message and client operation, in order.
    let trace = group.trace();
    assert_eq!(trace.count("client_op_submitted"), 2);
    assert_eq!(trace.count("client_op_completed"), 2);
    insta::assert_snapshot!("raft_end_to_end_trace", trace.to_text());
}
