//! Unit tests of the leader's half of one replica, driven directly (no
//! group): its append path and fan-out, catch-up, and fetch handling.

use std::sync::Arc;

use bytes::Bytes;
use replication::AckLevel;

use crate::log::LogEntry;
use crate::message::{AppendKind, IsrMessage};
use crate::node::IsrNode;
use crate::output::{NodeEvent, Output};
use crate::probe::CatchUpMode;

const LEADER: usize = 0;
const FOLLOWER: usize = 1;

fn events(out: &[Output]) -> Vec<NodeEvent> {
    out.iter()
        .filter_map(|o| match o {
            Output::Event(e) => Some(e.clone()),
            Output::Send { .. } => None,
        })
        .collect()
}

/// A follower at position 1 of 3 in epoch 1 holding `log`.
fn follower(log: &[Arc<LogEntry>]) -> IsrNode {
    let mut f = IsrNode::new(FOLLOWER, 3, LEADER, 8);
    for e in log {
        f.log.push(e.clone());
    }
    f.matched_end = f.log.end();
    f
}

/// The leader's own append path: it appends in its epoch, records the
/// append, streams to every peer that is not slow and records the skipped
/// one — all as outputs, in that order.
#[test]
fn leader_appends_then_streams_to_every_peer_that_is_not_slow() {
    let mut leader = IsrNode::new(LEADER, 3, LEADER, 8);
    let mut out = Vec::new();
    let offset = leader.append_local(
        Bytes::from_static(b"k"),
        Bytes::from_static(b"v"),
        AckLevel::AllIsr,
        |j| j == 2,
        &mut out,
    );
    assert_eq!(offset, 1);
    assert_eq!(leader.confirmed_log_end(1), Some(1));
    assert_eq!(out.len(), 3, "{out:?}");
    assert!(matches!(
        &out[0],
        Output::Event(NodeEvent::LeaderAppended {
            entry,
            acks: AckLevel::AllIsr,
        }) if (entry.offset, entry.epoch, &entry.value[..]) == (1, 1, &b"v"[..])
    ));
    assert!(matches!(
        &out[1],
        Output::Send {
            to: 1,
            msg: IsrMessage::Append {
                kind: AppendKind::Live,
                prev_offset: 0,
                leader_log_end: 1,
                ..
            }
        }
    ));
    assert_eq!(
        out[2],
        Output::Event(NodeEvent::ReplicationDelayed {
            follower: 2,
            offset: 1
        })
    );
}

/// Catch-up from the leader's log: incremental from the shared prefix
/// while it is retained, a full snapshot once the follower's next offset
/// fell out of the window.
#[test]
fn catch_up_is_incremental_inside_the_retained_window_and_full_outside() {
    let mut leader = IsrNode::new(LEADER, 3, LEADER, 2);
    let mut out = Vec::new();
    for _ in 0..3 {
        leader.append_local(
            Bytes::new(),
            Bytes::new(),
            AckLevel::Leader,
            |_| true,
            &mut out,
        );
    }
    let mut behind = follower(&[]);
    out.clear();
    leader.catch_up(FOLLOWER, &behind.log, &mut out);
    assert!(matches!(
        out[0],
        Output::Event(NodeEvent::CatchUpStarted {
            mode: CatchUpMode::Full,
            from_offset: 1,
            leader_log_end: 3,
            retained_first: 2,
            ..
        })
    ));
    behind.log.push(leader.log.entries[0].clone());
    out.clear();
    leader.catch_up(FOLLOWER, &behind.log, &mut out);
    assert!(matches!(
        out[0],
        Output::Event(NodeEvent::CatchUpStarted {
            mode: CatchUpMode::Incremental,
            from_offset: 2,
            ..
        })
    ));
    let Some(Output::Send { to: FOLLOWER, msg }) = out.pop() else {
        panic!("the last output is the catch-up to the follower");
    };
    behind.step(LEADER, msg, &mut out);
    assert_eq!(behind.log.end(), 3);
    assert_eq!(behind.confirmed_log_end(1), Some(3));
}

/// A fetch is served only by a replica that leads the epoch it names.
#[test]
fn fetch_is_served_only_by_the_leader_of_its_epoch() {
    let leader = IsrNode::new(LEADER, 3, LEADER, 8);
    let mut follower = IsrNode::new(FOLLOWER, 3, LEADER, 8);
    for (node, epoch, served) in [(&leader, 1, true), (&leader, 2, false)] {
        let mut node = node.clone();
        let mut out = Vec::new();
        node.step(
            FOLLOWER,
            IsrMessage::Fetch {
                leader_epoch: epoch,
                log_end: 0,
            },
            &mut out,
        );
        assert_eq!(
            events(&out),
            vec![NodeEvent::FetchReceived {
                follower: FOLLOWER,
                log_end: 0,
                served
            }]
        );
    }
    let mut out = Vec::new();
    follower.step(
        2,
        IsrMessage::Fetch {
            leader_epoch: 1,
            log_end: 0,
        },
        &mut out,
    );
    assert!(matches!(
        events(&out)[..],
        [NodeEvent::FetchReceived { served: false, .. }]
    ));
}
