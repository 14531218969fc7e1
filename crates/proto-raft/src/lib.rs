//! # proto-raft — textbook Raft on the MiniDist simulator
//!
//! Figure 2 of the Raft paper (Ongaro & Ousterhout, 2014) as a pure state
//! machine per node, driven by a deterministic simulated network, with
//! read-index linearizable reads, and the mechanisms every production Raft
//! adds (etcd-io/raft, tikv/raft-rs): PreVote, CheckQuorum, leadership
//! transfer, snapshots with log compaction and InstallSnapshot.
//!
//! ## Mechanism, by paper section
//!
//! | paper | here |
//! |---|---|
//! | §5.1 terms | every message carries the sender's term; a higher term makes any node adopt it, step down and clear its vote; a lower one is refused (`raft_stale_term_rejected`) |
//! | §5.2 election | randomised deadlines from the group's one seeded random generator, in `election_timeout`; a candidate votes for itself and wins with a majority |
//! | §5.3 replication | AppendEntries carries only entries from the follower's `next_index`; prev index/term check; a mismatch returns the first index of the conflicting term; only a conflicting suffix is deleted |
//! | §5.4.1 election restriction | a vote needs the candidate's (last term, last index) ≥ the voter's |
//! | §5.4.2 commit rule | commit N only when a majority has `match_index ≥ N` **and** `log[N].term == current_term`; O(nodes) per reply |
//! | §8 no-op | a new leader appends a no-op of its term, so a fresh group's first write lands at index 2 |
//! | §6.4 read index | a `Linearizable` read starts a round of AppendEntries; served once a majority of the term echoed it and the leader has a current-term commit; concurrent reads share a round (see *Operations in flight*) |
//! | §7 log compaction | [`RaftConfig::with_snapshot_threshold`]: a node snapshots its applied state machine and drops its log prefix once it has applied that many entries past its last snapshot (only a committed, applied prefix); the log keeps a sentinel of the snapshot's term; a crashed node restarts from its snapshot (`raft_snapshot_taken`) |
//! | §7 InstallSnapshot | a follower whose `next_index` is compacted at the leader gets the snapshot in one message (`raft_catch_up mode="snapshot"`, `raft_snapshot_sent`, `raft_snapshot_installed`), keeps its log after the snapshot when the entry at its index matches, and acknowledges with an AppendEntries reply; then log replay from there |
//! | thesis §9.6 PreVote | [`RaftConfig::with_pre_vote`]: at its deadline a node becomes [`Role::PreCandidate`] and asks for pre-votes in `term + 1` **without raising its term**; a voter grants only to an up-to-date log when it has not heard from a leader within the lowest election timeout; a majority of grants starts the real election (`raft_pre_vote_started`, `raft_pre_vote_cast` with its reason) |
//! | CheckQuorum (etcd) | [`RaftConfig::with_check_quorum`]: every lowest election timeout a leader counts the peers it heard from; short of a majority it steps down in the same term (`raft_leader_stepped_down`) |
//! | thesis §3.10 leadership transfer | [`RaftConfig::with_leadership_transfer`] (on by default): `failover(Some(node))` / [`RaftGroup::transfer_leadership`] catches the target up, sends it TimeoutNow, and the target campaigns at once; refused for an unknown, down or cut-off target; abandoned after the highest election timeout (`raft_transfer_started`, `raft_timeout_now_sent`, `raft_timeout_now_received`, `raft_transfer_abandoned`) |
//!
//! Node logic lives in `node.rs` / `leader.rs` / `follower.rs` (`step(msg)`
//! and `tick(now)` returning outputs; `step_follower` / `step_candidate` /
//! `step_leader`), `prevote.rs` (`step_pre_candidate`), `transfer.rs`
//! (leadership transfer and CheckQuorum) and `snapshot.rs` (compaction and
//! InstallSnapshot);
//! the rules those nodes decide by — votes, election wins, the §5.3
//! consistency check, the commit rule, read-index confirmation, pre-votes —
//! are one trait in [`decisions`], this crate's
//! [`Reference`](decisions::Reference) unless
//! [`RaftConfig::with_decisions`] plugs in another;
//! [`RaftGroup`] owns the simulated network, the rng and the trace and is
//! the only place that sends and delivers. Client operations in flight are
//! judged by pure verdicts in `inflight.rs`; `client.rs` acts on them.
//!
//! ## Driving it
//!
//! Through [`ReplicationGroup`] (only `Quorum` writes; `Local`, `Leader`
//! and `Linearizable` reads — for `Linearizable` a named node is the node
//! that must prove its leadership, so a deposed leader in a minority can be
//! asked and is fenced), plus [`RaftGroup::run_until_leader`],
//! [`RaftGroup::run_until_converged`], [`RaftGroup::propose`] /
//! [`RaftGroup::propose_at`] (append without a client op),
//! [`RaftGroup::write_at`] (a QUORUM write at a named node that believes it
//! leads), [`RaftGroup::probe`] and [`InvariantChecker`] (Figure 3's
//! properties, plus the compaction bound, CheckQuorum's period and etcd's
//! replication progress, `match_index < next_index`).
//! [`ReplicationGroup::check_trace`] folds the trace from
//! `raft_group_started` — every node's log terms (an AppendEntries is
//! taken to carry its sender's log as it was when sent), snapshot and
//! commit index — checks what each event claims (the conflict hint, that
//! entries land at the log end, a catch-up's mode and end, snapshots) and
//! compares where it ends with the nodes (`trace_check.rs`). This
//! crate re-exports the shared vocabulary ([`ReplicationGroup`],
//! [`AckLevel`], [`ClientOp`], [`NodeId`], …), so depending on it alone is
//! enough; `use proto_raft::prelude::*;` brings the common names.
//!
//! ## Operations in flight
//!
//! [`ReplicationGroup::submit`] starts a [`ClientOp`] without letting time
//! pass and returns its [`OpId`]; any number may be in flight. Each pending
//! op is judged when it is submitted and after every tick, and completes
//! with a [`Completion`] ([`ReplicationGroup::take_completions`] /
//! [`ReplicationGroup::take_completion`]) within its bound. The blocking
//! `client_write` / `client_read` / [`RaftGroup::write_at`] are `submit` +
//! `await_completion`.
//!
//! | op | *done* | *failed* | *unknown* |
//! |---|---|---|---|
//! | QUORUM write | the node that appended it has committed it in its term | never (whatever is refused before appending is an `Err` from `submit`) | that node crashed, lost leadership or saw the entry overwritten before it committed, or [`RaftConfig::client_timeout`] ticks passed |
//! | `Local` / `Leader` read | at once | — | never |
//! | `Linearizable` read | a majority echoed its read-index round | `ReadBlocked`: `not leader` at once; `no current-term commit` or `read-index fenced (no quorum)` after [`RaftConfig::client_timeout`] ticks (per stage; [`RaftConfig::read_timeout`] in all); `read-index fenced (deposed)` when the node crashed or stopped leading | never |
//!
//! *Unknown* means the entry is in the proposer's log and may still be
//! committed: a new leader that holds it commits it with its own no-op (the
//! leader that crashed may even come back and lead again), and an
//! overwritten entry may survive on another node that wins an election. A
//! client must not assume it was applied, nor that it was not.
//!
//! Two batching rules mirror etcd. **Proposals**: entries appended during
//! one tick are sent when the next tick begins, in one AppendEntries per
//! follower (etcd's `Ready` batch), so writes submitted back to back share
//! one replication round and commit together, in index order.
//! **Read index**: a read that arrives at a leader in the same tick as a
//! round it started joins that round (its AppendEntries cannot have been
//! answered yet); one that arrives while an older round is in flight waits
//! for the next round, which starts as soon as that one finishes and takes
//! every read queued behind it (etcd's `linearizableReadLoop`). So `n`
//! concurrent reads need fewer than `n` rounds, and no read is confirmed by
//! an echo sent before it arrived.
//!
//! Trace events (besides SimNet's `message_*` and the shared
//! `client_op_submitted` / `client_op_completed`): `raft_group_started` (with the
//! seed and timings), `raft_election_started`,
//! `raft_vote_cast`, `raft_leader_elected`, `raft_term_adopted`,
//! `raft_leader_discovered`, `raft_stale_term_rejected`,
//! `raft_entries_appended`, `raft_append_rejected`, `raft_catch_up`
//! (`mode="log replay"` or `"snapshot"`, [`CatchUpMode`]), `raft_commit_advanced`,
//! `raft_write_proposed`, `raft_write_committed`, `raft_write_refused` (a
//! write that completes *unknown*), `raft_read_index_started`,
//! `raft_read_served`, `raft_read_blocked`, `raft_fsync`; the harness's
//! neutral fault events (`node_crashed`, `node_restarted`, `node_isolated`,
//! `node_healed`, `link_cut`, `link_restored`, `all_healed`, see
//! [`replication::Cluster`]); with the mechanisms
//! beyond Figure 2: `raft_features` (at tick 0, only when PreVote,
//! CheckQuorum or snapshots are on, so textbook traces are unchanged),
//! `raft_pre_vote_started`, `raft_pre_vote_cast`,
//! `raft_leader_stepped_down`, `raft_transfer_started`,
//! `raft_timeout_now_sent`, `raft_timeout_now_received`,
//! `raft_transfer_abandoned`, `raft_snapshot_taken`, `raft_snapshot_sent`,
//! `raft_snapshot_installed`. Messages are labelled `request_vote`,
//! `request_vote_response`, `append_entries`, `heartbeat` (an empty
//! AppendEntries), `append_entries_response`, `pre_vote`,
//! `pre_vote_response`, `install_snapshot` and `timeout_now`.
//!
//! ## Defaults
//!
//! Leadership transfer is **on** (it only changes `failover(Some(node))`,
//! which textbook Raft refused). PreVote, CheckQuorum and snapshots are
//! **off**, so the default group is Figure 2 and its traces are the
//! textbook's; etcd and raft-rs run PreVote and CheckQuorum in production,
//! and [`RaftConfig::with_all_features`] turns everything on.
//!
//! ## Mirrors / simplifies / omits
//!
//! - **Mirrors** Figure 2 field by field (see [`RaftProbe`]), the §5.4.2
//!   restriction (Figure 8), the leader's no-op, conflict-term back-off,
//!   etcd-style optimistic pipelining (`next_index` moves on send and
//!   is rewound by a rejection), etcd's batching of proposals and of
//!   read-index requests, and etcd's `PreVote`, `CheckQuorum`,
//!   `MsgTransferLeader` / `MsgTimeoutNow` and `MsgSnap` (acknowledged with
//!   an AppendEntries reply).
//! - **Simplifies** persistence: every node persists before it answers, so
//!   `fsync` and `crash(lose_unfsynced = true)` change nothing and the
//!   durable index is always the log end. Heartbeats are per follower and
//!   skipped while the leader is sending it entries anyway. `run_until_idle`
//!   means "no protocol work left" ([`RaftGroup::is_idle`]) because
//!   heartbeats never stop.
//!   Snapshots are taken synchronously and sent in one chunk (no
//!   `offset`/`done` chunking); a leader keeps accepting proposals during a
//!   transfer (etcd drops them), so a busy target may need the whole
//!   election timeout or see the transfer abandoned.
//! - **Omits** membership changes (the voter set is fixed), lease reads
//!   (etcd's `ReadOnlyLeaseBased`), CheckQuorum's vote lease for real
//!   RequestVotes (only pre-votes are refused while a leader is alive),
//!   client sessions and retries.
//!
//! ## Example
//!
//! ```
//! use proto_raft::prelude::*;
//!
//! let mut group = RaftGroup::new(RaftConfig::default()).unwrap();
//! let leader = group.run_until_leader(None, 100).unwrap();
//!
//! // Blocking: submit + await_completion.
//! let w = group.client_write("k".into(), "v".into(), AckLevel::Quorum).unwrap();
//! assert_eq!((w.accepted, w.offset), (true, Some(2))); // index 1 is the no-op
//!
//! // In flight: two writes and a read at once, completions as ticks pass.
//! let a = group.submit(ClientOp::write("a", "1", AckLevel::Quorum)).unwrap();
//! let b = group.submit(ClientOp::write("b", "2", AckLevel::Quorum)).unwrap();
//! let r = group.submit(ClientOp::read("k", ReadLevel::Linearizable)).unwrap();
//! let mut done = Vec::new();
//! while done.len() < 3 {
//!     group.tick();
//!     done.extend(group.take_completions());
//! }
//! assert!(done.iter().all(|c| c.outcome.status() == OutcomeStatus::Done));
//! let ids: Vec<OpId> = done.iter().map(|c| c.id).collect();
//! assert_eq!(ids, [a, b, r]); // both writes commit in one round, in index order
//! let Outcome::Read(read) = &done[2].outcome else { panic!("a served read") };
//! assert_eq!((read.value.as_deref(), &read.node), (Some(&b"v"[..]), &leader));
//! ```
//!
//! A longer, runnable example: `cargo run -p proto-raft --example raft_failover`;
//! every mechanism beyond Figure 2 at work:
//! `cargo run -p proto-raft --example raft_production`.
//! Throughput is measured by `cargo xtask bench` (workload `writes-raft`).

mod client;
mod config;
pub mod decisions;
mod events;
#[cfg(test)]
mod feature_tests;
mod follower;
mod group;
mod inflight;
mod invariants;
mod leader;
#[cfg(test)]
mod leader_tests;
mod message;
mod node;
mod output;
pub mod planted;
mod prevote;
mod probe;
mod reads;
mod registration;
mod replication_impl;
mod role;
mod snapshot;
mod state_line;
#[cfg(test)]
mod steer_tests;
#[cfg(test)]
mod test_support;
mod timeless;
mod timers;
mod trace_check;
mod transfer;

pub use config::RaftConfig;
pub use group::RaftGroup;
pub use invariants::InvariantChecker;
pub use message::{Command, LogEntry, Message};
#[allow(deprecated)]
pub use probe::NodeProbe;
pub use probe::{RaftNodeProbe, RaftProbe};
pub use reads::{GUARD_DEPOSED, GUARD_NO_CURRENT_TERM_COMMIT, GUARD_NO_QUORUM, GUARD_NOT_LEADER};
pub use registration::RaftRegistration;
pub use role::{CatchUpMode, Role};

// The shared vocabulary, so depending on this crate alone is enough.
pub use replication::{
    AckLevel, Bytes, ClientOp, Completion, GroupError, GroupSummary, NodeId, NodeSummary, OpId,
    Outcome, OutcomeStatus, ReadLevel, ReadResult, ReplicationGroup, Tick, Trace, WriteResult,
};
pub use sim_core::Value;

/// The names most programs need: `use proto_raft::prelude::*;`.
pub mod prelude {
    pub use crate::{
        AckLevel, Bytes, ClientOp, Completion, GroupError, NodeId, OpId, Outcome, OutcomeStatus,
        RaftConfig, RaftGroup, ReadLevel, ReplicationGroup, Role,
    };
}

/// The README's example, compiled and run as a doctest so it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
