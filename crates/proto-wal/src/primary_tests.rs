//! Unit tests of the primary's catch-up decision: incremental from the
//! retained window (also when the standby is level), a base backup when the
//! standby is ahead, on another timeline or outside the window — also after
//! a power loss that lost nothing.

use bytes::Bytes;
use sim_core::{NodeId, Trace};

use crate::message::WalMsg;
use crate::node::{Effects, WalNode};
use crate::role::Role;

fn primary_with(records: u64, retention: usize) -> (WalNode, Trace) {
    let id = NodeId::new("primary");
    let mut p = WalNode::new(id.clone(), Role::Primary, &id, false, retention);
    let mut trace = Trace::new();
    let mut fx = Effects::default();
    for i in 1..=records {
        p.append(
            Bytes::from("k"),
            Bytes::from(format!("v{i}")),
            0,
            &mut trace,
            &mut fx,
        );
    }
    (p, trace)
}

/// The reply to `StartReplication { timeline, next_lsn }` from `standby`.
fn answer(p: &mut WalNode, timeline: u64, next_lsn: u64) -> (WalMsg, String) {
    let mut trace = Trace::new();
    let mut fx = Effects::default();
    let standby = NodeId::new("standby-1");
    p.on_start_replication(&standby, timeline, next_lsn, 1, &mut trace, &mut fx);
    assert_eq!(fx.sends.len(), 1, "one reply");
    let (to, msg) = fx.sends.pop().expect("one reply");
    assert_eq!(to, standby);
    (msg, trace.to_text())
}

#[test]
fn level_standby_gets_an_incremental_catch_up_with_no_records() {
    let (mut p, _) = primary_with(3, 8);
    let (msg, text) = answer(&mut p, 1, 4);
    match msg {
        WalMsg::Batch { timeline, frames } => {
            assert_eq!(timeline, 1);
            assert!(frames.is_empty(), "nothing to send to a level standby");
        }
        other => panic!("expected an incremental batch, got {other:?}"),
    }
    assert!(text.contains("records=0"), "{text}");
}

#[test]
fn standby_behind_inside_the_window_gets_only_the_missing_records() {
    let (mut p, _) = primary_with(5, 3);
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
    let (mut p, _) = primary_with(3, 8);
    let (msg, text) = answer(&mut p, 1, 5);
    match msg {
        WalMsg::BaseBackup { lsn, .. } => assert_eq!(lsn, 3),
        other => panic!("expected a base backup, got {other:?}"),
    }
    assert!(text.contains("reason=\"standby_ahead\""), "{text}");
}

#[test]
fn standby_on_another_timeline_gets_a_base_backup() {
    let (mut p, _) = primary_with(3, 8);
    let (msg, text) = answer(&mut p, 2, 4);
    assert!(matches!(msg, WalMsg::BaseBackup { .. }), "{msg:?}");
    assert!(text.contains("reason=\"timeline_changed\""), "{text}");
}

#[test]
fn power_loss_that_lost_nothing_keeps_the_retained_window() {
    let (mut p, _) = primary_with(4, 8);
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
    let (mut p, _) = primary_with(4, 8);
    p.restore(2, 1);
    assert_eq!(p.lsn(), 2);
    assert_eq!(p.retained_first(), 1);
    match answer(&mut p, 1, 2).0 {
        WalMsg::Batch { frames, .. } => assert_eq!(frames.len(), 1),
        other => panic!("expected an incremental batch, got {other:?}"),
    }
}
