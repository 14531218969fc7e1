//! Unit tests of the pure per-node step logic, without a group: nodes are
//! driven the way a downstream model checker would, by handing messages to
//! `step` and reading the outputs.

use std::sync::Arc;

use bytes::Bytes;
use replication::AckLevel;

use super::{AllUp, AsyncEvent, AsyncMsg, AsyncNode, Entry, NodeSettings, Output, Peers};
use crate::message::replication_id_for;
use crate::role::CatchUpMode;

pub(super) const P: usize = 0;
pub(super) const R: usize = 1;

pub(super) fn settings(backlog_size: usize) -> NodeSettings {
    NodeSettings {
        backlog_size,
        ..NodeSettings::default()
    }
}

fn primary() -> AsyncNode {
    AsyncNode::primary(P, 2, settings(2))
}

fn replica() -> AsyncNode {
    AsyncNode::replica(R, 2, P, settings(2))
}

fn entry(generation: u64, offset: u64) -> Arc<Entry> {
    Arc::new(Entry {
        generation,
        replication_id: replication_id_for(generation),
        offset,
        key: Bytes::from("k"),
        value: Bytes::from(format!("v{offset}")),
    })
}

pub(super) fn events(out: &[Output]) -> Vec<AsyncEvent> {
    out.iter()
        .filter_map(|o| match o {
            Output::Event(e) => Some(e.clone()),
            Output::Send { .. } => None,
        })
        .collect()
}

pub(super) fn sends(out: &[Output]) -> Vec<(usize, AsyncMsg)> {
    out.iter()
        .filter_map(|o| match o {
            Output::Send { to, msg } => Some((*to, msg.clone())),
            Output::Event(_) => None,
        })
        .collect()
}

/// Steps `msg` from `from` into `node` at tick 1 and returns the outputs.
pub(super) fn step(node: &mut AsyncNode, from: usize, msg: AsyncMsg) -> Vec<Output> {
    let mut out = Vec::new();
    node.step(1, from, msg, &mut out);
    out
}

/// The `PSYNC` `replica` sends when asked to resynchronise.
pub(super) fn psync_of(replica: &mut AsyncNode) -> AsyncMsg {
    let mut out = Vec::new();
    replica.request_resync("restarted", &AllUp, &mut out);
    match sends(&out).pop() {
        Some((P, msg @ AsyncMsg::Psync(_))) => msg,
        other => panic!("expected a PSYNC to the primary, got {other:?}"),
    }
}

#[test]
fn stream_applies_only_the_next_offset_and_skips_duplicates() {
    let mut r = replica();
    let out = step(&mut r, P, AsyncMsg::Stream(vec![entry(1, 1), entry(1, 2)]));
    assert_eq!(
        events(&out),
        vec![AsyncEvent::StreamApplied {
            from: P,
            generation: 1,
            prev_offset: 0,
            entries: 2,
            offset: 2
        }]
    );
    assert!(sends(&out).is_empty(), "no REPLCONF ACK by default");
    assert_eq!(r.catch_up_mode(), CatchUpMode::Streaming);
    let out = step(&mut r, P, AsyncMsg::Stream(vec![entry(1, 2)]));
    assert_eq!(
        events(&out),
        vec![AsyncEvent::StreamDuplicate {
            from: P,
            offset: 2,
            node_offset: 2
        }]
    );
    let out = step(&mut r, P, AsyncMsg::Stream(vec![entry(1, 4)]));
    assert_eq!(
        events(&out)[0],
        AsyncEvent::GapDetected {
            from: P,
            expected: 3,
            got: 4
        }
    );
    assert!(matches!(
        sends(&out).as_slice(),
        [(P, AsyncMsg::Psync(m))] if m.next_offset == 3
    ));
    assert_eq!(r.offset(), 2);
    // A second gap while the PSYNC is outstanding does not ask again.
    let out = step(&mut r, P, AsyncMsg::Stream(vec![entry(1, 5)]));
    assert!(sends(&out).is_empty());
}

#[test]
fn fencing_checks_source_then_generation_then_replication_id() {
    let mut r = replica();
    let other = 2;
    let reason = |out: Vec<Output>| match events(&out).first() {
        Some(AsyncEvent::MessageRejected { reason, .. }) => *reason,
        other => panic!("not rejected: {other:?}"),
    };
    assert_eq!(
        reason(step(&mut r, other, AsyncMsg::Stream(vec![entry(1, 1)]))),
        "non_current_primary"
    );
    r.generation = 2;
    assert_eq!(
        reason(step(&mut r, P, AsyncMsg::Stream(vec![entry(1, 1)]))),
        "stale_generation"
    );
    assert_eq!(
        reason(step(&mut r, P, AsyncMsg::Stream(vec![entry(2, 1)]))),
        "stale_replication_id"
    );
    assert_eq!(
        (r.offset(), r.data().len()),
        (0, 0),
        "nothing rejected was applied"
    );
}

#[test]
fn psync_is_partial_inside_the_backlog_and_full_outside() {
    let mut p = primary();
    let mut out = Vec::new();
    for i in 0..3 {
        p.write(
            0,
            Bytes::from("k"),
            Bytes::from(format!("v{i}")),
            AckLevel::Leader,
            &AllUp,
            &mut out,
        )
        .expect("a primary accepts writes");
    }
    assert_eq!(p.backlog_offsets(), vec![2, 3]);
    let mut r = replica();
    r.offset = 1;
    let out = step(&mut p, R, psync_of(&mut r));
    assert!(matches!(
        events(&out).as_slice(),
        [AsyncEvent::ResyncServed {
            mode: CatchUpMode::Partial,
            next_offset: 2,
            ..
        }]
    ));
    r.offset = 0;
    let out = step(&mut p, R, psync_of(&mut r));
    assert!(matches!(
        events(&out).as_slice(),
        [AsyncEvent::ResyncServed {
            mode: CatchUpMode::Full,
            next_offset: 1,
            ..
        }]
    ));
    assert!(matches!(sends(&out).as_slice(), [(R, AsyncMsg::FullSync(m))] if m.offset == 3));
}

#[test]
fn a_replica_refuses_to_serve_psync() {
    let mut r = replica();
    let mut other = AsyncNode::replica(2, 3, P, settings(2));
    let out = step(&mut r, 2, psync_of(&mut other));
    assert_eq!(
        events(&out),
        vec![AsyncEvent::PsyncRefused {
            from: 2,
            reason: "not_primary"
        }]
    );
    assert!(sends(&out).is_empty());
}

/// Node 2 is down; the link 0 → 1 is cut.
struct TwoOfThree;

impl Peers for TwoOfThree {
    fn is_up(&self, node: usize) -> bool {
        node != 2
    }
    fn can_send(&self, from: usize, to: usize) -> bool {
        (from, to) != (0, 1)
    }
}

#[test]
fn a_write_is_queued_for_the_peers_up_and_kept_for_a_cut_link_until_flushed() {
    let mut p = AsyncNode::primary(P, 4, settings(8));
    let mut out = Vec::new();
    let offset = p
        .write(
            0,
            Bytes::from("k"),
            Bytes::from("v"),
            AckLevel::None,
            &TwoOfThree,
            &mut out,
        )
        .expect("a primary accepts writes");
    assert_eq!(offset, 1);
    assert!(
        sends(&out).is_empty(),
        "nothing goes out before the tick ends"
    );
    out.clear();
    p.tick(&TwoOfThree, &mut out);
    assert_eq!(
        events(&out),
        vec![
            AsyncEvent::StreamBuffered {
                replica: 1,
                from_offset: 1
            },
            AsyncEvent::StreamSent {
                replica: 3,
                from_offset: 1,
                to_offset: 1
            },
        ]
    );
    assert_eq!(
        sends(&out).iter().map(|(to, _)| *to).collect::<Vec<_>>(),
        vec![3],
        "node 2 is down, node 1 cut off"
    );
    assert!(!p.has_unsent_output());
    out.clear();
    assert_eq!(p.flush_buffered(&TwoOfThree, &mut out), Vec::<usize>::new());
    assert!(out.is_empty(), "still cut: kept");
    assert_eq!(p.flush_buffered(&AllUp, &mut out), vec![1]);
    assert!(matches!(sends(&out).as_slice(), [(1, AsyncMsg::Stream(e))] if e.len() == 1));
}

#[test]
fn a_replica_that_applies_acknowledges_when_acks_are_on_and_the_primary_counts_it() {
    let acks = NodeSettings {
        send_acks: true,
        ..settings(8)
    };
    let mut p = AsyncNode::primary(P, 2, acks);
    let mut r = AsyncNode::replica(R, 2, P, acks);
    let mut out = Vec::new();
    p.write(
        0,
        Bytes::from("k"),
        Bytes::from("v"),
        AckLevel::Leader,
        &AllUp,
        &mut out,
    )
    .expect("a primary accepts writes");
    out.clear();
    p.tick(&AllUp, &mut out);
    let (_, stream) = sends(&out).pop().expect("streamed");
    let out = step(&mut r, P, stream);
    let (to, ack) = sends(&out).pop().expect("acknowledged");
    assert_eq!(to, P);
    assert_eq!(p.acked_at_least(1), 0);
    let out = step(&mut p, R, ack);
    assert_eq!(
        events(&out),
        vec![AsyncEvent::AckReceived {
            replica: R,
            offset: 1
        }]
    );
    assert_eq!(p.acked_at_least(1), 1);
}

#[test]
fn min_replicas_refuses_a_write_before_applying_it_once_no_replica_was_heard_within_max_lag() {
    let strict = NodeSettings {
        min_replicas_to_write: 1,
        min_replicas_max_lag: 2,
        ..settings(8)
    };
    let mut p = AsyncNode::primary(P, 2, strict);
    let mut out = Vec::new();
    let write = |p: &mut AsyncNode, now, out: &mut Vec<Output>| {
        p.write(
            now,
            Bytes::from("k"),
            Bytes::from("v"),
            AckLevel::Leader,
            &AllUp,
            out,
        )
    };
    assert_eq!(write(&mut p, 2, &mut out), Ok(1), "heard at tick 0");
    out.clear();
    assert_eq!(
        write(&mut p, 3, &mut out),
        Err(super::WriteRefused::NoReplicas {
            good_replicas: 0,
            min_replicas_to_write: 1,
            min_replicas_max_lag: 2
        })
    );
    assert_eq!(p.offset(), 1, "nothing applied");
    assert!(matches!(
        events(&out).as_slice(),
        [AsyncEvent::WriteRefused { .. }]
    ));
    let r = AsyncNode::replica(R, 2, P, strict);
    let beat = r
        .heartbeat()
        .expect("a replica heartbeats with min-replicas on");
    p.on_heartbeat(3, R, beat.generation);
    assert_eq!(write(&mut p, 3, &mut out), Ok(2));
    let mut replica = AsyncNode::replica(R, 2, P, settings(8));
    assert_eq!(
        write(&mut replica, 3, &mut out),
        Err(super::WriteRefused::ReadOnly)
    );
    assert_eq!(
        replica.heartbeat(),
        None,
        "no heartbeat with min-replicas off"
    );
}
