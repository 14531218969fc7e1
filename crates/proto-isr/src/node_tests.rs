//! Unit tests of the pure step functions of one replica.

use std::sync::Arc;

use bytes::Bytes;
use replication::NodeId;

use crate::log::LogEntry;
use crate::message::AppendKind;
use crate::node::{IsrNode, StepOutcome};
use crate::probe::CatchUpMode;

fn leader() -> NodeId {
    NodeId::new("node-1")
}

fn entry(offset: u64, epoch: u64, value: &'static str) -> Arc<LogEntry> {
    Arc::new(LogEntry {
        offset,
        epoch,
        key: Bytes::from_static(b"k"),
        value: Bytes::from_static(value.as_bytes()),
    })
}

/// A follower `node-2` of `node-1` in `epoch`, holding `log`.
fn follower(epoch: u64, log: &[Arc<LogEntry>]) -> IsrNode {
    let mut f = IsrNode::new(NodeId::new("node-2"), leader());
    f.known_epoch = epoch;
    f.matched_epoch = epoch;
    for e in log {
        f.log.push(e.clone());
    }
    f.matched_end = f.log.end();
    f
}

fn epochs(f: &IsrNode) -> Vec<(u64, u64)> {
    f.log.entries.iter().map(|e| (e.offset, e.epoch)).collect()
}

#[test]
fn append_whose_previous_entry_has_another_epoch_is_rejected_as_log_mismatch() {
    // The follower holds offset 2 from epoch 1; the leader's log has an
    // epoch-2 entry there. The packet must not fit.
    let mut f = follower(2, &[entry(1, 1, "a"), entry(2, 1, "stale")]);
    let out = f.step_append(
        AppendKind::Live,
        2,
        &leader(),
        2,
        2,
        &[entry(3, 2, "c")],
        3,
        0,
    );
    assert_eq!(
        out,
        StepOutcome::Rejected {
            reason: "log_mismatch"
        }
    );
    assert_eq!(
        epochs(&f),
        vec![(1, 1), (2, 1)],
        "a rejected append changes nothing"
    );
    assert_eq!(f.matched_end, 2);
}

#[test]
fn append_past_the_follower_log_end_is_rejected_as_log_mismatch() {
    let mut f = follower(1, &[entry(1, 1, "a")]);
    let out = f.step_append(
        AppendKind::Live,
        1,
        &leader(),
        2,
        1,
        &[entry(3, 1, "c")],
        3,
        0,
    );
    assert_eq!(
        out,
        StepOutcome::Rejected {
            reason: "log_mismatch"
        }
    );
    assert_eq!(f.log.end(), 1);
}

#[test]
fn duplicate_append_keeps_the_entries_the_follower_already_holds() {
    // A reordered / duplicated live packet for offset 2 arrives after the
    // follower already holds 1..=3: nothing may be truncated.
    let log = [entry(1, 1, "a"), entry(2, 1, "b"), entry(3, 1, "c")];
    let mut f = follower(1, &log);
    let out = f.step_append(
        AppendKind::Live,
        1,
        &leader(),
        1,
        1,
        &[log[1].clone()],
        2,
        0,
    );
    assert_eq!(
        out,
        StepOutcome::Accepted {
            first: 4,
            last: 3,
            truncated_to: None
        }
    );
    assert_eq!(epochs(&f), vec![(1, 1), (2, 1), (3, 1)]);
    assert_eq!(f.log.data.get(&b"k"[..]), Some(&Bytes::from_static(b"c")));
}

#[test]
fn append_replaces_only_the_conflicting_suffix() {
    let mut f = follower(
        2,
        &[entry(1, 1, "a"), entry(2, 1, "b"), entry(3, 1, "stale")],
    );
    let out = f.step_append(
        AppendKind::Live,
        2,
        &leader(),
        1,
        1,
        &[entry(2, 1, "b"), entry(3, 2, "new")],
        3,
        0,
    );
    assert_eq!(
        out,
        StepOutcome::Accepted {
            first: 3,
            last: 3,
            truncated_to: Some(2)
        }
    );
    assert_eq!(epochs(&f), vec![(1, 1), (2, 1), (3, 2)]);
    assert_eq!(f.log.data.get(&b"k"[..]), Some(&Bytes::from_static(b"new")));
}

#[test]
fn catch_up_truncates_a_suffix_beyond_the_leader_log_end() {
    let mut f = follower(
        2,
        &[entry(1, 1, "a"), entry(2, 1, "b"), entry(3, 1, "extra")],
    );
    let out = f.step_append(AppendKind::CatchUp, 2, &leader(), 2, 1, &[], 2, 2);
    assert_eq!(
        out,
        StepOutcome::Accepted {
            first: 3,
            last: 2,
            truncated_to: Some(2)
        }
    );
    assert_eq!(f.log.end(), 2);
    assert_eq!(f.log.applied_hw, 2);
    assert_eq!(f.catch_up_mode, CatchUpMode::Incremental);
}

#[test]
fn packet_of_another_epoch_or_from_a_non_leader_is_fenced_before_touching_state() {
    let mut f = follower(2, &[entry(1, 1, "a")]);
    let stale = f.step_append(
        AppendKind::Live,
        1,
        &leader(),
        1,
        1,
        &[entry(2, 1, "x")],
        2,
        1,
    );
    assert_eq!(
        stale,
        StepOutcome::Rejected {
            reason: "stale_leader_epoch"
        }
    );
    let other = NodeId::new("node-3");
    let foreign = f.step_append(AppendKind::Live, 2, &other, 1, 1, &[entry(2, 2, "x")], 2, 1);
    assert_eq!(
        foreign,
        StepOutcome::Rejected {
            reason: "non_current_leader"
        }
    );
    assert_eq!(f.log.end(), 1);
    assert_eq!(f.log.applied_hw, 0);
}

/// A full snapshot says whether it replaced something: a follower that
/// held entries reports them dropped (the group then clamps its durable
/// marker, since the new log is not on disk), an empty follower does not.
#[test]
fn snapshot_install_reports_whether_it_dropped_the_followers_own_entries() {
    let snapshot = [entry(1, 1, "a"), entry(2, 1, "b")];
    let mut holding = follower(1, &[entry(1, 1, "x")]);
    let outcome = holding.step_snapshot(1, &leader(), &snapshot, 2);
    assert!(matches!(outcome, StepOutcome::Installed { dropped: true }));
    assert_eq!(holding.log.end(), 2);
    let mut empty = follower(1, &[]);
    let outcome = empty.step_snapshot(1, &leader(), &snapshot, 2);
    assert!(matches!(outcome, StepOutcome::Installed { dropped: false }));
    assert_eq!(empty.log.end(), 2);
}
