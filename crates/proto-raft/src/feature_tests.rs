//! Unit tests of the mechanisms beyond Figure 2, at the step-function
//! level: why a pre-vote is refused, that a late pre-vote grant cannot
//! start an election, where a leader's `next_index` goes after it sends a
//! snapshot, that a snapshot the follower already applied is not installed
//! again, how a follower trims an append that starts below its snapshot,
//! and how a leadership transfer starts and is driven by acknowledgements.

use bytes::Bytes;
use sim_core::Rng;

use crate::message::{Command, LogEntry, Message};
use crate::node::{Output, RaftNode, Role, Timing};
use crate::output::NodeEvent;
use crate::test_support::{sent, set_entry, success, timing};

fn with_pre_vote() -> Timing {
    Timing {
        pre_vote: true,
        ..timing()
    }
}

fn set(term: u64) -> LogEntry {
    set_entry(term, "v")
}

fn heartbeat(term: u64) -> Message {
    Message::AppendEntries {
        term,
        prev_log_index: 0,
        prev_log_term: 0,
        entries: Vec::new(),
        leader_commit: 0,
        read_round: 0,
    }
}

/// The reason of the one `PreVoteCast` event in `out`.
fn pre_vote_reason(out: &[Output]) -> Option<&'static str> {
    out.iter().find_map(|o| match o {
        Output::Event(NodeEvent::PreVoteCast { reason, .. }) => Some(*reason),
        _ => None,
    })
}

/// A refused pre-vote says why in the trace: the asker's log is behind, or
/// a leader was heard from recently — the two reasons a thesis §9.6 voter
/// has, told apart.
#[test]
fn a_refused_pre_vote_names_its_reason() {
    let mut rng = Rng::new(3);
    let mut f = RaftNode::new(1, 3, with_pre_vote(), 0, &mut rng);
    f.current_term = 2;
    f.log.push(set(2));
    // No leader heard from; the asker's log ends in term 1: behind ours.
    let behind = Message::PreVote {
        term: 3,
        last_log_index: 5,
        last_log_term: 1,
    };
    let out = f.step(1, 2, behind, &mut rng);
    assert_eq!(pre_vote_reason(&out), Some("log behind"));
    // Up to date, but the leader was just heard from.
    f.step(2, 0, heartbeat(2), &mut rng);
    let up_to_date = Message::PreVote {
        term: 3,
        last_log_index: 1,
        last_log_term: 2,
    };
    let out = f.step(3, 2, up_to_date, &mut rng);
    assert_eq!(pre_vote_reason(&out), Some("leader alive"));
}

/// A pre-candidate that hears from a leader of its term goes back to
/// follower; a pre-vote grant arriving after that is late and must not
/// start an election (which would depose that leader — what PreVote is
/// for).
#[test]
fn a_late_pre_vote_grant_after_stepping_down_starts_no_election() {
    let mut rng = Rng::new(4);
    let mut n = RaftNode::new(0, 3, with_pre_vote(), 0, &mut rng);
    n.current_term = 4;
    let deadline = n.election_deadline;
    n.tick(deadline, &mut rng);
    assert_eq!(n.role, Role::PreCandidate);
    n.step(deadline + 1, 1, heartbeat(4), &mut rng);
    assert_eq!((n.role, n.current_term), (Role::Follower, 4));
    let late = Message::PreVoteResponse {
        term: 5,
        granted: true,
    };
    let out = n.step(deadline + 2, 2, late, &mut rng);
    assert_eq!((n.role, n.current_term), (Role::Follower, 4));
    assert!(
        sent(&out)
            .iter()
            .all(|(_, m)| !matches!(m, Message::RequestVote { .. })),
        "no election"
    );
}

/// After sending InstallSnapshot the leader next sends the entry after the
/// snapshot, not the snapshot again while the first one is in flight.
#[test]
fn sending_a_snapshot_moves_next_index_just_past_it() {
    let mut rng = Rng::new(5);
    let mut leader = RaftNode::new(0, 3, timing(), 0, &mut rng);
    leader.current_term = 2;
    leader.snapshot.index = 6;
    leader.snapshot.term = 2;
    let msg = leader.snapshot_for(20, 1);
    assert!(matches!(
        msg,
        Message::InstallSnapshot {
            last_included_index: 6,
            last_included_term: 2,
            ..
        }
    ));
    assert_eq!(leader.next_index[1], 7);
    assert_eq!(leader.last_sent[1], 20);
}

/// §7: a snapshot that covers no more than the follower has committed
/// (here exactly its commit index) is acknowledged and not installed: the
/// follower keeps its log and state, and no install is traced.
#[test]
fn a_snapshot_at_the_followers_commit_index_is_acknowledged_not_installed() {
    let mut rng = Rng::new(6);
    let mut f = RaftNode::new(1, 3, timing(), 0, &mut rng);
    f.current_term = 1;
    for _ in 0..3 {
        f.log.push(set(1));
    }
    f.commit_index = 3;
    let snapshot = Message::InstallSnapshot {
        term: 1,
        last_included_index: 3,
        last_included_term: 1,
        data: Default::default(),
        read_round: 0,
    };
    let out = f.step(5, 0, snapshot, &mut rng);
    assert!(
        !out.iter()
            .any(|o| matches!(o, Output::Event(NodeEvent::SnapshotInstalled { .. }))),
        "nothing installed"
    );
    assert_eq!((f.snapshot.index, f.log.len()), (0, 4), "log kept");
    assert!(sent(&out).iter().any(|(to, m)| *to == 0
        && matches!(
            m,
            Message::AppendEntriesResponse {
                success: true,
                match_index: 3,
                ..
            }
        )));
}

fn transfer_started(out: &[Output]) -> bool {
    out.iter()
        .any(|o| matches!(o, Output::Event(NodeEvent::TransferStarted { .. })))
}

/// Only a leader hands leadership over, and never to itself.
#[test]
fn a_transfer_starts_only_at_a_leader_and_only_to_another_node() {
    let mut rng = Rng::new(7);
    let mut follower = RaftNode::new(1, 3, timing(), 0, &mut rng);
    let mut out = Vec::new();
    follower.start_transfer(10, 2, &mut out);
    assert!(follower.transfer.is_none() && out.is_empty(), "a follower");
    let mut leader = RaftNode::new(0, 3, timing(), 0, &mut rng);
    leader.current_term = 2;
    leader.become_leader(10, &mut out);
    let mut out = Vec::new();
    leader.start_transfer(11, 0, &mut out);
    assert!(leader.transfer.is_none() && out.is_empty(), "to itself");
    leader.start_transfer(11, 1, &mut out);
    assert!(leader.transfer.is_some() && transfer_started(&out));
}

/// Thesis §3.10: a transfer target that lacks entries is sent them at once
/// (TimeoutNow waits until it has them); a target already at the leader's
/// last index gets TimeoutNow at once, and nothing else.
#[test]
fn a_transfer_catches_a_lagging_target_up_first_and_times_a_current_one_out_at_once() {
    let mut rng = Rng::new(8);
    let mut leader = RaftNode::new(0, 3, timing(), 0, &mut rng);
    leader.log.push(set(1));
    leader.current_term = 2;
    let mut out = Vec::new();
    leader.become_leader(10, &mut out);
    let last = leader.last_index();

    let mut out = Vec::new();
    leader.start_transfer(11, 1, &mut out);
    let to_lagging = sent(&out);
    assert!(
        to_lagging
            .iter()
            .any(|(to, m)| *to == 1 && matches!(m, Message::AppendEntries { .. })),
        "{to_lagging:?}"
    );
    assert!(
        to_lagging
            .iter()
            .all(|(_, m)| !matches!(m, Message::TimeoutNow { .. }))
    );

    leader.transfer = None;
    leader.match_index[2] = last;
    let mut out = Vec::new();
    leader.start_transfer(12, 2, &mut out);
    let to_current = sent(&out);
    assert_eq!(
        to_current
            .iter()
            .map(|(to, m)| (*to, matches!(m, Message::TimeoutNow { .. })))
            .collect::<Vec<_>>(),
        vec![(2, true)],
        "{to_current:?}"
    );
}

/// A term-1 entry setting `k` to `v<i>`: distinct values show where each
/// entry landed.
fn numbered(i: u64) -> LogEntry {
    LogEntry {
        term: 1,
        command: Command::Set {
            key: Bytes::from_static(b"k"),
            value: Bytes::from(format!("v{i}")),
        },
    }
}

/// Node `me` of three in term 1, its log compacted through index 5 (term
/// 1) and holding nothing after it.
fn compacted_through_5(me: usize, rng: &mut Rng) -> RaftNode {
    let mut n = RaftNode::new(me, 3, timing(), 0, rng);
    n.current_term = 1;
    n.snapshot.index = 5;
    n.snapshot.term = 1;
    n.log = vec![LogEntry::sentinel(1)];
    n.commit_index = 5;
    n.last_applied = 5;
    n
}

/// §7: entries through a follower's snapshot are committed, so an
/// AppendEntries that starts below it (the leader's `next_index` lagged
/// behind the follower's own compaction) is checked from the snapshot on:
/// the covered entries are dropped and the rest appended in place.
#[test]
fn an_append_starting_below_the_followers_snapshot_is_trimmed_and_accepted() {
    let mut rng = Rng::new(9);
    let mut f = compacted_through_5(1, &mut rng);
    let append = Message::AppendEntries {
        term: 1,
        prev_log_index: 3,
        prev_log_term: 1,
        entries: (4..=7).map(numbered).collect(),
        leader_commit: 5,
        read_round: 0,
    };
    let out = f.step(20, 0, append, &mut rng);
    assert!(
        sent(&out).iter().any(|(_, m)| matches!(
            m,
            Message::AppendEntriesResponse {
                success: true,
                match_index: 7,
                ..
            }
        )),
        "{out:?}"
    );
    assert_eq!(f.last_index(), 7);
    assert_eq!(f.log[1..], [numbered(6), numbered(7)], "6 and 7 in place");
}

/// `entries(from, to)` never returns the snapshot's sentinel and nothing
/// for an empty range.
#[test]
fn entries_start_past_the_snapshot_and_an_empty_range_is_empty() {
    let mut rng = Rng::new(10);
    let mut n = compacted_through_5(0, &mut rng);
    n.log.extend((6..=8).map(numbered));
    assert_eq!(n.entries(6, 7), vec![numbered(6), numbered(7)]);
    assert!(n.entries(5, 7).is_empty(), "from the snapshot: nothing");
    assert!(n.entries(8, 7).is_empty(), "from past to: nothing");
}

/// A leader's AppendEntries never starts at or below its snapshot, even
/// when `next_index` says so (`send_append` sends the snapshot then).
#[test]
fn an_append_never_starts_at_or_below_the_leaders_snapshot() {
    let mut rng = Rng::new(11);
    let mut leader = compacted_through_5(0, &mut rng);
    leader.log.extend((6..=7).map(numbered));
    leader.role = Role::Leader;
    leader.next_index[1] = 5;
    let msg = leader.append_for(30, 1);
    let Message::AppendEntries {
        prev_log_index,
        prev_log_term,
        entries,
        ..
    } = msg
    else {
        panic!("expected AppendEntries, got {msg:?}");
    };
    assert_eq!((prev_log_index, prev_log_term), (5, 1));
    assert_eq!(entries, vec![numbered(6), numbered(7)]);
    assert_eq!(leader.next_index[1], 8);
}

/// A leader of term 2 over `entries` term-1 entries plus its no-op,
/// transferring leadership to node 1, which holds nothing yet.
fn transferring_to_an_empty_node(entries: u64) -> (RaftNode, Rng) {
    let mut rng = Rng::new(12);
    let mut leader = RaftNode::new(0, 3, timing(), 0, &mut rng);
    leader.log.extend((1..=entries).map(numbered));
    leader.current_term = 2;
    let mut out = Vec::new();
    leader.become_leader(10, &mut out);
    leader.next_index[1] = 1;
    leader.start_transfer(11, 1, &mut out);
    (leader, rng)
}

/// The transfer target's acknowledgement of the leader's last entry sends
/// TimeoutNow at once; an acknowledgement that leaves it behind sends the
/// next batch instead.
#[test]
fn the_targets_acks_drive_a_transfer_batch_by_batch_then_timeout_now() {
    let (mut leader, mut rng) = transferring_to_an_empty_node(2 * 64);
    let last = leader.last_index();
    let out = leader.step(12, 1, success(64), &mut rng);
    let sends = sent(&out);
    assert!(
        sends
            .iter()
            .any(|(to, m)| *to == 1 && matches!(m, Message::AppendEntries { .. })),
        "the next batch: {sends:?}"
    );
    assert!(
        sends
            .iter()
            .all(|(_, m)| !matches!(m, Message::TimeoutNow { .. }))
    );
    let out = leader.step(13, 1, success(last), &mut rng);
    assert!(
        sent(&out)
            .iter()
            .any(|(to, m)| *to == 1 && matches!(m, Message::TimeoutNow { term: 2 })),
        "{out:?}"
    );
}

/// Another follower's acknowledgement does not send the target TimeoutNow
/// while the target still lacks entries.
#[test]
fn another_followers_ack_does_not_time_the_target_out() {
    let (mut leader, mut rng) = transferring_to_an_empty_node(3);
    let last = leader.last_index();
    let out = leader.step(12, 2, success(last), &mut rng);
    assert!(
        sent(&out)
            .iter()
            .all(|(_, m)| !matches!(m, Message::TimeoutNow { .. })),
        "{out:?}"
    );
}
