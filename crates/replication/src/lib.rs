//! # replication — the shared vocabulary of MiniDist
//!
//! Four protocol families (a Redis-shaped asynchronous primary,
//! PostgreSQL-shaped WAL shipping, a Kafka-shaped ISR, textbook Raft)
//! implement one [`ReplicationGroup`] trait so the same experiment can be run
//! against each and the answers compared. This crate holds only the words
//! they share: node ids (from `sim-core`), [`AckLevel`] and [`ReadLevel`],
//! [`WriteResult`] and [`ReadResult`], [`GroupError`], a node's key/value
//! state ([`KvState`]), and the protocol-neutral [`GroupSummary`].
//!
//! ## What it mirrors, simplifies, omits
//!
//! - **Mirrors** the client-facing knobs of real systems: Redis `WAIT`-less
//!   writes, PostgreSQL `synchronous_commit`, Kafka `acks`, Raft's commit.
//! - **Simplifies** them to four shared level names whose meaning each
//!   protocol defines (and whose absence it reports as *unsupported*).
//! - **Omits** sessions, retries, idempotence and client-side routing.
//!
//! The key design rule: a protocol never silently serves a weaker level.
//! *Unsupported* ([`GroupError::UnsupportedAck`],
//! [`GroupError::UnsupportedRead`]) means no such guarantee exists;
//! *blocked* ([`GroupError::ReadBlocked`]) means it exists and the current
//! state fails it.
//!
//! A runnable example implementing the trait for a one-node store:
//! `cargo run -p sim-replication --example single_node`.

mod cluster;
mod error;
mod group;
mod held;
mod inflight;
mod kv;
mod level;
mod message;
mod op;
mod outcome;
mod output;
mod plugged;
mod recorder;
mod registration;
mod state;
mod steady;
mod summary;
mod validate;

pub use bytes::Bytes;
pub use cluster::{Cluster, Delivery};
pub use error::GroupError;
pub use group::{
    AWAIT_BOUND, Crash, ReplicationGroup, Steer, fingerprint_without_messages, hash_whole_state,
    ordered_fingerprint, state_fingerprint, timeless_fingerprint,
};
pub use held::{ArmedTimer, HeldMessage, NodeFaults, StateHasher};
pub use inflight::ClientOps;
pub use kv::KvState;
pub use level::{AckLevel, ReadLevel};
pub use message::MessagePart;
#[doc(hidden)]
pub use message::capacity as message_capacity;
pub use op::{ClientOp, Completion, OpId, Outcome, OutcomeStatus};
pub use outcome::{ReadResult, WriteResult};
pub use output::Output;
pub use plugged::{Named, Plugged};
pub use recorder::StateRecorder;
pub use registration::{
    ExplorerRow, Knob, Levels, MAX_NODES, PlantedBug, Protocol, Registration, Registry,
    ScenarioGroup, SettingDoc, SettingKind, Settings, check_planted, planted_name,
};
pub use sim_core::{NetConfig, NodeId, Rng, Tick, Trace, Transport};
pub use state::{NodeState, StateChange, StateField, StateLog, StateRow};
pub use steady::SteadyState;
pub use summary::{GroupSummary, NodeSummary};
pub use validate::validate_node_ids;

/// The README's example, compiled and run as a doctest so it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
