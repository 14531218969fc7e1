//! `check_trace`: each node's log, snapshot and commit index, folded from
//! the trace, end where the nodes are — and an event that claims something
//! untrue is named.

use proto_raft::{RaftConfig, RaftGroup};
use replication::{AckLevel, Bytes, ClientOp, NodeId, ReplicationGroup};
use sim_core::record;

/// A group that compacted, caught a crashed follower up by snapshot, and
/// repaired a deposed leader's divergent suffix (a rejection with a
/// conflict hint, then a truncation).
fn eventful() -> RaftGroup {
    let config = RaftConfig::default()
        .with_snapshot_threshold(4)
        .with_max_append_entries(2);
    let mut g = RaftGroup::new(config).expect("valid config");
    g.run_until_leader(None, 100).expect("a leader");
    let write = |g: &mut RaftGroup, k: &str| {
        g.client_write(
            Bytes::from(k.to_owned()),
            Bytes::from("v"),
            AckLevel::Quorum,
        )
        .expect("write")
    };
    write(&mut g, "a");
    let leader = g.leader().expect("leader");
    let follower = g
        .node_ids()
        .into_iter()
        .find(|x| *x != leader)
        .expect("a follower");
    g.crash(&follower, false).unwrap();
    for k in ["b", "c", "d", "e", "f", "g"] {
        write(&mut g, k);
    }
    g.restart(&follower).unwrap();
    g.run_until_idle(300).ok();
    // The leader, cut off, takes writes nobody else will hold.
    g.isolate(&leader).unwrap();
    for k in ["x", "y"] {
        g.submit(ClientOp::write(
            Bytes::from(k),
            Bytes::from("lost"),
            AckLevel::Quorum,
        ))
        .expect("submitted at the isolated leader");
    }
    for _ in 0..200 {
        g.tick();
        if g.leader().is_some_and(|l| l != leader) {
            break;
        }
    }
    write(&mut g, "h");
    g.heal(&leader).unwrap();
    for _ in 0..300 {
        g.tick();
    }
    g
}

/// `g`'s trace disagrees with it, and the disagreement names `what`.
fn named(g: &RaftGroup, what: &str) {
    let why = g.check_trace().unwrap_err();
    assert!(why.contains(what), "{why}");
}

#[test]
fn an_eventful_run_s_trace_agrees_with_the_group() {
    let g = eventful();
    for kind in [
        "raft_snapshot_taken",
        "raft_snapshot_installed",
        "raft_append_rejected",
        "raft_entries_appended",
        "raft_catch_up",
    ] {
        assert!(g.trace().count(kind) >= 1, "no {kind}");
    }
    assert!(
        g.trace().events().any(|e| e.kind == "raft_entries_appended"
            && matches!(e.field("truncated_from"), Some(sim_core::Value::UInt(_)))),
        "no truncation"
    );
    assert_eq!(g.check_trace(), Ok(()));
}

/// The leader of `g`, and a follower's (last index, commit index).
fn leader_and_follower(g: &RaftGroup) -> (NodeId, NodeId, u64, u64) {
    let probe = g.probe();
    let leader = probe.leader.clone().expect("a leader");
    let f = probe
        .nodes
        .iter()
        .find(|p| p.id != leader)
        .expect("a follower");
    let last = f.snapshot_index + f.log.len() as u64;
    (leader, f.id.clone(), last, f.commit_index)
}

#[test]
fn a_conflict_hint_the_log_does_not_give_is_named() {
    let mut g = eventful();
    let (leader, f, last, _) = leader_and_follower(&g);
    let now = g.now();
    // prev_log_index beyond the log: the hint is one past its end.
    record!(
        g.trace_mut(),
        now,
        "raft_append_rejected",
        node = &f,
        leader = &leader,
        prev_log_index = last + 5,
        conflict_index = last
    );
    named(
        &g,
        &format!(
            "gives conflict index {last} for prev_log_index {}; its log",
            last + 5
        ),
    );
}

#[test]
fn a_catch_up_in_the_wrong_mode_or_short_of_the_log_end_is_named() {
    let catch_up = |mode: &'static str, from: u64, to_end: bool| {
        let mut g = eventful();
        let probe = g.probe();
        let leader = probe.leader.clone().expect("a leader");
        let l = probe.node(&leader).expect("probe");
        let end = l.snapshot_index + l.log.len() as u64;
        let (_, f, _, _) = leader_and_follower(&g);
        let now = g.now();
        record!(
            g.trace_mut(),
            now,
            "raft_catch_up",
            node = &leader,
            follower = &f,
            from_index = from,
            to_index = if to_end { end } else { end - 1 },
            mode = mode
        );
        g
    };
    // At or below the leader's snapshot it is a snapshot.
    named(&catch_up("log replay", 1, true), "so snapshot");
    named(&catch_up("snapshot", 1, false), "raft_catch_up at");
    assert_eq!(catch_up("snapshot", 1, true).check_trace(), Ok(()));
}

#[test]
fn entries_appended_away_from_the_log_end_or_a_stale_snapshot_are_named() {
    let mut g = eventful();
    let (leader, f, last, commit) = leader_and_follower(&g);
    let now = g.now();
    record!(
        g.trace_mut(),
        now,
        "raft_entries_appended",
        node = &f,
        leader = &leader,
        first = last + 2,
        last = last + 2,
        truncated_from = None::<u64>
    );
    named(&g, "with no AppendEntries delivered to it");
    let mut g = eventful();
    record!(
        g.trace_mut(),
        now,
        "raft_snapshot_installed",
        node = &f,
        leader = &leader,
        index = commit,
        term = 1u64,
        kept_log_suffix = true
    );
    named(&g, &format!("not above its commit index {commit}"));
    // An event left out: a write proposed with the trace off.
    let mut g = eventful();
    g.trace_mut().set_enabled(false);
    g.submit(ClientOp::write(
        Bytes::from("k"),
        Bytes::from("v"),
        AckLevel::Quorum,
    ))
    .unwrap();
    g.trace_mut().set_enabled(true);
    named(&g, "the trace has");
}

#[test]
fn a_forged_truncation_of_the_whole_log_is_an_answer_not_a_panic() {
    let mut g = eventful();
    let (leader, f, _, _) = leader_and_follower(&g);
    let now = g.now();
    for kind in ["message_sent", "message_delivered"] {
        record!(
            g.trace_mut(),
            now,
            kind,
            id = 999_999u64,
            src = &leader,
            dst = &f,
            msg = "append_entries"
        );
    }
    record!(
        g.trace_mut(),
        now,
        "raft_entries_appended",
        node = &f,
        leader = &leader,
        first = 1u64,
        last = 1u64,
        truncated_from = 0u64
    );
    named(&g, &format!("the trace has {f} with"));
}
