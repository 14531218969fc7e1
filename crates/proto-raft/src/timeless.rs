//! What a held run's next steps depend on, up to time: a node and a
//! pending client operation hashed for `Steer::hash_timeless`.
//!
//! While a steered run holds the network, a Raft timer fires only when a
//! chooser fires it ([`crate::timers`]), and firing makes it due however
//! far its deadline was. So an election deadline, a leader's heartbeat
//! times (without CheckQuorum) and the generator that draws the deadlines
//! decide nothing until the hold ends: they are left out. Every other
//! time is hashed as its distance from now, clamped where the protocol
//! only asks "is it past?": with PreVote, the age of a follower's leader
//! contact (the lease PreVote refuses under); with CheckQuorum, the
//! check's and the heartbeats' times (which of a leader's timers a
//! chooser fires first, and what fires with it); a transfer's deadline, a
//! pending operation's deadline and whether a read round started this
//! tick. Every field is named below, so a field added to a node is a
//! compile error here until it is placed.

use std::hash::{Hash, Hasher};

use sim_core::Tick;

use crate::inflight::{PendingOp, Stage};
use crate::node::RaftNode;

/// Ticks until `due`, 0 once it is past.
fn due_in(due: Tick, now: Tick) -> u64 {
    due.saturating_sub(now)
}

impl RaftNode {
    /// Feeds `h` this node's state at tick `now`, times as distances.
    pub(crate) fn hash_timeless<H: Hasher>(&self, now: Tick, h: &mut H) {
        let RaftNode {
            me,
            cluster,
            timing,
            alive,
            current_term,
            voted_for,
            log,
            snapshot,
            role,
            leader_hint,
            commit_index,
            last_applied,
            data,
            // Fires when chosen, however far it was.
            election_deadline: _,
            last_leader_contact,
            votes,
            next_index,
            match_index,
            last_sent,
            read_round,
            read_acked,
            unsent_proposals,
            // A buffer, rebuilt before every use.
            scratch: _,
            recent_active,
            quorum_check_at,
            transfer,
            truncated_committed,
        } = self;
        (me, cluster, timing, alive, current_term, voted_for).hash(h);
        (log, snapshot, role, leader_hint, commit_index, last_applied).hash(h);
        data.hash(h);
        // PreVote's "a leader is alive": contact less than the lowest
        // election timeout ago. Only PreVote reads it (and every node of
        // a group shares the setting).
        if timing.pre_vote {
            let lease = timing.election_timeout.0;
            last_leader_contact
                .map(|at| now.saturating_sub(at).min(lease))
                .hash(h);
        }
        (votes, next_index, match_index).hash(h);
        if timing.check_quorum {
            // A leader's first timer is its heartbeat or its check,
            // whichever is due first; a check or a peer already due goes
            // with it. (A node elected keeps its old check time.)
            due_in(*quorum_check_at, now).hash(h);
            for sent in last_sent {
                due_in(sent.saturating_add(timing.heartbeat), now).hash(h);
            }
        }
        (read_round, read_acked, unsent_proposals, recent_active).hash(h);
        transfer
            .map(|t| (t.target, due_in(t.deadline, now), t.timeout_now_sent))
            .hash(h);
        truncated_committed.hash(h);
    }
}

impl PendingOp {
    /// Feeds `h` this operation at tick `now`, times as distances.
    pub(crate) fn hash_timeless<H: Hasher>(&self, now: Tick, h: &mut H) {
        let PendingOp {
            id,
            op,
            // Reported with the outcome; decides nothing.
            submitted: _,
            node,
            term,
            stage,
            deadline,
        } = self;
        (id, op, node, term).hash(h);
        match stage {
            // A read joins a round started at the same tick.
            Stage::ReadInRound { round, started } => {
                std::mem::discriminant(stage).hash(h);
                (round, now == *started).hash(h);
            }
            other => other.hash(h),
        }
        due_in(*deadline, now).hash(h);
    }
}

#[cfg(test)]
mod tests {
    use replication::{
        AckLevel, Bytes, ClientOp, ReplicationGroup, Steer, state_fingerprint, timeless_fingerprint,
    };

    use crate::{RaftConfig, RaftGroup};

    /// An elected group, held.
    fn elected(config: RaftConfig) -> RaftGroup {
        let mut g = RaftGroup::new(config).expect("valid");
        g.run_until_leader(None, 100).expect("a leader");
        g.hold(true).expect("held");
        g
    }

    /// [`elected`], with the leader's heartbeats to both followers held
    /// (behind its first appends).
    fn heartbeating(config: RaftConfig) -> RaftGroup {
        let mut g = elected(config);
        let leader = g.leader_index().expect("a leader");
        g.expire(leader).expect("armed");
        g.tick();
        g
    }

    /// Delivers the held message to node `to` and lets the tick pass.
    fn deliver_to(g: &mut RaftGroup, to: usize) {
        let id = g.held().iter().find(|m| m.to == to).expect("held").id;
        g.release(id).expect("released");
        g.tick();
    }

    fn followers(g: &RaftGroup) -> (usize, usize) {
        let leader = g.leader_index().expect("a leader");
        let mut f = (0..3).filter(|&i| i != leader);
        (f.next().expect("two"), f.next().expect("two"))
    }

    #[test]
    fn deliveries_to_two_followers_in_either_order_are_one_state() {
        let base = heartbeating(RaftConfig::default());
        let (a, b) = followers(&base);
        let mut ab = base.clone();
        deliver_to(&mut ab, a);
        deliver_to(&mut ab, b);
        let mut ba = base.clone();
        deliver_to(&mut ba, b);
        deliver_to(&mut ba, a);
        // The followers reset their election deadlines from one generator
        // in the other order: the whole states differ.
        assert_ne!(state_fingerprint(&ab), state_fingerprint(&ba));
        assert_eq!(timeless_fingerprint(&ab), timeless_fingerprint(&ba));
    }

    #[test]
    fn a_tick_that_fires_nothing_is_no_new_state_while_held() {
        let base = elected(RaftConfig::default());
        let mut later = base.clone();
        for _ in 0..5 {
            later.tick();
        }
        assert_ne!(state_fingerprint(&later), state_fingerprint(&base));
        assert_eq!(timeless_fingerprint(&later), timeless_fingerprint(&base));
    }

    #[test]
    fn with_prevote_a_lease_s_age_is_part_of_the_state() {
        // PreVote refuses while a leader was heard less than the lowest
        // election timeout ago: a follower heard a tick later grants a
        // tick later. (Heard, then a tick; a tick, then heard.)
        let base = heartbeating(RaftConfig::default().with_pre_vote(true));
        let (a, _) = followers(&base);
        let mut heard = base.clone();
        deliver_to(&mut heard, a);
        heard.tick();
        let mut heard_later = base.clone();
        heard_later.tick();
        deliver_to(&mut heard_later, a);
        assert_ne!(
            timeless_fingerprint(&heard),
            timeless_fingerprint(&heard_later)
        );
        // Once both leases have lapsed, their ages no longer matter.
        for _ in 0..20 {
            heard.tick();
            heard_later.tick();
        }
        assert_eq!(
            timeless_fingerprint(&heard),
            timeless_fingerprint(&heard_later)
        );
    }

    #[test]
    fn with_check_quorum_the_leader_s_timer_times_are_part_of_the_state() {
        // Which of the leader's timers a chooser fires first, and whether
        // the other is due with it, depend on them.
        let base = elected(RaftConfig::default().with_check_quorum(true));
        let mut later = base.clone();
        later.tick();
        assert_ne!(timeless_fingerprint(&later), timeless_fingerprint(&base));
    }

    #[test]
    fn a_pending_operation_s_deadline_is_part_of_the_state() {
        let mut base = elected(RaftConfig::default());
        let leader = base.node_ids()[base.leader_index().expect("a leader")].clone();
        base.submit(
            ClientOp::write(
                Bytes::from_static(b"k"),
                Bytes::from_static(b"v"),
                AckLevel::Quorum,
            )
            .at(&leader),
        )
        .expect("accepted");
        base.tick();
        assert_eq!(base.clients.len(), 1, "the write waits for its commit");
        // Only the ticks the write has waited differ.
        let mut later = base.clone();
        later.tick();
        assert_ne!(timeless_fingerprint(&later), timeless_fingerprint(&base));
    }
}
