//! `WAIT numreplicas timeout` (a `Leader` write followed by `WAIT`, and the
//! blocking call) and `min-replicas-to-write` / `min-replicas-max-lag`.

use proto_async::prelude::*;
use sim_core::Value;

fn n(id: &str) -> NodeId {
    NodeId::new(id)
}

fn wait_1() -> AsyncPrimaryGroup {
    AsyncPrimaryGroup::new(AsyncConfig::default().with_wait(1, 5)).unwrap()
}

#[test]
fn wait_1_write_completes_only_after_a_replica_acknowledges_its_offset() {
    let mut g = wait_1();
    let id = g
        .submit(ClientOp::write("k", "v", AckLevel::Leader))
        .unwrap();
    assert!(g.take_completion(id).is_none(), "WAIT blocks the client");
    let mut done = None;
    for _ in 0..5 {
        g.tick();
        if let Some(c) = g.take_completion(id) {
            done = Some(c);
            break;
        }
    }
    let done = done.expect("a replica acknowledges within the timeout");
    assert_eq!(done.outcome.status(), OutcomeStatus::Done);
    assert!(done.completed > done.submitted);
    let acks = g.trace().of_kind("async_ack_received").count();
    assert!(acks >= 1, "the primary recorded REPLCONF ACKs");
    let returned = g.trace().of_kind("async_wait_returned").next().unwrap();
    assert_eq!(returned.field("result"), Some(Value::Str("reached".into())));
}

#[test]
fn wait_1_write_is_unknown_when_no_replica_acknowledges_within_the_timeout() {
    let mut g = wait_1();
    g.isolate(&n("replica-1")).unwrap();
    g.isolate(&n("replica-2")).unwrap();
    let id = g
        .submit(ClientOp::write("k", "v", AckLevel::Leader))
        .unwrap();
    let done = g.await_completion(id).unwrap();
    assert_eq!(done.outcome.status(), OutcomeStatus::Unknown);
    assert_eq!(
        done.completed - done.submitted,
        5,
        "WAIT's timeout bounds it"
    );
    // Applied at the primary all the same: WAIT never undoes a write.
    let read = g.client_read(b"k", ReadLevel::Leader, None).unwrap();
    assert_eq!(read.value, Some(Bytes::from("v")));
}

#[test]
fn wait_1_acknowledged_write_is_lost_by_a_failover_to_a_replica_that_had_not_acknowledged() {
    let mut g = wait_1();
    g.isolate(&n("replica-2")).unwrap();
    let ack = g
        .client_write(Bytes::from("k"), Bytes::from("v"), AckLevel::Leader)
        .unwrap();
    assert!(ack.accepted, "replica-1 acknowledged: WAIT 1 returned 1");
    g.crash(&n("primary"), false).unwrap();
    g.heal(&n("replica-2")).unwrap();
    g.promote(&n("replica-2")).unwrap();
    g.run_until_idle(100).unwrap();
    let read = g.client_read(b"k", ReadLevel::Leader, None).unwrap();
    assert_eq!(read.value, None, "WAIT did not make the write durable");
}

#[test]
fn blocking_wait_returns_how_many_replicas_acknowledged() {
    let mut g = AsyncPrimaryGroup::new(AsyncConfig::default().with_wait(1, 5)).unwrap();
    g.isolate(&n("replica-2")).unwrap();
    g.submit(ClientOp::write("k", "v", AckLevel::None)).unwrap();
    assert_eq!(g.wait(2, 4).unwrap(), 1, "only replica-1 can acknowledge");
    assert!(matches!(g.wait(0, 4), Err(GroupError::Config { .. })));
    assert!(matches!(g.wait(3, 4), Err(GroupError::Config { .. })));
}

#[test]
fn wait_and_min_replicas_settings_are_validated_by_name() {
    let bad = [
        (AsyncConfig::default().with_wait(0, 5), "wait.numreplicas"),
        (AsyncConfig::default().with_wait(3, 5), "wait.numreplicas"),
        (AsyncConfig::default().with_wait(1, 0), "wait.timeout"),
        (
            AsyncConfig::default().with_min_replicas(3, 2),
            "min_replicas_to_write",
        ),
        (
            AsyncConfig::default().with_min_replicas(1, 0),
            "min_replicas_max_lag",
        ),
    ];
    for (config, setting) in bad {
        let err = AsyncPrimaryGroup::new(config).unwrap_err();
        assert!(err.to_string().contains(setting), "{setting}: {err}");
    }
}

#[test]
fn cut_off_primary_refuses_writes_once_min_replicas_max_lag_passes() {
    let mut g = AsyncPrimaryGroup::new(AsyncConfig::default().with_min_replicas(1, 2)).unwrap();
    let primary = n("primary");
    g.isolate(&primary).unwrap();
    // Within max-lag: still accepted (the last heartbeat was recent).
    let early = g
        .client_write(Bytes::from("k"), Bytes::from("early"), AckLevel::Leader)
        .unwrap();
    assert!(early.accepted);
    for _ in 0..3 {
        g.tick();
    }
    let id = g
        .submit(ClientOp::write("k", "late", AckLevel::Leader))
        .unwrap();
    let done = g.take_completion(id).unwrap();
    assert_eq!(done.outcome.status(), OutcomeStatus::Failed);
    let Outcome::Failed { message, .. } = &done.outcome else {
        unreachable!()
    };
    assert!(message.contains("min-replicas-to-write"), "{message}");
    let refused = g.trace().of_kind("async_write_refused").next().unwrap();
    assert_eq!(
        refused.field("reason"),
        Some(Value::Str("min_replicas_to_write".into()))
    );
    // Refused before append: the primary still holds "early".
    let read = g.client_read(b"k", ReadLevel::Leader, None).unwrap();
    assert_eq!(read.value, Some(Bytes::from("early")));
}

#[test]
fn connected_primary_keeps_accepting_writes_with_min_replicas_set() {
    let mut g = AsyncPrimaryGroup::new(AsyncConfig::default().with_min_replicas(2, 2)).unwrap();
    for _ in 0..10 {
        g.tick();
    }
    let ack = g
        .client_write(Bytes::from("k"), Bytes::from("v"), AckLevel::Leader)
        .unwrap();
    assert!(ack.accepted);
}

#[test]
fn wait_1_write_is_unknown_when_its_primary_crashes_while_it_waits() {
    let mut g = wait_1();
    g.isolate(&n("replica-1")).unwrap();
    g.isolate(&n("replica-2")).unwrap();
    let id = g
        .submit(ClientOp::write("k", "v", AckLevel::Leader))
        .unwrap();
    g.tick();
    assert!(g.take_completion(id).is_none());
    g.crash(&n("primary"), false).unwrap();
    let done = g.take_completion(id).expect("settled by the crash");
    assert_eq!(done.outcome.status(), OutcomeStatus::Unknown);
    assert!(matches!(
        done.outcome,
        Outcome::Unknown {
            offset: Some(1),
            ..
        }
    ));
}

fn min_replicas_1() -> AsyncPrimaryGroup {
    AsyncPrimaryGroup::new(AsyncConfig::default().with_min_replicas(1, 2)).unwrap()
}

fn write_now(g: &mut AsyncPrimaryGroup, value: &'static str) -> replication::WriteResult {
    g.client_write(Bytes::from("k"), Bytes::from(value), AckLevel::Leader)
        .unwrap()
}

/// A primary that was down hears from no replica while down: restarted
/// after longer than `min-replicas-max-lag`, it refuses writes until a
/// replica is heard from again (the next tick), as Redis does until its
/// replicas reconnect.
#[test]
fn a_restarted_primary_counts_no_replica_heard_while_it_was_down() {
    let mut g = min_replicas_1();
    g.tick();
    assert!(write_now(&mut g, "before").accepted);
    g.crash(&n("primary"), false).unwrap();
    for _ in 0..5 {
        g.tick();
    }
    g.restart(&n("primary")).unwrap();
    let refused = write_now(&mut g, "right after restart");
    assert!(!refused.accepted, "{refused:?}");
    assert!(refused.message.contains("NOREPLICAS"), "{refused:?}");
    g.tick();
    assert!(write_now(&mut g, "a tick later").accepted);
}

/// A power loss forgets which replicas the primary heard from (and their
/// acknowledged offsets): right after the restart, before any tick, no
/// replica counts, however recently it was heard from before the loss.
#[test]
fn a_power_loss_forgets_the_replicas_a_primary_had_heard_from() {
    let mut g = min_replicas_1();
    g.tick();
    assert!(write_now(&mut g, "before").accepted);
    g.crash(&n("primary"), true).unwrap();
    g.restart(&n("primary")).unwrap();
    let refused = write_now(&mut g, "right after restart");
    assert!(!refused.accepted, "{refused:?}");
    assert!(refused.message.contains("NOREPLICAS"), "{refused:?}");
}
