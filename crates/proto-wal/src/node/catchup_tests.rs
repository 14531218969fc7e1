//! Unit tests of catch-up: a standby asks once per applied position (however
//! many out-of-order records show the same gap) and not at all when a
//! keepalive finds it level; a primary names why it sends a base backup.

use bytes::Bytes;

use super::{NodeSettings, Output, WalEvent, WalMsg, WalNode};
use crate::record::WalRecord;
use crate::role::CatchUpMode;

/// Positions: the primary is 0, standby-1 is 1, standby-2 is 2.
const PRIMARY: usize = 0;

fn standby() -> WalNode {
    WalNode::new(1, 3, PRIMARY, NodeSettings::default()).expect("valid positions")
}

fn frame(lsn: u64) -> Bytes {
    WalRecord::new(1, lsn, Bytes::from("k"), Bytes::from(format!("v{lsn}"))).encode()
}

fn catchup_requests(out: &[Output]) -> usize {
    out.iter()
        .filter(|o| {
            matches!(
                o,
                Output::Send {
                    msg: WalMsg::StartReplication { .. },
                    ..
                }
            )
        })
        .count()
}

fn has_gap_event(out: &[Output]) -> bool {
    out.iter()
        .any(|o| matches!(o, Output::Event(WalEvent::GapDetected { .. })))
}

/// Streams the records at `lsns` from the primary to `s`, in that order;
/// what the standby output.
fn feed(s: &mut WalNode, lsns: &[u64]) -> Vec<Output> {
    let mut out = Vec::new();
    for &lsn in lsns {
        s.receive_frame(PRIMARY, &frame(lsn), CatchUpMode::Streaming, 1, &mut out)
            .expect("a well-formed frame");
    }
    out
}

#[test]
fn standby_asks_for_catch_up_once_per_gap_not_once_per_out_of_order_record() {
    let mut s = standby();
    let out = feed(&mut s, &[3, 4, 5]);
    assert_eq!(s.lsn(), 0, "nothing after a gap is applied");
    assert_eq!(catchup_requests(&out), 1, "{out:?}");
}

#[test]
fn applying_the_next_record_lets_the_standby_ask_again_at_its_new_position() {
    let mut s = standby();
    let out = feed(&mut s, &[3, 1, 3]);
    assert_eq!(s.lsn(), 1);
    assert_eq!(catchup_requests(&out), 2, "{out:?}");
}

#[test]
fn a_primary_never_asks_for_catch_up() {
    let mut p = WalNode::new(PRIMARY, 3, PRIMARY, NodeSettings::default()).expect("valid");
    p.following = Some(1);
    let mut out = Vec::new();
    p.request_catchup(true, &mut out);
    assert!(out.is_empty(), "{out:?}");
}

#[test]
fn keepalive_at_the_standbys_own_position_asks_for_nothing() {
    let mut s = standby();
    let mut out = feed(&mut s, &[1]);
    assert_eq!(s.lsn(), 1);
    out.clear();
    s.step(
        2,
        PRIMARY,
        WalMsg::Keepalive {
            timeline: 1,
            lsn: 1,
        },
        &mut out,
    );
    assert_eq!(catchup_requests(&out), 0, "{out:?}");
    assert!(!has_gap_event(&out), "{out:?}");
    s.step(
        3,
        PRIMARY,
        WalMsg::Keepalive {
            timeline: 1,
            lsn: 2,
        },
        &mut out,
    );
    assert_eq!(catchup_requests(&out), 1, "a keepalive ahead reveals a gap");
}

#[test]
fn standby_one_behind_a_promoted_primary_with_an_empty_window_gets_a_full_backup_for_retention() {
    let mut p = WalNode::new(2, 3, PRIMARY, NodeSettings::default()).expect("valid");
    feed(&mut p, &[1, 2, 3]);
    let mut out = Vec::new();
    p.promote(2, Some(PRIMARY), &mut out);
    assert_eq!(
        p.retained_first(),
        4,
        "a promoted primary retains nothing yet"
    );
    let mut out = Vec::new();
    p.on_start_replication(1, 2, 3, &mut out);
    let sends: Vec<&WalMsg> = out
        .iter()
        .filter_map(|o| match o {
            Output::Send { msg, .. } => Some(msg),
            Output::Event(_) => None,
        })
        .collect();
    assert!(
        matches!(sends.as_slice(), [WalMsg::BaseBackup { lsn: 3, .. }]),
        "{out:?}"
    );
    assert!(
        out.iter().any(|o| matches!(
            o,
            Output::Event(WalEvent::CatchUpFull {
                reason: "outside_retention",
                ..
            })
        )),
        "{out:?}"
    );
}
