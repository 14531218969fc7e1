//! Unit tests of the PSYNC boundaries: a level replica gets a partial
//! resynchronisation with no entries, a replica ahead of the primary gets a
//! full one, and a power loss that lost nothing keeps the backlog.

use bytes::Bytes;
use replication::AckLevel;

use super::step_tests::{P, R, events, psync_of, sends, settings, step};
use super::{AllUp, AsyncEvent, AsyncMsg, AsyncNode};
use crate::role::CatchUpMode;

fn primary_with(writes: u64) -> AsyncNode {
    let mut p = AsyncNode::primary(P, 2, settings(4));
    let mut out = Vec::new();
    for i in 1..=writes {
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
    p
}

/// The primary's answer to a replica of the same history at `offset`.
fn psync_from(p: &mut AsyncNode, offset: u64) -> (AsyncEvent, Option<AsyncMsg>) {
    let mut r = AsyncNode::replica(R, 2, P, settings(4));
    r.offset = offset;
    let out = step(p, R, psync_of(&mut r));
    let served = events(&out).pop().expect("the primary answers");
    (served, sends(&out).pop().map(|(_, msg)| msg))
}

fn served(mode: CatchUpMode, next_offset: u64, offset: u64) -> AsyncEvent {
    AsyncEvent::ResyncServed {
        replica: R,
        mode,
        next_offset,
        offset,
    }
}

#[test]
fn level_replica_gets_a_partial_resync_with_no_entries() {
    let mut p = primary_with(3);
    let (event, reply) = psync_from(&mut p, 3);
    assert_eq!(event, served(CatchUpMode::Partial, 4, 3));
    match reply {
        Some(AsyncMsg::PartialSync(m)) => assert!(m.entries.is_empty()),
        other => panic!("expected a partial resync, got {other:?}"),
    }
}

#[test]
fn level_replica_of_a_primary_with_an_empty_backlog_gets_a_partial_resync() {
    let mut p = primary_with(0);
    let (event, _) = psync_from(&mut p, 0);
    assert_eq!(event, served(CatchUpMode::Partial, 1, 0));
}

#[test]
fn replica_ahead_of_the_primary_gets_a_full_resync() {
    let mut p = primary_with(3);
    let (event, reply) = psync_from(&mut p, 4);
    assert_eq!(event, served(CatchUpMode::Full, 5, 3));
    assert!(matches!(reply, Some(AsyncMsg::FullSync(ref m)) if m.offset == 3));
}

#[test]
fn power_loss_that_lost_nothing_keeps_the_backlog_for_a_partial_resync() {
    let mut p = primary_with(3);
    let mut out = Vec::new();
    p.fsync(&mut out);
    out.clear();
    p.crash(true, &mut out);
    assert_eq!(
        events(&out),
        vec![AsyncEvent::PowerLossRestored {
            offset: 3,
            restored_offset: 3
        }]
    );
    assert!(!p.lost_history());
    assert_eq!(p.backlog_offsets(), vec![1, 2, 3]);
    let (event, reply) = psync_from(&mut p, 1);
    assert_eq!(event, served(CatchUpMode::Partial, 2, 3));
    match reply {
        Some(AsyncMsg::PartialSync(m)) => assert_eq!(m.entries.len(), 2),
        other => panic!("expected a partial resync, got {other:?}"),
    }
}

#[test]
fn power_loss_rolls_a_primary_back_to_its_fsync_and_marks_its_history_lost() {
    let mut p = primary_with(1);
    let mut out = Vec::new();
    p.fsync(&mut out);
    p.write(
        0,
        Bytes::from("k"),
        Bytes::from("v2"),
        AckLevel::Leader,
        &AllUp,
        &mut out,
    )
    .expect("a primary accepts writes");
    out.clear();
    p.crash(true, &mut out);
    assert_eq!(
        events(&out),
        vec![AsyncEvent::PowerLossRestored {
            offset: 2,
            restored_offset: 1
        }]
    );
    assert_eq!((p.offset(), p.durable_offset()), (1, 1));
    assert_eq!(p.get(b"k"), Some(&Bytes::from("v1")));
    assert_eq!(p.backlog_offsets(), vec![1]);
    assert!(p.lost_history());
    out.clear();
    let mut q = primary_with(2);
    q.crash(false, &mut out);
    assert!(out.is_empty(), "a process crash restores nothing");
    assert_eq!(q.offset(), 2);
}
