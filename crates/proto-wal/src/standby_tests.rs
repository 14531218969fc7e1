//! Unit tests of a standby's catch-up requests: one request per applied
//! position, however many out-of-order records show the same gap.

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

#[test]
fn standby_asks_for_catch_up_once_per_gap_not_once_per_out_of_order_record() {
    let mut s = standby();
    let primary = NodeId::new("primary");
    let mut trace = Trace::new();
    let mut fx = Effects::default();
    for lsn in [3, 4, 5] {
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
    assert_eq!(s.lsn(), 0, "nothing after a gap is applied");
    assert_eq!(catchup_requests(&fx), 1, "{:?}", fx.sends);
}

#[test]
fn applying_the_next_record_lets_the_standby_ask_again_at_its_new_position() {
    let mut s = standby();
    let primary = NodeId::new("primary");
    let mut trace = Trace::new();
    let mut fx = Effects::default();
    for lsn in [3, 1, 3] {
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
