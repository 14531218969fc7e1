//! The classic mistakes, one per rule: each a student implementation that
//! answers like the laboratory's reference except in one function, the
//! way students (and the systems' own histories) got it wrong. The
//! grader's negative controls: each must fail its stage, with a
//! counterexample (`cargo xtask lab calibrate`).

use proto_isr::controller::ReplicaFacts;
use proto_isr::decisions::{IsrDecisions, Reference as IsrReference};
use proto_raft::decisions::{RaftDecisions, Reference as RaftReference};
use replication::{AckLevel, ReadLevel, Tick};

use crate::lab::Student;

/// One classic mistake.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mistake {
    /// Its name (`hw_from_leader`).
    pub name: &'static str,
    /// The stage whose grade it must fail.
    pub stage: u8,
    /// What it gets wrong.
    pub doc: &'static str,
    lab: crate::lab::Lab,
}

/// Every classic mistake of both labs, in stage order.
pub const ALL: &[Mistake] = &[
    isr(
        "all_isr_at_append",
        1,
        "ALL_ISR acknowledged at append, before the ISR has it and HW covers it",
    ),
    isr(
        "hw_from_leader",
        2,
        "HW from the leader's log end alone, not the ISR's minimum",
    ),
    isr(
        "no_shrink_on_lag",
        3,
        "a lagging follower is never removed from the ISR",
    ),
    isr(
        "rejoin_on_equal_log_end",
        3,
        "a follower rejoins the ISR because its log end equals the leader's, unconfirmed",
    ),
    isr(
        "admit_below_min_insync",
        3,
        "ALL_ISR writes admitted below min.insync.replicas",
    ),
    isr(
        "elect_outside_isr",
        4,
        "the controller elects a replica outside the ISR",
    ),
    isr(
        "no_epoch_fence",
        4,
        "a follower takes any leader's packets, of any leader epoch",
    ),
    isr(
        "lease_never_expires",
        5,
        "a lease read is served however long ago the lease was renewed",
    ),
    raft(
        "vote_ignores_log",
        1,
        "a vote granted without the election restriction's log check",
    ),
    raft(
        "vote_twice_in_a_term",
        1,
        "a vote granted to every up-to-date candidate of a term, not once per term",
    ),
    raft(
        "commit_old_term",
        2,
        "Figure 8: an older term's entry committed by counting replicas",
    ),
    raft(
        "read_without_quorum",
        3,
        "a read index served without a majority's confirmation",
    ),
    raft(
        "pre_vote_ignores_leader",
        4,
        "a pre-vote granted while a leader is known alive",
    ),
];

const fn isr(name: &'static str, stage: u8, doc: &'static str) -> Mistake {
    Mistake {
        name,
        stage,
        doc,
        lab: crate::lab::Lab::Isr,
    }
}

const fn raft(name: &'static str, stage: u8, doc: &'static str) -> Mistake {
    Mistake {
        name,
        stage,
        doc,
        lab: crate::lab::Lab::Raft,
    }
}

impl Mistake {
    /// The lab it belongs to.
    #[must_use]
    pub fn lab(self) -> crate::lab::Lab {
        self.lab
    }

    /// The student implementation that makes it.
    #[must_use]
    pub fn student(&'static self) -> Student {
        match self.lab {
            crate::lab::Lab::Isr => Student::Isr(self),
            crate::lab::Lab::Raft => Student::Raft(self),
        }
    }

    fn is(&self, name: &str) -> bool {
        self.name == name
    }
}

impl IsrDecisions for Mistake {
    fn name(&self) -> &'static str {
        self.name
    }

    fn acknowledged(
        &self,
        level: AckLevel,
        offset: u64,
        high_watermark: u64,
        isr_holds: bool,
    ) -> bool {
        self.is("all_isr_at_append")
            || IsrReference.acknowledged(level, offset, high_watermark, isr_holds)
    }

    fn high_watermark(&self, leader_log_end: u64, isr_confirmed_ends: &[u64]) -> u64 {
        if self.is("hw_from_leader") {
            leader_log_end
        } else {
            IsrReference.high_watermark(leader_log_end, isr_confirmed_ends)
        }
    }

    fn reads_committed(&self, level: ReadLevel) -> bool {
        IsrReference.reads_committed(level)
    }

    fn caught_up(&self, follower: &ReplicaFacts, leader_log_end: u64) -> bool {
        if self.is("rejoin_on_equal_log_end") {
            follower.alive
                && !follower.slow
                && follower.linked_to_leader
                && follower.log_end_offset == leader_log_end
        } else {
            IsrReference.caught_up(follower, leader_log_end)
        }
    }

    fn lagging(&self, lag_ticks: u64, replica_lag_timeout: u64) -> bool {
        !self.is("no_shrink_on_lag") && IsrReference.lagging(lag_ticks, replica_lag_timeout)
    }

    fn admits(&self, isr_size: usize, min_insync: usize) -> bool {
        self.is("admit_below_min_insync") || IsrReference.admits(isr_size, min_insync)
    }

    fn electable(&self, in_isr: bool, unclean_permitted: bool) -> bool {
        self.is("elect_outside_isr") || IsrReference.electable(in_isr, unclean_permitted)
    }

    fn accepts_packet(&self, packet_epoch: u64, known_epoch: u64, from_known_leader: bool) -> bool {
        self.is("no_epoch_fence")
            || IsrReference.accepts_packet(packet_epoch, known_epoch, from_known_leader)
    }

    fn continues_log(
        &self,
        prev_offset: u64,
        prev_epoch: u64,
        log_end: u64,
        epoch_at_prev: u64,
    ) -> bool {
        IsrReference.continues_log(prev_offset, prev_epoch, log_end, epoch_at_prev)
    }

    fn renews_lease(&self, reachable: usize, min_insync: usize) -> bool {
        IsrReference.renews_lease(reachable, min_insync)
    }

    fn lease_live(&self, now: Tick, expiry: Tick) -> bool {
        self.is("lease_never_expires") || IsrReference.lease_live(now, expiry)
    }
}

impl RaftDecisions for Mistake {
    fn name(&self) -> &'static str {
        self.name
    }

    fn grants_vote(&self, free: bool, candidate_last: (u64, u64), own_last: (u64, u64)) -> bool {
        if self.is("vote_ignores_log") {
            free
        } else if self.is("vote_twice_in_a_term") {
            RaftReference.grants_vote(true, candidate_last, own_last)
        } else {
            RaftReference.grants_vote(free, candidate_last, own_last)
        }
    }

    fn wins_election(&self, votes: usize, cluster: usize) -> bool {
        RaftReference.wins_election(votes, cluster)
    }

    fn continues_log(
        &self,
        prev_index: u64,
        prev_term: u64,
        own_term_at_prev: Option<u64>,
    ) -> bool {
        RaftReference.continues_log(prev_index, prev_term, own_term_at_prev)
    }

    fn commits(&self, entry_term: u64, current_term: u64) -> bool {
        self.is("commit_old_term") || RaftReference.commits(entry_term, current_term)
    }

    fn read_confirmed(&self, acks: usize, cluster: usize) -> bool {
        self.is("read_without_quorum") || RaftReference.read_confirmed(acks, cluster)
    }

    fn grants_pre_vote(
        &self,
        term_above_own: bool,
        candidate_last: (u64, u64),
        own_last: (u64, u64),
        leader_alive: bool,
    ) -> bool {
        let leader_alive = leader_alive && !self.is("pre_vote_ignores_leader");
        RaftReference.grants_pre_vote(term_above_own, candidate_last, own_last, leader_alive)
    }
}
