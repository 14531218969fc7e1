//! Operations in flight through the public trait: every async
//! operation completes in the `submit` that starts it, so what overlaps is
//! not one operation with another but an acknowledged write with its own
//! replication — a `Local` read at a replica races the stream.

use proto_async::prelude::*;
use proto_async::{AsyncProbe, Value};

fn group() -> AsyncPrimaryGroup {
    AsyncPrimaryGroup::new(AsyncConfig::default()).expect("default config is valid")
}

fn id(name: &str) -> NodeId {
    NodeId::new(name)
}

fn write(key: &str, value: &str) -> ClientOp {
    ClientOp::write(
        Bytes::copy_from_slice(key.as_bytes()),
        Bytes::copy_from_slice(value.as_bytes()),
        AckLevel::Leader,
    )
}

fn read(key: &str, level: ReadLevel) -> ClientOp {
    ClientOp::read(Bytes::copy_from_slice(key.as_bytes()), level)
}

/// Submits `op` and returns its completion, which must be ready at once:
/// no tick passes and it completes at its submit tick.
fn complete_now(g: &mut AsyncPrimaryGroup, op: ClientOp) -> Completion {
    let tick = g.now();
    let op_id = g.submit(op.clone()).expect("accepted");
    let done = g
        .take_completion(op_id)
        .expect("an async operation completes in its submit");
    assert_eq!(g.now(), tick, "no tick passes");
    assert_eq!((done.id, &done.op), (op_id, &op));
    assert_eq!((done.submitted, done.completed), (tick, tick));
    done
}

fn written(done: &Completion) -> u64 {
    match &done.outcome {
        Outcome::Written { offset, .. } => *offset,
        other => panic!("expected a done write, got {other:?}"),
    }
}

fn value_read(done: &Completion) -> (NodeId, Option<Bytes>, u64) {
    match &done.outcome {
        Outcome::Read(r) => (r.node.clone(), r.value.clone(), r.offset),
        other => panic!("expected a served read, got {other:?}"),
    }
}

fn some(v: &str) -> Option<Bytes> {
    Some(Bytes::copy_from_slice(v.as_bytes()))
}

/// Asserts `submit(op)` is refused with `expected` and changes nothing: no
/// id is used up, no trace event, same probe, no completion queued.
fn refused_at_submit(g: &mut AsyncPrimaryGroup, op: ClientOp, expected: GroupError) {
    let before: (AsyncProbe, usize) = (g.probe(), g.trace().len());
    assert_eq!(g.submit(op), Err(expected));
    assert_eq!((g.probe(), g.trace().len()), before);
    assert!(g.take_completions().is_empty());
}

#[test]
fn a_write_is_done_at_once_its_completion_tick_is_its_submit_tick() {
    let mut g = group();
    for _ in 0..3 {
        g.tick();
    }
    let done = complete_now(&mut g, write("k", "v"));
    assert_eq!(done.submitted, 3);
    assert_eq!(done.outcome.status(), OutcomeStatus::Done);
    assert_eq!(written(&done), 1);
    assert_eq!(done.node, Some(id("primary")));
    // Done while no replica has it: nobody was waited for.
    for replica in ["replica-1", "replica-2"] {
        assert_eq!(g.probe().node(&id(replica)).map(|n| n.offset), Some(0));
    }
    // The trace brackets the protocol's own event with the client's.
    let kinds: Vec<&str> = g.trace().since(1).map(|e| e.kind).collect();
    assert_eq!(
        kinds,
        [
            "client_op_submitted",
            "async_write_applied",
            "client_op_completed"
        ]
    );
    let completed = g
        .trace()
        .of_kind("client_op_completed")
        .next()
        .expect("one");
    assert_eq!(completed.field("outcome"), Some(Value::Str("done".into())));
    assert_eq!(completed.field("offset"), Some(Value::UInt(1)));
}

#[test]
fn three_clients_interleaved_with_ticks_and_a_local_replica_read_races_replication() {
    let mut g = group();
    let (r1, r2) = (id("replica-1"), id("replica-2"));

    // Tick 0. Client A writes; B reads LOCAL at replica-1 before the stream
    // has left the primary; C reads LEADER.
    let a1 = complete_now(&mut g, write("k", "a1"));
    assert_eq!(written(&a1), 1);
    let b1 = complete_now(&mut g, read("k", ReadLevel::Local).at(&r1));
    assert_eq!(value_read(&b1), (r1.clone(), None, 0), "old value: nothing");
    let c1 = complete_now(&mut g, read("k", ReadLevel::Leader));
    assert_eq!(value_read(&c1), (id("primary"), some("a1"), 1));

    // Tick 1: the stream of offset 1 arrives.
    g.tick();
    let b2 = complete_now(&mut g, read("k", ReadLevel::Local).at(&r1));
    assert_eq!(value_read(&b2), (r1.clone(), some("a1"), 1), "new value");
    // Client C overwrites; client A reads replica-2, which races offset 2.
    let c2 = complete_now(&mut g, write("k", "c2"));
    assert_eq!(written(&c2), 2);
    let a2 = complete_now(&mut g, read("k", ReadLevel::Local).at(&r2));
    assert_eq!(value_read(&a2), (r2.clone(), some("a1"), 1), "old value");

    // Tick 2: offset 2 arrives everywhere.
    g.tick();
    let a3 = complete_now(&mut g, read("k", ReadLevel::Local).at(&r2));
    assert_eq!(value_read(&a3), (r2, some("c2"), 2), "new value");
    let b3 = complete_now(&mut g, write("j", "b3"));
    assert_eq!(written(&b3), 3);
    let c3 = complete_now(&mut g, read("j", ReadLevel::Local).at(&r1));
    assert_eq!(value_read(&c3), (r1, None, 2));

    // Ids follow submission order; every completion was taken at once.
    let ids: Vec<u64> = [&a1, &b1, &c1, &b2, &c2, &a2, &a3, &b3, &c3]
        .iter()
        .map(|c| c.id.0)
        .collect();
    assert_eq!(ids, (1..=9).collect::<Vec<_>>());
    assert!(g.take_completions().is_empty());
    g.run_until_idle(10).expect("idle");
    assert!(
        g.take_completions().is_empty(),
        "ticks complete nothing more"
    );
    assert!(g.summary().alive_nodes_agree());
}

#[test]
fn a_write_is_done_before_its_primary_can_crash_and_the_crash_then_loses_it() {
    let mut g = group();
    let done = complete_now(&mut g, write("k", "acked"));
    assert_eq!(done.outcome.status(), OutcomeStatus::Done);
    g.crash(&id("primary"), false).expect("crash");
    assert!(
        g.take_completions().is_empty(),
        "nothing was left in flight"
    );
    // Done is not durable: the promoted replica never received it.
    g.failover(None).expect("promote");
    g.run_until_idle(10).expect("idle");
    let after = complete_now(&mut g, read("k", ReadLevel::Leader));
    assert_eq!(value_read(&after), (id("replica-1"), None, 0));
}

#[test]
fn a_read_is_served_before_its_node_can_crash_and_refused_at_submit_after() {
    let mut g = group();
    complete_now(&mut g, write("k", "v"));
    g.run_until_idle(10).expect("idle");
    let r1 = id("replica-1");
    let served = complete_now(&mut g, read("k", ReadLevel::Local).at(&r1));
    assert_eq!(value_read(&served), (r1.clone(), some("v"), 1));
    g.crash(&r1, false).expect("crash");
    assert!(
        g.take_completions().is_empty(),
        "nothing was left in flight"
    );
    refused_at_submit(
        &mut g,
        read("k", ReadLevel::Local).at(&r1),
        GroupError::NodeDown(r1.clone()),
    );
}

#[test]
fn every_operation_completes_at_once_even_with_the_primary_isolated() {
    let mut g = group();
    let old = id("primary");
    g.isolate(&old).expect("isolate");
    let w = complete_now(&mut g, write("k", "cut-off"));
    assert_eq!(written(&w), 1);
    let local = complete_now(&mut g, read("k", ReadLevel::Local));
    assert_eq!(value_read(&local), (old.clone(), some("cut-off"), 1));
    let leader = complete_now(&mut g, read("k", ReadLevel::Leader));
    assert_eq!(value_read(&leader), (old.clone(), some("cut-off"), 1));
    for _ in 0..5 {
        g.tick();
    }
    // Promote a replica while the old primary is cut off: both sides take
    // writes at once (experiment 3's dirty write via `.at`).
    let new = g.failover(None).expect("promote");
    let dirty = complete_now(&mut g, write("k", "minority").at(&old));
    assert_eq!(
        (written(&dirty), dirty.node.clone()),
        (2, Some(old.clone()))
    );
    let clean = complete_now(&mut g, write("k", "majority"));
    assert_eq!((written(&clean), clean.node.clone()), (1, Some(new)));
    g.run_until_idle(20).expect("idle");
    assert!(g.take_completions().is_empty());
    // After heal the dirty write is gone, as in experiment 3.
    g.heal(&old).expect("heal");
    g.run_until_idle(20).expect("idle");
    let healed = complete_now(&mut g, read("k", ReadLevel::Local).at(&old));
    assert_eq!(value_read(&healed).1, some("majority"));
}

#[test]
fn completions_come_out_in_completion_order_with_their_ticks() {
    let mut g = group();
    let mut submitted = Vec::new();
    for (i, tick) in [0u64, 0, 1, 3, 3].into_iter().enumerate() {
        while g.now() < tick {
            g.tick();
        }
        let op = if i % 2 == 0 {
            write("k", &format!("v{i}"))
        } else {
            read("k", ReadLevel::Local).at(&id("replica-2"))
        };
        submitted.push((g.submit(op).expect("accepted"), tick));
    }
    let out = g.take_completions();
    let got: Vec<(OpId, u64, u64)> = out
        .iter()
        .map(|c| (c.id, c.submitted, c.completed))
        .collect();
    let want: Vec<(OpId, u64, u64)> = submitted.iter().map(|(i, t)| (*i, *t, *t)).collect();
    assert_eq!(got, want);
    assert!(
        out.iter()
            .all(|c| c.outcome.status() == OutcomeStatus::Done)
    );
    assert!(g.take_completions().is_empty(), "taken once");
}

#[test]
fn take_completion_of_one_id_leaves_the_others_queued() {
    let mut g = group();
    let first = g.submit(write("a", "1")).expect("accepted");
    let second = g.submit(read("a", ReadLevel::Leader)).expect("accepted");
    let third = g.submit(write("b", "2")).expect("accepted");
    let taken = g.take_completion(second).expect("completed");
    assert_eq!(value_read(&taken).1, some("1"));
    assert_eq!(g.take_completion(second), None, "taken once");
    let rest: Vec<OpId> = g.take_completions().iter().map(|c| c.id).collect();
    assert_eq!(rest, [first, third]);
}

#[test]
fn submit_errors_change_nothing_and_use_up_no_id() {
    let mut g = group();
    let ghost = id("ghost");
    let r1 = id("replica-1");
    refused_at_submit(
        &mut g,
        write("k", "v").at(&ghost),
        GroupError::UnknownNode(ghost.clone()),
    );
    refused_at_submit(
        &mut g,
        read("k", ReadLevel::Local).at(&ghost),
        GroupError::UnknownNode(ghost),
    );
    for level in [AckLevel::Quorum, AckLevel::AllIsr] {
        refused_at_submit(
            &mut g,
            ClientOp::write("k", "v", level),
            GroupError::UnsupportedAck {
                protocol: "async",
                level,
            },
        );
    }
    g.crash(&r1, false).expect("crash");
    refused_at_submit(
        &mut g,
        read("k", ReadLevel::Local).at(&r1),
        GroupError::NodeDown(r1.clone()),
    );
    refused_at_submit(
        &mut g,
        write("k", "v").at(&r1),
        GroupError::NodeDown(r1.clone()),
    );
    g.restart(&r1).expect("restart");
    // No refusal used up an id.
    assert_eq!(g.submit(write("k", "v")), Ok(OpId(1)));
    assert!(g.take_completion(OpId(1)).is_some());
    // With the primary down: writes name it, LEADER reads find no leader.
    let p = id("primary");
    g.crash(&p, false).expect("crash");
    refused_at_submit(&mut g, write("k", "v"), GroupError::NodeDown(p.clone()));
    refused_at_submit(
        &mut g,
        read("k", ReadLevel::Local),
        GroupError::NodeDown(p.clone()),
    );
    let before = (g.probe(), g.trace().len());
    assert!(matches!(
        g.submit(read("k", ReadLevel::Leader)),
        Err(GroupError::NoLeader(m)) if m.contains("primary primary is down")
    ));
    assert_eq!((g.probe(), g.trace().len()), before);
    assert!(g.take_completions().is_empty());
    assert_eq!(g.trace().count("client_op_submitted"), 1, "op-1 alone");
}

#[test]
fn a_write_sent_to_a_replica_is_refused_at_submit_readonly() {
    let mut g = group();
    let r1 = id("replica-1");
    let before = (g.probe(), g.trace().len());
    match g.submit(write("k", "v").at(&r1)) {
        Err(GroupError::NotPermitted { node, reason }) => {
            assert_eq!(node, r1);
            assert!(reason.starts_with("READONLY"), "{reason}");
        }
        other => panic!("expected READONLY, got {other:?}"),
    }
    assert_eq!((g.probe(), g.trace().len()), before);
    assert!(g.take_completions().is_empty());
    // The same write sent to the primary by name is an ordinary write.
    let done = complete_now(&mut g, write("k", "v").at(&id("primary")));
    assert_eq!(written(&done), 1);
}

#[test]
fn a_linearizable_read_is_refused_at_submit_as_unsupported() {
    let mut g = group();
    for node in [
        None,
        Some(id("primary")),
        Some(id("replica-1")),
        Some(id("ghost")),
    ] {
        let mut op = read("k", ReadLevel::Linearizable);
        if let Some(node) = &node {
            op = op.at(node);
        }
        refused_at_submit(
            &mut g,
            op,
            GroupError::UnsupportedRead {
                protocol: "async",
                level: ReadLevel::Linearizable,
            },
        );
    }
    assert_eq!(g.trace().count("client_op_submitted"), 0);
    assert_eq!(g.submit(read("k", ReadLevel::Leader)), Ok(OpId(1)));
}

#[test]
fn the_blocking_calls_go_through_submit() {
    let mut g = group();
    let ack = g
        .client_write(Bytes::from("k"), Bytes::from("v"), AckLevel::Leader)
        .expect("write");
    assert_eq!((ack.accepted, ack.offset), (true, Some(1)));
    let local = g
        .client_read(b"k", ReadLevel::Local, Some(&id("replica-1")))
        .expect("read");
    assert_eq!(local.value, None);
    assert_eq!(g.trace().count("client_op_submitted"), 2);
    assert_eq!(g.trace().count("client_op_completed"), 2);
    assert!(
        g.take_completions().is_empty(),
        "the blocking calls took theirs"
    );
    assert_eq!(g.now(), 0, "and no tick passed");
}

/// `client_write` takes a shortcut past the in-flight bookkeeping when the
/// write completes in its own call; what anyone can see is what `submit`
/// and `await_completion` give: the same answers, trace and op ids, and no
/// completion left behind. Checked with a plain group, one refusing writes
/// (`min-replicas-to-write` unmet) and one whose writes wait (`WAIT`).
#[test]
fn a_blocking_write_answers_and_traces_as_submit_and_await_do() {
    let configs = [
        AsyncConfig::default(),
        AsyncConfig::default().with_min_replicas(2, 1),
        AsyncConfig::default().with_wait(1, 5),
    ];
    for config in configs {
        let mut fast = AsyncPrimaryGroup::new(config.clone()).expect("valid");
        let mut slow = AsyncPrimaryGroup::new(config.clone()).expect("valid");
        for i in 0..5 {
            let (k, v) = (format!("k{}", i % 2), format!("v{i}"));
            let a = fast.client_write(
                Bytes::from(k.clone()),
                Bytes::from(v.clone()),
                AckLevel::Leader,
            );
            let id = slow.submit(write(&k, &v)).expect("accepted");
            let b = slow
                .await_completion(id)
                .and_then(|c| c.outcome.into_write_result());
            assert_eq!(a, b, "write {i} with {config:?}");
            fast.tick();
            slow.tick();
        }
        assert!(fast.take_completions().is_empty(), "{config:?}");
        assert_eq!(fast.trace().to_text(), slow.trace().to_text(), "{config:?}");
        let (a, b) = (fast.submit(write("k", "v")), slow.submit(write("k", "v")));
        assert_eq!(a.expect("accepted"), b.expect("accepted"), "the next op id");
    }
    // Errors are the same too, and leave nothing behind.
    let mut g = group();
    let err = g.client_write(Bytes::from("k"), Bytes::from("v"), AckLevel::Quorum);
    assert!(
        matches!(err, Err(GroupError::UnsupportedAck { .. })),
        "{err:?}"
    );
    assert_eq!(g.trace().len(), 1, "only the start event");
}
