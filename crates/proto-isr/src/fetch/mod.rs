//! # Fetch mode: Kafka's own data plane, and the Kafka ladder
//!
//! The chapter mode ([`IsrGroup`](crate::IsrGroup)) reproduces the source
//! chapter: an omniscient controller pushes entries, computes HW from every
//! log end and truncates a new leader itself. Real Kafka does none of that,
//! and its historical data-loss bugs live exactly in the parts the chapter
//! leaves out. [`FetchGroup`] runs Kafka's real mechanism, with the
//! truncation rule of one [`Rung`] of the ladder as a setting, so that every
//! rung runs on the same seeded schedules.
//!
//! ## The mechanism
//!
//! - **Fetch-driven replication.** A follower sends `Fetch(fetch offset,
//!   last fetched epoch, current leader epoch)`; the leader answers with up
//!   to [`MAX_FETCH_RECORDS`](replica::MAX_FETCH_RECORDS) records and its
//!   HW, and the follower sends its next fetch at once. The fetch offset is
//!   how the leader learns a follower's log end.
//! - **HW.** The leader's HW is the smallest log end over the ISR once each
//!   member has fetched from it (KIP-320: in its epoch; ELR: only while the
//!   ISR is at least `min.insync.replicas`); a follower's HW is
//!   `min(leader HW, its log end)` — it learns HW one round later.
//! - **ISR.** A follower is caught up when it fetches at or past the log
//!   end the leader had at its previous fetch (Kafka's `lastCaughtUpTimeMs`
//!   rule); one not caught up for `replica_lag_timeout` ticks is removed, a
//!   caught-up follower at the leader's log end rejoins (KIP-320: in the
//!   leader's epoch, past its start). The leader proposes ISR changes to the
//!   controller (AlterPartition, fenced by leader and partition epoch).
//! - **Acks.** `acks=1` is acknowledged on append; `acks=all` is refused
//!   before append below min.insync, acknowledged once HW covers it with
//!   the ISR at min.insync, *unknown* when its leader loses the epoch or the
//!   ack timeout passes.
//! - **Durability.** `flush.messages` ([`IsrConfig::flush_messages`](crate::IsrConfig::flush_messages)):
//!   by default nothing is flushed but on an explicit `fsync`; a power loss
//!   (`crash(node, true)`) loses the unflushed tail, and marks the replica
//!   unclean until it has caught up.
//! - **The controller** is in-process and never fails (as in the chapter
//!   mode). It replaces a crashed leader at once and an isolated one at the
//!   next tick, choosing the first live ISR member (then, with ELR, the
//!   first eligible replica; then, with `unclean.leader.election.enable`,
//!   any live replica); with nobody to choose the partition is offline
//!   until an ISR member returns. It tells every broker it can reach the
//!   leader and epoch (LeaderAndIsr).
//! - **The truncation rule** is the [`Rung`]; see its table.
//!
//! ## Against real Kafka
//!
//! - **Mirrors:** fetch offsets as the follower's position; HW one round
//!   late on followers; `lastCaughtUpTimeMs`; AlterPartition fenced by
//!   epochs; the leader-epoch cache and `OffsetsForLeaderEpoch` (with and
//!   without KIP-279's epoch in the answer); `FENCED_LEADER_EPOCH` /
//!   `UNKNOWN_LEADER_EPOCH`; ELR and unclean-shutdown registration;
//!   `flush.messages`.
//! - **Simplifies:** one partition; records counted, not bytes; fetches are
//!   answered at once (no long poll); the controller is an oracle that never
//!   fails; a crash is noticed at once, an isolation one tick later.
//! - **Omits:** KIP-595's diverging-epoch field in fetch answers (a later
//!   fix), fetch sessions, segments and retention, consumers (reads are the
//!   laboratory's levels), reassignment, producer idempotence.
//!
//! ## Example
//!
//! ```
//! use proto_isr::fetch::{FetchGroup, Rung};
//! use proto_isr::{AckLevel, Bytes, IsrConfig, IsrMode, ReadLevel, ReplicationGroup};
//!
//! let config = IsrConfig::default().with_mode(IsrMode::Fetch(Rung::Kip320));
//! let mut g = FetchGroup::new(config)?;
//! let w = g.client_write(Bytes::from("k"), Bytes::from("v"), AckLevel::AllIsr)?;
//! assert!(w.accepted);
//! let r = g.client_read(b"k", ReadLevel::Linearizable, None)?;
//! assert_eq!(r.value, Some(Bytes::from("v")));
//! assert!(g.check_invariants().is_ok());
//! # Ok::<(), proto_isr::GroupError>(())
//! ```
//!
//! Runnable: `cargo run -p proto-isr --example kafka_ladder` (KIP-101's
//! first scenario on every rung); the guide's page is
//! `docs/kafka-ladder.md`.

mod client;
mod controller;
mod epoch_cache;
mod group;
mod inspect;
mod invariants;
pub mod replica;
mod replication_impl;
mod rung;
pub mod wire;

pub use controller::{AlterRefusal, ElectionKind, PartitionController};
pub use epoch_cache::EpochCache;
pub use group::FetchGroup;
pub use rung::Rung;
