//! Operations in flight through the public trait: `submit`, completions in
//! completion order, and when each WAL operation completes *done* or
//! *unknown*.

mod common;

use common::{b, group_with_sync, id};
use proto_wal::{
    AckLevel, ClientOp, Completion, GroupError, OpId, Outcome, OutcomeStatus, ReadLevel,
    ReplicationGroup, WalConfig, WalShippingGroup,
};

fn write(key: &str, value: &str, level: AckLevel) -> ClientOp {
    ClientOp::write(b(key), b(value), level)
}

fn read(key: &str, level: ReadLevel) -> ClientOp {
    ClientOp::read(b(key), level)
}

/// Ticks `n` times.
fn ticks(g: &mut WalShippingGroup, n: u64) {
    for _ in 0..n {
        g.tick();
    }
}

fn ids(done: &[Completion]) -> Vec<OpId> {
    done.iter().map(|c| c.id).collect()
}

fn status(c: &Completion) -> OutcomeStatus {
    c.outcome.status()
}

fn unknown_offset(c: &Completion) -> Option<u64> {
    match &c.outcome {
        Outcome::Unknown { offset, .. } => *offset,
        other => panic!("expected unknown, got {other:?}"),
    }
}

fn reason(c: &Completion) -> &str {
    match &c.outcome {
        Outcome::Unknown { message, .. } | Outcome::Failed { message, .. } => message,
        other => panic!("expected a reason, got {other:?}"),
    }
}

#[test]
fn three_clients_with_overlapping_operations_each_get_their_own_outcome() {
    let mut g = group_with_sync(&["standby-1"]);
    // Client A: a QUORUM write, waiting for standby-1's flush.
    let a = g.submit(write("a", "1", AckLevel::Quorum)).unwrap();
    // Client B, while A waits: a LEADER write, acknowledged at once.
    let b_op = g.submit(write("b", "2", AckLevel::Leader)).unwrap();
    g.tick();
    // Client C, while A still waits: reads standby-1, which applied both.
    let c = g
        .submit(read("a", ReadLevel::Local).at(&id("standby-1")))
        .unwrap();
    assert!(g.take_completion(a).is_none(), "A still waits");
    g.tick();

    let done = g.take_completions();
    assert_eq!(ids(&done), vec![b_op, c, a], "completion order");
    let ticks_of: Vec<_> = done.iter().map(|c| (c.submitted, c.completed)).collect();
    assert_eq!(ticks_of, vec![(0, 0), (1, 1), (0, 2)]);
    assert!(matches!(
        done[0].outcome,
        Outcome::Written { offset: 2, .. }
    ));
    match &done[1].outcome {
        Outcome::Read(r) => {
            assert_eq!(r.value, Some(b("1")));
            assert_eq!(r.node, id("standby-1"));
            assert_eq!(r.offset, 2);
        }
        other => panic!("expected a read, got {other:?}"),
    }
    assert!(matches!(
        done[2].outcome,
        Outcome::Written { offset: 1, .. }
    ));
    assert_eq!(done[2].node, Some(id("primary")));
}

#[test]
fn quorum_writes_in_flight_all_complete_done_once_the_synchronous_standby_flushes() {
    let mut g = group_with_sync(&["standby-1"]);
    let ops: Vec<OpId> = (0..3)
        .map(|i| {
            g.submit(write(&format!("k{i}"), "v", AckLevel::Quorum))
                .unwrap()
        })
        .collect();
    g.tick();
    assert!(
        g.take_completions().is_empty(),
        "standby-1 flushed, ack on its way"
    );
    assert_eq!(g.probe().node(&id("standby-1")).unwrap().flushed_lsn, 3);
    g.tick();
    let done = g.take_completions();
    assert_eq!(ids(&done), ops, "in submission order, all in the same tick");
    for (k, c) in done.iter().enumerate() {
        assert_eq!((c.submitted, c.completed), (0, 2));
        match &c.outcome {
            Outcome::Written { offset, message } => {
                assert_eq!(*offset, k as u64 + 1);
                assert!(message.contains("every synchronous standby"), "{message}");
            }
            other => panic!("expected done, got {other:?}"),
        }
    }
    assert_eq!(g.trace().count("wal_write_acked"), 3);
}

#[test]
fn quorum_writes_in_flight_complete_unknown_after_ack_timeout_with_the_synchronous_standby_isolated()
 {
    let mut g = group_with_sync(&["standby-1"]);
    g.isolate(&id("standby-1")).unwrap();
    let timeout = g.config().ack_timeout;
    let mut ops = Vec::new();
    for i in 0..3u64 {
        ops.push(
            g.submit(write(&format!("k{i}"), "v", AckLevel::Quorum))
                .unwrap(),
        );
        g.tick();
    }
    ticks(&mut g, timeout);
    let done = g.take_completions();
    assert_eq!(ids(&done), ops);
    for (k, c) in done.iter().enumerate() {
        let k = k as u64;
        assert_eq!(status(c), OutcomeStatus::Unknown);
        assert_eq!((c.submitted, c.completed), (k, k + timeout));
        assert_eq!(unknown_offset(c), Some(k + 1), "it was appended");
        assert!(reason(c).contains("standby-1"), "{}", reason(c));
        assert_eq!(c.node, Some(id("primary")));
    }
    let probe = g.probe();
    let primary = probe.node(&id("primary")).unwrap();
    assert_eq!(
        (primary.applied_lsn, primary.flushed_lsn),
        (3, 3),
        "appended and flushed on the primary"
    );
    assert_eq!(g.trace().count("wal_write_refused"), 3);
}

#[test]
fn leader_writes_complete_done_at_submit() {
    let mut g = group_with_sync(&["standby-1"]);
    g.isolate(&id("standby-1")).unwrap();
    let before = g.now();
    let op = g.submit(write("k", "v", AckLevel::Leader)).unwrap();
    let done = g.take_completion(op).expect("complete without a tick");
    assert_eq!(g.now(), before);
    assert_eq!((done.submitted, done.completed), (before, before));
    assert_eq!(done.node, Some(id("primary")));
    assert!(matches!(done.outcome, Outcome::Written { offset: 1, .. }));
}

#[test]
fn a_write_in_flight_when_its_primary_crashes_completes_unknown() {
    let mut g = group_with_sync(&["standby-1"]);
    let first = g.submit(write("a", "1", AckLevel::Quorum)).unwrap();
    g.tick();
    let second = g.submit(write("b", "2", AckLevel::Quorum)).unwrap();
    g.crash(&id("primary"), true).unwrap();
    let done = g.take_completions();
    assert_eq!(ids(&done), vec![first, second], "both end at the crash");
    for (k, c) in done.iter().enumerate() {
        assert_eq!(status(c), OutcomeStatus::Unknown);
        assert_eq!(c.completed, 1);
        assert_eq!(unknown_offset(c), Some(k as u64 + 1));
        assert_eq!(c.node, None, "no node answered");
        assert!(reason(c).contains("primary crashed"), "{}", reason(c));
    }
    // Unknown indeed: standby-1 holds LSN 1 (and is promoted), not LSN 2.
    g.failover(None).unwrap();
    g.run_until_idle(100).unwrap();
    let leader = g.client_read(b"a", ReadLevel::Leader, None).unwrap();
    assert_eq!(leader.value, Some(b("1")), "the first survived");
    let leader = g.client_read(b"b", ReadLevel::Leader, None).unwrap();
    assert_eq!(leader.value, None, "the second did not");
}

#[test]
fn a_read_is_served_at_submit_so_a_later_crash_cannot_fail_it_and_a_read_at_a_crashed_node_is_refused()
 {
    let mut g = group_with_sync(&[]);
    g.client_write(b("k"), b("v"), AckLevel::Leader).unwrap();
    let standby = id("standby-1");
    let op = g.submit(read("k", ReadLevel::Leader)).unwrap();
    g.crash(&id("primary"), false).unwrap();
    let done = g.take_completion(op).unwrap();
    assert_eq!(status(&done), OutcomeStatus::Done);
    assert_eq!(done.completed, done.submitted);
    g.crash(&standby, false).unwrap();
    let trace_len = g.trace().len();
    assert_eq!(
        g.submit(read("k", ReadLevel::Local).at(&standby)),
        Err(GroupError::NodeDown(standby.clone()))
    );
    assert_eq!(
        g.submit(read("k", ReadLevel::Leader)),
        Err(GroupError::NodeDown(id("primary")))
    );
    assert_eq!(g.trace().len(), trace_len);
    assert!(g.take_completions().is_empty());
}

#[test]
fn a_promotion_while_a_quorum_write_is_pending_makes_it_complete_unknown() {
    let mut g = group_with_sync(&["standby-1"]);
    let op = g.submit(write("k", "v", AckLevel::Quorum)).unwrap();
    assert_eq!(g.failover(Some(&id("standby-2"))).unwrap(), id("standby-2"));
    let done = g.take_completion(op).expect("completed at the promotion");
    assert_eq!(status(&done), OutcomeStatus::Unknown);
    assert_eq!((done.submitted, done.completed), (0, 0));
    assert_eq!(unknown_offset(&done), Some(1));
    assert!(
        reason(&done).contains("standby-2 was promoted to timeline 2"),
        "{}",
        reason(&done)
    );
    g.run_until_idle(100).unwrap();
    assert_eq!(
        g.trace().count("client_op_completed"),
        1,
        "completed once, not again when the old primary steps down"
    );
}

#[test]
fn a_split_brain_quorum_write_at_a_displaced_primary_completes_unknown_when_it_steps_down() {
    let mut g = group_with_sync(&["standby-1"]);
    let old = id("primary");
    g.isolate(&old).unwrap();
    g.failover(Some(&id("standby-2"))).unwrap();
    let op = g
        .submit(write("k", "split", AckLevel::Quorum).at(&old))
        .unwrap();
    g.heal(&old).unwrap();
    g.run_until_idle(100).unwrap();
    let done = g.take_completion(op).unwrap();
    assert_eq!(status(&done), OutcomeStatus::Unknown);
    assert!(
        done.completed < g.config().ack_timeout,
        "before the timeout"
    );
    assert!(reason(&done).contains("stepped down"), "{}", reason(&done));
    assert_eq!(g.trace().count("wal_write_refused"), 1);
}

#[test]
fn every_operation_completes_within_its_bound_even_with_the_primary_isolated() {
    let mut g = group_with_sync(&["standby-1"]);
    g.isolate(&id("primary")).unwrap();
    let bound = g.config().ack_timeout;
    let mut submitted = 0;
    for i in 0..bound + 5 {
        let level = if i % 2 == 0 {
            AckLevel::Quorum
        } else {
            AckLevel::Leader
        };
        g.submit(write(&format!("k{i}"), "v", level)).unwrap();
        g.submit(read(&format!("k{i}"), ReadLevel::Leader)).unwrap();
        submitted += 2;
        g.tick();
    }
    ticks(&mut g, bound);
    let done = g.take_completions();
    assert_eq!(done.len(), submitted, "nothing is left waiting");
    for c in &done {
        assert!(c.completed - c.submitted <= bound, "{c:?}");
        let expected = match &c.op {
            ClientOp::Write {
                level: AckLevel::Quorum,
                ..
            } => OutcomeStatus::Unknown,
            _ => OutcomeStatus::Done,
        };
        assert_eq!(status(c), expected, "{c:?}");
    }
    assert_eq!(g.run_until_idle(0), Ok(0));
}

#[test]
fn completions_come_out_in_completion_order_with_their_submit_and_complete_ticks() {
    let config = WalConfig::default()
        .with_synchronous_standbys([id("standby-1")])
        .with_ack_timeout(5);
    let mut g = WalShippingGroup::new(config).unwrap();
    g.isolate(&id("standby-1")).unwrap();
    let q1 = g.submit(write("a", "1", AckLevel::Quorum)).unwrap();
    ticks(&mut g, 2);
    let q2 = g.submit(write("b", "2", AckLevel::Quorum)).unwrap();
    let l = g.submit(write("c", "3", AckLevel::Leader)).unwrap();
    ticks(&mut g, 4);
    g.heal(&id("standby-1")).unwrap();
    let r = g.submit(read("c", ReadLevel::Local)).unwrap();
    ticks(&mut g, 3);
    let done = g.take_completions();
    assert_eq!(ids(&done), vec![l, q1, r, q2]);
    let summary: Vec<_> = done
        .iter()
        .map(|c| (c.submitted, c.completed, status(c)))
        .collect();
    assert_eq!(
        summary,
        vec![
            (2, 2, OutcomeStatus::Done),
            (0, 5, OutcomeStatus::Unknown),
            (6, 6, OutcomeStatus::Done),
            (2, 7, OutcomeStatus::Unknown),
        ]
    );
}

#[test]
fn take_completion_by_id_leaves_the_other_completions_queued() {
    let mut g = group_with_sync(&[]);
    let a = g.submit(write("a", "1", AckLevel::Leader)).unwrap();
    let b_op = g.submit(write("b", "2", AckLevel::Leader)).unwrap();
    let c = g.submit(read("a", ReadLevel::Leader)).unwrap();
    assert_eq!(g.take_completion(b_op).map(|c| c.id), Some(b_op));
    assert_eq!(g.take_completion(b_op), None, "taken once");
    assert_eq!(ids(&g.take_completions()), vec![a, c]);
    assert!(g.take_completions().is_empty());
}

#[test]
fn submit_errors_change_nothing_and_use_no_id() {
    let mut g = group_with_sync(&["standby-1"]);
    let ghost = id("ghost");
    let standby = id("standby-2");
    g.crash(&standby, false).unwrap();
    let cases = [
        (
            write("k", "v", AckLevel::None),
            GroupError::UnsupportedAck {
                protocol: "wal",
                level: AckLevel::None,
            },
        ),
        (
            write("k", "v", AckLevel::AllIsr),
            GroupError::UnsupportedAck {
                protocol: "wal",
                level: AckLevel::AllIsr,
            },
        ),
        (
            read("k", ReadLevel::Linearizable).at(&ghost),
            GroupError::UnsupportedRead {
                protocol: "wal",
                level: ReadLevel::Linearizable,
            },
        ),
        (
            write("k", "v", AckLevel::Leader).at(&ghost),
            GroupError::UnknownNode(ghost.clone()),
        ),
        (
            read("k", ReadLevel::Local).at(&ghost),
            GroupError::UnknownNode(ghost.clone()),
        ),
        (
            read("k", ReadLevel::Local).at(&standby),
            GroupError::NodeDown(standby.clone()),
        ),
        (
            write("k", "v", AckLevel::Quorum).at(&id("standby-1")),
            GroupError::not_permitted(&id("standby-1"), "not a primary: standbys are read-only"),
        ),
    ];
    for (op, expected) in cases {
        let (trace_len, probe, summary) = (g.trace().len(), g.probe(), g.summary());
        assert_eq!(g.submit(op), Err(expected.clone()));
        assert_eq!(g.trace().len(), trace_len, "{expected}: no trace event");
        assert_eq!(g.probe(), probe, "{expected}: probe unchanged");
        assert_eq!(g.summary(), summary);
        assert!(g.take_completions().is_empty());
    }
    g.crash(&id("primary"), false).unwrap();
    let trace_len = g.trace().len();
    assert_eq!(
        g.submit(write("k", "v", AckLevel::Leader)),
        Err(GroupError::NodeDown(id("primary")))
    );
    assert_eq!(g.trace().len(), trace_len);
    g.failover(Some(&id("standby-1"))).unwrap();
    let first = g.submit(write("k", "v", AckLevel::Leader)).unwrap();
    assert_eq!(first, OpId(1), "no refused submission used an id");
}

#[test]
fn run_until_idle_waits_for_quorum_writes_in_flight() {
    let mut g = group_with_sync(&["standby-1"]);
    g.isolate(&id("standby-1")).unwrap();
    let op = g.submit(write("k", "v", AckLevel::Quorum)).unwrap();
    match g.run_until_idle(5) {
        Err(GroupError::NotIdle { ticks, waiting_for }) => {
            assert_eq!(ticks, 5);
            assert_eq!(waiting_for, "1 QUORUM writes in flight");
        }
        other => panic!("expected NotIdle, got {other:?}"),
    }
    let timeout = g.config().ack_timeout;
    assert_eq!(g.run_until_idle(100), Ok(timeout - 5));
    assert_eq!(
        g.take_completion(op).map(|c| c.outcome.status()),
        Some(OutcomeStatus::Unknown)
    );
}

#[test]
fn the_blocking_calls_are_submit_and_await_and_leave_no_completion_behind() {
    let mut g = group_with_sync(&["standby-1"]);
    let ack = g.client_write(b("k"), b("v"), AckLevel::Quorum).unwrap();
    assert!(ack.accepted);
    let read = g.client_read(b"k", ReadLevel::Leader, None).unwrap();
    assert_eq!(read.value, Some(b("v")));
    let split = g
        .write_at(&id("primary"), b("k"), b("w"), AckLevel::Leader)
        .unwrap();
    assert!(split.accepted);
    assert!(g.take_completions().is_empty());
    assert_eq!(g.trace().count("client_op_submitted"), 3);
    assert_eq!(g.trace().count("client_op_completed"), 3);
}

/// `client_write` waits for its own write without the in-flight
/// bookkeeping (no op clone, no queued completion); what anyone can see is
/// what `submit` + `await_completion` gives: the same answers, trace and op
/// ids — acknowledged, timed out with the synchronous standby isolated, at
/// `LEADER`, and with another client's write in flight meanwhile (whose
/// completion is queued as usual).
#[test]
fn a_blocking_write_answers_and_traces_as_submit_and_await_do() {
    let mut fast = group_with_sync(&["standby-1"]);
    let mut slow = group_with_sync(&["standby-1"]);
    let steps: [(&str, AckLevel); 6] = [
        ("a", AckLevel::Quorum),
        ("b", AckLevel::Leader),
        ("other", AckLevel::Quorum),
        ("c", AckLevel::Quorum),
        ("isolate", AckLevel::Quorum),
        ("d", AckLevel::Quorum),
    ];
    for (key, level) in steps {
        match key {
            "isolate" => {
                fast.isolate(&id("standby-1")).expect("known node");
                slow.isolate(&id("standby-1")).expect("known node");
            }
            "other" => {
                let a = fast.submit(write("o", "1", level)).expect("accepted");
                let b = slow.submit(write("o", "1", level)).expect("accepted");
                assert_eq!(a, b);
            }
            _ => {
                let a = fast.client_write(b(key), b("v"), level);
                let id = slow.submit(write(key, "v", level)).expect("accepted");
                let c = slow
                    .await_completion(id)
                    .and_then(|c| c.outcome.into_write_result());
                assert_eq!(a, c, "write {key}");
            }
        }
    }
    let (a, c) = (fast.take_completions(), slow.take_completions());
    assert_eq!(
        ids(&a),
        ids(&c),
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
    let err = fast.client_write(b("k"), b("v"), AckLevel::AllIsr);
    assert!(
        matches!(err, Err(GroupError::UnsupportedAck { .. })),
        "{err:?}"
    );
}
