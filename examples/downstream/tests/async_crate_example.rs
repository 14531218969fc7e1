//! proto-async's crate-level example, copied verbatim: depending on
//! `proto-async` alone is enough to run it.

#[test]
fn async_crate_level_example() {
    use proto_async::prelude::*;

    let mut group = AsyncPrimaryGroup::new(AsyncConfig::default()).unwrap();
    let replica = NodeId::new("replica-1");

    // A write is done the moment the primary applies it: no tick passes.
    let write = group
        .submit(ClientOp::write("k", "v", AckLevel::Leader))
        .unwrap();
    let acked = group.take_completion(write).unwrap();
    assert_eq!(acked.outcome.status(), OutcomeStatus::Done);
    assert_eq!(acked.completed, acked.submitted);

    // Acknowledged, yet the replica does not have it yet…
    let read = group
        .client_read(b"k", ReadLevel::Local, Some(&replica))
        .unwrap();
    assert_eq!(read.value, None);
    // …until the stream is delivered.
    group.run_until_idle(10).unwrap();
    let read = group
        .client_read(b"k", ReadLevel::Local, Some(&replica))
        .unwrap();
    assert_eq!(read.value, Some(Bytes::from("v")));

    // A replica refuses writes (Redis: READONLY) before anything happens.
    let refused = group.submit(ClientOp::write("k", "w", AckLevel::Leader).at(&replica));
    assert!(matches!(refused, Err(GroupError::NotPermitted { .. })));
    assert_eq!(group.probe().leader, Some(NodeId::new("primary")));
}
