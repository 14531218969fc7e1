//! Operations in flight, through the public trait: `submit`,
//! `take_completions`, `take_completion`, and the outcome each ISR
//! situation gives (*done*, *failed*, *unknown*).

use proto_isr::prelude::*;
use proto_isr::{IsrProbe, Tick};

fn n(name: &str) -> NodeId {
    NodeId::new(name)
}

fn group(config: IsrConfig) -> IsrGroup {
    IsrGroup::new(config).expect("valid config")
}

fn write(key: &'static str, value: &'static str, level: AckLevel) -> ClientOp {
    ClientOp::write(key, value, level)
}

/// Ticks until `id` completes, at most `bound` ticks; panics past it.
fn await_within(g: &mut IsrGroup, id: OpId, bound: u64) -> Completion {
    for _ in 0..=bound {
        if let Some(done) = g.take_completion(id) {
            return done;
        }
        g.tick();
    }
    panic!("{id} did not complete within {bound} ticks");
}

fn reason(outcome: &Outcome) -> &str {
    match outcome {
        Outcome::Failed { message, .. } | Outcome::Unknown { message, .. } => message,
        other => panic!("expected failed or unknown, got {other:?}"),
    }
}

fn log_end(p: &IsrProbe, node: &str) -> u64 {
    p.node(&n(node)).expect("node exists").log_end_offset
}

#[test]
fn three_clients_with_overlapping_operations_each_get_their_own_outcome() {
    let mut g = group(IsrConfig::default());
    // Client A: an ALL_ISR write, still waiting for the followers.
    let a = g.submit(write("a", "1", AckLevel::AllIsr)).unwrap();
    // Client B, before A completes: a LEADER write, acknowledged at once.
    let b = g.submit(write("b", "2", AckLevel::Leader)).unwrap();
    // Client C, before A completes: a LINEARIZABLE read, blocked because
    // the leader holds entries above HW.
    let c = g
        .submit(ClientOp::read("a", ReadLevel::Linearizable))
        .unwrap();
    let now = g.take_completions();
    let ids: Vec<OpId> = now.iter().map(|c| c.id).collect();
    assert_eq!(ids, vec![b, c], "A is still in flight");
    assert_eq!(
        now[0].outcome,
        Outcome::Written {
            offset: 2,
            message: "appended on the leader; not yet replicated".into()
        }
    );
    assert_eq!(now[1].outcome.status(), OutcomeStatus::Failed);
    let done = await_within(&mut g, a, 32);
    assert_eq!(done.outcome.status(), OutcomeStatus::Done);
    assert!(matches!(done.outcome, Outcome::Written { offset: 1, .. }));
    assert_eq!(done.node, Some(n("node-1")));
    // Client C again, now that HW covers both writes: served.
    let c2 = g
        .submit(ClientOp::read("b", ReadLevel::Linearizable))
        .unwrap();
    let read = g.take_completion(c2).expect("reads complete at submission");
    match read.outcome {
        Outcome::Read(r) => assert_eq!(r.value, Some(Bytes::from("2"))),
        other => panic!("expected a served read, got {other:?}"),
    }
}

#[test]
fn all_isr_write_at_a_leader_that_then_crashes_completes_unknown() {
    let mut g = group(IsrConfig::default());
    let id = g.submit(write("k", "v", AckLevel::AllIsr)).unwrap();
    g.crash(&n("node-1"), false).unwrap();
    let done = await_within(&mut g, id, 1);
    assert_eq!(done.outcome.status(), OutcomeStatus::Unknown);
    assert!(matches!(
        done.outcome,
        Outcome::Unknown {
            offset: Some(1),
            ..
        }
    ));
    assert!(reason(&done.outcome).contains("crashed"));
    assert_eq!(done.node, None, "nobody answered the client");
    assert_eq!(done.completed, done.submitted + 1);
}

#[test]
fn write_at_a_displaced_leader_that_then_crashes_completes_unknown() {
    let mut g = group(IsrConfig::default());
    g.isolate(&n("node-1")).unwrap();
    g.failover(Some(&n("node-2"))).unwrap();
    let id = g
        .submit(write("k", "old", AckLevel::AllIsr).at(&n("node-1")))
        .unwrap();
    g.tick();
    g.crash(&n("node-1"), false).unwrap();
    let done = await_within(&mut g, id, 1);
    assert_eq!(done.outcome.status(), OutcomeStatus::Unknown);
    assert!(reason(&done.outcome).contains("crashed"));
}

#[test]
fn reads_are_answered_at_submission_so_a_later_crash_cannot_fail_them_and_a_read_at_a_crashed_node_is_refused()
 {
    let mut g = group(IsrConfig::default());
    g.client_write(Bytes::from("k"), Bytes::from("v"), AckLevel::AllIsr)
        .unwrap();
    let id = g
        .submit(ClientOp::read("k", ReadLevel::Local).at(&n("node-3")))
        .unwrap();
    g.crash(&n("node-3"), false).unwrap();
    let done = g.take_completion(id).expect("answered at submission");
    assert_eq!(done.completed, done.submitted);
    assert_eq!(done.node, Some(n("node-3")));
    assert_eq!(done.outcome.status(), OutcomeStatus::Done);
    // Once the node is down, the read cannot start.
    assert_eq!(
        g.submit(ClientOp::read("k", ReadLevel::Local).at(&n("node-3"))),
        Err(GroupError::NodeDown(n("node-3")))
    );
    // A read never completes unknown: every level answers done or failed.
    g.crash(&n("node-2"), false).unwrap();
    for level in [ReadLevel::Local, ReadLevel::Leader, ReadLevel::Linearizable] {
        let id = g.submit(ClientOp::read("k", level)).unwrap();
        let status = g.take_completion(id).unwrap().outcome.status();
        assert_ne!(status, OutcomeStatus::Unknown, "{level}");
    }
}

#[test]
fn every_op_completes_within_its_bound_with_the_leader_isolated() {
    let config = IsrConfig::default();
    let bound = config.ack_timeout;
    let mut g = group(config);
    let old = n("node-1");
    g.isolate(&old).unwrap();
    let mut ids = vec![
        g.submit(write("a", "1", AckLevel::AllIsr)).unwrap(),
        g.submit(write("b", "2", AckLevel::Leader)).unwrap(),
        g.submit(write("c", "3", AckLevel::AllIsr)).unwrap(),
        g.submit(ClientOp::read("a", ReadLevel::Linearizable))
            .unwrap(),
    ];
    g.tick();
    g.failover(Some(&n("node-2"))).unwrap();
    ids.push(
        g.submit(write("d", "4", AckLevel::AllIsr).at(&old))
            .unwrap(),
    );
    ids.push(g.submit(write("e", "5", AckLevel::AllIsr)).unwrap());
    let mut completed = Vec::new();
    for _ in 0..=bound {
        completed.extend(g.take_completions());
        g.tick();
    }
    completed.extend(g.take_completions());
    let mut got: Vec<OpId> = completed.iter().map(|c| c.id).collect();
    got.sort();
    assert_eq!(got, ids, "every op completed exactly once");
    for c in &completed {
        assert!(
            c.completed - c.submitted <= bound,
            "{} took {} ticks",
            c.id,
            c.completed - c.submitted
        );
    }
    let status = |id: OpId| {
        completed
            .iter()
            .find(|c| c.id == id)
            .map(|c| c.outcome.status())
    };
    // The isolated leader's ALL_ISR writes: the ISR shrank, then another
    // leader was elected — appended, not acknowledged.
    assert_eq!(status(ids[0]), Some(OutcomeStatus::Unknown));
    assert_eq!(status(ids[2]), Some(OutcomeStatus::Unknown));
    // The stale write at the old leader: never acknowledged.
    assert_eq!(status(ids[4]), Some(OutcomeStatus::Unknown));
    // The new leader's write: acknowledged by its ISR.
    assert_eq!(status(ids[5]), Some(OutcomeStatus::Done));
}

#[test]
fn completions_come_out_in_completion_order_with_their_submit_and_complete_ticks() {
    let mut g = group(IsrConfig::default());
    g.tick();
    let slow_write = g.submit(write("a", "1", AckLevel::AllIsr)).unwrap();
    let fast_write = g.submit(write("b", "2", AckLevel::Leader)).unwrap();
    g.tick();
    let read = g.submit(ClientOp::read("b", ReadLevel::Leader)).unwrap();
    let all = g.take_completions();
    let order: Vec<(OpId, Tick, Tick)> = all
        .iter()
        .map(|c| (c.id, c.submitted, c.completed))
        .collect();
    assert_eq!(
        order,
        vec![(fast_write, 1, 1), (slow_write, 1, 2), (read, 2, 2)]
    );
    assert!(g.take_completions().is_empty(), "taken once");
    // The trace records the same history.
    let trace = g.trace().to_text();
    let submitted = trace.matches("client_op_submitted").count();
    let completed = trace.matches("client_op_completed").count();
    assert_eq!((submitted, completed), (3, 3));
}

#[test]
fn take_completion_of_one_id_leaves_the_other_completions_queued() {
    let mut g = group(IsrConfig::default());
    let a = g.submit(write("a", "1", AckLevel::Leader)).unwrap();
    let b = g.submit(write("b", "2", AckLevel::Leader)).unwrap();
    let c = g.submit(ClientOp::read("a", ReadLevel::Leader)).unwrap();
    assert_eq!(g.take_completion(b).map(|c| c.id), Some(b));
    assert_eq!(g.take_completion(b), None, "already taken");
    let rest: Vec<OpId> = g.take_completions().iter().map(|c| c.id).collect();
    assert_eq!(rest, vec![a, c]);
}

#[test]
fn submit_errors_change_nothing_and_use_no_id() {
    let mut g = group(IsrConfig::default());
    g.client_write(Bytes::from("k"), Bytes::from("v"), AckLevel::AllIsr)
        .unwrap();
    g.crash(&n("node-3"), false).unwrap();
    let ghost = n("ghost");
    let attempts: Vec<(ClientOp, GroupError)> = vec![
        (
            write("k", "v", AckLevel::Quorum),
            GroupError::UnsupportedAck {
                protocol: "isr",
                level: AckLevel::Quorum,
            },
        ),
        (
            write("k", "v", AckLevel::None),
            GroupError::UnsupportedAck {
                protocol: "isr",
                level: AckLevel::None,
            },
        ),
        (
            write("k", "v", AckLevel::Leader).at(&ghost),
            GroupError::UnknownNode(ghost.clone()),
        ),
        (
            write("k", "v", AckLevel::AllIsr).at(&n("node-3")),
            GroupError::NodeDown(n("node-3")),
        ),
        (
            ClientOp::read("k", ReadLevel::Local).at(&ghost),
            GroupError::UnknownNode(ghost.clone()),
        ),
        (
            ClientOp::read("k", ReadLevel::Local).at(&n("node-3")),
            GroupError::NodeDown(n("node-3")),
        ),
    ];
    let check_unchanged = |g: &mut IsrGroup, op: ClientOp, want: Option<GroupError>| {
        let (len, probe) = (g.trace().len(), g.probe());
        let err = g.submit(op).expect_err("refused up front");
        if let Some(want) = want {
            assert_eq!(err, want);
        }
        assert_eq!(g.trace().len(), len, "{err}: no trace event");
        assert_eq!(g.probe(), probe, "{err}: no state change");
        assert!(g.take_completions().is_empty(), "{err}: no completion");
    };
    for (op, want) in attempts {
        check_unchanged(&mut g, op, Some(want));
    }
    // A follower is not a leader: the produce request is not permitted.
    check_unchanged(
        &mut g,
        write("k", "v", AckLevel::Leader).at(&n("node-2")),
        None,
    );
    // A crashed controller leader: no write or read can start through it.
    g.crash(&n("node-1"), false).unwrap();
    for op in [
        write("k", "v", AckLevel::AllIsr),
        ClientOp::read("k", ReadLevel::Linearizable),
        ClientOp::read("k", ReadLevel::Leader),
    ] {
        check_unchanged(&mut g, op, Some(GroupError::NodeDown(n("node-1"))));
    }
    // No id was used by a refused submit: the next op is op 2.
    g.restart(&n("node-1")).unwrap();
    let id = g.submit(write("k", "w", AckLevel::Leader)).unwrap();
    assert_eq!(id, OpId(2));
}

#[test]
fn all_isr_write_in_flight_completes_unknown_when_the_isr_shrinks_below_min_insync_during_its_wait()
{
    let mut g = group(IsrConfig::default().with_replica_lag_timeout(2));
    g.set_replica_slow(&n("node-2"), true).unwrap();
    g.set_replica_slow(&n("node-3"), true).unwrap();
    // Both slow followers are still ISR members: the write is admitted and
    // appended, then they leave the ISR while it waits.
    let id = g.submit(write("k", "v", AckLevel::AllIsr)).unwrap();
    assert_eq!(log_end(&g.probe(), "node-1"), 1);
    let done = await_within(&mut g, id, 32);
    assert_eq!(done.outcome.status(), OutcomeStatus::Unknown);
    let msg = reason(&done.outcome);
    assert!(msg.contains("min.insync"), "{msg}");
    assert!(matches!(
        done.outcome,
        Outcome::Unknown {
            offset: Some(1),
            ..
        }
    ));
    assert!(
        done.completed < done.submitted + 32,
        "before the ack timeout"
    );
    // The record is in the leader's log: it may still become committed.
    assert_eq!(log_end(&g.probe(), "node-1"), 1);
    // The blocking API reports the same write as refused with its offset.
    let w = g
        .client_write(Bytes::from("k2"), Bytes::from("v2"), AckLevel::AllIsr)
        .unwrap();
    assert!(!w.accepted);
}

#[test]
fn all_isr_write_submitted_while_the_isr_is_below_min_insync_is_failed_before_append() {
    let mut g = group(IsrConfig::default().with_replica_lag_timeout(1));
    g.set_replica_slow(&n("node-2"), true).unwrap();
    g.set_replica_slow(&n("node-3"), true).unwrap();
    g.tick();
    assert_eq!(g.probe().isr, vec![n("node-1")]);
    let id = g.submit(write("k", "v", AckLevel::AllIsr)).unwrap();
    let done = g.take_completion(id).expect("refused at submission");
    assert_eq!(done.outcome.status(), OutcomeStatus::Failed);
    assert!(matches!(done.outcome, Outcome::Failed { error: None, .. }));
    assert!(reason(&done.outcome).contains("min.insync"));
    assert_eq!(log_end(&g.probe(), "node-1"), 0, "nothing appended");
}

#[test]
fn overlapping_all_isr_writes_complete_done_in_offset_order_once_followers_catch_up() {
    let mut g = group(IsrConfig::default().with_replica_lag_timeout(50));
    g.set_replica_slow(&n("node-3"), true).unwrap();
    let ids: Vec<OpId> = ["v1", "v2", "v3"]
        .into_iter()
        .map(|v| g.submit(write("k", v, AckLevel::AllIsr)).unwrap())
        .collect();
    for _ in 0..5 {
        g.tick();
        assert!(
            g.take_completions().is_empty(),
            "node-3 is in the ISR and holds HW back"
        );
    }
    g.set_replica_slow(&n("node-3"), false).unwrap();
    let mut done: Vec<Completion> = Vec::new();
    for _ in 0..32 {
        g.tick();
        let hw = g.probe().high_watermark;
        for c in g.take_completions() {
            match c.outcome {
                Outcome::Written { offset, .. } => assert!(hw >= offset, "HW {hw} < {offset}"),
                ref other => panic!("expected done, got {other:?}"),
            }
            done.push(c);
        }
        if done.len() == ids.len() {
            break;
        }
    }
    let got: Vec<OpId> = done.iter().map(|c| c.id).collect();
    assert_eq!(got, ids, "completed in submission order");
    let offsets: Vec<u64> = done
        .iter()
        .map(|c| match c.outcome {
            Outcome::Written { offset, .. } => offset,
            _ => 0,
        })
        .collect();
    assert_eq!(offsets, vec![1, 2, 3], "in offset order");
}

#[test]
fn linearizable_read_submitted_while_the_leader_has_entries_above_hw_completes_failed_with_read_blocked()
 {
    let mut g = group(IsrConfig::default());
    g.submit(write("k", "v", AckLevel::Leader)).unwrap();
    let id = g
        .submit(ClientOp::read("k", ReadLevel::Linearizable))
        .unwrap();
    let done = g.take_completion(id).expect("answered at submission");
    assert_eq!(done.completed, done.submitted);
    match done.outcome {
        Outcome::Failed {
            error:
                Some(GroupError::ReadBlocked {
                    level, guard, node, ..
                }),
            ..
        } => {
            assert_eq!(level, ReadLevel::Linearizable);
            assert_eq!(guard, "above high watermark");
            assert_eq!(node, n("node-1"));
        }
        other => panic!("expected ReadBlocked, got {other:?}"),
    }
}

#[test]
fn the_above_hw_refusal_is_stated_as_by_design_and_a_short_isr_is_not() {
    let mut g = group(IsrConfig::default());
    assert_eq!(g.read_refused_by_design(), None, "nothing above HW");
    let id = g.submit(write("k", "v", AckLevel::AllIsr)).unwrap();
    assert_eq!(
        g.read_refused_by_design().as_deref(),
        Some("leader log end 1 is above HW 0")
    );
    await_within(&mut g, id, 32);
    assert_eq!(g.read_refused_by_design(), None, "committed: HW caught up");
    // Two followers down: the ISR shrinks below min.insync, and a
    // LINEARIZABLE read is refused for that, which is not excused.
    g.crash(&n("node-2"), false).unwrap();
    g.crash(&n("node-3"), false).unwrap();
    g.run_until_idle(64).unwrap();
    let err = g
        .client_read(b"k", ReadLevel::Linearizable, None)
        .expect_err("ISR below min.insync");
    assert!(matches!(err, GroupError::ReadBlocked { .. }), "{err}");
    assert_eq!(g.read_refused_by_design(), None);
}

#[test]
fn write_submitted_to_a_displaced_isolated_leader_completes_unknown_when_refused() {
    let mut g = group(IsrConfig::default());
    g.client_write(Bytes::from("k"), Bytes::from("base"), AckLevel::AllIsr)
        .unwrap();
    let old = n("node-1");
    g.isolate(&old).unwrap();
    g.failover(Some(&n("node-2"))).unwrap();
    let id = g
        .submit(write("k", "minority", AckLevel::AllIsr).at(&old))
        .unwrap();
    // It was appended in the old epoch on the old leader.
    let p = g.probe();
    let entry = p.node(&old).unwrap().log.last().cloned().unwrap();
    assert_eq!((entry.offset, entry.epoch), (2, 1));
    let done = await_within(&mut g, id, 32);
    assert_eq!(done.completed, done.submitted + 32, "refused at the bound");
    assert_eq!(done.node, Some(old.clone()));
    assert!(matches!(
        done.outcome,
        Outcome::Unknown {
            offset: Some(2),
            ..
        }
    ));
    assert!(reason(&done.outcome).contains("leader epoch 1"));
    // The same write, when the old leader hears of the election sooner.
    let id = g
        .submit(write("k", "again", AckLevel::AllIsr).at(&old))
        .unwrap();
    g.tick();
    g.heal(&old).unwrap();
    let done = await_within(&mut g, id, 2);
    assert_eq!(done.outcome.status(), OutcomeStatus::Unknown);
    assert_eq!(done.completed, done.submitted + 2);
    // After the heal, divergence repair drops both: they were never committed.
    g.run_until_idle(100).unwrap();
    let p = g.probe();
    assert_eq!(p.node(&old).unwrap().log, p.node(&n("node-2")).unwrap().log);
}

#[test]
fn controller_election_while_an_all_isr_write_is_pending_completes_it_unknown() {
    let mut g = group(IsrConfig::default());
    let id = g.submit(write("k", "v", AckLevel::AllIsr)).unwrap();
    assert_eq!(g.controller_elect(&n("node-2")).unwrap(), 2);
    let done = await_within(&mut g, id, 1);
    assert_eq!(done.outcome.status(), OutcomeStatus::Unknown);
    assert_eq!(done.node, Some(n("node-1")));
    let msg = reason(&done.outcome);
    assert!(msg.contains("node-2") && msg.contains("epoch 2"), "{msg}");
    assert!(
        g.trace().to_text().contains("reason=\"leader_changed\""),
        "the group records the refusal"
    );
}

#[test]
fn write_at_is_submit_at_a_node_plus_await() {
    let run = |via_submit: bool| {
        let mut g = group(IsrConfig::default().with_seed(3));
        g.client_write(Bytes::from("k"), Bytes::from("base"), AckLevel::AllIsr)
            .unwrap();
        g.isolate(&n("node-1")).unwrap();
        g.failover(None).unwrap();
        let w = if via_submit {
            let id = g
                .submit(write("k", "old", AckLevel::AllIsr).at(&n("node-1")))
                .unwrap();
            g.await_completion(id)
                .unwrap()
                .outcome
                .into_write_result()
                .unwrap()
        } else {
            g.write_at(
                &n("node-1"),
                Bytes::from("k"),
                Bytes::from("old"),
                AckLevel::AllIsr,
            )
            .unwrap()
        };
        (w, g.trace().to_text())
    };
    let (a, trace_a) = run(true);
    let (b, trace_b) = run(false);
    assert_eq!(a, b);
    assert_eq!(trace_a, trace_b);
    assert!(!a.accepted);
    assert_eq!(a.offset, Some(2));
}

/// `client_write` waits for its own write without the in-flight
/// bookkeeping (no op clone, no queued completion); what anyone can see is
/// what `submit` + `await_completion` gives: the same answers, trace and op
/// ids — acknowledged, at `Leader`, not acknowledged with a follower
/// isolated, refused below min.insync, and with another client's write in
/// flight meanwhile (whose completion is queued as usual).
#[test]
fn a_blocking_write_answers_and_traces_as_submit_and_await_do() {
    let config = IsrConfig::default().with_min_insync_replicas(3);
    let (mut fast, mut slow) = (group(config.clone()), group(config));
    let follower = fast.node_ids()[2].clone();
    let steps: [(&'static str, AckLevel); 7] = [
        ("a", AckLevel::AllIsr),
        ("b", AckLevel::Leader),
        ("other", AckLevel::AllIsr),
        ("c", AckLevel::AllIsr),
        ("isolate", AckLevel::AllIsr),
        ("d", AckLevel::AllIsr),
        ("e", AckLevel::AllIsr),
    ];
    for (key, level) in steps {
        match key {
            "isolate" => {
                fast.isolate(&follower).expect("known node");
                slow.isolate(&follower).expect("known node");
            }
            "other" => {
                let a = fast.submit(write("o", "1", level)).expect("accepted");
                let b = slow.submit(write("o", "1", level)).expect("accepted");
                assert_eq!(a, b);
            }
            _ => {
                let a = fast.client_write(Bytes::from(key), Bytes::from("v"), level);
                let b = slow
                    .submit(write(key, "v", level))
                    .and_then(|id| slow.await_completion(id))
                    .and_then(|c| c.outcome.into_write_result());
                assert_eq!(a, b, "write {key}");
            }
        }
        fast.tick();
        slow.tick();
    }
    let (a, b) = (fast.take_completions(), slow.take_completions());
    assert_eq!(
        a.iter().map(|c| c.id).collect::<Vec<_>>(),
        b.iter().map(|c| c.id).collect::<Vec<_>>(),
        "only the submitted op's completion is queued"
    );
    assert_eq!(a.len(), 1);
    assert_eq!(fast.trace().to_text(), slow.trace().to_text());
    assert_eq!(
        fast.submit(write("k", "v", AckLevel::Leader))
            .expect("accepted"),
        slow.submit(write("k", "v", AckLevel::Leader))
            .expect("accepted"),
        "the next op id"
    );
}
