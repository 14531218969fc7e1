//! Unit tests of the primary's catch-up decision: incremental from the
//! retained window (also when the standby is level), a base backup when the
//! standby is ahead, on another timeline or outside the window — also after
//! a power loss that lost nothing.

use bytes::Bytes;

use super::{NodeSettings, Output, WalEvent, WalMsg, WalNode};

const STANDBY: usize = 1;

fn primary_with(records: u64, retention: usize) -> WalNode {
    let settings = NodeSettings::default().with_retention(retention);
    let mut p = WalNode::new(0, 3, 0, settings).expect("valid positions");
    let mut out = Vec::new();
    for i in 1..=records {
        p.append(Bytes::from("k"), Bytes::from(format!("v{i}")), &mut out)
            .expect("a primary appends");
    }
    p
}

/// The reply to `StartReplication { timeline, next_lsn }` from the standby,
/// and the one event the primary reported with it.
fn answer(p: &mut WalNode, timeline: u64, next_lsn: u64) -> (WalMsg, WalEvent) {
    let mut out = Vec::new();
    p.on_start_replication(STANDBY, timeline, next_lsn, &mut out);
    assert_eq!(out.len(), 2, "one event, one reply: {out:?}");
    let Some(Output::Send { to, msg }) = out.pop() else {
        panic!("the reply comes last: {out:?}");
    };
    assert_eq!(to, STANDBY);
    let Some(Output::Event(event)) = out.pop() else {
        panic!("the event comes first: {out:?}");
    };
    (msg, event)
}

#[test]
fn level_standby_gets_an_incremental_catch_up_with_no_records() {
    let mut p = primary_with(3, 8);
    let (msg, event) = answer(&mut p, 1, 4);
    match msg {
        WalMsg::Batch { timeline, frames } => {
            assert_eq!(timeline, 1);
            assert!(frames.is_empty(), "nothing to send to a level standby");
        }
        other => panic!("expected an incremental batch, got {other:?}"),
    }
    assert!(
        matches!(event, WalEvent::CatchUpIncremental { records: 0, .. }),
        "{event:?}"
    );
}

#[test]
fn standby_behind_inside_the_window_gets_only_the_missing_records() {
    let mut p = primary_with(5, 3);
    assert_eq!(p.retained_first(), 3);
    match answer(&mut p, 1, 4).0 {
        WalMsg::Batch { frames, .. } => assert_eq!(frames.len(), 2),
        other => panic!("expected an incremental batch, got {other:?}"),
    }
    match answer(&mut p, 1, 2).0 {
        WalMsg::BaseBackup { lsn, .. } => assert_eq!(lsn, 5),
        other => panic!("outside the window: expected a base backup, got {other:?}"),
    }
}

#[test]
fn standby_ahead_of_the_primary_gets_a_base_backup() {
    let mut p = primary_with(3, 8);
    let (msg, event) = answer(&mut p, 1, 5);
    match msg {
        WalMsg::BaseBackup { lsn, .. } => assert_eq!(lsn, 3),
        other => panic!("expected a base backup, got {other:?}"),
    }
    assert!(
        matches!(
            event,
            WalEvent::CatchUpFull {
                reason: "standby_ahead",
                ..
            }
        ),
        "{event:?}"
    );
}

#[test]
fn standby_on_another_timeline_gets_a_base_backup() {
    let mut p = primary_with(3, 8);
    let (msg, event) = answer(&mut p, 2, 4);
    assert!(matches!(msg, WalMsg::BaseBackup { .. }), "{msg:?}");
    assert!(
        matches!(
            event,
            WalEvent::CatchUpFull {
                reason: "timeline_changed",
                ..
            }
        ),
        "{event:?}"
    );
}

#[test]
fn power_loss_that_lost_nothing_keeps_the_retained_window() {
    let mut p = primary_with(4, 8);
    p.restore(4, 1);
    assert_eq!(p.lsn(), 4);
    assert_eq!(p.retained_first(), 1, "the whole window survives");
    match answer(&mut p, 1, 3).0 {
        WalMsg::Batch { frames, .. } => assert_eq!(frames.len(), 2),
        other => panic!("expected an incremental batch, got {other:?}"),
    }
}

#[test]
fn power_loss_drops_only_the_unfsynced_tail_of_the_retained_window() {
    let mut p = primary_with(4, 8);
    p.restore(2, 1);
    assert_eq!(p.lsn(), 2);
    assert_eq!(p.retained_first(), 1);
    match answer(&mut p, 1, 2).0 {
        WalMsg::Batch { frames, .. } => assert_eq!(frames.len(), 1),
        other => panic!("expected an incremental batch, got {other:?}"),
    }
}

/// With reporting off (a group whose trace is off), an append reports no
/// `RecordAppended` — nothing copies the key and value for it — and its
/// every other output (the fsync, the sends) and its state are as with
/// reporting on.
#[test]
fn an_append_without_reporting_leaves_out_only_the_trace_event() {
    let (mut on, mut off) = (primary_with(0, 8), primary_with(0, 8));
    off.set_reporting(false);
    let (mut out_on, mut out_off) = (Vec::new(), Vec::new());
    on.append(Bytes::from("k"), Bytes::from("v"), &mut out_on)
        .expect("a primary appends");
    off.append(Bytes::from("k"), Bytes::from("v"), &mut out_off)
        .expect("a primary appends");
    let without: Vec<Output> = out_on
        .into_iter()
        .filter(|o| !matches!(o, Output::Event(WalEvent::RecordAppended { .. })))
        .collect();
    assert_eq!(out_off, without);
    assert!(
        out_off
            .iter()
            .any(|o| matches!(o, Output::Event(WalEvent::Fsync(_)))),
        "the fsync is behaviour, always reported: {out_off:?}"
    );
    assert_eq!(format!("{:?}", on.data()), format!("{:?}", off.data()));
    assert_eq!(on.lsn(), off.lsn());
}
