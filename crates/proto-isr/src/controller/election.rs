//! Leader elections — clean (an ISR member, truncated to HW) and unclean
//! (`unclean.leader.election.enable`) — who may be elected, a restarted
//! replica, and which followers the leader resynchronises.

use replication::Tick;

use super::facts::ReplicaFacts;
use super::membership::{ControllerEvent, ShrinkReason};
use super::state::Controller;

/// Why the controller elects a leader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ElectionReason {
    /// An operator asked for this ISR member (`controller_elect`).
    ControllerElect,
    /// The leader restarted still holding HW: re-established in a new
    /// epoch, so entries it may have lost can never be confused with new
    /// ones (`leader_restarted`).
    LeaderRestarted,
    /// No ISR member is alive and `unclean.leader.election.enable` is on:
    /// an out-of-sync replica is elected (`unclean_election`).
    Unclean,
}

impl ElectionReason {
    /// The trace word.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            ElectionReason::ControllerElect => "controller_elect",
            ElectionReason::LeaderRestarted => "leader_restarted",
            ElectionReason::Unclean => "unclean_election",
        }
    }
}

/// Why a replica cannot be elected now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ElectionRefusal {
    /// It already leads (and can serve).
    AlreadyLeader,
    /// It is not in the ISR and an unclean election is not allowed:
    /// `unclean_enabled` says whether the setting is on (then a live ISR
    /// member can still be elected cleanly).
    NotInIsr {
        /// `unclean.leader.election.enable`.
        unclean_enabled: bool,
    },
}

/// What an unclean election gave up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct UncleanElection {
    /// The new leader's log end, which becomes the high watermark.
    pub log_end: u64,
    /// The high watermark before.
    pub high_watermark_before: u64,
    /// Committed offsets the new leader does not hold.
    pub offsets_lost: u64,
}

/// An election the controller made; the group carries it out (the new
/// leader [`become_leader`](crate::node::IsrNode::become_leader)s, every
/// reachable replica learns it, followers resynchronise) and records it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Election {
    /// The new leader's position.
    pub leader: usize,
    /// The previous leader's position (may be the same replica).
    pub previous: usize,
    /// The new leader epoch.
    pub leader_epoch: u64,
    /// The new controller epoch.
    pub controller_epoch: u64,
    /// The high watermark the new leader is truncated to.
    pub high_watermark: u64,
    /// Why.
    pub reason: ElectionReason,
    /// Set for an unclean election.
    pub unclean: Option<UncleanElection>,
    /// The previous leader leaving the ISR
    /// ([`ShrinkReason::DisplacedLeader`]), if it was a member.
    pub displaced: Option<ControllerEvent>,
    /// The ISR after the election, in assignment order.
    pub isr: Vec<usize>,
}

/// What a replica's restart means to the controller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RestartDecision {
    /// A follower: resynchronise it.
    Resync,
    /// The leader, still holding HW: re-elect it in a new epoch
    /// ([`ElectionReason::LeaderRestarted`]).
    Reelect,
    /// The leader, without the committed prefix: it stays leader but out of
    /// the ISR, unavailable until another replica is elected
    /// (`isr_leader_unavailable`).
    LeaderUnavailable {
        /// Its log end.
        log_end: u64,
        /// The high watermark it lacks.
        high_watermark: u64,
    },
}

impl Controller {
    /// True when an unclean election may happen now: the setting is on and
    /// no ISR member is alive.
    #[must_use]
    pub fn unclean_permitted(&self, facts: &[ReplicaFacts]) -> bool {
        self.unclean_leader_election
            && !facts
                .iter()
                .enumerate()
                .any(|(j, f)| self.in_isr[j] && f.alive)
    }

    /// Whether live replica `candidate` may be elected now, and how: a
    /// clean election of an ISR member other than an available leader, or
    /// an unclean one of any live replica when
    /// [`Controller::unclean_permitted`].
    pub fn check_election(
        &self,
        candidate: usize,
        facts: &[ReplicaFacts],
    ) -> Result<ElectionReason, ElectionRefusal> {
        if candidate == self.leader && self.available(facts) {
            return Err(ElectionRefusal::AlreadyLeader);
        }
        if !self.in_isr[candidate] {
            let unclean = self.unclean_permitted(facts);
            if self.decide.electable(false, unclean) {
                return Ok(if unclean {
                    ElectionReason::Unclean
                } else {
                    ElectionReason::ControllerElect
                });
            }
            return Err(ElectionRefusal::NotInIsr {
                unclean_enabled: self.unclean_leader_election,
            });
        }
        if candidate == self.leader {
            return Err(ElectionRefusal::AlreadyLeader);
        }
        Ok(ElectionReason::ControllerElect)
    }

    /// The replica `failover(None)` elects: the first live ISR member other
    /// than the leader in assignment order, or — when
    /// [`Controller::unclean_permitted`] — the first live replica.
    #[must_use]
    pub fn failover_candidate(&self, facts: &[ReplicaFacts]) -> Option<usize> {
        let clean = self.assignment.iter().copied().find(|&j| {
            j != self.leader
                && self.in_isr[j]
                && facts[j].alive
                && self.decide.electable(true, false)
        });
        clean.or_else(|| {
            // No live ISR member but the leader: an election outside the
            // ISR, if the rules allow one.
            let unclean = self.unclean_permitted(facts);
            self.assignment.iter().copied().find(|&j| {
                facts[j].alive
                    && !(j == self.leader && self.in_isr[j])
                    && self.decide.electable(self.in_isr[j], unclean)
            })
        })
    }

    /// Elects `candidate` now: both epochs + 1; for an unclean election the
    /// ISR is reset and HW becomes the candidate's log end (acknowledged
    /// entries above it are gone); the previous leader leaves the ISR, the
    /// candidate joins it, a new lease starts, and every follower's lag
    /// clock restarts. `facts` are those before the election.
    pub fn elect(
        &mut self,
        now: Tick,
        candidate: usize,
        reason: ElectionReason,
        facts: &[ReplicaFacts],
    ) -> Election {
        let previous = self.leader;
        self.leader_epoch += 1;
        self.controller_epoch += 1;
        let unclean = (reason == ElectionReason::Unclean).then(|| {
            let before = self.high_watermark;
            let end = facts[candidate].log_end_offset;
            self.in_isr.iter_mut().for_each(|m| *m = false);
            self.high_watermark = end;
            self.unclean_epoch = self.leader_epoch;
            UncleanElection {
                log_end: end,
                high_watermark_before: before,
                offsets_lost: before.saturating_sub(end),
            }
        });
        let hw = self.high_watermark;
        let displaced = (previous != candidate && self.in_isr[previous]).then(|| {
            self.in_isr[previous] = false;
            ControllerEvent::MemberRemoved {
                replica: previous,
                reason: ShrinkReason::DisplacedLeader,
                lag_ticks: 0,
                log_end: facts[previous].log_end_offset,
                leader_log_end: hw,
                isr: self.isr(),
            }
        });
        self.in_isr[candidate] = true;
        self.leader = candidate;
        self.lease_expiry = now.saturating_add(self.lease_duration);
        self.last_caught_up.iter_mut().for_each(|t| *t = now);
        Election {
            leader: candidate,
            previous,
            leader_epoch: self.leader_epoch,
            controller_epoch: self.controller_epoch,
            high_watermark: hw,
            reason,
            unclean,
            displaced,
            isr: self.isr(),
        }
    }

    /// What replica `j`'s restart means: a follower resynchronises; the
    /// leader is re-elected if it still holds HW, else it is unavailable.
    #[must_use]
    pub fn on_replica_restarted(&self, j: usize, facts: &[ReplicaFacts]) -> RestartDecision {
        if j != self.leader {
            return RestartDecision::Resync;
        }
        let log_end = facts[j].log_end_offset;
        if log_end >= self.high_watermark {
            RestartDecision::Reelect
        } else {
            RestartDecision::LeaderUnavailable {
                log_end,
                high_watermark: self.high_watermark,
            }
        }
    }

    /// True when the leader should (re)start follower `j`'s catch-up now:
    /// the leader is available and `j` is another replica, alive, not slow
    /// and linked to it.
    #[must_use]
    pub fn should_resync(&self, j: usize, facts: &[ReplicaFacts]) -> bool {
        let f = &facts[j];
        j != self.leader && self.available(facts) && f.alive && !f.slow && f.linked_to_leader
    }
}
