//! Unit tests of catch-up: a standby asks once per applied position (however
//! many out-of-order records show the same gap) and not at all when a
//! keepalive finds it level; a primary names why it sends a base backup.

use bytes::Bytes;
use sim_core::{NodeId, Trace};

use crate::message::WalMsg;
use crate::node::{Effects, WalNode};
use crate::record::WalRecord;
use crate::role::{Role, SyncMode};

fn standby() -> WalNode {
    let primary = NodeId::new("primary");
    WalNode::new(NodeId::new("standby-1"), Role::Standby, &primary, false, 8)
}

fn frame(lsn: u64) -> Bytes {
    WalRecord::new(1, lsn, Bytes::from("k"), Bytes::from(format!("v{lsn}"))).encode()
}

fn catchup_requests(fx: &Effects) -> usize {
    fx.sends
        .iter()
        .filter(|(_, m)| matches!(m, WalMsg::StartReplication { .. }))
        .count()
}

/// Streams the records at `lsns` from `primary` to `s`, in that order;
/// what the standby sent back.
fn feed(s: &mut WalNode, lsns: &[u64]) -> Effects {
    let primary = NodeId::new("primary");
    let mut trace = Trace::new();
    let mut fx = Effects::default();
    for &lsn in lsns {
        s.receive_frame(
            &primary,
            &frame(lsn),
            SyncMode::Streaming,
            1,
            &mut trace,
            &mut fx,
        )
        .expect("a well-formed frame");
    }
    fx
}

#[test]
fn standby_asks_for_catch_up_once_per_gap_not_once_per_out_of_order_record() {
    let mut s = standby();
    let fx = feed(&mut s, &[3, 4, 5]);
    assert_eq!(s.lsn(), 0, "nothing after a gap is applied");
    assert_eq!(catchup_requests(&fx), 1, "{:?}", fx.sends);
}

#[test]
fn applying_the_next_record_lets_the_standby_ask_again_at_its_new_position() {
    let mut s = standby();
    let fx = feed(&mut s, &[3, 1, 3]);
    assert_eq!(s.lsn(), 1);
    assert_eq!(catchup_requests(&fx), 2, "{:?}", fx.sends);
}

#[test]
fn a_primary_never_asks_for_catch_up() {
    let id = NodeId::new("primary");
    let mut p = WalNode::new(id.clone(), Role::Primary, &id, false, 8);
    p.following = Some(NodeId::new("standby-1"));
    let mut trace = Trace::new();
    let mut fx = Effects::default();
    p.request_catchup(true, 1, &mut trace, &mut fx);
    assert!(fx.sends.is_empty(), "{:?}", fx.sends);
}

#[test]
fn keepalive_at_the_standbys_own_position_asks_for_nothing() {
    let mut s = standby();
    let primary = NodeId::new("primary");
    let mut trace = Trace::new();
    let mut fx = Effects::default();
    s.receive_frame(
        &primary,
        &frame(1),
        SyncMode::Streaming,
        1,
        &mut trace,
        &mut fx,
    )
    .expect("a well-formed frame");
    assert_eq!(s.lsn(), 1);
    fx.sends.clear();
    s.handle(
        &primary,
        WalMsg::Keepalive {
            timeline: 1,
            lsn: 1,
        },
        2,
        &mut trace,
        &mut fx,
    );
    assert_eq!(catchup_requests(&fx), 0, "{:?}", fx.sends);
    assert!(!trace.to_text().contains("wal_gap_detected"));
    s.handle(
        &primary,
        WalMsg::Keepalive {
            timeline: 1,
            lsn: 2,
        },
        3,
        &mut trace,
        &mut fx,
    );
    assert_eq!(catchup_requests(&fx), 1, "a keepalive ahead reveals a gap");
}

#[test]
fn standby_one_behind_a_promoted_primary_with_an_empty_window_gets_a_full_backup_for_retention() {
    let id = NodeId::new("standby-2");
    let mut p = WalNode::new(id.clone(), Role::Standby, &NodeId::new("primary"), false, 8);
    let mut trace = Trace::new();
    let mut fx = Effects::default();
    for lsn in 1..=3 {
        p.receive_frame(
            &NodeId::new("primary"),
            &frame(lsn),
            SyncMode::Streaming,
            1,
            &mut trace,
            &mut fx,
        )
        .expect("a well-formed frame");
    }
    p.promote(2, &mut fx);
    assert_eq!(
        p.retained_first(),
        4,
        "a promoted primary retains nothing yet"
    );
    let mut trace = Trace::new();
    let mut fx = Effects::default();
    p.on_start_replication(&NodeId::new("standby-1"), 2, 3, 1, &mut trace, &mut fx);
    assert!(
        matches!(
            fx.sends.as_slice(),
            [(_, WalMsg::BaseBackup { lsn: 3, .. })]
        ),
        "{:?}",
        fx.sends
    );
    let text = trace.to_text();
    assert!(text.contains(r#"reason="outside_retention""#), "{text}");
}
