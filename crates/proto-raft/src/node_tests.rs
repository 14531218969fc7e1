//! Unit tests of the pure step functions.

use bytes::Bytes;
use sim_core::Rng;

use super::*;

use crate::test_support::{sent, set_entry, timing};

fn set(term: u64, v: &'static str) -> LogEntry {
    set_entry(term, v)
}

/// Figure 8 of the Raft paper, state (c) → (d)/(e) with five servers.
/// S1 (index 0) leads term 4. Its log is [1:t1, 2:t2, 3:t4-noop]; entry 2
/// (term 2) is already on S2 and S3 — a majority. Counting replicas of an
/// old-term entry must not commit it (§5.4.2); only once the term-4 entry
/// reaches a majority do both become committed.
#[test]
fn old_term_entry_on_a_majority_is_not_committed_by_counting() {
    figure_8(timing());
}

/// The same Figure 8 case with PreVote, CheckQuorum and compaction after
/// every applied entry: the commit rule is unchanged, and the committed
/// prefix (only it) is compacted.
#[test]
fn old_term_entry_is_not_committed_by_counting_with_every_feature_on() {
    let all = Timing {
        pre_vote: true,
        check_quorum: true,
        snapshot_threshold: Some(1),
        ..timing()
    };
    let s1 = figure_8(all);
    assert_eq!((s1.snapshot.index, s1.snapshot.term), (3, 4));
    assert_eq!(
        s1.snapshot.data.get(&b"k"[..]),
        Some(&Bytes::from_static(b"b"))
    );
}

fn figure_8(timing: Timing) -> RaftNode {
    let mut rng = Rng::new(1);
    let mut s1 = RaftNode::new(0, 5, timing, 0, &mut rng);
    s1.log.push(set(1, "a"));
    s1.log.push(set(2, "b"));
    s1.current_term = 4;
    s1.commit_index = 1;
    s1.last_applied = 1;
    let mut out = Vec::new();
    s1.become_leader(10, &mut out);
    assert_eq!(s1.last_index(), 3, "the term-4 no-op lands at index 3");
    // S2 and S3 report they hold index 2 (the term-2 entry): with S1 that
    // is 3 of 5 replicas of index 2.
    for peer in [1, 2] {
        let out = s1.step(
            11,
            peer,
            Message::AppendEntriesResponse {
                term: 4,
                success: true,
                match_index: 2,
                conflict_index: 0,
                read_round: 0,
            },
            &mut rng,
        );
        assert!(
            !out.iter()
                .any(|o| matches!(o, Output::Event(NodeEvent::CommitAdvanced { .. })))
        );
    }
    assert_eq!(s1.match_index[1..3], [2, 2]);
    assert_eq!(
        s1.commit_index, 1,
        "a term-2 entry on a majority is not committed by counting"
    );
    // The term-4 no-op reaches S2 and S3: now index 3 — and 2 with it — commit.
    for peer in [1, 2] {
        s1.step(
            12,
            peer,
            Message::AppendEntriesResponse {
                term: 4,
                success: true,
                match_index: 3,
                conflict_index: 0,
                read_round: 0,
            },
            &mut rng,
        );
    }
    assert_eq!(s1.commit_index, 3);
    assert_eq!(s1.data.get(&b"k"[..]), Some(&Bytes::from_static(b"b")));
    s1
}

#[test]
fn follower_deletes_only_the_conflicting_suffix() {
    let mut rng = Rng::new(2);
    let mut f = RaftNode::new(1, 3, timing(), 0, &mut rng);
    f.current_term = 3;
    f.log.extend([set(1, "a"), set(1, "b"), set(2, "stale")]);
    // Leader of term 3 sends index 3 (term 3) after prev (2, term 1).
    let out = f.step(
        1,
        0,
        Message::AppendEntries {
            term: 3,
            prev_log_index: 1,
            prev_log_term: 1,
            entries: vec![set(1, "b"), set(3, "new")],
            leader_commit: 0,
            read_round: 0,
        },
        &mut rng,
    );
    assert_eq!(f.log.len(), 4);
    assert_eq!(f.log[2], set(1, "b"), "matching entries are kept");
    assert_eq!(f.log[3], set(3, "new"), "the conflicting entry is replaced");
    assert!(matches!(
        sent(&out)[0].1,
        Message::AppendEntriesResponse {
            success: true,
            match_index: 3,
            ..
        }
    ));
}

#[test]
fn mismatch_returns_first_index_of_conflicting_term() {
    let mut rng = Rng::new(3);
    let mut f = RaftNode::new(1, 3, timing(), 0, &mut rng);
    f.current_term = 5;
    f.log
        .extend([set(1, "a"), set(2, "x"), set(2, "y"), set(2, "z")]);
    let out = f.step(
        1,
        0,
        Message::AppendEntries {
            term: 5,
            prev_log_index: 4,
            prev_log_term: 4,
            entries: Vec::new(),
            leader_commit: 0,
            read_round: 0,
        },
        &mut rng,
    );
    assert!(matches!(
        sent(&out)[0].1,
        Message::AppendEntriesResponse {
            success: false,
            conflict_index: 2,
            ..
        }
    ));
    assert_eq!(f.log.len(), 5, "a rejected AppendEntries deletes nothing");
}

#[test]
fn vote_is_refused_to_a_less_up_to_date_candidate_and_granted_once_per_term() {
    let mut rng = Rng::new(4);
    let mut v = RaftNode::new(2, 3, timing(), 0, &mut rng);
    v.log.push(set(2, "a"));
    v.current_term = 2;
    let ask = |term, last_log_index, last_log_term| Message::RequestVote {
        term,
        last_log_index,
        last_log_term,
    };
    let out = v.step(1, 0, ask(3, 5, 1), &mut rng);
    assert!(matches!(
        sent(&out)[0].1,
        Message::RequestVoteResponse {
            granted: false,
            term: 3
        }
    ));
    let out = v.step(1, 0, ask(3, 1, 2), &mut rng);
    assert!(matches!(
        sent(&out)[0].1,
        Message::RequestVoteResponse { granted: true, .. }
    ));
    let out = v.step(1, 1, ask(3, 1, 2), &mut rng);
    assert!(matches!(
        sent(&out)[0].1,
        Message::RequestVoteResponse { granted: false, .. }
    ));
    assert_eq!(v.voted_for, Some(0));
}

#[test]
fn higher_term_makes_a_leader_step_down_and_clears_its_vote() {
    let mut rng = Rng::new(5);
    let mut l = RaftNode::new(0, 3, timing(), 0, &mut rng);
    l.current_term = 1;
    l.voted_for = Some(0);
    let mut out = Vec::new();
    l.become_leader(1, &mut out);
    l.step(
        2,
        1,
        Message::AppendEntriesResponse {
            term: 7,
            success: false,
            match_index: 0,
            conflict_index: 0,
            read_round: 0,
        },
        &mut rng,
    );
    assert_eq!(
        (l.role, l.current_term, l.voted_for),
        (Role::Follower, 7, None)
    );
}

fn pre_vote_granted(out: &[Output]) -> Option<(u64, bool)> {
    sent(out).into_iter().find_map(|(_, m)| match m {
        Message::PreVoteResponse { term, granted } => Some((term, granted)),
        _ => None,
    })
}

/// Thesis §9.6: a follower that heard from its leader within the lowest
/// election timeout refuses pre-votes; once that much time passed without
/// the leader it grants them — and answering never changes its term.
#[test]
fn pre_vote_is_refused_while_the_leader_was_heard_from_recently() {
    let mut rng = Rng::new(6);
    let pre_vote = Timing {
        pre_vote: true,
        ..timing()
    };
    let mut f = RaftNode::new(1, 3, pre_vote, 0, &mut rng);
    f.current_term = 2;
    let heartbeat = Message::AppendEntries {
        term: 2,
        prev_log_index: 0,
        prev_log_term: 0,
        entries: Vec::new(),
        leader_commit: 0,
        read_round: 0,
    };
    f.step(10, 0, heartbeat, &mut rng);
    let ask = Message::PreVote {
        term: 3,
        last_log_index: 0,
        last_log_term: 0,
    };
    let out = f.step(11, 2, ask.clone(), &mut rng);
    assert_eq!(pre_vote_granted(&out), Some((2, false)), "leader alive");
    let lo = pre_vote.election_timeout.0;
    let out = f.step(10 + lo, 2, ask, &mut rng);
    assert_eq!(pre_vote_granted(&out), Some((3, true)), "leader silent");
    assert_eq!(
        (f.current_term, f.voted_for),
        (2, None),
        "a pre-vote changes nothing"
    );
}

/// With PreVote on, a node whose deadline passes asks in `term + 1` but
/// stays in its term; only a majority of grants starts the real election.
#[test]
fn pre_candidate_keeps_its_term_until_a_majority_grants() {
    let mut rng = Rng::new(7);
    let pre_vote = Timing {
        pre_vote: true,
        ..timing()
    };
    let mut n = RaftNode::new(0, 3, pre_vote, 0, &mut rng);
    n.current_term = 4;
    let deadline = n.election_deadline;
    let out = n.tick(deadline, &mut rng);
    assert_eq!((n.role, n.current_term), (Role::PreCandidate, 4));
    assert!(
        sent(&out)
            .iter()
            .all(|(_, m)| matches!(m, Message::PreVote { term: 5, .. }))
    );
    n.step(
        deadline + 1,
        1,
        Message::PreVoteResponse {
            term: 5,
            granted: true,
        },
        &mut rng,
    );
    assert_eq!((n.role, n.current_term), (Role::Candidate, 5));
}
