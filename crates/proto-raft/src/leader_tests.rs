//! Unit tests of the leader's replication bookkeeping: where a new leader
//! starts each follower, how `next_index` moves on late successes and stale
//! rejections, batch-by-batch catch-up, and that only a live leader proposes
//! or sends proposals.

use sim_core::Rng;

const MAX_BATCH: u64 = 64;
use crate::message::{Command, LogEntry, Message};
use crate::node::{Output, RaftNode, Role};
use crate::test_support::{sent, set_entry, success, timing};

fn set(term: u64) -> LogEntry {
    set_entry(term, "v")
}

/// Node 0 of three, leader of term 2 over `entries` term-1 entries plus its
/// no-op; the outputs of winning.
fn leader_with(entries: usize) -> (RaftNode, Vec<Output>, Rng) {
    let mut rng = Rng::new(1);
    let mut node = RaftNode::new(0, 3, timing(), 0, &mut rng);
    for _ in 0..entries {
        node.log.push(set(1));
    }
    node.current_term = 2;
    let mut out = Vec::new();
    node.become_leader(10, &mut out);
    (node, out, rng)
}

fn prev_and_len(msg: &Message) -> (u64, usize) {
    match msg {
        Message::AppendEntries {
            prev_log_index,
            entries,
            ..
        } => (*prev_log_index, entries.len()),
        other => panic!("expected AppendEntries, got {other:?}"),
    }
}

#[test]
fn a_new_leader_first_sends_each_follower_only_its_no_op_after_its_old_log_end() {
    let (node, out, _) = leader_with(2);
    let sends = sent(&out);
    assert_eq!(sends.len(), 2, "one AppendEntries per follower");
    for (_, msg) in &sends {
        assert_eq!(prev_and_len(msg), (2, 1), "{msg:?}");
    }
    assert_eq!(node.next_index[1..], [4, 4]);
}

#[test]
fn a_late_success_past_a_moved_back_next_index_moves_it_just_past_the_match() {
    let (mut node, _, mut rng) = leader_with(5);
    node.next_index[1] = 2; // moved back by a rejection meanwhile
    node.step(11, 1, success(6), &mut rng);
    assert_eq!(node.match_index[1], 6);
    assert_eq!(node.next_index[1], 7);
}

#[test]
fn a_stale_rejection_below_the_match_retries_just_after_the_match() {
    let (mut node, _, mut rng) = leader_with(5);
    node.match_index[1] = 3;
    node.next_index[1] = 6;
    let out = node.step(
        11,
        1,
        Message::AppendEntriesResponse {
            term: 2,
            success: false,
            match_index: 0,
            conflict_index: 2,
            read_round: 0,
        },
        &mut rng,
    );
    let sends = sent(&out);
    assert_eq!(sends.len(), 1, "{out:?}");
    assert_eq!(prev_and_len(&sends[0].1).0, 3, "resent from match + 1");
}

#[test]
fn a_follower_behind_by_more_than_a_batch_gets_the_next_batch_on_each_acknowledgement() {
    let (mut node, _, mut rng) = leader_with(2 * MAX_BATCH as usize);
    // The follower rejected the no-op: it holds nothing.
    node.next_index[1] = 1;
    let first = node.append_for(11, 1);
    assert_eq!(prev_and_len(&first), (0, MAX_BATCH as usize));
    let out = node.step(12, 1, success(MAX_BATCH), &mut rng);
    let sends = sent(&out);
    assert_eq!(sends.len(), 1, "the next batch leaves at once: {out:?}");
    assert_eq!(sends[0].0, 1);
    assert_eq!(prev_and_len(&sends[0].1), (MAX_BATCH, MAX_BATCH as usize));
    // Caught up to the log end: nothing more to send.
    let out = node.step(13, 1, success(node.last_index()), &mut rng);
    assert!(sent(&out).is_empty(), "{out:?}");
}

#[test]
fn only_a_live_leader_accepts_a_proposal() {
    let mut rng = Rng::new(1);
    let mut follower = RaftNode::new(1, 3, timing(), 0, &mut rng);
    assert_eq!(follower.role, Role::Follower);
    assert_eq!(follower.propose(Command::Noop), None);
    assert_eq!(follower.last_index(), 0, "a follower's log is untouched");
    let (mut leader, _, _) = leader_with(0);
    leader.alive = false;
    let end = leader.last_index();
    assert_eq!(leader.propose(Command::Noop), None);
    assert_eq!(
        leader.last_index(),
        end,
        "a crashed leader's log is untouched"
    );
}

#[test]
fn flushing_with_no_new_proposal_sends_nothing_even_to_a_lagging_follower() {
    let (mut node, _, _) = leader_with(3);
    node.next_index[1] = 2; // lagging; heartbeats and replies handle it
    let mut out = Vec::new();
    node.flush_proposals(11, &mut out);
    assert!(out.is_empty(), "{out:?}");
    node.propose(Command::Noop);
    node.flush_proposals(12, &mut out);
    assert_eq!(sent(&out).len(), 2, "a new proposal goes to both followers");
}
