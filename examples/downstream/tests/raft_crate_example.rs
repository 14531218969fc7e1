//! The crate-level example of `proto-raft`, verbatim: it builds with
//! `proto-raft` as the only MiniDist dependency.

use proto_raft::prelude::*;

#[test]
fn raft_crate_level_example() {
    let mut group = RaftGroup::new(RaftConfig::default()).unwrap();
    let leader = group.run_until_leader(None, 100).unwrap();

    // Blocking: submit + await_completion.
    let w = group.client_write("k".into(), "v".into(), AckLevel::Quorum).unwrap();
    assert_eq!((w.accepted, w.offset), (true, Some(2))); // index 1 is the no-op

    // In flight: two writes and a read at once, completions as ticks pass.
    let a = group.submit(ClientOp::write("a", "1", AckLevel::Quorum)).unwrap();
    let b = group.submit(ClientOp::write("b", "2", AckLevel::Quorum)).unwrap();
    let r = group.submit(ClientOp::read("k", ReadLevel::Linearizable)).unwrap();
    let mut done = Vec::new();
    while done.len() < 3 {
        group.tick();
        done.extend(group.take_completions());
    }
    assert!(done.iter().all(|c| c.outcome.status() == OutcomeStatus::Done));
    let ids: Vec<OpId> = done.iter().map(|c| c.id).collect();
    assert_eq!(ids, [a, b, r]); // both writes commit in one round, in index order
    let Outcome::Read(read) = &done[2].outcome else { panic!("a served read") };
    assert_eq!((read.value.as_deref(), &read.node), (Some(&b"v"[..]), &leader));
}
