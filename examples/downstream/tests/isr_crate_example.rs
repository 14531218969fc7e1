//! The crate-level example of `proto-isr`, copied verbatim: it builds with
//! `proto-isr` as the only MiniDist dependency.

#[test]
fn isr_crate_level_example_runs_with_proto_isr_alone() -> Result<(), proto_isr::GroupError> {
    use proto_isr::prelude::*;

    // Three replicas led by the first; min.insync.replicas 2, ack timeout 32.
    let mut g = IsrGroup::new(IsrConfig::with_nodes(["a", "b", "c"]))?;

    // Blocking: returns once every ISR member holds the entry and HW covers it.
    let w = g.client_write(Bytes::from("k"), Bytes::from("v1"), AckLevel::AllIsr)?;
    assert!(w.accepted);

    // In flight: two ALL_ISR writes overlap; submitting lets no time pass.
    let first = g.submit(ClientOp::write("k", "v2", AckLevel::AllIsr))?;
    let second = g.submit(ClientOp::write("k", "v3", AckLevel::AllIsr))?;

    // Reads are answered at once. The leader holds entries above HW, so a
    // LINEARIZABLE read fails (blocked); a LEADER read already sees v3.
    let read = g.submit(ClientOp::read("k", ReadLevel::Linearizable))?;
    let blocked = g.take_completion(read).expect("reads complete at submission");
    assert_eq!(blocked.outcome.status(), OutcomeStatus::Failed);
    let leader_read = g.client_read(b"k", ReadLevel::Leader, None)?;
    assert_eq!(leader_read.value, Some(Bytes::from("v3")));

    // Time passes: both writes complete, in offset order.
    let mut done = Vec::new();
    for _ in 0..g.config().ack_timeout {
        g.tick();
        done.extend(g.take_completions());
    }
    let ids: Vec<OpId> = done.iter().map(|c| c.id).collect();
    assert_eq!(ids, vec![first, second]);
    assert!(done.iter().all(|c| c.outcome.status() == OutcomeStatus::Done));

    let read = g.client_read(b"k", ReadLevel::Linearizable, None)?;
    assert_eq!(read.value, Some(Bytes::from("v3")));
    assert_eq!(g.probe().leader, Some(NodeId::new("a")));
    assert!(g.check_invariants().is_ok());
    Ok::<(), GroupError>(())
}
