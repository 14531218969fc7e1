//! Unit tests of one replica's step, driven directly (no group), as a
//! downstream model checker would: messages in, outputs out.

use std::sync::Arc;

use bytes::Bytes;

use super::*;

/// The leader's position (`node-1`).
const LEADER: usize = 0;
/// The follower's position (`node-2`).
const FOLLOWER: usize = 1;

fn entry(offset: u64, epoch: u64, value: &'static str) -> Arc<LogEntry> {
    Arc::new(LogEntry {
        offset,
        epoch,
        key: Bytes::from_static(b"k"),
        value: Bytes::from_static(value.as_bytes()),
    })
}

/// A follower at position 1 of 3, following position 0 in `epoch`,
/// holding `log` (confirmed through its end).
fn follower(epoch: u64, log: &[Arc<LogEntry>]) -> IsrNode {
    let mut f = IsrNode::new(FOLLOWER, 3, LEADER, 8);
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

/// Delivers an append packet from `source` and returns the outputs.
#[allow(clippy::too_many_arguments)]
fn append(
    f: &mut IsrNode,
    kind: AppendKind,
    epoch: u64,
    source: usize,
    prev_offset: u64,
    prev_epoch: u64,
    entries: &[Arc<LogEntry>],
    leader_log_end: u64,
    high_watermark: u64,
) -> Vec<Output> {
    let msg = IsrMessage::Append {
        kind,
        leader_epoch: epoch,
        source,
        prev_offset,
        prev_epoch,
        entries: Arc::from(entries),
        leader_log_end,
        high_watermark,
    };
    let mut out = Vec::new();
    f.step(source, msg, &mut out);
    out
}

fn events(out: &[Output]) -> Vec<NodeEvent> {
    out.iter()
        .filter_map(|o| match o {
            Output::Event(e) => Some(e.clone()),
            Output::Send { .. } => None,
        })
        .collect()
}

fn rejected(reason: RejectReason, packet_epoch: u64, known_epoch: u64) -> NodeEvent {
    NodeEvent::AppendRejected {
        from: LEADER,
        reason,
        packet_epoch,
        known_epoch,
    }
}

fn appended(first: u64, last: u64, packet_epoch: u64) -> NodeEvent {
    NodeEvent::EntriesAppended {
        first,
        last,
        packet_epoch,
    }
}

fn divergence(above: u64) -> NodeEvent {
    NodeEvent::LogTruncated {
        above,
        reason: TruncationReason::Divergence,
    }
}

#[test]
fn append_whose_previous_entry_has_another_epoch_is_rejected_as_log_mismatch() {
    // The follower holds offset 2 from epoch 1; the leader's log has an
    // epoch-2 entry there. The packet must not fit.
    let mut f = follower(2, &[entry(1, 1, "a"), entry(2, 1, "stale")]);
    let out = append(
        &mut f,
        AppendKind::Live,
        2,
        LEADER,
        2,
        2,
        &[entry(3, 2, "c")],
        3,
        0,
    );
    assert_eq!(
        out,
        vec![
            Output::Event(rejected(RejectReason::LogMismatch, 2, 2)),
            Output::Send {
                to: LEADER,
                msg: IsrMessage::Fetch {
                    leader_epoch: 2,
                    log_end: 2
                }
            },
        ],
        "a mismatch asks the leader to resynchronise"
    );
    assert_eq!(
        epochs(&f),
        vec![(1, 1), (2, 1)],
        "a rejected append changes nothing"
    );
    assert_eq!(f.matched_end, 2);
    assert_eq!(f.fenced_packets(), 0, "a mismatch is not fencing");
}

#[test]
fn append_past_the_follower_log_end_is_rejected_as_log_mismatch() {
    let mut f = follower(1, &[entry(1, 1, "a")]);
    let out = append(
        &mut f,
        AppendKind::Live,
        1,
        LEADER,
        2,
        1,
        &[entry(3, 1, "c")],
        3,
        0,
    );
    assert_eq!(
        events(&out),
        vec![rejected(RejectReason::LogMismatch, 1, 1)]
    );
    assert_eq!(f.log.end(), 1);
}

#[test]
fn duplicate_append_keeps_the_entries_the_follower_already_holds() {
    // A reordered / duplicated live packet for offset 2 arrives after the
    // follower already holds 1..=3: nothing may be truncated.
    let log = [entry(1, 1, "a"), entry(2, 1, "b"), entry(3, 1, "c")];
    let mut f = follower(1, &log);
    let out = append(
        &mut f,
        AppendKind::Live,
        1,
        LEADER,
        1,
        1,
        &[log[1].clone()],
        2,
        0,
    );
    assert_eq!(out, vec![Output::Event(appended(4, 3, 1))]);
    assert_eq!(epochs(&f), vec![(1, 1), (2, 1), (3, 1)]);
    assert_eq!(f.log.data.get(&b"k"[..]), Some(&Bytes::from_static(b"c")));
}

#[test]
fn append_replaces_only_the_conflicting_suffix() {
    let mut f = follower(
        2,
        &[entry(1, 1, "a"), entry(2, 1, "b"), entry(3, 1, "stale")],
    );
    let out = append(
        &mut f,
        AppendKind::Live,
        2,
        LEADER,
        1,
        1,
        &[entry(2, 1, "b"), entry(3, 2, "new")],
        3,
        0,
    );
    assert_eq!(events(&out), vec![divergence(2), appended(3, 3, 2)]);
    assert_eq!(epochs(&f), vec![(1, 1), (2, 1), (3, 2)]);
    assert_eq!(f.log.data.get(&b"k"[..]), Some(&Bytes::from_static(b"new")));
}

#[test]
fn catch_up_truncates_a_suffix_beyond_the_leader_log_end() {
    let mut f = follower(
        2,
        &[entry(1, 1, "a"), entry(2, 1, "b"), entry(3, 1, "extra")],
    );
    // Confirmed in the old epoch only: the new leader's catch-up decides.
    f.matched_epoch = 1;
    let out = append(&mut f, AppendKind::CatchUp, 2, LEADER, 2, 1, &[], 2, 2);
    assert_eq!(events(&out), vec![divergence(2), appended(3, 2, 2)]);
    assert_eq!(f.log.end(), 2);
    assert_eq!(f.log.applied_hw, 2);
    assert_eq!(f.catch_up_mode, CatchUpMode::Incremental);
}

/// On datagrams a catch-up arrives late or twice. A log confirmed in the
/// packet's epoch is a prefix of that leader's log; the late catch-up
/// knows a shorter prefix of the same log and cuts nothing (it cut entries
/// below HW, and the controller then elected an ISR member that held less
/// than HW: a `debug_assert!` reached in 83 of 40,000 datagram schedules).
#[test]
fn a_late_catch_up_of_the_current_epoch_does_not_cut_a_confirmed_log() {
    let held = [entry(1, 2, "a"), entry(2, 2, "b"), entry(3, 2, "c")];
    let mut f = follower(2, &held);
    f.log.apply_through(3);
    let out = append(
        &mut f,
        AppendKind::CatchUp,
        2,
        LEADER,
        1,
        2,
        &[entry(2, 2, "b")],
        2,
        1,
    );
    assert!(!events(&out).contains(&divergence(2)), "{out:?}");
    assert_eq!(epochs(&f), vec![(1, 2), (2, 2), (3, 2)]);
    assert_eq!((f.log.applied_hw, f.matched_end), (3, 3));
}

/// The same for a snapshot: an earlier, shorter snapshot of the current
/// epoch's leader does not replace a log confirmed in that epoch.
#[test]
fn a_late_snapshot_of_the_current_epoch_does_not_replace_a_longer_confirmed_log() {
    let mut f = follower(2, &[entry(1, 2, "a"), entry(2, 2, "b")]);
    f.log.apply_through(2);
    let mut out = Vec::new();
    let msg = IsrMessage::Snapshot {
        leader_epoch: 2,
        source: LEADER,
        log: Arc::from([entry(1, 2, "a")]),
        high_watermark: 1,
    };
    f.step(LEADER, msg, &mut out);
    assert!(events(&out).is_empty(), "{out:?}");
    assert_eq!((f.log.end(), f.log.applied_hw), (2, 2));
}

#[test]
fn packet_of_another_epoch_or_from_a_non_leader_is_fenced_before_touching_state() {
    let mut f = follower(2, &[entry(1, 1, "a")]);
    let stale = append(
        &mut f,
        AppendKind::Live,
        1,
        LEADER,
        1,
        1,
        &[entry(2, 1, "x")],
        2,
        1,
    );
    assert_eq!(
        stale,
        vec![Output::Event(rejected(
            RejectReason::StaleLeaderEpoch,
            1,
            2
        ))],
        "fenced: no fetch"
    );
    let other = 2;
    let mut out = Vec::new();
    let msg = IsrMessage::Append {
        kind: AppendKind::Live,
        leader_epoch: 2,
        source: other,
        prev_offset: 1,
        prev_epoch: 1,
        entries: Arc::from([entry(2, 2, "x")]),
        leader_log_end: 2,
        high_watermark: 1,
    };
    f.step(other, msg, &mut out);
    assert_eq!(
        events(&out),
        vec![NodeEvent::AppendRejected {
            from: other,
            reason: RejectReason::NonCurrentLeader,
            packet_epoch: 2,
            known_epoch: 2,
        }]
    );
    assert_eq!(f.log.end(), 1);
    assert_eq!(f.log.applied_hw, 0);
    assert_eq!(f.fenced_packets(), 2, "both refusals are fencing");
}

/// A full snapshot over entries the follower held drops its durable
/// marker to 0 (the new log is not on disk); over an empty log there was
/// nothing to drop.
#[test]
fn snapshot_install_over_held_entries_drops_the_durable_marker() {
    let snapshot: Arc<[Arc<LogEntry>]> = Arc::from([entry(1, 1, "a"), entry(2, 1, "b")]);
    let install = |f: &mut IsrNode| {
        let mut out = Vec::new();
        let msg = IsrMessage::Snapshot {
            leader_epoch: 1,
            source: LEADER,
            log: Arc::clone(&snapshot),
            high_watermark: 2,
        };
        f.step(LEADER, msg, &mut out);
        out
    };
    let mut holding = follower(1, &[entry(1, 1, "x")]);
    assert_eq!(holding.fsync(), 1);
    let out = install(&mut holding);
    assert_eq!(
        events(&out),
        vec![NodeEvent::SnapshotInstalled {
            log_end: 2,
            applied_hw: 2,
            packet_epoch: 1
        }]
    );
    assert_eq!(holding.log.end(), 2);
    assert_eq!(holding.durable_offset(), 0);
    let mut empty = follower(1, &[]);
    assert_eq!(empty.fsync(), 0);
    install(&mut empty);
    assert_eq!(empty.log.end(), 2);
    assert_eq!(empty.durable_offset(), 0);
    assert_eq!(empty.catch_up_mode(), CatchUpMode::Full);
}
