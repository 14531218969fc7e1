//! # proto-async — a Redis-shaped asynchronous primary/replica
//!
//! One primary accepts writes and acknowledges them as soon as it has
//! applied them to its own map; it then streams every write, as an entry
//! `{generation, replication id, offset, key, value}`, to each replica.
//! Nobody waits for a replica, so an acknowledged write can be lost when the
//! primary fails before the stream arrives — the point of experiment 2.
//!
//! ## Mechanism
//!
//! - **History.** The primary's history is named by a replication id
//!   (`repl-<generation>`) and positioned by a monotonically increasing
//!   offset. The last `backlog_size` entries stay in a bounded backlog.
//! - **Streaming.** Each write goes into the primary's output buffer for
//!   every alive replica; at the next tick each buffer goes on the wire as
//!   one `replication_stream` message carrying only the new entries. A
//!   replica applies entries only if they come from the primary it follows,
//!   with the current generation and its own replication id, each at
//!   exactly its offset + 1. Anything else is rejected before touching state
//!   (`non_current_primary`, `stale_generation`, `stale_replication_id`) or,
//!   for a gap or a foreign id, triggers resynchronisation. A buffer whose
//!   link is cut is kept (as a start offset) and delivered from the backlog
//!   when the link heals — if the backlog still holds it.
//! - **Resynchronisation** (`PSYNC`). *Partial* when the replica holds the
//!   primary's replication id and its next offset is still in the backlog
//!   (or it is level); otherwise *full*: one message replacing its whole
//!   map, id and offset. The probe shows the most recent mode
//!   ([`CatchUpMode`]).
//! - **Promotion** ([`AsyncPrimaryGroup::promote`]) is manual: generation +
//!   1, a new replication id, the backlog cleared, every other node
//!   reconfigured to follow the new primary and resynchronised. An old
//!   primary that is cut off keeps accepting writes (a dirty write) until it
//!   is healed, when its buffered stream is fenced and it is demoted.
//! - **`WAIT numreplicas timeout`** ([`AsyncConfig::with_wait`]): a
//!   `Leader` write is followed by `WAIT`: it is *done* once `numreplicas`
//!   replicas acknowledged its offset (`REPLCONF ACK`, sent by a replica
//!   after it applies stream or sync data), and *unknown* when the timeout
//!   passes first or its primary crashes or is demoted — it stays applied
//!   at the primary (`async_wait_started`, `async_wait_returned` with
//!   `result` `reached` / `timeout` / `primary_crashed` / `demoted`).
//!   [`AsyncPrimaryGroup::wait`] is the blocking command on its own,
//!   answering the count. `WAIT` does not make a write durable: promoting a
//!   replica that had not acknowledged it loses it.
//! - **`min-replicas-to-write` / `min-replicas-max-lag`**
//!   ([`AsyncConfig::with_min_replicas`]): a primary that has heard from
//!   fewer replicas than required within max-lag ticks refuses a write
//!   before applying it (*failed*, `NOREPLICAS`, `async_write_refused` with
//!   `reason = "min_replicas_to_write"`). A primary hears from a replica
//!   through its `PSYNC`, its `REPLCONF ACK`, and a modelled per-tick
//!   heartbeat from every alive replica that follows it and can reach it.
//! - **Faults.** `crash` keeps the data set; `crash(lose_unfsynced)` rolls
//!   back to the last `fsync` and trims the backlog. Restart and heal make
//!   replicas resynchronise.
//!
//! ## Shape
//!
//! Each [`node::AsyncNode`] is a pure state machine, as a Raft node is in
//! etcd-io/raft: `step` (a message arrived), `tick` (the tick ends: a
//! primary streams its output buffers), `write`, and the hooks the group
//! calls for faults and the sentinel's orders — all returning
//! [`node::Output`]s (messages to send, [`node::AsyncEvent`]s to record)
//! and never touching the network, the clock or the trace. The primary's
//! handling lives apart from the replica's. A small pure sentinel decides
//! whom to promote, who is reconfigured or demoted and when a demotion
//! waits; [`AsyncPrimaryGroup`] gathers the facts, carries the decisions
//! out, delivers messages and records the trace. Faults (crash, restart,
//! isolate, heal, one-way cuts) are the shared harness's
//! ([`replication::Cluster`]), followed by what they mean for async. The
//! [`node`] module says how a model checker drives nodes without the
//! group.
//!
//! ## Trace events
//!
//! Besides SimNet's `message_sent` / `message_delivered` /
//! `message_dropped`, the client's `client_op_submitted` /
//! `client_op_completed` and the harness's neutral fault events
//! (`node_crashed`, `node_restarted`, `node_isolated`, `node_healed`,
//! `link_cut`, `link_restored`): `async_group_started`,
//! `async_write_applied`, `async_stream_sent`, `async_stream_buffered`,
//! `async_stream_flushed`, `async_stream_buffer_discarded`,
//! `async_stream_applied`, `async_stream_duplicate`, `async_gap_detected`,
//! `async_message_rejected`, `async_resync_requested`,
//! `async_resync_served`, `async_psync_refused`,
//! `async_partial_sync_applied`, `async_full_sync_applied`,
//! `async_promoted`, `async_replica_reconfigured`, `async_demoted`,
//! `async_demotion_deferred`, `async_history_reset`,
//! `async_power_loss_restored` (after a `node_crashed` with
//! `lose_unfsynced`: the offset before and the fsynced offset restored),
//! `async_fsync`, `async_read_served`, `async_ack_received`,
//! `async_wait_started`, `async_wait_returned`, `async_write_refused`.
//!
//! ## Mirrors / simplifies / omits (Redis)
//!
//! - **Mirrors:** asynchronous replication; `WAIT numreplicas timeout`
//!   counting replicas whose `REPLCONF ACK` reached the write's offset, and
//!   still not durable; `min-replicas-to-write` with
//!   `min-replicas-max-lag` refusing writes (`-NOREPLICAS`) at a primary cut
//!   off from its replicas; the
//!   replication id + offset pair and `repl-backlog`; `PSYNC` answered with
//!   `+CONTINUE` (partial) or `+FULLRESYNC` (full); Sentinel-style manual
//!   failover that changes the replication id so replicas full-sync; the
//!   split-brain window in which a partitioned old master still acknowledges
//!   writes that are discarded when it rejoins as a replica; a master's
//!   replica output buffer that is delivered late when a short partition
//!   heals.
//! - **Simplifies:** the backlog counts entries, not bytes; the sentinel is
//!   an in-process operator that never fails and reaches every node; the
//!   generation is an explicit number carried by every message (Redis relies
//!   on the replication id and the sentinel's config epoch); the primary
//!   streams to every other alive node; a primary that lost writes to a
//!   power loss restarts with a new history (generation + 1) so no replica
//!   can splice the new writes onto entries the primary forgot; `WAIT` is a
//!   group setting applied after every `Leader` write (or the blocking
//!   [`AsyncPrimaryGroup::wait`]), not a command interleaved by clients;
//!   replicas send `REPLCONF ACK` only after applying something, and only
//!   when `wait` or `min_replicas_to_write` is set (so default traces carry
//!   no acknowledgements); the once-a-second heartbeat ACK is modelled per
//!   tick without a message; lag is counted in ticks; a node learns which
//!   peers are up and which links carry messages from the harness (a Redis
//!   node from its connections).
//! - **Omits:** PSYNC2's secondary replication id (a promoted replica here
//!   always forces full syncs), `WAITAOF`, RDB/AOF file
//!   formats, replica-of-replica chains, timeouts and heartbeats, and
//!   client redirection.
//!
//! ## Operations in flight
//!
//! [`submit`](ReplicationGroup::submit) starts a [`ClientOp`] and returns
//! its [`OpId`]; [`take_completions`](ReplicationGroup::take_completions) /
//! [`take_completion`](ReplicationGroup::take_completion) hand out the
//! [`Completion`]s. In async **every operation completes in the `submit`
//! that starts it** — its completion tick is its submit tick — because a
//! Redis primary answers a write once it has applied it and a node answers
//! a read from its own map; nobody waits for a replica — **except** a
//! `Leader` write in a group configured with `wait`, which stays pending
//! until its `WAIT` returns. Without `wait`, operations never overlap one
//! another; what overlaps is replication:
//! a write is *done* while its stream is still on the wire, and a `Local`
//! read at a replica sees the old value until the stream arrives.
//!
//! - *done*: a write applied by a node that believes it is primary (with
//!   [`ClientOp::at`], also an old primary cut off in a minority: a dirty
//!   write that is discarded when it rejoins); a read served with the
//!   node's current value.
//! - *failed*: only a write refused by `min-replicas-to-write` (refused
//!   before it is applied). *unknown*: only a write whose `WAIT` timed out
//!   or whose primary crashed or was demoted while it waited (applied at
//!   that primary). Everything else async refuses, it refuses up
//!   front as an `Err` from `submit` (no id, no trace event, no state
//!   change): `Quorum` / `AllIsr` and `Linearizable` are unsupported, a
//!   named node unknown or down, the primary down, a write at a replica
//!   (`READONLY`). *Done* is not *durable*: an acknowledged write is lost
//!   when the primary fails before streaming it (experiment 2), and with
//!   `WAIT` when a replica that had not acknowledged it is promoted.
//!
//! The trace records `client_op_submitted` and `client_op_completed` around
//! the protocol's own events, so a client history can be rebuilt from it.
//! The blocking [`client_write`](ReplicationGroup::client_write),
//! [`client_read`](ReplicationGroup::client_read) and
//! [`AsyncPrimaryGroup::write_at`] go through `submit` too.
//!
//! ## Example
//!
//! ```
//! use proto_async::prelude::*;
//!
//! let mut group = AsyncPrimaryGroup::new(AsyncConfig::default()).unwrap();
//! let replica = NodeId::new("replica-1");
//!
//! // A write is done the moment the primary applies it: no tick passes.
//! let write = group
//!     .submit(ClientOp::write("k", "v", AckLevel::Leader))
//!     .unwrap();
//! let acked = group.take_completion(write).unwrap();
//! assert_eq!(acked.outcome.status(), OutcomeStatus::Done);
//! assert_eq!(acked.completed, acked.submitted);
//!
//! // Acknowledged, yet the replica does not have it yet…
//! let read = group
//!     .client_read(b"k", ReadLevel::Local, Some(&replica))
//!     .unwrap();
//! assert_eq!(read.value, None);
//! // …until the stream is delivered.
//! group.run_until_idle(10).unwrap();
//! let read = group
//!     .client_read(b"k", ReadLevel::Local, Some(&replica))
//!     .unwrap();
//! assert_eq!(read.value, Some(Bytes::from("v")));
//!
//! // A replica refuses writes (Redis: READONLY) before anything happens.
//! let refused = group.submit(ClientOp::write("k", "w", AckLevel::Leader).at(&replica));
//! assert!(matches!(refused, Err(GroupError::NotPermitted { .. })));
//! assert_eq!(group.probe().leader, Some(NodeId::new("primary")));
//! ```
//!
//! A longer, runnable example: `cargo run -p proto-async --example async_failover`.

mod backlog;
mod client;
mod config;
mod events;
mod group;
#[cfg(test)]
mod group_tests;
mod inflight;
mod invariants;
mod message;
pub mod node;
mod output;
pub mod planted;
mod probe;
mod registration;
mod replication_impl;
mod role;
mod sentinel;
mod state_line;

pub use config::{AsyncConfig, WaitSetting};
pub use group::AsyncPrimaryGroup;
pub use probe::{AsyncProbe, NodeProbe};
pub use registration::AsyncRegistration;
pub use role::{CatchUpMode, Role};

// The shared vocabulary, so depending on this crate alone is enough.
pub use replication::{
    AckLevel, Bytes, ClientOp, Completion, GroupError, GroupSummary, NodeId, NodeSummary, OpId,
    Outcome, OutcomeStatus, ReadLevel, ReadResult, ReplicationGroup, Tick, Trace, WriteResult,
};
pub use sim_core::Value;

/// The names most programs need: `use proto_async::prelude::*;`.
pub mod prelude {
    pub use crate::{
        AckLevel, AsyncConfig, AsyncPrimaryGroup, Bytes, CatchUpMode, ClientOp, Completion,
        GroupError, NodeId, OpId, Outcome, OutcomeStatus, ReadLevel, ReplicationGroup, Role,
    };
}

/// The README's example, compiled and run as a doctest so it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
