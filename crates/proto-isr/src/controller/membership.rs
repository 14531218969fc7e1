//! The per-tick partition work: ISR shrink and expansion, the high
//! watermark, the lease — and a crashed replica leaving the ISR.

use replication::Tick;

use super::facts::ReplicaFacts;
use super::state::Controller;

/// Why a replica left the ISR.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ShrinkReason {
    /// Not caught up for `replica_lag_timeout` ticks (`lag`).
    Lag,
    /// It crashed (`crashed`).
    Crashed,
    /// It led, and the controller elected another replica
    /// (`displaced_leader`).
    DisplacedLeader,
}

impl ShrinkReason {
    /// The trace word.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            ShrinkReason::Lag => "lag",
            ShrinkReason::Crashed => "crashed",
            ShrinkReason::DisplacedLeader => "displaced_leader",
        }
    }
}

/// A change the controller made to the partition, in the order it made
/// them; the group records each as one trace event.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ControllerEvent {
    /// `isr_member_removed`.
    MemberRemoved {
        /// The replica's position.
        replica: usize,
        /// Why.
        reason: ShrinkReason,
        /// Ticks since it was last caught up (0 unless `Lag`).
        lag_ticks: u64,
        /// Its log end.
        log_end: u64,
        /// The leader's log end (after an election: the new HW).
        leader_log_end: u64,
        /// The ISR after the removal, in assignment order.
        isr: Vec<usize>,
    },
    /// `isr_member_added`.
    MemberAdded {
        /// The replica's position.
        replica: usize,
        /// Its log end (the leader's).
        log_end: u64,
        /// The epoch it caught up in.
        leader_epoch: u64,
        /// The ISR after the addition, in assignment order.
        isr: Vec<usize>,
    },
    /// `isr_high_watermark_advanced`, over the ISR as it stands after the
    /// refresh that advanced it ([`Controller::isr`]).
    HighWatermarkAdvanced {
        /// The old high watermark.
        from: u64,
        /// The new one.
        to: u64,
    },
}

impl Controller {
    /// The per-tick work, O(replicas), when the leader is available: each
    /// follower's ISR membership ([`Controller::maybe_shrink_isr`] /
    /// [`Controller::maybe_expand_isr`], in position order), then
    /// [`Controller::maybe_increment_leader_hw`], then the lease
    /// ([`Controller::maybe_renew_lease`]). Every change is pushed to `out`
    /// in the order made. Returns false, deciding nothing, when the leader
    /// is not available; the caller then applies no high watermark.
    pub fn refresh(
        &mut self,
        now: Tick,
        facts: &[ReplicaFacts],
        out: &mut Vec<ControllerEvent>,
    ) -> bool {
        if !self.available(facts) {
            return false;
        }
        let leader_end = facts[self.leader].log_end_offset;
        for j in 0..facts.len() {
            if j == self.leader {
                continue;
            }
            let caught_up = self.is_caught_up(&facts[j], leader_end);
            if caught_up {
                self.last_caught_up[j] = now;
            }
            if self.in_isr[j] {
                self.maybe_shrink_isr(now, j, caught_up, facts, out);
            } else if caught_up {
                self.maybe_expand_isr(j, facts, out);
            }
        }
        self.maybe_increment_leader_hw(facts, out);
        // Not traced: the lease shows in the probe and in read guards.
        self.maybe_renew_lease(now, facts);
        true
    }

    /// A follower is caught up only when it is alive, not slow, linked to
    /// the leader, and confirmed to hold the current leader's entries in
    /// the current epoch up to the leader's log end — never because its log
    /// end merely equals the leader's.
    fn is_caught_up(&self, follower: &ReplicaFacts, leader_end: u64) -> bool {
        if crate::planted::on(self.planted, crate::planted::REJOIN_ON_EQUAL_LEO)
            && crate::planted::caught_up_on_equal_leo(follower, leader_end)
        {
            return true;
        }
        self.decide.caught_up(follower, leader_end)
    }

    /// Kafka's `maybeShrinkIsr`: ISR member `j`, not caught up for
    /// `replica_lag_timeout` ticks, leaves the ISR (even below
    /// `min.insync.replicas`: that only refuses later `AllIsr` writes).
    pub fn maybe_shrink_isr(
        &mut self,
        now: Tick,
        j: usize,
        caught_up: bool,
        facts: &[ReplicaFacts],
        out: &mut Vec<ControllerEvent>,
    ) {
        let lag = now.saturating_sub(self.last_caught_up[j]);
        if caught_up || !self.decide.lagging(lag, self.replica_lag_timeout) || !self.in_isr[j] {
            return;
        }
        self.in_isr[j] = false;
        out.push(ControllerEvent::MemberRemoved {
            replica: j,
            reason: ShrinkReason::Lag,
            lag_ticks: lag,
            log_end: facts[j].log_end_offset,
            leader_log_end: facts[self.leader].log_end_offset,
            isr: self.isr(),
        });
    }

    /// Kafka's `maybeExpandIsr`: caught-up follower `j` rejoins the ISR.
    pub fn maybe_expand_isr(
        &mut self,
        j: usize,
        facts: &[ReplicaFacts],
        out: &mut Vec<ControllerEvent>,
    ) {
        if self.in_isr[j] {
            return;
        }
        self.in_isr[j] = true;
        out.push(ControllerEvent::MemberAdded {
            replica: j,
            log_end: facts[j].log_end_offset,
            leader_epoch: self.leader_epoch,
            isr: self.isr(),
        });
    }

    /// Kafka's `maybeIncrementLeaderHW`: HW = max(HW, the minimum confirmed
    /// end over alive ISR members). It never moves back.
    pub fn maybe_increment_leader_hw(
        &mut self,
        facts: &[ReplicaFacts],
        out: &mut Vec<ControllerEvent>,
    ) {
        // The live members' confirmed ends, on the stack for any group
        // the settings allow (this runs every tick).
        let mut stack = [0u64; 16];
        let heap: Vec<u64>;
        let members = (0..facts.len())
            .filter(|&j| self.in_isr[j] && facts[j].alive)
            .map(|j| self.confirmed_end(j, facts));
        let ends: &[u64] = if facts.len() <= stack.len() {
            let mut n = 0;
            for end in members {
                stack[n] = end;
                n += 1;
            }
            &stack[..n]
        } else {
            heap = members.collect();
            &heap
        };
        let leader_end = facts[self.leader].log_end_offset;
        let mut candidate = if ends.is_empty() {
            0
        } else {
            self.decide.high_watermark(leader_end, ends)
        };
        if crate::planted::on(self.planted, crate::planted::HW_FROM_LEADER) {
            candidate = leader_end;
        }
        if candidate > self.high_watermark {
            let from = self.high_watermark;
            self.high_watermark = candidate;
            out.push(ControllerEvent::HighWatermarkAdvanced {
                from,
                to: candidate,
            });
        }
    }

    /// The lease is renewed for `lease_duration` ticks while at least
    /// `min.insync.replicas` ISR members are reachable from the leader
    /// (alive, and for followers not slow and linked). A teaching device,
    /// not a Kafka API. Returns true when renewed.
    pub fn maybe_renew_lease(&mut self, now: Tick, facts: &[ReplicaFacts]) -> bool {
        let reachable = facts
            .iter()
            .enumerate()
            .filter(|(j, f)| {
                self.in_isr[*j] && f.alive && (*j == self.leader || (!f.slow && f.linked_to_leader))
            })
            .count();
        let renewed = self
            .decide
            .renews_lease(reachable, self.min_insync_replicas);
        if renewed {
            self.lease_expiry = now.saturating_add(self.lease_duration);
        }
        renewed
    }

    /// The high watermark replica `j` may apply after a refresh: HW, but
    /// never past what it is confirmed to hold; `None` while it is down.
    #[must_use]
    pub fn replica_high_watermark(&self, j: usize, facts: &[ReplicaFacts]) -> Option<u64> {
        facts[j]
            .alive
            .then(|| self.high_watermark.min(self.confirmed_end(j, facts)))
    }

    /// True when every ISR member is confirmed to hold `offset` in the
    /// current epoch (what an `AllIsr` write waits for, besides HW).
    #[must_use]
    pub fn isr_holds(&self, offset: u64, facts: &[ReplicaFacts]) -> bool {
        (0..facts.len())
            .filter(|&j| self.in_isr[j])
            .all(|j| self.confirmed_end(j, facts) >= offset)
    }

    /// Replica `j` crashed: it leaves the ISR. `facts` are those before its
    /// log lost anything.
    pub fn on_replica_crashed(
        &mut self,
        j: usize,
        facts: &[ReplicaFacts],
    ) -> Option<ControllerEvent> {
        if !self.in_isr[j] {
            return None;
        }
        self.in_isr[j] = false;
        Some(ControllerEvent::MemberRemoved {
            replica: j,
            reason: ShrinkReason::Crashed,
            lag_ticks: 0,
            log_end: facts[j].log_end_offset,
            leader_log_end: facts[self.leader].log_end_offset,
            isr: self.isr(),
        })
    }
}
