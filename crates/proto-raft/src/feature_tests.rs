//! Unit tests of the mechanisms beyond Figure 2, at the step-function
//! level: why a pre-vote is refused, that a late pre-vote grant cannot
//! start an election, where a leader's `next_index` goes after it sends a
//! snapshot, that a snapshot the follower already applied is not installed
//! again, and how a leadership transfer starts.

use bytes::Bytes;
use sim_core::Rng;

use crate::message::{Command, LogEntry, Message};
use crate::node::{Output, RaftNode, Role, Timing};
use crate::output::NodeEvent;

fn timing() -> Timing {
    Timing::textbook((8, 14), 2)
}

fn with_pre_vote() -> Timing {
    Timing {
        pre_vote: true,
        ..timing()
    }
}

fn set(term: u64) -> LogEntry {
    LogEntry {
        term,
        command: Command::Set {
            key: Bytes::from_static(b"k"),
            value: Bytes::from_static(b"v"),
        },
    }
}

fn sent(out: &[Output]) -> Vec<(usize, Message)> {
    out.iter()
        .filter_map(|o| match o {
            Output::Send { to, msg } => Some((*to, msg.clone())),
            Output::Event(_) => None,
        })
        .collect()
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
