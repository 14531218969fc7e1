//! The chapter's decisions, as one trait: every rule the ISR chapter
//! teaches — when a write is acknowledged, what the high watermark is,
//! who is in sync, who may lead, which packets are fenced, when a lease
//! read is safe — answered by one small pure function each, and nothing
//! else. The group, the messages, the controller's bookkeeping and the
//! trace call them; [`Reference`] is this crate's own answer to each (the
//! code the group runs by default).
//!
//! The ISR lab swaps in a student's implementation
//! ([`IsrConfig::with_decisions`](crate::IsrConfig::with_decisions)): the
//! same group, the same explorer, checker and scenario files, judging the
//! student's rules. Only the chapter's data plane asks these questions;
//! the Kafka ladder's fetch mode ([`crate::IsrMode::Fetch`]) keeps its own
//! rules.
//!
//! ```
//! use proto_isr::decisions::{IsrDecisions, Reference};
//! use replication::AckLevel;
//!
//! // LEADER answers at append; ALL_ISR waits until HW covers the offset.
//! assert!(Reference.acknowledged(AckLevel::Leader, 5, 4, false));
//! assert!(!Reference.acknowledged(AckLevel::AllIsr, 5, 4, false));
//! assert!(Reference.acknowledged(AckLevel::AllIsr, 5, 5, true));
//! // HW is the minimum confirmed log end over the live ISR members.
//! assert_eq!(Reference.high_watermark(9, &[9, 7, 8]), 7);
//! ```

use replication::{AckLevel, ReadLevel, Tick};

use crate::controller::ReplicaFacts;

/// The rules of the ISR chapter, one function each, grouped by the lab's
/// stages (`docs/labs/isr.md`). Each is pure: it sees only its arguments.
pub trait IsrDecisions: Sync + 'static {
    /// A short name for traces and errors (`reference`, `student`).
    fn name(&self) -> &'static str;

    // Stage 1: the log and acknowledgement.

    /// Whether a write at `offset` (1-based) is acknowledged to its client
    /// at `level` now. Asked once right after the leader appends it and,
    /// until it answers yes, after every tick; `high_watermark` is the
    /// partition's HW and `isr_holds` is true when every ISR member is
    /// confirmed to hold `offset` in the current leader epoch (false at
    /// append). Chapter §2: `acks=1` answers at append, `acks=all` once
    /// the whole ISR has it and HW covers it.
    fn acknowledged(
        &self,
        level: AckLevel,
        offset: u64,
        high_watermark: u64,
        isr_holds: bool,
    ) -> bool;

    // Stage 2: the high watermark and reads.

    /// The high watermark the partition may advance to (it never moves
    /// back: a lower answer changes nothing): from the leader's log end and
    /// the confirmed log ends of the live ISR members, the leader's own
    /// included. Chapter §2.
    fn high_watermark(&self, leader_log_end: u64, isr_confirmed_ends: &[u64]) -> u64;

    /// Whether a read at `level` answers from the committed data (the
    /// entries HW covers) rather than from the whole log. Chapter §6: a
    /// `LOCAL` or `LEADER` read sees whatever the replica holds; a
    /// `LINEARIZABLE` read must not see what may yet be lost.
    fn reads_committed(&self, level: ReadLevel) -> bool;

    // Stage 3: ISR membership and admission.

    /// Whether follower `follower` is caught up with a leader whose log
    /// ends at `leader_log_end` — and so may stay in, or rejoin, the ISR.
    /// Chapter §3–§4: caught up means confirmed, in the current leader epoch,
    /// through the leader's log end — not a log end that merely matches.
    fn caught_up(&self, follower: &ReplicaFacts, leader_log_end: u64) -> bool;

    /// Whether an ISR member last caught up `lag_ticks` ago leaves the ISR
    /// under `replica.lag.time.max` = `replica_lag_timeout`. Chapter §3.
    fn lagging(&self, lag_ticks: u64, replica_lag_timeout: u64) -> bool;

    /// Whether an `ALL_ISR` write is admitted (and, while waiting, kept)
    /// with an ISR of `isr_size` members under `min.insync.replicas` =
    /// `min_insync`. Chapter §2–§3.
    fn admits(&self, isr_size: usize, min_insync: usize) -> bool;

    // Stage 4: elections, fencing, truncation.

    /// Whether a live replica may be elected leader: `in_isr` is its ISR
    /// membership, `unclean_permitted` true when unclean election is on
    /// and no ISR member is alive. Chapter §5.
    fn electable(&self, in_isr: bool, unclean_permitted: bool) -> bool;

    /// Whether a follower that knows leader epoch `known_epoch` takes a
    /// leader's packet stamped `packet_epoch`, sent by a replica that is
    /// (`from_known_leader`) or is not the leader it knows (fencing: the
    /// epoch first, then the source). Chapter §5.
    fn accepts_packet(&self, packet_epoch: u64, known_epoch: u64, from_known_leader: bool) -> bool;

    /// Whether a packet whose entries follow offset `prev_offset` of epoch
    /// `prev_epoch` continues a follower log that ends at `log_end` and
    /// holds epoch `epoch_at_prev` at `prev_offset` (0 when it holds
    /// nothing there). When it does not, the follower appends nothing and
    /// asks the leader to resynchronise it, which truncates it to the
    /// clean prefix it shares with the leader. Chapter §5.
    fn continues_log(
        &self,
        prev_offset: u64,
        prev_epoch: u64,
        log_end: u64,
        epoch_at_prev: u64,
    ) -> bool;

    // Stage 5: lease reads.

    /// Whether the leader's lease is renewed now, with `reachable` ISR
    /// members (itself included) reachable from it. Chapter §6.
    fn renews_lease(&self, reachable: usize, min_insync: usize) -> bool;

    /// Whether a lease that expires at tick `expiry` still lets the leader
    /// answer a read at tick `now` without asking anyone. Chapter §6.
    fn lease_live(&self, now: Tick, expiry: Tick) -> bool;
}

/// This crate's own rules: what the chapter teaches, and what the group
/// runs unless told otherwise.
#[derive(Debug, Clone, Copy, Default)]
pub struct Reference;

impl IsrDecisions for Reference {
    fn name(&self) -> &'static str {
        "reference"
    }

    fn acknowledged(
        &self,
        level: AckLevel,
        offset: u64,
        high_watermark: u64,
        isr_holds: bool,
    ) -> bool {
        match level {
            AckLevel::AllIsr => isr_holds && high_watermark >= offset,
            _ => true,
        }
    }

    fn high_watermark(&self, _leader_log_end: u64, isr_confirmed_ends: &[u64]) -> u64 {
        isr_confirmed_ends.iter().copied().min().unwrap_or(0)
    }

    fn reads_committed(&self, level: ReadLevel) -> bool {
        level == ReadLevel::Linearizable
    }

    fn caught_up(&self, follower: &ReplicaFacts, leader_log_end: u64) -> bool {
        follower.alive
            && !follower.slow
            && follower.linked_to_leader
            && follower
                .confirmed_log_end
                .is_some_and(|end| end >= leader_log_end)
    }

    fn lagging(&self, lag_ticks: u64, replica_lag_timeout: u64) -> bool {
        lag_ticks >= replica_lag_timeout
    }

    fn admits(&self, isr_size: usize, min_insync: usize) -> bool {
        isr_size >= min_insync
    }

    fn electable(&self, in_isr: bool, unclean_permitted: bool) -> bool {
        in_isr || unclean_permitted
    }

    fn accepts_packet(&self, packet_epoch: u64, known_epoch: u64, from_known_leader: bool) -> bool {
        packet_epoch == known_epoch && from_known_leader
    }

    fn continues_log(
        &self,
        prev_offset: u64,
        prev_epoch: u64,
        log_end: u64,
        epoch_at_prev: u64,
    ) -> bool {
        prev_offset <= log_end && epoch_at_prev == prev_epoch
    }

    fn renews_lease(&self, reachable: usize, min_insync: usize) -> bool {
        reachable >= min_insync
    }

    fn lease_live(&self, now: Tick, expiry: Tick) -> bool {
        now < expiry
    }
}

/// The decisions a group runs, as a configuration field: compared and
/// printed by name.
pub type Decisions = replication::Plugged<dyn IsrDecisions>;

/// This crate's own rules, as a configuration field.
pub const REFERENCE: Decisions = replication::Plugged(&Reference);

impl replication::Named for dyn IsrDecisions {
    fn name(&self) -> &'static str {
        IsrDecisions::name(self)
    }
}
