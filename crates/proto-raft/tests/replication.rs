//! Writes, reads and partitions through the public API.

use bytes::Bytes;
use proto_raft::{RaftConfig, RaftGroup, Role};
use replication::{AckLevel, GroupError, NodeId, ReadLevel, ReplicationGroup};

fn elected() -> (RaftGroup, NodeId, Vec<NodeId>) {
    let mut g = RaftGroup::new(RaftConfig::default()).expect("group");
    let leader = g.run_until_leader(None, 100).expect("leader");
    let followers = g.node_ids().into_iter().filter(|n| *n != leader).collect();
    (g, leader, followers)
}

#[test]
fn only_quorum_writes_are_supported() {
    let (mut g, _, _) = elected();
    let before = g.probe();
    for level in [AckLevel::None, AckLevel::Leader, AckLevel::AllIsr] {
        let err = g
            .client_write("k".into(), "v".into(), level)
            .expect_err("unsupported");
        assert_eq!(
            err,
            GroupError::UnsupportedAck {
                protocol: "raft",
                level
            }
        );
    }
    assert_eq!(g.probe(), before, "an unsupported write appends nothing");
}

#[test]
fn quorum_write_commits_on_a_majority_and_linearizable_read_runs_a_read_index_round() {
    let (mut g, leader, _) = elected();
    let w = g
        .client_write("k".into(), "v".into(), AckLevel::Quorum)
        .expect("write");
    assert!(w.accepted);
    let index = w.offset.expect("index");
    let probe = g.probe();
    assert!(probe.node(&leader).expect("leader").commit_index >= index);
    let term = probe.node(&leader).expect("leader").term;
    assert!(probe.replicas_of(index, term) >= 2);
    let mark = g.trace().len();
    let r = g
        .client_read(b"k", ReadLevel::Linearizable, None)
        .expect("read");
    assert_eq!((r.value.as_deref(), &r.node), (Some(&b"v"[..]), &leader));
    let since: Vec<_> = g.trace().since(mark).collect();
    let started = since
        .iter()
        .position(|e| e.kind == "raft_read_index_started")
        .expect("round started");
    let served = since
        .iter()
        .position(|e| e.kind == "raft_read_served")
        .expect("served");
    let acks_between = since[started..served]
        .iter()
        .filter(|e| {
            e.kind == "message_delivered"
                && e.field("msg") == Some("append_entries_response".into())
        })
        .count();
    assert!(
        acks_between >= 1,
        "served only after a follower answered the round"
    );
}

#[test]
fn local_read_observes_a_lagging_follower() {
    let (mut g, _, followers) = elected();
    g.isolate(&followers[0]).expect("isolate");
    let w = g
        .client_write("k".into(), "v".into(), AckLevel::Quorum)
        .expect("write");
    assert!(
        w.accepted,
        "a majority without the cut follower still commits"
    );
    g.run_until_idle(100).expect("idle");
    let lagging = g
        .client_read(b"k", ReadLevel::Local, Some(&followers[0]))
        .expect("read");
    assert_eq!(lagging.value, None);
    let caught_up = g
        .client_read(b"k", ReadLevel::Local, Some(&followers[1]))
        .expect("read");
    assert_eq!(caught_up.value.as_deref(), Some(&b"v"[..]));
}

#[test]
fn linearizable_read_is_blocked_at_a_leader_without_a_quorum() {
    let (mut g, leader, _) = elected();
    g.run_until_idle(100).expect("idle");
    g.isolate(&leader).expect("isolate");
    let err = g
        .client_read(b"k", ReadLevel::Linearizable, Some(&leader))
        .expect_err("blocked");
    match err {
        GroupError::ReadBlocked {
            guard, node, level, ..
        } => {
            assert_eq!(
                (guard, node, level),
                (
                    "read-index fenced (no quorum)",
                    leader,
                    ReadLevel::Linearizable
                )
            );
        }
        other => panic!("expected blocked, got {other}"),
    }
}

#[test]
fn linearizable_read_is_blocked_before_the_leader_commits_in_its_term() {
    let mut g = RaftGroup::new(RaftConfig::default()).expect("group");
    let leader = g.run_until_leader(None, 100).expect("leader");
    // Cut the new leader off before its no-op reaches anyone.
    g.isolate(&leader).expect("isolate");
    assert_eq!(g.probe().node(&leader).expect("p").commit_index, 0);
    match g
        .client_read(b"k", ReadLevel::Linearizable, None)
        .expect_err("blocked")
    {
        GroupError::ReadBlocked { guard, .. } => assert_eq!(guard, "no current-term commit"),
        other => panic!("expected blocked, got {other}"),
    }
}

#[test]
fn linearizable_read_right_after_election_waits_for_the_noop_commit() {
    let mut g = RaftGroup::new(RaftConfig::default()).expect("group");
    let leader = g.run_until_leader(None, 100).expect("leader");
    assert_eq!(g.probe().node(&leader).expect("p").commit_index, 0);
    let r = g
        .client_read(b"k", ReadLevel::Linearizable, None)
        .expect("served");
    assert_eq!(
        (r.value, r.offset),
        (None, 1),
        "served after the no-op committed"
    );
}

#[test]
fn acknowledged_write_survives_leader_crash_and_failover() {
    let (mut g, leader, _) = elected();
    let w = g
        .client_write("k".into(), "v".into(), AckLevel::Quorum)
        .expect("write");
    assert!(w.accepted);
    g.crash(&leader, true).expect("crash");
    let new = g.failover(None).expect("failover");
    let r = g
        .client_read(b"k", ReadLevel::Linearizable, Some(&new))
        .expect("read");
    assert_eq!(r.value.as_deref(), Some(&b"v"[..]));
}

#[test]
fn partitioned_old_leader_cannot_commit_and_its_suffix_is_overwritten_after_heal() {
    let (mut g, old, _) = elected();
    g.client_write("k".into(), "base".into(), AckLevel::Quorum)
        .expect("write");
    g.run_until_converged(100).expect("converged");
    g.isolate(&old).expect("isolate");
    let new = g.failover(None).expect("failover");
    let minority = g
        .write_at(
            &old,
            "k".into(),
            Bytes::from_static(b"minority"),
            AckLevel::Quorum,
        )
        .expect("attempt");
    assert!(!minority.accepted, "{}", minority.message);
    let stale_index = minority.offset.expect("appended locally");
    let old_term = g.probe().node(&old).expect("p").term;
    assert!(g.probe().node(&old).expect("p").commit_index < stale_index);
    let w = g
        .client_write("k".into(), "majority".into(), AckLevel::Quorum)
        .expect("write");
    assert!(w.accepted);
    assert!(
        g.probe().node(&new).expect("p").term > old_term,
        "acked in a higher term"
    );
    g.heal(&old).expect("heal");
    g.run_until_converged(200).expect("converged");
    let probe = g.probe();
    let old_probe = probe.node(&old).expect("p");
    assert_eq!(old_probe.role, Role::Follower);
    assert_eq!(
        old_probe.log,
        probe.node(&new).expect("p").log,
        "logs converge"
    );
    assert!(old_probe.log.iter().all(|e| e.term != old_term || e.command == proto_raft::Command::Noop
        || !matches!(&e.command, proto_raft::Command::Set { value, .. } if value.as_ref() == b"minority")));
    assert!(
        g.trace()
            .of_kind("raft_entries_appended")
            .any(|e| e.field("node") == Some(old.clone().into())
                && e.field("truncated_from") == Some(stale_index.into()))
    );
    let r = g
        .client_read(b"k", ReadLevel::Local, Some(&old))
        .expect("read");
    assert_eq!(r.value.as_deref(), Some(&b"majority"[..]));
}

#[test]
fn leader_read_routes_to_the_highest_term_leader_without_proof() {
    let (mut g, old, _) = elected();
    g.client_write("k".into(), "before".into(), AckLevel::Quorum)
        .expect("write");
    g.run_until_converged(100).expect("converged");
    g.isolate(&old).expect("isolate");
    let new = g.failover(None).expect("failover");
    g.client_write("k".into(), "after".into(), AckLevel::Quorum)
        .expect("write");
    let r = g.client_read(b"k", ReadLevel::Leader, None).expect("read");
    assert_eq!((r.node, r.value.as_deref()), (new, Some(&b"after"[..])));
    let stale = g
        .client_read(b"k", ReadLevel::Local, Some(&old))
        .expect("read");
    assert_eq!(stale.value.as_deref(), Some(&b"before"[..]));
}

#[test]
fn run_until_idle_ends_although_heartbeats_never_stop() {
    let (mut g, _, _) = elected();
    g.propose("k".into(), "v".into()).expect("propose");
    let ticks = g.run_until_idle(100).expect("idle");
    assert!(ticks > 0);
    assert_eq!(g.run_until_idle(100).expect("idle"), 0, "idle stays idle");
    assert!(g.summary().alive_nodes_agree());
}
