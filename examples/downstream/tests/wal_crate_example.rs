//! The crate-level example of `proto-wal`, copied verbatim: it builds
//! against `proto-wal` alone, so the crate's re-exports suffice.

use proto_wal::prelude::*;

#[test]
fn wal_crate_level_example() -> Result<(), GroupError> {
    let sync = NodeId::new("standby-1");
    let config = WalConfig::default().with_synchronous_standbys([sync.clone()]);
    let mut group = WalShippingGroup::new(config)?;

    // Blocking: a QUORUM write returns once standby-1 has flushed it.
    let ack = group.client_write(Bytes::from("k"), Bytes::from("v"), AckLevel::Quorum)?;
    assert!(ack.accepted);
    let read = group.client_read(b"k", ReadLevel::Local, Some(&sync))?;
    assert_eq!(read.value, Some(Bytes::from("v")));
    let linearizable = group.client_read(b"k", ReadLevel::Linearizable, None);
    assert!(matches!(
        linearizable,
        Err(GroupError::UnsupportedRead { .. })
    ));

    // In flight: two QUORUM writes overlap and complete, in order, in the
    // tick standby-1's flush acknowledgement reaches the primary.
    let a = group.submit(ClientOp::write("a", "1", AckLevel::Quorum))?;
    let b = group.submit(ClientOp::write("b", "2", AckLevel::Quorum))?;
    assert!(group.take_completions().is_empty());
    group.run_until_idle(100)?;
    let done = group.take_completions();
    assert_eq!(done.iter().map(|c| c.id).collect::<Vec<_>>(), vec![a, b]);
    let statuses: Vec<_> = done.iter().map(|c| c.outcome.status()).collect();
    assert_eq!(statuses, [OutcomeStatus::Done; 2]);

    // Cut standby-1 off: the next QUORUM write is appended on the primary
    // but unacknowledged after ack_timeout ticks: unknown, with its LSN (the
    // blocking call answers it as a refused write).
    group.isolate(&sync)?;
    let c = group.submit(ClientOp::write("c", "3", AckLevel::Quorum))?;
    let end = group.await_completion(c)?;
    assert_eq!(end.outcome.status(), OutcomeStatus::Unknown);
    assert_eq!(end.completed - end.submitted, group.config().ack_timeout);
    let answer = end.outcome.into_write_result()?;
    assert_eq!((answer.accepted, answer.offset), (false, Some(4)));
    Ok(())
}
