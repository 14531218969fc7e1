//! A student's Raft rules up to one stage, this crate's reference rules
//! after it.

use proto_raft::decisions::{RaftDecisions, Reference};

/// The student's rules through stage `stage`.
pub(crate) struct Staged {
    pub(crate) student: &'static dyn RaftDecisions,
    pub(crate) stage: u8,
    /// `student (stages 1-N)`.
    pub(crate) name: &'static str,
}

impl Staged {
    /// Whose answer a function of stage `stage` gives.
    fn at(&self, stage: u8) -> &dyn RaftDecisions {
        if stage <= self.stage {
            self.student
        } else {
            &Reference
        }
    }
}

impl RaftDecisions for Staged {
    fn name(&self) -> &'static str {
        self.name
    }

    fn grants_vote(&self, free: bool, candidate_last: (u64, u64), own_last: (u64, u64)) -> bool {
        self.at(1).grants_vote(free, candidate_last, own_last)
    }

    fn wins_election(&self, votes: usize, cluster: usize) -> bool {
        self.at(1).wins_election(votes, cluster)
    }

    fn continues_log(
        &self,
        prev_index: u64,
        prev_term: u64,
        own_term_at_prev: Option<u64>,
    ) -> bool {
        self.at(2)
            .continues_log(prev_index, prev_term, own_term_at_prev)
    }

    fn commits(&self, entry_term: u64, current_term: u64) -> bool {
        self.at(2).commits(entry_term, current_term)
    }

    fn read_confirmed(&self, acks: usize, cluster: usize) -> bool {
        self.at(3).read_confirmed(acks, cluster)
    }

    fn grants_pre_vote(
        &self,
        term_above_own: bool,
        candidate_last: (u64, u64),
        own_last: (u64, u64),
        leader_alive: bool,
    ) -> bool {
        self.at(4)
            .grants_pre_vote(term_above_own, candidate_last, own_last, leader_alive)
    }
}
