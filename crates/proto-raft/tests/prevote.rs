//! PreVote (thesis §9.6): a node that rejoins after isolation no longer
//! deposes a healthy leader by bumping the term.

use proto_raft::{RaftConfig, RaftGroup, Role};
use replication::ReplicationGroup;

/// Elects, isolates one follower for 60 ticks (several election timeouts),
/// heals it and runs 60 more ticks. Returns (the group, the first leader,
/// its term, the follower).
fn isolate_and_heal_a_follower(
    config: RaftConfig,
) -> (RaftGroup, proto_raft::NodeId, u64, proto_raft::NodeId) {
    let mut g = RaftGroup::new(config).expect("group");
    let leader = g.run_until_leader(None, 100).expect("leader");
    g.run_until_idle(100).expect("idle");
    let term = g.probe().node(&leader).expect("leader probe").term;
    let follower = g
        .node_ids()
        .into_iter()
        .find(|n| *n != leader)
        .expect("a follower");
    g.isolate(&follower).expect("isolate");
    for _ in 0..60 {
        g.tick();
    }
    g.heal(&follower).expect("heal");
    for _ in 0..60 {
        g.tick();
    }
    (g, leader, term, follower)
}

#[test]
fn healed_minority_node_bumps_the_term_and_deposes_the_leader_without_pre_vote() {
    let (g, leader, term, follower) = isolate_and_heal_a_follower(RaftConfig::default());
    let probe = g.probe();
    let isolated = probe.node(&follower).expect("probe");
    assert!(
        isolated.term > term,
        "the isolated follower campaigned in higher terms"
    );
    assert!(
        probe.node(&leader).expect("probe").term > term,
        "its higher term reached the healthy leader and deposed it"
    );
}

#[test]
fn healed_minority_node_does_not_bump_the_term_with_pre_vote() {
    let (g, leader, term, follower) =
        isolate_and_heal_a_follower(RaftConfig::default().with_pre_vote(true));
    let probe = g.probe();
    let isolated = probe.node(&follower).expect("probe");
    assert_eq!(
        isolated.term, term,
        "pre-votes never raise the asker's term"
    );
    assert_eq!(isolated.role, Role::Follower, "it follows the leader again");
    let lead = probe.node(&leader).expect("probe");
    assert_eq!(
        (lead.role, lead.term),
        (Role::Leader, term),
        "the leader was not disturbed"
    );
    assert!(
        g.trace().count("raft_pre_vote_started") > 0,
        "it did try while isolated"
    );
    assert_eq!(
        g.trace().count("raft_election_started"),
        1,
        "only the first election ran"
    );
}

#[test]
fn pre_vote_still_elects_a_new_leader_when_the_leader_crashes() {
    let mut g = RaftGroup::new(RaftConfig::default().with_pre_vote(true)).expect("group");
    let old = g.run_until_leader(None, 100).expect("leader");
    let term = g.probe().node(&old).expect("probe").term;
    g.crash(&old, false).expect("crash");
    let new = g.failover(None).expect("a new leader");
    assert_ne!(new, old);
    assert_eq!(
        g.probe().node(&new).expect("probe").term,
        term + 1,
        "the pre-vote round won at once, so one real election in term + 1"
    );
}

/// Without PreVote, a follower that still reaches the majority but no
/// longer hears the leader (a one-way cut) keeps starting elections in
/// higher terms and deposes every leader, so the explorer must not judge
/// availability then (a schedule that did: seed 6792); with PreVote its
/// pre-votes fail and the majority keeps serving. A follower cut off both
/// ways is tolerated either way.
#[test]
fn a_one_way_cut_into_a_follower_is_tolerated_only_with_prevote() {
    for pre_vote in [false, true] {
        let mut g = RaftGroup::new(RaftConfig::default().with_pre_vote(pre_vote)).expect("group");
        let leader = g.run_until_leader(None, 100).expect("leader");
        let follower = g
            .node_ids()
            .into_iter()
            .find(|n| *n != leader)
            .expect("a follower");
        assert!(g.tolerates_current_faults());
        g.cut_link(&leader, &follower).expect("cut");
        assert_eq!(
            g.tolerates_current_faults(),
            pre_vote,
            "pre_vote={pre_vote}"
        );
        g.heal(&follower).expect("heal");
        g.isolate(&follower).expect("isolate");
        assert!(g.tolerates_current_faults(), "isolated both ways");
    }
}

/// Outside Raft's timing assumption (a heartbeat round no shorter than the
/// lowest election timeout) a leaderless group says why it cannot serve;
/// with a leader, or within the assumption, it claims nothing.
#[test]
fn no_leader_outside_the_timing_assumption_is_stated_unavailability() {
    let slow = sim_core::NetConfig::default().with_delay_range(4, 6);
    let mut g = RaftGroup::new(RaftConfig::default()).expect("group");
    g.set_network(slow).expect("network before the first send");
    assert!(g.leader().is_none());
    let why = g.unavailable().expect("stated");
    assert!(why.contains("timing assumption"), "{why}");
    let mut fast = RaftGroup::new(RaftConfig::default()).expect("group");
    assert!(fast.leader().is_none());
    assert_eq!(fast.unavailable(), None);
    fast.run_until_leader(None, 100).expect("leader");
    assert_eq!(fast.unavailable(), None);
}
