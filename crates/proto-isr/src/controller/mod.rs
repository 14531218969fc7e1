//! The in-process controller as a pure decision maker: [`Controller`].
//!
//! It owns the partition's metadata — leader, leader epoch, controller
//! epoch, ISR, high watermark, the epoch of the last unclean election, the
//! lease and each follower's last caught-up tick — and decides from the
//! [`ReplicaFacts`] its caller gathers (the harness's fault state, each
//! replica's log end and confirmed end). It never sees a node, the network
//! or the trace: each call changes only the controller's own state and
//! returns what was decided ([`ControllerEvent`]s, an [`Election`], a
//! [`RestartDecision`], a [`ReadRefusal`], …), which the group carries out
//! on the nodes and records.
//!
//! The functions are named after the Kafka code that makes the same
//! decision: [`Controller::maybe_shrink_isr`] / [`Controller::maybe_expand_isr`]
//! (`Partition.maybeShrinkIsr` / `maybeExpandIsr`),
//! [`Controller::maybe_increment_leader_hw`] (`Partition.maybeIncrementLeaderHW`),
//! and the clean and unclean elections of `PartitionStateMachine`.
//!
//! Mirrors Kafka's ISR rules (lag ⇒ out, caught up in the current epoch ⇒
//! in), HW as the minimum confirmed end over alive ISR members, the
//! `unclean.leader.election.enable` choice. Simplifies: it is an oracle
//! that never fails, reaches every live, non-isolated replica instantly,
//! and computes ISR changes itself from the facts (in Kafka the leader
//! proposes them through AlterPartition). Omits KRaft, reassignment, ELR.

mod election;
mod facts;
mod membership;
mod reads;
mod state;
#[cfg(test)]
mod tests;

pub use election::{Election, ElectionReason, ElectionRefusal, RestartDecision, UncleanElection};
pub use facts::ReplicaFacts;
pub use membership::{ControllerEvent, ShrinkReason};
pub use reads::ReadRefusal;
pub use state::Controller;
