//! A student's ISR rules up to one stage, this crate's reference rules
//! after it: grading stage N runs the student's functions of stages
//! 1..=N and nothing they have not reached yet.

use proto_isr::controller::ReplicaFacts;
use proto_isr::decisions::{IsrDecisions, Reference};
use replication::{AckLevel, ReadLevel, Tick};

/// The student's rules through stage `stage`.
pub(crate) struct Staged {
    pub(crate) student: &'static dyn IsrDecisions,
    pub(crate) stage: u8,
    /// `student (stages 1–N)`, for traces and comparisons.
    pub(crate) name: &'static str,
}

impl Staged {
    /// Whose answer a function of stage `stage` gives.
    fn at(&self, stage: u8) -> &dyn IsrDecisions {
        if stage <= self.stage {
            self.student
        } else {
            &Reference
        }
    }
}

impl IsrDecisions for Staged {
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
        self.at(1)
            .acknowledged(level, offset, high_watermark, isr_holds)
    }

    fn high_watermark(&self, leader_log_end: u64, isr_confirmed_ends: &[u64]) -> u64 {
        self.at(2)
            .high_watermark(leader_log_end, isr_confirmed_ends)
    }

    fn reads_committed(&self, level: ReadLevel) -> bool {
        self.at(2).reads_committed(level)
    }

    fn caught_up(&self, follower: &ReplicaFacts, leader_log_end: u64) -> bool {
        self.at(3).caught_up(follower, leader_log_end)
    }

    fn lagging(&self, lag_ticks: u64, replica_lag_timeout: u64) -> bool {
        self.at(3).lagging(lag_ticks, replica_lag_timeout)
    }

    fn admits(&self, isr_size: usize, min_insync: usize) -> bool {
        self.at(3).admits(isr_size, min_insync)
    }

    fn electable(&self, in_isr: bool, unclean_permitted: bool) -> bool {
        self.at(4).electable(in_isr, unclean_permitted)
    }

    fn accepts_packet(&self, packet_epoch: u64, known_epoch: u64, from_known_leader: bool) -> bool {
        self.at(4)
            .accepts_packet(packet_epoch, known_epoch, from_known_leader)
    }

    fn continues_log(
        &self,
        prev_offset: u64,
        prev_epoch: u64,
        log_end: u64,
        epoch_at_prev: u64,
    ) -> bool {
        self.at(4)
            .continues_log(prev_offset, prev_epoch, log_end, epoch_at_prev)
    }

    fn renews_lease(&self, reachable: usize, min_insync: usize) -> bool {
        self.at(5).renews_lease(reachable, min_insync)
    }

    fn lease_live(&self, now: Tick, expiry: Tick) -> bool {
        self.at(5).lease_live(now, expiry)
    }
}
