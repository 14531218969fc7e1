//! Your ISR rules: the chapter's decisions, one function each.
//!
//! The group, its messages, the controller's bookkeeping, the trace and
//! every tool of the laboratory are given (they are `proto-isr`'s); you
//! write the rules the chapter teaches, stage by stage. Each function
//! says what it must answer and which section of chapter 10 explains it.
//! Grade a stage with `cargo run --release -- lab grade --stage N` (or
//! `cargo xtask lab grade DIR --stage N` from the laboratory's checkout);
//! stages after the one graded run the laboratory's own rules.
//!
//! Remove a `todo!()` only when you write the function: the grader names
//! every `todo!()` it meets.

#![allow(unused_variables)] // Until every function is written.

use proto_isr::controller::ReplicaFacts;
use proto_isr::decisions::IsrDecisions;
use replication::{AckLevel, ReadLevel, Tick};

/// Your implementation of the chapter's rules.
pub struct Student;

impl IsrDecisions for Student {
    fn name(&self) -> &'static str {
        "student"
    }

    // Stage 1: the log, and LEADER vs ALL_ISR acknowledgement (§1–§2).

    /// Whether a write at `offset` (1-based) is acknowledged to its client
    /// at `level` now. Asked once right after the leader appends it and,
    /// until it answers yes, after every tick. `high_watermark` is the
    /// partition's HW; `isr_holds` is true when every ISR member is
    /// confirmed to hold `offset` in the current leader epoch (false at
    /// append). `LEADER` answers at append; `ALL_ISR` once the whole
    /// current ISR holds the entry *and* HW covers it.
    fn acknowledged(
        &self,
        level: AckLevel,
        offset: u64,
        high_watermark: u64,
        isr_holds: bool,
    ) -> bool {
        todo!("stage 1: acknowledged")
    }

    // Stage 2: the high watermark, and committed vs local data (§2, §6).

    /// The high watermark the partition may advance to, from the leader's
    /// log end and the confirmed log ends of the alive ISR members (the
    /// leader's own among them). It never moves back: a lower answer
    /// changes nothing.
    fn high_watermark(&self, leader_log_end: u64, isr_confirmed_ends: &[u64]) -> u64 {
        todo!("stage 2: high_watermark")
    }

    /// Whether a read at `level` answers from the committed data (what HW
    /// covers) rather than from the node's whole log. `LOCAL` and
    /// `LEADER` reads show the full local data; a `LINEARIZABLE` read must
    /// not show what may still be lost.
    fn reads_committed(&self, level: ReadLevel) -> bool {
        todo!("stage 2: reads_committed")
    }

    // Stage 3: ISR shrink, rejoin, min.insync.replicas (§3–§4).

    /// Whether `follower` is caught up with a leader whose log ends at
    /// `leader_log_end`, and so may stay in or rejoin the ISR. Look at
    /// every field of [`ReplicaFacts`]: a follower that is down, slow or
    /// cut off is not in sync, and an equal log end is not proof — only
    /// `confirmed_log_end` (its log confirmed against the current leader
    /// epoch) is.
    fn caught_up(&self, follower: &ReplicaFacts, leader_log_end: u64) -> bool {
        todo!("stage 3: caught_up")
    }

    /// Whether an ISR member that was last caught up `lag_ticks` ago
    /// leaves the ISR under `replica.lag.time.max` = `replica_lag_timeout`.
    fn lagging(&self, lag_ticks: u64, replica_lag_timeout: u64) -> bool {
        todo!("stage 3: lagging")
    }

    /// Whether an `ALL_ISR` write is admitted (and, while it waits, kept)
    /// with an ISR of `isr_size` members under `min.insync.replicas` =
    /// `min_insync`. It does not stop the ISR from shrinking.
    fn admits(&self, isr_size: usize, min_insync: usize) -> bool {
        todo!("stage 3: admits")
    }

    // Stage 4: controller election, fencing, truncation (§5).

    /// Whether a live replica may be elected leader: `in_isr` is its ISR
    /// membership; `unclean_permitted` is true when
    /// `unclean.leader.election.enable` is on and no ISR member is alive.
    fn electable(&self, in_isr: bool, unclean_permitted: bool) -> bool {
        todo!("stage 4: electable")
    }

    /// Whether a follower that knows leader epoch `known_epoch` takes a
    /// leader's packet stamped with leader epoch `packet_epoch`, sent by a
    /// replica that is (`from_known_leader`) or is not the leader it knows.
    fn accepts_packet(&self, packet_epoch: u64, known_epoch: u64, from_known_leader: bool) -> bool {
        todo!("stage 4: accepts_packet")
    }

    /// Whether a packet whose entries follow offset `prev_offset` of epoch
    /// `prev_epoch` continues a follower log that ends at `log_end` and
    /// holds epoch `epoch_at_prev` at `prev_offset` (0 when it holds
    /// nothing there). When it does not, the follower appends nothing and
    /// the leader resynchronises it down to their common clean prefix.
    fn continues_log(
        &self,
        prev_offset: u64,
        prev_epoch: u64,
        log_end: u64,
        epoch_at_prev: u64,
    ) -> bool {
        todo!("stage 4: continues_log")
    }

    // Stage 5: lease reads (§6, §8).

    /// Whether the leader's lease is renewed now, with `reachable` ISR
    /// members (itself included) reachable from it.
    fn renews_lease(&self, reachable: usize, min_insync: usize) -> bool {
        todo!("stage 5: renews_lease")
    }

    /// Whether a lease that expires at tick `expiry` still lets the leader
    /// answer a read at tick `now` without asking anyone.
    fn lease_live(&self, now: Tick, expiry: Tick) -> bool {
        todo!("stage 5: lease_live")
    }
}
