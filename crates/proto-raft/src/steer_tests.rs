//! The steerable run's fingerprint sees every field of every server and
//! of the client table: changing any one of them changes it (a
//! fingerprint that merged two different states would hide bugs from the
//! model checker). The destructuring below names every field, so a field
//! added to [`RaftNode`] does not compile here until this test covers it.

use replication::{ReplicationGroup, Steer, state_fingerprint};

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

#[test]
fn changing_any_field_of_a_server_changes_the_fingerprint() {
    let base = busy();
    let before = fp(&base);
    let leader = base.leader_index().expect("a leader");
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
    } = &base.nodes[leader];
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
    for (field, change) in &changes {
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
