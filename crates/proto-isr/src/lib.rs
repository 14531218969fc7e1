//! # proto-isr — a Kafka-shaped partition: ISR, high watermark, controller epochs
//!
//! Protocol 3 of MiniDist. An in-process **controller** owns the leader, the
//! leader epoch, the controller epoch and the **in-sync replica set** (ISR).
//! The leader appends ahead; followers copy its ordered log; the **high
//! watermark** (HW) marks the prefix every alive ISR member holds, and only
//! that prefix is *committed*.
//!
//! ## The mechanism
//!
//! - **Writes.** [`AckLevel::Leader`] appends on the leader, streams the
//!   entry to every follower that is not marked slow, and is acknowledged at
//!   once. [`AckLevel::AllIsr`] first refreshes ISR and HW and refuses
//!   *before appending* when the ISR is smaller than `min.insync.replicas`;
//!   otherwise it appends and waits until every current ISR member holds
//!   the entry and HW covers it (acknowledged), the ISR drops below the
//!   minimum, or `ack_timeout` passes. `None` and `Quorum` are unsupported.
//! - **ISR.** Every tick the controller checks each follower: it is caught
//!   up only if it is alive, not slow, linked to the leader, and has
//!   received the *current* leader's entries in the *current* epoch up to
//!   the leader's log end. A member not caught up for `replica_lag_timeout`
//!   ticks leaves the ISR (`isr_member_removed`); a non-member that is
//!   caught up rejoins (`isr_member_added`). The ISR may shrink below the
//!   minimum: that only refuses later `AllIsr` writes.
//! - **HW** = the minimum confirmed log end over alive ISR members; it never
//!   moves back. Each replica applies entries up to `min(HW, its confirmed
//!   end)` into `committed_data`, incrementally from its `applied_hw`.
//! - **Catch-up.** When a follower restarts, heals, stops being slow or
//!   follows a new leader, the leader finds the end of their shared prefix
//!   (by entry epochs, as KIP-101's leader-epoch lookup does) and sends the
//!   rest from its retained window (`incremental`, also when level), or a
//!   full snapshot when the follower's next offset fell out of the window
//!   (`full`). A catch-up first truncates any suffix the leader's log does
//!   not share: **divergence repair**.
//! - **Clean election** ([`IsrGroup::controller_elect`]): only a live ISR
//!   member; both epochs + 1; the candidate's log truncated to HW (and its
//!   slow mark cleared); the old leader leaves the ISR; a new lease; every
//!   reachable replica learns the new leader and epoch; followers
//!   resynchronise. A crashed leader that restarts is re-established the
//!   same way in a new epoch (if it still holds HW), so entries it may have
//!   lost can never be confused with new ones.
//! - **Unclean election** (`unclean.leader.election.enable`,
//!   [`IsrConfig::with_unclean_leader_election`], off by default). With it
//!   off, a partition whose ISR members are all down stays leaderless:
//!   writes and authority reads are refused and `failover` /
//!   `controller_elect` answer an error naming the setting. With it on, and
//!   only while no ISR member is alive, the controller may elect any live
//!   replica (`failover(None)`: the first by id): both epochs + 1, its log
//!   kept whole, the ISR reset to it alone and HW reset to its log end
//!   (`isr_unclean_election`, with `offsets_lost`). Acknowledged `AllIsr`
//!   writes it lacks are gone; the other replicas truncate to its log when
//!   they catch up, lowering their `applied_hw`. Until a replica has been
//!   confirmed by a leader after the unclean election it is exempt from the
//!   cross-replica invariants (it still holds the discarded committed view).
//! - **Power loss** (`crash(node, true)`) truncates a replica's log to its
//!   last fsync; if that falls below its `applied_hw`, `applied_hw` drops to
//!   the new log end and `committed_data` is rebuilt from what is left (a
//!   Kafka broker likewise bounds its checkpointed high watermark by its log
//!   end on recovery).
//! - **Stale leaders.** A replica learns of an election only when the
//!   controller can reach it (alive, not isolated). An isolated displaced
//!   leader therefore still believes it leads: [`IsrGroup::write_at`]
//!   (or `submit(ClientOp::write(..).at(node))`) lets a client with stale
//!   metadata write to it; its packets carry the old
//!   epoch and, once it reconnects, are fenced by every receiver before it
//!   learns the new epoch and is repaired. The probe's per-node `role` is
//!   the replica's own belief.
//! - **Fencing.** Every packet carries its sender's leader epoch and id;
//!   each entry its own entry epoch. A receiver rejects a packet of another
//!   epoch (`stale_leader_epoch`) or from a non-leader (`non_current_leader`)
//!   before touching state (`isr_append_rejected`). Old-epoch *entries* are
//!   still replayed by a new leader.
//! - **Reads.** `Local` (a node's full data, may be stale), `Leader` (may
//!   include entries above HW), `Linearizable` (the leader's
//!   `committed_data`, blocked with guard `above high watermark`,
//!   `isr below min.insync` or `lease expired`), and
//!   [`IsrGroup::lease_read`] which also requires the named node to be the
//!   current leader (`lease fenced`).
//!
//! ## Two data planes
//!
//! Everything above is the source chapter's model, the default
//! (`IsrMode::Chapter`). [`fetch`] is Kafka's own data plane
//! (`IsrMode::Fetch(rung)`, scenario setting `mode=fetch rung=…`):
//! followers fetch, HW reaches them one round late, and the truncation rule
//! is one rung of the Kafka ladder — before KIP-101, KIP-101, KIP-279,
//! KIP-320, KIP-966's Eligible Leader Replicas — so that each historical
//! data-loss bug can be run, and judged by the explorer, side by side
//! (guide page `docs/kafka-ladder.md`).
//!
//! ## The shape: pure nodes, a pure controller, one harness
//!
//! - [`node::IsrNode`] is one replica as a **pure state machine**, in the
//!   style of etcd-io/raft: [`IsrNode::step`](node::IsrNode::step) handles
//!   a delivered message and the calls through which the leader's client
//!   path and the controller reach it (`append_local`, `catch_up`,
//!   `learn_leader`, `become_leader`, …) push
//!   [`Output`](node::Output)s — messages to send, [`NodeEvent`](node::NodeEvent)s
//!   to record — into a buffer; it never sees the network, the clock, the
//!   trace or the controller. Its data plane is its [`ReplicaLog`](node::ReplicaLog): every
//!   entry with its leader epoch, and the high watermark it has applied.
//!   The follower's half lives in `follower.rs`, the leader's in
//!   `leader.rs`. The [`node`] module docs show how a model checker drives
//!   nodes without the group.
//! - [`controller::Controller`] is the in-process controller as a **pure
//!   decision maker**: it owns leader, both epochs, the ISR, HW, the
//!   unclean-election epoch, the lease and each follower's last caught-up
//!   tick, and decides from [`ReplicaFacts`](controller::ReplicaFacts)
//!   (alive, slow, linked to the leader, log end, end confirmed in the
//!   current epoch) — `maybe_shrink_isr`, `maybe_expand_isr`,
//!   `maybe_increment_leader_hw`, elections, who to resynchronise, the
//!   read guards — returning what it decided.
//! - [`IsrGroup`] owns a [`replication::Cluster`] (ids, network, rng,
//!   trace, client operations, every fault), the nodes, the controller and
//!   the pending writes; it gathers facts, carries decisions out on the
//!   nodes and records them. A write's verdict is the pure
//!   `PendingWrite::decide` over the facts of the moment.
//!
//! ## Against real Kafka
//!
//! - **Mirrors:** ISR shrink on lag and rejoin only after catching up;
//!   HW as the ISR's common prefix; `acks=all` + `min.insync.replicas`
//!   checked before append; leader epochs fencing old leaders while entry
//!   epochs keep history; clean-election truncation to HW; KIP-101
//!   truncation by leader epoch instead of by HW alone;
//!   `unclean.leader.election.enable` electing an out-of-sync replica when
//!   no ISR member is alive, at the cost of acknowledged writes.
//! - **Simplifies:** the controller is an in-process oracle that never
//!   fails and reaches every non-isolated live broker instantly (its
//!   LeaderAndIsr); followers are pushed to rather than fetching (a fetch is
//!   sent only when a packet does not fit); the leader sees follower
//!   positions directly; the retained window is the last `retention`
//!   entries; a full catch-up ships the whole log atomically; the lease is a
//!   teaching device renewed while an ISR quorum is reachable, not a Kafka
//!   API; fsync is an O(1) "durable through offset" marker; an unclean
//!   election happens only when `failover` / `controller_elect` asks for
//!   one (Kafka's controller triggers it itself) and picks the first live
//!   replica by id (Kafka: the first live replica in assignment order).
//! - **Omits:** brokers and clients as processes, batches, segments,
//!   retention by bytes or time, fetch sessions, idempotent and
//!   transactional producers, KRaft metadata replication, per-topic
//!   overrides of the unclean-election setting, reassignment, rack awareness, throttling.
//!
//! ## What it says of itself
//!
//! Besides its invariants, the group answers two questions the explorer
//! holds it to. *Why can it not serve?* `unavailable` is a claim of
//! certainty — the offline partition, or a network whose shortest delay
//! outlasts `replica.lag.time.max` with `min.insync.replicas` above 1 —
//! and `outside_assumptions` says only that serving is chance (the worst
//! delay reaches the lag bound). *Does its trace tell the truth?*
//! `check_trace` folds the trace from `isr_group_started` and compares it
//! with the controller and the replicas (`trace_check.rs`). *What is its
//! normal operation?* On a network that loses, duplicates, reorders and
//! stalls nothing, inside the lag assumption, `steady_state` promises
//! silence while idle, an `acks=all` write acknowledged one delay after
//! it is appended at the cost of one append per follower, and reads
//! served at once.
//!
//! ## Operations in flight
//!
//! [`ReplicationGroup::submit`] starts a [`ClientOp`] and returns its
//! [`OpId`] without letting time pass; completions come out of
//! [`ReplicationGroup::take_completions`] /
//! [`ReplicationGroup::take_completion`] in completion order. The blocking
//! `client_write` / `client_read` (and [`IsrGroup::write_at`]) are
//! `submit` + `await_completion`. Pending writes are judged after every
//! tick (one just appended cannot be decided before a tick passes); each
//! completes within `ack_timeout` ticks.
//!
//! | operation | *done* | *failed* (not applied) | *unknown* (appended, not acknowledged) |
//! |---|---|---|---|
//! | `Leader` write | at submission | — | — |
//! | `AllIsr` write | every ISR member holds it and HW ≥ its offset | ISR below min.insync at submission (refused before append) | ISR shrank below min.insync while it waited; its leader crashed; the controller elected another leader; `ack_timeout` passed |
//! | write at a displaced leader ([`ClientOp::at`]) | `Leader`: at submission (the `acks=1` hazard) | — | `AllIsr`: `ack_timeout` passed or the node learned the new epoch |
//! | read | at submission, with the value | at submission: a `Linearizable` guard failed ([`GroupError::ReadBlocked`]) | never |
//!
//! *Unknown* means what Kafka's `NOT_ENOUGH_REPLICAS_AFTER_APPEND` or a
//! request timeout mean to a producer: the record is in a leader's log and
//! may still become committed (a later HW advance covers it) or be
//! truncated (a clean election or divergence repair drops it). The
//! completion carries its offset. `submit` itself refuses, changing
//! nothing, only what cannot start: an unsupported level, an unknown or
//! crashed node, a named node that is not a leader, a crashed leader or one
//! outside the ISR.
//!
//! ## Example
//!
//! ```
//! use proto_isr::prelude::*;
//!
//! // Three replicas led by the first; min.insync.replicas 2, ack timeout 32.
//! let mut g = IsrGroup::new(IsrConfig::with_nodes(["a", "b", "c"]))?;
//!
//! // Blocking: returns once every ISR member holds the entry and HW covers it.
//! let w = g.client_write(Bytes::from("k"), Bytes::from("v1"), AckLevel::AllIsr)?;
//! assert!(w.accepted);
//!
//! // In flight: two ALL_ISR writes overlap; submitting lets no time pass.
//! let first = g.submit(ClientOp::write("k", "v2", AckLevel::AllIsr))?;
//! let second = g.submit(ClientOp::write("k", "v3", AckLevel::AllIsr))?;
//!
//! // Reads are answered at once. The leader holds entries above HW, so a
//! // LINEARIZABLE read fails (blocked); a LEADER read already sees v3.
//! let read = g.submit(ClientOp::read("k", ReadLevel::Linearizable))?;
//! let blocked = g.take_completion(read).expect("reads complete at submission");
//! assert_eq!(blocked.outcome.status(), OutcomeStatus::Failed);
//! let leader_read = g.client_read(b"k", ReadLevel::Leader, None)?;
//! assert_eq!(leader_read.value, Some(Bytes::from("v3")));
//!
//! // Time passes: both writes complete, in offset order.
//! let mut done = Vec::new();
//! for _ in 0..g.config().ack_timeout {
//!     g.tick();
//!     done.extend(g.take_completions());
//! }
//! let ids: Vec<OpId> = done.iter().map(|c| c.id).collect();
//! assert_eq!(ids, vec![first, second]);
//! assert!(done.iter().all(|c| c.outcome.status() == OutcomeStatus::Done));
//!
//! let read = g.client_read(b"k", ReadLevel::Linearizable, None)?;
//! assert_eq!(read.value, Some(Bytes::from("v3")));
//! assert_eq!(g.probe().leader, Some(NodeId::new("a")));
//! assert!(g.check_invariants().is_ok());
//! # Ok::<(), GroupError>(())
//! ```
//!
//! Runnable: `cargo run -p proto-isr --example shrink_rejoin` (the
//! chapter's hands-on run).

mod client;
mod config;
pub mod controller;
pub mod decisions;
mod events;
pub mod fetch;
mod follower;
mod group;
mod inspect;
#[cfg(test)]
mod invariant_tests;
mod invariants;
mod leader;
mod log;
mod message;
pub mod node;
mod output;
mod pending;
pub mod planted;
mod probe;
mod reads;
mod registration;
mod replication_impl;
mod role;
mod state_line;
#[cfg(test)]
mod steer_tests;
mod trace_check;

pub use config::{IsrConfig, IsrMode};
pub use group::IsrGroup;
pub use log::LogEntry;
pub use probe::{CatchUpMode, IsrProbe, NodeProbe};
pub use registration::IsrRegistration;
pub use role::Role;

pub use replication::{
    AckLevel, Bytes, ClientOp, Completion, GroupError, GroupSummary, KvState, NodeId, NodeSummary,
    OpId, Outcome, OutcomeStatus, ReadLevel, ReadResult, ReplicationGroup, Tick, Trace,
    WriteResult,
};

/// The names most programs need: `use proto_isr::prelude::*;`.
pub mod prelude {
    pub use crate::{
        AckLevel, Bytes, ClientOp, Completion, GroupError, IsrConfig, IsrGroup, IsrProbe, NodeId,
        OpId, Outcome, OutcomeStatus, ReadLevel, ReadResult, ReplicationGroup, Role, WriteResult,
    };
}

/// The README's example, compiled and run as a doctest so it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
