//! A node driven directly, without the group, as a downstream model checker
//! drives it: every message is delivered by hand and every output checked.

use bytes::Bytes;

use super::{DurableMark, NodeSettings, Output, WalEvent, WalMsg, WalNode};
use crate::role::{CatchUpMode, Role};
use crate::sync_names::SynchronousCommit;

fn b(text: &str) -> Bytes {
    Bytes::copy_from_slice(text.as_bytes())
}

/// Three nodes; position 0 is the primary.
fn three(settings: NodeSettings) -> Vec<WalNode> {
    (0..3)
        .map(|me| WalNode::new(me, 3, 0, settings).expect("valid positions"))
        .collect()
}

fn sends(out: &[Output]) -> Vec<(usize, WalMsg)> {
    out.iter()
        .filter_map(|o| match o {
            Output::Send { to, msg } => Some((*to, msg.clone())),
            Output::Event(_) => None,
        })
        .collect()
}

fn events(out: &[Output]) -> Vec<WalEvent> {
    out.iter()
        .filter_map(|o| match o {
            Output::Event(e) => Some(e.clone()),
            Output::Send { .. } => None,
        })
        .collect()
}

/// Delivers every message in `out` sent by `from` (at `now`), and then
/// everything those steps send, until nothing is left; returns every
/// event in delivery order, with the node that reported it.
fn run(nodes: &mut [WalNode], now: u64, from: usize, out: Vec<Output>) -> Vec<(usize, WalEvent)> {
    let mut queue: Vec<(usize, usize, WalMsg)> = sends(&out)
        .into_iter()
        .map(|(to, msg)| (from, to, msg))
        .collect();
    let mut seen = Vec::new();
    while !queue.is_empty() {
        let (src, to, msg) = queue.remove(0);
        let mut step = Vec::new();
        nodes[to].step(now, src, msg, &mut step);
        seen.extend(events(&step).into_iter().map(|e| (to, e)));
        queue.extend(sends(&step).into_iter().map(|(dst, m)| (to, dst, m)));
    }
    seen
}

#[test]
fn an_append_reports_the_record_then_its_fsync_then_ships_it_to_every_peer_in_order() {
    let mut p = WalNode::new(1, 3, 1, NodeSettings::default()).expect("valid");
    let mut out = Vec::new();
    assert_eq!(p.append(b("k"), b("v"), &mut out), Some(1));
    assert!(matches!(
        &out[0],
        Output::Event(WalEvent::RecordAppended { lsn: 1, .. })
    ));
    assert_eq!(
        out[1],
        Output::Event(WalEvent::Fsync(DurableMark {
            lsn: 1,
            timeline: 1
        }))
    );
    let to: Vec<usize> = sends(&out).iter().map(|(to, _)| *to).collect();
    assert_eq!(to, [0, 2], "every other position, in order");
    assert_eq!(out.len(), 4);
}

#[test]
fn a_standby_refuses_to_append_and_outputs_nothing() {
    let mut s = WalNode::new(1, 3, 0, NodeSettings::default()).expect("valid");
    let mut out = Vec::new();
    assert_eq!(s.append(b("k"), b("v"), &mut out), None);
    assert!(out.is_empty());
    assert_eq!(s.lsn(), 0);
}

#[test]
fn out_of_range_positions_and_zero_retention_are_config_errors() {
    assert!(WalNode::new(3, 3, 0, NodeSettings::default()).is_err());
    assert!(WalNode::new(0, 3, 3, NodeSettings::default()).is_err());
    assert!(WalNode::new(0, 3, 0, NodeSettings::default().with_retention(0)).is_err());
}

#[test]
fn a_synchronous_standby_applies_fsyncs_and_acknowledges_its_flush_to_the_primary() {
    let mut nodes = three(NodeSettings::default().with_synchronous(true));
    let mut out = Vec::new();
    nodes[0].append(b("k"), b("v"), &mut out);
    let seen = run(&mut nodes, 1, 0, out);
    assert!(seen.contains(&(
        1,
        WalEvent::Fsync(DurableMark {
            lsn: 1,
            timeline: 1
        })
    )));
    assert!(seen.contains(&(
        0,
        WalEvent::FlushAcked {
            standby: 2,
            flushed_lsn: 1
        }
    )));
    assert_eq!(nodes[0].reported(1, SynchronousCommit::On), Some(1));
    assert_eq!(nodes[2].data().get(&b("k")), Some(&b("v")));
    assert_eq!(nodes[1].catch_up_mode(), CatchUpMode::Streaming);
}

#[test]
fn a_promoted_standby_fences_the_old_primary_which_steps_down_and_is_rebased_by_base_backup() {
    let mut nodes = three(NodeSettings::default());
    let mut out = Vec::new();
    nodes[0].append(b("a"), b("1"), &mut out);
    run(&mut nodes, 1, 0, out);
    // The old primary writes once more while cut off (nothing delivered).
    let mut lost = Vec::new();
    nodes[0].append(b("b"), b("old"), &mut lost);
    // Position 1 is promoted to timeline 2 and announces it.
    let mut out = Vec::new();
    nodes[1].promote(2, Some(0), &mut out);
    assert_eq!(
        events(&out),
        [
            WalEvent::Fsync(DurableMark {
                lsn: 1,
                timeline: 2
            }),
            WalEvent::Promoted {
                timeline: 2,
                lsn: 1,
                previous_primary: Some(0)
            }
        ]
    );
    let seen = run(&mut nodes, 2, 1, out);
    assert!(seen.contains(&(
        0,
        WalEvent::PrimaryDemoted {
            new_primary: 1,
            timeline: 1,
            new_timeline: 2
        }
    )));
    assert!(seen.iter().any(|(at, e)| *at == 0
        && matches!(e, WalEvent::BaseBackupApplied { timeline: 2, .. })));
    assert_eq!(nodes[0].role(), Role::Standby);
    assert_eq!(nodes[0].following(), Some(1));
    assert_eq!(nodes[0].wal(), nodes[1].wal(), "the old branch is gone");
    assert_eq!(nodes[0].data().get(&b("b")), None);
    // The old primary's queued record of timeline 1 is fenced now.
    let fenced: Vec<WalEvent> = sends(&lost)
        .into_iter()
        .filter(|(to, _)| *to == 2)
        .flat_map(|(_, msg)| {
            let mut step = Vec::new();
            nodes[2].step(3, 0, msg, &mut step);
            events(&step)
        })
        .collect();
    assert_eq!(
        fenced,
        [WalEvent::Fenced {
            src: 0,
            msg: "wal_record",
            lsn: Some(2),
            msg_timeline: 1,
            node_timeline: 2,
            reason: "stale_timeline"
        }]
    );
}

#[test]
fn tick_replays_a_delayed_record_only_once_its_delay_is_over_and_reports_the_replay() {
    let settings = NodeSettings::default()
        .with_synchronous(true)
        .with_synchronous_commit(SynchronousCommit::RemoteApply)
        .with_recovery_min_apply_delay(2);
    let mut nodes = three(settings);
    let mut out = Vec::new();
    nodes[0].append(b("k"), b("v"), &mut out);
    run(&mut nodes, 1, 0, out);
    assert_eq!((nodes[1].lsn(), nodes[1].applied_lsn()), (1, 0));
    let mut out = Vec::new();
    nodes[1].tick(2, &mut out);
    assert!(out.is_empty(), "not due yet: {out:?}");
    nodes[1].tick(3, &mut out);
    assert!(matches!(
        &out[0],
        Output::Event(WalEvent::RecordReplayed { lsn: 1, .. })
    ));
    assert_eq!(
        sends(&out),
        [(
            0,
            WalMsg::ApplyAck {
                timeline: 1,
                applied_lsn: 1
            }
        )]
    );
    assert_eq!(nodes[1].applied_lsn(), 1);
}

#[test]
fn a_power_loss_rolls_back_to_the_durable_mark_and_reports_what_it_restored() {
    let mut nodes = three(NodeSettings::default());
    let mut out = Vec::new();
    for v in ["1", "2", "3"] {
        nodes[0].append(b("k"), b(v), &mut out);
    }
    run(&mut nodes, 1, 0, out);
    let mut out = Vec::new();
    nodes[2].power_loss(
        DurableMark {
            lsn: 1,
            timeline: 1,
        },
        &mut out,
    );
    assert_eq!(
        events(&out),
        [WalEvent::PowerLossRestored {
            lsn_before: 3,
            lsn: 1,
            timeline: 1
        }]
    );
    assert_eq!(nodes[2].lsn(), 1);
    assert_eq!(nodes[2].data().get(&b("k")), Some(&b("1")));
    let name = sim_core::NodeId::new("standby-2");
    nodes[2]
        .check_invariants(&name, 1)
        .expect("a consistent node");
}
