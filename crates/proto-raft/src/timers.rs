//! A node's armed timers, as a steered run lists and fires them: a
//! follower's or candidate's election timeout; a leader's heartbeat and,
//! with CheckQuorum, its quorum check. A chooser (the model checker, the
//! debugger) may make the first of them due at once ([`RaftNode::expire`]),
//! as DSLabs and stateright let a search fire a timer whenever it likes:
//! the election timeout's randomised range then says only how long a
//! timer waits when nobody chooses.

use sim_core::Tick;

use crate::node::RaftNode;
use crate::role::Role;

/// One timer armed at a node: what it does and the tick it fires at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Timer {
    pub(crate) label: &'static str,
    pub(crate) due: Tick,
}

impl RaftNode {
    /// The timers armed at this node (an alive node always has one), the
    /// first due first.
    pub(crate) fn timers(&self) -> Vec<Timer> {
        let mut timers = Vec::new();
        if !self.alive {
            return timers;
        }
        match self.role {
            Role::Follower | Role::PreCandidate | Role::Candidate => timers.push(Timer {
                label: "election",
                due: self.election_deadline,
            }),
            Role::Leader => {
                let heartbeat = (0..self.cluster)
                    .filter(|&p| p != self.me)
                    .map(|p| self.last_sent[p].saturating_add(self.timing.heartbeat))
                    .min();
                if let Some(due) = heartbeat {
                    timers.push(Timer {
                        label: "heartbeat",
                        due,
                    });
                }
                if self.timing.check_quorum {
                    timers.push(Timer {
                        label: "check_quorum",
                        due: self.quorum_check_at,
                    });
                }
            }
        }
        timers.sort_by_key(|t| t.due);
        timers
    }

    /// Makes the first armed timer due at `now`, so that it fires at the
    /// next tick; `false` when none is armed. A leader's heartbeat is made
    /// due for every peer (it heartbeats every idle follower at once).
    pub(crate) fn expire(&mut self, now: Tick) -> bool {
        let Some(first) = self.timers().first().copied() else {
            return false;
        };
        match first.label {
            "election" => self.election_deadline = self.election_deadline.min(now),
            "heartbeat" => {
                let since = now.saturating_sub(self.timing.heartbeat);
                for p in (0..self.cluster).filter(|&p| p != self.me) {
                    self.last_sent[p] = self.last_sent[p].min(since);
                }
            }
            _ => self.quorum_check_at = self.quorum_check_at.min(now),
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use crate::{RaftConfig, RaftGroup};
    use replication::{ReplicationGroup, Steer};

    fn elected() -> RaftGroup {
        let mut group = RaftGroup::new(RaftConfig::default()).expect("group");
        group.run_until_leader(None, 100).expect("a leader");
        // Held, as a steered run is: no heartbeat arrives to reset a timer.
        group.hold(true).expect("held");
        group
    }

    /// Fifty ticks: past every election timeout and heartbeat.
    fn far_past_every_timer(group: &mut RaftGroup) {
        for _ in 0..50 {
            group.tick();
        }
    }

    fn follower_of(group: &RaftGroup) -> usize {
        (0..group.nodes.len())
            .find(|&i| !group.nodes[i].leads())
            .expect("a follower")
    }

    #[test]
    fn an_expired_election_timer_starts_an_election_at_the_next_tick() {
        let mut group = elected();
        let f = follower_of(&group);
        let timers = group.timers();
        let mine = timers.iter().find(|t| t.node == f).expect("armed");
        assert_eq!(mine.label, "election");
        assert!(mine.due_in > 1, "not due by itself: {mine:?}");
        group.expire(f).expect("expired");
        group.tick();
        // With PreVote (the default) it asks for pre-votes first.
        assert!(
            matches!(
                group.nodes[f].role,
                crate::role::Role::PreCandidate | crate::role::Role::Candidate
            ),
            "it stood for election: {:?}",
            group.nodes[f].role
        );
    }

    #[test]
    fn an_expired_heartbeat_goes_out_at_the_next_tick() {
        let mut group = elected();
        group.tick();
        let leader = group.leader_index().expect("leader");
        let sent = group.messages_sent();
        group.expire(leader).expect("expired");
        group.tick();
        assert!(group.messages_sent() > sent, "the heartbeat went out");
    }

    #[test]
    fn a_held_run_fires_no_timer_by_itself() {
        let mut group = elected();
        let terms = |g: &RaftGroup| g.nodes.iter().map(|n| n.current_term).collect::<Vec<_>>();
        let (sent, before) = (group.messages_sent(), terms(&group));
        far_past_every_timer(&mut group);
        assert_eq!(group.messages_sent(), sent, "no heartbeat, no election");
        assert_eq!(terms(&group), before);
        // Let go, the timers run by themselves again.
        group.hold(false).expect("let go");
        group.tick();
        assert!(group.messages_sent() > sent, "the overdue timers fired");
    }

    #[test]
    fn a_chosen_timer_fires_alone() {
        let mut group = elected();
        far_past_every_timer(&mut group);
        let f = follower_of(&group);
        let leader = group.leader_index().expect("leader");
        group.expire(f).expect("expired");
        let (sent, before) = (group.messages_sent(), group.held().len());
        group.tick();
        // The follower asks its two peers for a (pre-)vote; the leader,
        // whose heartbeat is long overdue, sends nothing.
        assert_eq!(group.messages_sent(), sent.map(|n| n + 2));
        let held = group.held();
        assert!(held[before..].iter().all(|m| m.from == f), "{held:?}");
        assert!(group.nodes[leader].leads());
        // The choice is spent with the tick.
        let sent = group.messages_sent();
        group.tick();
        assert_eq!(group.messages_sent(), sent);
    }

    #[test]
    fn an_overdue_quorum_check_is_no_violation_while_the_timers_are_held() {
        let mut group =
            RaftGroup::new(RaftConfig::default().with_check_quorum(true)).expect("group");
        group.run_until_leader(None, 100).expect("a leader");
        group.hold(true).expect("held");
        let leader = group.leader_index().expect("leader");
        for _ in 0..30 {
            group.tick();
        }
        assert!(
            group.nodes[leader].quorum_check_at <= group.now_tick(),
            "overdue"
        );
        group.check_invariants().expect("held: it runs when chosen");
        group.hold(false).expect("let go");
        group
            .check_invariants()
            .expect("let go, it is due at the next tick");
        group.tick();
        group.check_invariants().expect("it ran");
        assert!(
            group.nodes[leader].quorum_check_at > group.now_tick(),
            "rearmed"
        );
    }

    #[test]
    fn a_crashed_node_has_no_timer_to_expire() {
        let mut group = elected();
        let f = follower_of(&group);
        let id = group.node_ids()[f].clone();
        group.crash(&id, false).expect("crash");
        assert!(group.timers().iter().all(|t| t.node != f));
        let before = replication::state_fingerprint(&group);
        let err = group.expire(f).expect_err("refused");
        assert!(err.to_string().contains(id.as_str()), "{err}");
        assert_eq!(
            replication::state_fingerprint(&group),
            before,
            "no state changed"
        );
        assert!(group.expire(7).is_err(), "no node #7");
    }
}
