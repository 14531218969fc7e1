//! Operations in flight through the public trait: `submit`, completions as
//! ticks pass, the outcome rules, the bounds, and the two batching rules
//! (proposals of one tick share an AppendEntries; concurrent LINEARIZABLE
//! reads share a read-index round).

use proto_raft::prelude::*;
use proto_raft::{AckLevel, GUARD_DEPOSED, GUARD_NO_QUORUM, ReadResult, Value};

fn elected(seed: u64) -> (RaftGroup, NodeId, Vec<NodeId>) {
    let mut g = RaftGroup::new(RaftConfig::default().with_seed(seed)).expect("group");
    let leader = g.run_until_leader(None, 100).expect("leader");
    g.run_until_idle(100)
        .expect("the no-op committed everywhere");
    let followers = g.node_ids().into_iter().filter(|n| *n != leader).collect();
    (g, leader, followers)
}

/// Ticks until every id in `ids` has completed (at most `bound` ticks) and
/// returns their completions in completion order.
fn run_until_complete(g: &mut RaftGroup, ids: &[OpId], bound: u64) -> Vec<Completion> {
    let mut done: Vec<Completion> = g.take_completions();
    let mut ticks = 0;
    while ids.iter().any(|id| !done.iter().any(|c| c.id == *id)) {
        assert!(ticks < bound, "ops still pending after {bound} ticks");
        g.tick();
        ticks += 1;
        done.extend(g.take_completions());
    }
    done
}

fn completion(done: &[Completion], id: OpId) -> &Completion {
    done.iter().find(|c| c.id == id).expect("completed")
}

fn read_of(c: &Completion) -> &ReadResult {
    match &c.outcome {
        Outcome::Read(read) => read,
        other => panic!("{} expected a served read, got {other:?}", c.id),
    }
}

fn written_at(c: &Completion) -> u64 {
    match &c.outcome {
        Outcome::Written { offset, .. } => *offset,
        other => panic!("{} expected a done write, got {other:?}", c.id),
    }
}

fn blocked_guard(c: &Completion) -> &'static str {
    match &c.outcome {
        Outcome::Failed {
            error: Some(GroupError::ReadBlocked { guard, .. }),
            ..
        } => guard,
        other => panic!("{} expected a blocked read, got {other:?}", c.id),
    }
}

/// `message_sent` events labelled `label` since trace position `mark`.
fn sent_since(g: &RaftGroup, mark: usize, label: &str) -> usize {
    g.trace()
        .since(mark)
        .filter(|e| e.kind == "message_sent" && e.str_field("msg") == Some(label))
        .count()
}

#[test]
fn three_clients_with_overlapping_operations_each_get_their_outcome() {
    let (mut g, leader, followers) = elected(1);
    let t0 = g.now();
    // Client A writes x = 1.
    let a = g
        .submit(ClientOp::write("x", "1", AckLevel::Quorum))
        .expect("A");
    g.tick();
    assert!(g.take_completion(a).is_none(), "A is still in flight");
    // Client B reads x linearizably while A is in flight; client C
    // overwrites x in the same tick and reads a lagging follower locally.
    let b = g
        .submit(ClientOp::read("x", ReadLevel::Linearizable))
        .expect("B");
    let c = g
        .submit(ClientOp::write("x", "2", AckLevel::Quorum))
        .expect("C");
    let c_local = g
        .submit(ClientOp::read("x", ReadLevel::Local).at(&followers[0]))
        .expect("C's local read");
    let done = run_until_complete(&mut g, &[a, b, c, c_local], 100);

    let (ca, cb, cc) = (
        completion(&done, a),
        completion(&done, b),
        completion(&done, c),
    );
    assert_eq!(written_at(ca), 2, "A lands after the no-op");
    assert_eq!(written_at(cc), 3, "C lands after A");
    assert!(
        cb.submitted < ca.completed,
        "B was submitted before A completed"
    );
    // B's read index was taken when it arrived (A not yet committed); it is
    // served after A committed, so it reads A's value or C's.
    let read = read_of(cb);
    assert_eq!(read.node, leader);
    assert!(
        matches!(read.value.as_deref(), Some(b"1") | Some(b"2")),
        "{read:?}"
    );
    // Here C's entry left in the same tick as B's round and committed when
    // the round was confirmed, so B sees C — allowed: C overlaps B.
    assert_eq!(read.value.as_deref(), Some(&b"2"[..]));
    assert!(cb.completed >= completion(&done, c).completed);
    // The local read at a follower is answered at once, before anything
    // reached it: stale, as LOCAL may be.
    let local = completion(&done, c_local);
    assert_eq!((local.submitted, local.completed), (t0 + 1, t0 + 1));
    assert_eq!(read_of(local).value, None);
    assert!(
        done.iter()
            .all(|c| c.outcome.status() == OutcomeStatus::Done)
    );
}

#[test]
fn write_submitted_to_a_leader_that_crashes_before_commit_completes_unknown() {
    let (mut g, leader, _) = elected(2);
    let w = g
        .submit(ClientOp::write("k", "v", AckLevel::Quorum))
        .expect("submit");
    let submitted = g.now();
    g.crash(&leader, false).expect("crash");
    g.tick();
    let c = g.take_completion(w).expect("completed at the next tick");
    assert_eq!(c.completed, submitted + 1);
    assert_eq!(c.node.as_ref(), Some(&leader));
    match &c.outcome {
        Outcome::Unknown { offset, message } => {
            assert_eq!(*offset, Some(2), "appended at the crashed leader");
            assert!(message.contains("crashed"), "{message}");
        }
        other => panic!("expected unknown, got {other:?}"),
    }
}

#[test]
fn linearizable_read_at_a_leader_that_crashes_completes_failed() {
    let (mut g, leader, _) = elected(3);
    let r = g
        .submit(ClientOp::read("k", ReadLevel::Linearizable))
        .expect("submit");
    g.crash(&leader, false).expect("crash");
    g.tick();
    let c = g.take_completion(r).expect("completed at the next tick");
    assert_eq!(c.outcome.status(), OutcomeStatus::Failed);
    assert_eq!(blocked_guard(&c), GUARD_DEPOSED);
    assert!(matches!(
        c.outcome.into_read_result(ReadLevel::Linearizable),
        Err(GroupError::ReadBlocked { node, .. }) if node == leader
    ));
}

#[test]
fn write_whose_leader_steps_down_before_commit_completes_unknown() {
    let (mut g, old, _) = elected(4);
    g.isolate(&old).expect("isolate");
    let w = g
        .submit(ClientOp::write("k", "minority", AckLevel::Quorum))
        .expect("the isolated leader still leads its term");
    let submitted = g.now();
    let new = g
        .failover(None)
        .expect("the majority elects another leader");
    assert!(
        g.take_completion(w).is_none(),
        "still waiting in the minority"
    );
    g.heal(&old).expect("heal");
    let done = run_until_complete(&mut g, &[w], 100);
    let c = completion(&done, w);
    match &c.outcome {
        Outcome::Unknown { offset, message } => {
            assert_eq!(*offset, Some(2));
            assert!(
                message.contains("lost leadership") || message.contains("overwritten"),
                "{message}"
            );
        }
        other => panic!("expected unknown, got {other:?}"),
    }
    assert!(
        c.completed < submitted + g.config().client_timeout(),
        "completed when it stepped down, not at the timeout"
    );
    let probe = g.probe();
    assert_eq!(probe.node(&old).expect("old").role, Role::Follower);
    assert_eq!(probe.leader, Some(new));
}

#[test]
fn quorum_write_times_out_unknown_after_twice_the_max_election_timeout() {
    let (mut g, leader, _) = elected(5);
    g.isolate(&leader).expect("isolate");
    let timeout = g.config().client_timeout();
    assert_eq!(timeout, 2 * g.config().election_timeout.1);
    let w = g
        .submit(ClientOp::write("k", "v", AckLevel::Quorum))
        .expect("submit");
    let submitted = g.now();
    for _ in 1..timeout {
        g.tick();
    }
    assert!(g.take_completion(w).is_none(), "not before the bound");
    g.tick();
    let c = g.take_completion(w).expect("completed at the bound");
    assert_eq!((c.submitted, c.completed), (submitted, submitted + timeout));
    assert_eq!(
        c.outcome,
        Outcome::unknown(
            Some(2),
            format!("entry 2 of term 1 not committed by a majority within {timeout} ticks")
        )
    );
    // The blocking call reports it as a refused write with its index.
    let refused = c.outcome.into_write_result().expect("a write result");
    assert_eq!((refused.accepted, refused.offset), (false, Some(2)));
}

#[test]
fn linearizable_read_at_an_isolated_old_leader_fails_read_blocked_within_its_bound() {
    let (mut g, old, _) = elected(6);
    g.isolate(&old).expect("isolate");
    let new = g.failover(None).expect("failover");
    g.client_write("k".into(), "after".into(), AckLevel::Quorum)
        .expect("write at the new leader");
    let r = g
        .submit(ClientOp::read("k", ReadLevel::Linearizable).at(&old))
        .expect("the old leader still believes it leads");
    let submitted = g.now();
    let bound = g.config().read_timeout();
    let done = run_until_complete(&mut g, &[r], bound);
    let c = completion(&done, r);
    assert_eq!(c.outcome.status(), OutcomeStatus::Failed);
    assert_eq!(blocked_guard(c), GUARD_NO_QUORUM);
    assert_eq!(GUARD_NO_QUORUM, "read-index fenced (no quorum)");
    assert!(c.completed - submitted <= g.config().client_timeout());
    // The new leader serves the current value.
    let current = g
        .client_read(b"k", ReadLevel::Linearizable, Some(&new))
        .expect("served");
    assert_eq!(current.value.as_deref(), Some(&b"after"[..]));
}

#[test]
fn every_op_completes_within_its_bound_with_the_leader_isolated() {
    let (mut g, leader, _) = elected(7);
    g.isolate(&leader).expect("isolate");
    let w = g
        .submit(ClientOp::write("k", "v", AckLevel::Quorum))
        .expect("write");
    let lin = g
        .submit(ClientOp::read("k", ReadLevel::Linearizable))
        .expect("linearizable read");
    let lead = g
        .submit(ClientOp::read("k", ReadLevel::Leader))
        .expect("leader read");
    let config = g.config().clone();
    let done = run_until_complete(&mut g, &[w, lin, lead], config.read_timeout());
    let (cw, cl, cr) = (
        completion(&done, w),
        completion(&done, lin),
        completion(&done, lead),
    );
    assert_eq!(cw.outcome.status(), OutcomeStatus::Unknown);
    assert!(cw.completed - cw.submitted <= config.client_timeout());
    assert_eq!(blocked_guard(cl), GUARD_NO_QUORUM);
    assert!(cl.completed - cl.submitted <= config.read_timeout());
    assert_eq!(cr.completed, cr.submitted, "LEADER reads answer at once");
}

#[test]
fn every_op_completes_within_its_bound_under_seeded_faults() {
    for seed in 0..60 {
        let mut g = RaftGroup::new(RaftConfig::default().with_seed(seed)).expect("group");
        let ids = g.node_ids();
        let mut pending: Vec<(OpId, u64, u64)> = Vec::new();
        let (write_bound, read_bound) = (g.config().client_timeout(), g.config().read_timeout());
        let mut completed = 0;
        for step in 0..200u64 {
            let node = &ids[(step * 7 + seed) as usize % ids.len()];
            let submitted = match (step + seed) % 11 {
                0..=3 => g
                    .submit(ClientOp::write(
                        format!("k{}", step % 3),
                        format!("v{step}"),
                        AckLevel::Quorum,
                    ))
                    .map(|id| (id, write_bound)),
                4..=5 => g
                    .submit(ClientOp::read(
                        format!("k{}", step % 3),
                        ReadLevel::Linearizable,
                    ))
                    .map(|id| (id, read_bound)),
                6 => g
                    .submit(ClientOp::read("k0", ReadLevel::Linearizable).at(node))
                    .map(|id| (id, read_bound)),
                7 if step % 5 == 0 => g.crash(node, false).map(|()| (OpId(0), 0)),
                8 if step % 3 == 0 => g.isolate(node).map(|()| (OpId(0), 0)),
                9 => g
                    .restart(node)
                    .and_then(|()| g.heal(node))
                    .map(|()| (OpId(0), 0)),
                _ => Ok((OpId(0), 0)),
            };
            if let Ok((id, bound)) = submitted
                && id != OpId(0)
            {
                pending.push((id, g.now(), bound));
            }
            g.tick();
            for c in g.take_completions() {
                let (_, at, bound) = pending
                    .iter()
                    .copied()
                    .find(|(id, ..)| *id == c.id)
                    .expect("a submitted op");
                assert_eq!(c.submitted, at, "seed {seed}");
                assert!(
                    c.completed - c.submitted <= bound,
                    "seed {seed}: {} took {} ticks",
                    c.id,
                    c.completed - c.submitted
                );
                if c.op.kind() == "read" {
                    assert_ne!(c.outcome.status(), OutcomeStatus::Unknown, "seed {seed}");
                }
                pending.retain(|(id, ..)| *id != c.id);
                completed += 1;
            }
            for (id, at, bound) in &pending {
                assert!(g.now() - at <= *bound, "seed {seed}: {id} overdue");
            }
        }
        assert!(completed > 50, "seed {seed}: only {completed} completions");
    }
}

#[test]
fn completions_come_out_in_completion_order_with_submit_and_complete_ticks() {
    let (mut g, _, followers) = elected(8);
    let t0 = g.now();
    let w = g
        .submit(ClientOp::write("k", "v", AckLevel::Quorum))
        .expect("write");
    g.tick();
    let r = g
        .submit(ClientOp::read("k", ReadLevel::Local).at(&followers[0]))
        .expect("local read");
    let done = run_until_complete(&mut g, &[w, r], 100);
    let order: Vec<_> = done.iter().map(|c| c.id).collect();
    assert_eq!(order, [r, w], "the later local read completes first");
    assert_eq!((done[0].submitted, done[0].completed), (t0 + 1, t0 + 1));
    assert_eq!((done[1].submitted, done[1].completed), (t0, t0 + 2));
    // The trace says the same.
    let completed: Vec<u64> = g
        .trace()
        .of_kind("client_op_completed")
        .filter_map(|e| match e.field("op") {
            Some(Value::UInt(op)) => Some(op),
            _ => None,
        })
        .collect();
    assert_eq!(completed[completed.len() - 2..], [r.0, w.0]);
}

#[test]
fn take_completion_leaves_other_completions_queued() {
    let (mut g, leader, followers) = elected(9);
    let first = g
        .submit(ClientOp::read("k", ReadLevel::Local).at(&leader))
        .expect("read");
    let second = g
        .submit(ClientOp::read("k", ReadLevel::Local).at(&followers[0]))
        .expect("read");
    let third = g
        .submit(ClientOp::read("k", ReadLevel::Leader))
        .expect("read");
    assert_eq!(g.take_completion(second).map(|c| c.id), Some(second));
    assert_eq!(g.take_completion(second), None, "taken once");
    let rest: Vec<_> = g.take_completions().into_iter().map(|c| c.id).collect();
    assert_eq!(rest, [first, third]);
    assert!(g.take_completions().is_empty());
}

#[test]
fn submit_errors_change_nothing() {
    let mut fresh = RaftGroup::new(RaftConfig::default()).expect("group");
    let before = (fresh.trace().len(), fresh.probe());
    assert!(matches!(
        fresh.submit(ClientOp::write("k", "v", AckLevel::Quorum)),
        Err(GroupError::NoLeader(message)) if message == "no alive node is leader; cannot append"
    ));
    assert!(matches!(
        fresh.submit(ClientOp::read("k", ReadLevel::Linearizable)),
        Err(GroupError::NoLeader(_))
    ));
    assert_eq!((fresh.trace().len(), fresh.probe()), before);

    let (mut g, leader, followers) = elected(10);
    g.crash(&followers[1], false).expect("crash");
    let ghost = NodeId::new("ghost");
    let before = (g.trace().len(), g.probe());
    let refused = [
        (
            ClientOp::write("k", "v", AckLevel::Leader),
            GroupError::UnsupportedAck {
                protocol: "raft",
                level: AckLevel::Leader,
            },
        ),
        (
            ClientOp::write("k", "v", AckLevel::Quorum).at(&ghost),
            GroupError::UnknownNode(ghost.clone()),
        ),
        (
            ClientOp::read("k", ReadLevel::Local).at(&ghost),
            GroupError::UnknownNode(ghost.clone()),
        ),
        (
            ClientOp::read("k", ReadLevel::Leader).at(&ghost),
            GroupError::UnknownNode(ghost.clone()),
        ),
        (
            ClientOp::write("k", "v", AckLevel::Quorum).at(&followers[1]),
            GroupError::NodeDown(followers[1].clone()),
        ),
        (
            ClientOp::read("k", ReadLevel::Linearizable).at(&followers[1]),
            GroupError::NodeDown(followers[1].clone()),
        ),
    ];
    for (op, err) in refused {
        assert_eq!(g.submit(op.clone()), Err(err), "{op:?}");
    }
    let not_leader = g.submit(ClientOp::write("k", "v", AckLevel::Quorum).at(&followers[0]));
    assert!(
        matches!(&not_leader, Err(GroupError::NotPermitted { node, .. }) if *node == followers[0]),
        "{not_leader:?}"
    );
    assert_eq!(
        (g.trace().len(), g.probe()),
        before,
        "nothing recorded, nothing changed"
    );
    assert!(g.take_completions().is_empty());
    let first = g
        .submit(ClientOp::read("k", ReadLevel::Local).at(&leader))
        .expect("read");
    assert_eq!(first, OpId(1), "refused submissions take no id");
}

#[test]
fn quorum_writes_submitted_back_to_back_share_one_append_round_and_complete_in_index_order() {
    const WRITES: usize = 5;
    // Sequential: each write waits for the previous one.
    let (mut seq, _, _) = elected(11);
    let mark = seq.trace().len();
    for i in 0..WRITES {
        let w = seq
            .client_write(format!("k{i}").into(), "v".into(), AckLevel::Quorum)
            .expect("write");
        assert!(w.accepted);
    }
    let sequential = sent_since(&seq, mark, "append_entries");

    // Pipelined: all submitted back to back, all in flight at once.
    let (mut g, _, followers) = elected(11);
    let mark = g.trace().len();
    let ids: Vec<OpId> = (0..WRITES)
        .map(|i| {
            g.submit(ClientOp::write(format!("k{i}"), "v", AckLevel::Quorum))
                .expect("submit")
        })
        .collect();
    assert!(g.take_completions().is_empty(), "all {WRITES} in flight");
    let done = run_until_complete(&mut g, &ids, 100);
    let order: Vec<OpId> = done.iter().map(|c| c.id).collect();
    assert_eq!(order, ids, "completed in submission order");
    let offsets: Vec<u64> = done.iter().map(written_at).collect();
    assert_eq!(offsets, [2, 3, 4, 5, 6], "… which is index order");
    let pipelined = sent_since(&g, mark, "append_entries");
    let rounds = pipelined / followers.len();
    assert_eq!(
        rounds, 1,
        "one AppendEntries per follower carried all {WRITES}"
    );
    assert!(rounds < WRITES);
    assert_eq!(sequential, WRITES * followers.len());
    assert!(pipelined < sequential, "{pipelined} vs {sequential}");
    let heartbeats = sent_since(&g, mark, "heartbeat");
    assert!(
        pipelined + heartbeats < sequential,
        "{pipelined} appends + {heartbeats} heartbeats vs {sequential}"
    );
    assert!(done.iter().all(|c| c.completed == done[0].completed));
}

#[test]
fn concurrent_linearizable_reads_share_one_read_index_round() {
    let (mut g, leader, _) = elected(12);
    g.client_write("k".into(), "v".into(), AckLevel::Quorum)
        .expect("write");
    let mark = g.trace().len();
    let a = g
        .submit(ClientOp::read("k", ReadLevel::Linearizable))
        .expect("a");
    let b = g
        .submit(ClientOp::read("k", ReadLevel::Linearizable).at(&leader))
        .expect("b");
    let done = run_until_complete(&mut g, &[a, b], 100);
    for c in &done {
        let read = read_of(c);
        assert_eq!(
            (&read.node, read.value.as_deref()),
            (&leader, Some(&b"v"[..]))
        );
    }
    assert_eq!(done[0].completed, done[1].completed, "served by one round");
    let rounds = g
        .trace()
        .since(mark)
        .filter(|e| e.kind == "raft_read_index_started")
        .count();
    assert_eq!(rounds, 1);
    assert!(rounds < done.len());
}

#[test]
fn reads_arriving_while_a_round_is_in_flight_share_the_next_round() {
    let (mut g, leader, _) = elected(13);
    g.client_write("k".into(), "1".into(), AckLevel::Quorum)
        .expect("write");
    let mark = g.trace().len();
    let first = g
        .submit(ClientOp::read("k", ReadLevel::Linearizable))
        .expect("first");
    g.tick();
    // Round 1 is in flight: a write lands, then two reads arrive. They must
    // not be confirmed by round 1 (its echoes may predate them).
    let w = g
        .submit(ClientOp::write("k", "2", AckLevel::Quorum))
        .expect("write");
    let late: Vec<OpId> = (0..2)
        .map(|_| {
            g.submit(ClientOp::read("k", ReadLevel::Linearizable))
                .expect("late read")
        })
        .collect();
    let done = run_until_complete(&mut g, &[first, w, late[0], late[1]], 100);
    let first_done = completion(&done, first);
    assert_eq!(read_of(first_done).value.as_deref(), Some(&b"1"[..]));
    for id in &late {
        let c = completion(&done, *id);
        assert!(
            c.completed > first_done.completed,
            "served by a later round"
        );
        assert_eq!(read_of(c).node, leader);
        assert_eq!(
            read_of(c).value.as_deref(),
            Some(&b"2"[..]),
            "sees the write before it"
        );
    }
    let rounds = g
        .trace()
        .since(mark)
        .filter(|e| e.kind == "raft_read_index_started")
        .count();
    assert_eq!(rounds, 2, "three reads, two rounds");
}

#[test]
fn write_at_is_a_submit_at_the_named_node() {
    let (mut g, old, _) = elected(14);
    g.isolate(&old).expect("isolate");
    g.failover(None).expect("failover");
    let mark = g.trace().len();
    let w = g
        .write_at(&old, "k".into(), "minority".into(), AckLevel::Quorum)
        .expect("attempt");
    assert_eq!((w.accepted, w.offset), (false, Some(2)));
    let submitted = g
        .trace()
        .since(mark)
        .find(|e| e.kind == "client_op_submitted")
        .expect("submitted");
    assert_eq!(submitted.field("node"), Some(Value::Node(old)));
    assert_eq!(
        g.trace()
            .since(mark)
            .filter(|e| e.kind == "client_op_completed")
            .count(),
        1
    );
}
