//! The steerable run's fingerprint sees every field of every server and
//! of the client table: changing any one of them changes it (a
//! fingerprint that merged two different states would hide bugs from the
//! model checker). The destructuring below names every field, so a field
//! added to [`RaftNode`] does not compile here until this test covers it.

use replication::{
    ReplicationGroup, Steer, fingerprint_without_messages, state_fingerprint, timeless_fingerprint,
};

use crate::node::RaftNode;
use crate::{RaftConfig, RaftGroup};

/// A named change to one server.
type Change = (&'static str, Box<dyn Fn(&mut RaftNode)>);

fn fp(g: &RaftGroup) -> u64 {
    state_fingerprint(g as &dyn Steer)
}

/// A group after an election and a write, so every field has a value.
fn busy() -> RaftGroup {
    let mut g = RaftGroup::new(RaftConfig::default()).expect("valid");
    g.run_until_leader(None, 100).expect("a leader");
    let _ = g.client_write(
        replication::Bytes::from_static(b"k"),
        replication::Bytes::from_static(b"v"),
        replication::AckLevel::Quorum,
    );
    g
}

/// One change to every field of `node`, by name.
fn every_field_changed(node: &RaftNode) -> Vec<Change> {
    let mut changes: Vec<Change> = Vec::new();
    // Every field, by name (a new field fails to compile here).
    let RaftNode {
        me: _,
        cluster: _,
        timing: _,
        alive: _,
        current_term: _,
        voted_for: _,
        log: _,
        snapshot: _,
        role: _,
        leader_hint: _,
        commit_index: _,
        last_applied: _,
        data: _,
        election_deadline: _,
        last_leader_contact: _,
        votes: _,
        next_index: _,
        match_index: _,
        last_sent: _,
        read_round: _,
        read_acked: _,
        unsent_proposals: _,
        scratch: _,
        recent_active: _,
        quorum_check_at: _,
        transfer: _,
        truncated_committed: _,
    } = node;
    changes.push(("me", Box::new(|n| n.me += 7)));
    changes.push(("cluster", Box::new(|n| n.cluster += 1)));
    changes.push(("timing", Box::new(|n| n.timing.heartbeat += 1)));
    changes.push(("alive", Box::new(|n| n.alive = !n.alive)));
    changes.push(("current_term", Box::new(|n| n.current_term += 1)));
    changes.push(("voted_for", Box::new(|n| n.voted_for = Some(9))));
    changes.push(("log", Box::new(|n| n.log.push(n.log[0].clone()))));
    changes.push(("snapshot", Box::new(|n| n.snapshot.term += 1)));
    changes.push(("role", Box::new(|n| n.role = crate::Role::Candidate)));
    changes.push(("leader_hint", Box::new(|n| n.leader_hint = Some(9))));
    changes.push(("commit_index", Box::new(|n| n.commit_index += 1)));
    changes.push(("last_applied", Box::new(|n| n.last_applied += 1)));
    changes.push((
        "data",
        Box::new(|n| {
            n.data.insert("z".into(), "z".into());
        }),
    ));
    changes.push(("election_deadline", Box::new(|n| n.election_deadline += 1)));
    changes.push((
        "last_leader_contact",
        Box::new(|n| n.last_leader_contact = Some(999)),
    ));
    changes.push(("votes", Box::new(|n| n.votes.push(true))));
    changes.push(("next_index", Box::new(|n| n.next_index[0] += 1)));
    changes.push(("match_index", Box::new(|n| n.match_index[0] += 1)));
    changes.push(("last_sent", Box::new(|n| n.last_sent[0] += 1)));
    changes.push(("read_round", Box::new(|n| n.read_round += 1)));
    changes.push(("read_acked", Box::new(|n| n.read_acked[0] += 1)));
    changes.push((
        "unsent_proposals",
        Box::new(|n| n.unsent_proposals = !n.unsent_proposals),
    ));
    changes.push(("scratch", Box::new(|n| n.scratch.push(1))));
    changes.push((
        "recent_active",
        Box::new(|n| n.recent_active[0] = !n.recent_active[0]),
    ));
    changes.push(("quorum_check_at", Box::new(|n| n.quorum_check_at += 1)));
    changes.push((
        "transfer",
        Box::new(|n| {
            n.transfer = Some(crate::transfer::Transfer {
                target: 1,
                deadline: 99,
                timeout_now_sent: false,
            })
        }),
    ));
    changes.push((
        "truncated_committed",
        Box::new(|n| n.truncated_committed = Some((1, 1))),
    ));
    changes
}

#[test]
fn changing_any_field_of_a_server_changes_the_fingerprint() {
    let base = busy();
    let before = fp(&base);
    let leader = base.leader_index().expect("a leader");
    for (field, change) in &every_field_changed(&base.nodes[leader]) {
        let mut g = base.clone();
        change(&mut g.nodes[leader]);
        assert_ne!(
            fp(&g),
            before,
            "changing {field} must change the fingerprint"
        );
    }
    assert_eq!(fp(&base.clone()), before, "a clone is the same state");
}

/// The times a held run of the default row (no PreVote, no CheckQuorum)
/// leaves out of its timeless fingerprint: each decides nothing before
/// the hold ends ([`crate::timeless`]).
const TIMES_LEFT_OUT: [&str; 5] = [
    "election_deadline",
    "last_leader_contact",
    "last_sent",
    "quorum_check_at",
    "scratch",
];

#[test]
fn a_held_run_s_timeless_fingerprint_sees_every_field_but_the_times_it_leaves_out() {
    let mut base = busy();
    base.cluster.hold(true).expect("held");
    let (before, whole) = (timeless_fingerprint(&base), fp(&base));
    let leader = base.leader_index().expect("a leader");
    for (field, change) in &every_field_changed(&base.nodes[leader]) {
        let mut g = base.clone();
        change(&mut g.nodes[leader]);
        if TIMES_LEFT_OUT.contains(field) {
            assert_eq!(timeless_fingerprint(&g), before, "{field} is left out");
            assert_ne!(fp(&g), whole, "{field} is in the whole state");
        } else {
            assert_ne!(
                timeless_fingerprint(&g),
                before,
                "changing {field} must change the timeless fingerprint"
            );
        }
    }
    // Let go, time runs by itself: the whole state again.
    let mut let_go = base.clone();
    let_go.cluster.hold(false).expect("let go");
    assert_eq!(timeless_fingerprint(&let_go), fp(&let_go));
}

#[test]
fn without_messages_the_fingerprint_leaves_out_only_what_is_in_flight() {
    let mut base = busy();
    base.cluster.hold(true).expect("held");
    let _ = base.client_write(
        replication::Bytes::from_static(b"k2"),
        replication::Bytes::from_static(b"v2"),
        replication::AckLevel::Quorum,
    );
    let held = base.cluster.held();
    assert!(!held.is_empty(), "the write's appends are held");
    let view = fingerprint_without_messages(&base);
    // A message dropped: another state, the same view.
    let mut dropped = base.clone();
    dropped.cluster.drop_held(held[0].id).expect("held");
    assert_ne!(timeless_fingerprint(&dropped), timeless_fingerprint(&base));
    assert_eq!(fingerprint_without_messages(&dropped), view);
    // Every field of a server that the timeless state sees, the view
    // sees too.
    let leader = base.leader_index().expect("a leader");
    for (field, change) in &every_field_changed(&base.nodes[leader]) {
        if TIMES_LEFT_OUT.contains(field) {
            continue;
        }
        let mut g = base.clone();
        change(&mut g.nodes[leader]);
        assert_ne!(fingerprint_without_messages(&g), view, "{field}");
    }
    // And the harness besides its messages: a fault.
    let mut crashed = base.clone();
    crashed.crash(&"node-3".into(), false).expect("crashes");
    assert_ne!(
        fingerprint_without_messages(&crashed),
        view,
        "the fault state"
    );
}

#[test]
fn the_harness_feeds_the_fingerprint_too() {
    let base = busy();
    let before = fp(&base);
    let mut ticked = base.clone();
    ticked.tick();
    assert_ne!(fp(&ticked), before, "the tick (and what it ran)");
    let mut crashed = base.clone();
    crashed.crash(&"node-3".into(), false).expect("crashes");
    assert_ne!(fp(&crashed), before, "the fault state");
    let mut held = base.clone();
    held.cluster
        .hold(true)
        .expect("nothing scheduled after run_until_leader's write");
    let heard = fp(&held);
    let _ = held.client_write(
        replication::Bytes::from_static(b"k2"),
        replication::Bytes::from_static(b"v2"),
        replication::AckLevel::Quorum,
    );
    assert!(
        !held.cluster.held().is_empty(),
        "the write's appends are held"
    );
    assert_ne!(fp(&held), heard, "messages held, a client op in flight");
}

#[test]
fn a_steered_group_tells_its_faults_to_whoever_takes_it_over() {
    let mut g = busy();
    let ids = g.node_ids();
    g.crash(&ids[0], false).expect("crash");
    g.isolate(&ids[1]).expect("isolate");
    g.cut_link(&ids[2], &ids[1]).expect("cut");
    let steer: &dyn Steer = &g;
    assert!(steer.node_faults(0).down && !steer.node_faults(0).isolated);
    assert!(steer.node_faults(1).isolated && !steer.node_faults(1).down);
    assert_eq!(steer.node_faults(2), replication::NodeFaults::default());
    assert_eq!(steer.cut_links(), vec![(2, 1)]);
}
