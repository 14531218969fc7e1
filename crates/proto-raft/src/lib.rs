//! # proto-raft — textbook Raft on the MiniDist simulator
//!
//! Figure 2 of the Raft paper (Ongaro & Ousterhout, 2014) as a pure state
//! machine per node, driven by a deterministic simulated network, with
//! read-index linearizable reads.
//!
//! ## Mechanism, by paper section
//!
//! | paper | here |
//! |---|---|
//! | §5.1 terms | every message carries the sender's term; a higher term makes any node adopt it, step down and clear its vote; a lower one is refused (`raft_stale_term_rejected`) |
//! | §5.2 election | randomised deadlines from the group's seeded [`sim_core::Rng`] in `election_timeout`; a candidate votes for itself and wins with a majority |
//! | §5.3 replication | AppendEntries carries only entries from the follower's `next_index`; prev index/term check; a mismatch returns the first index of the conflicting term; only a conflicting suffix is deleted |
//! | §5.4.1 election restriction | a vote needs the candidate's (last term, last index) ≥ the voter's |
//! | §5.4.2 commit rule | commit N only when a majority has `match_index ≥ N` **and** `log[N].term == current_term`; O(nodes) per reply |
//! | §8 no-op | a new leader appends a no-op of its term, so a fresh group's first write lands at index 2 |
//! | §6.4 read index | a `Linearizable` read starts a round of AppendEntries; served once a majority of the term echoed it and the leader has a current-term commit |
//!
//! Node logic lives in `node.rs` / `leader.rs` (`step(msg)` and `tick(now)`
//! returning outputs; `step_follower` / `step_candidate` / `step_leader`);
//! [`RaftGroup`] owns the [`sim_core::SimNet`], the rng and the trace and is
//! the only place that sends and delivers.
//!
//! ## Driving it
//!
//! Through [`replication::ReplicationGroup`] (only `Quorum` writes; `Local`,
//! `Leader` and `Linearizable` reads — for `Linearizable` a named node is
//! the node that must prove its leadership, so a deposed leader in a
//! minority can be asked and is fenced), plus [`RaftGroup::run_until_leader`],
//! [`RaftGroup::run_until_converged`], [`RaftGroup::propose`] /
//! [`RaftGroup::propose_at`] (append without waiting), [`RaftGroup::write_at`]
//! (a QUORUM write at a named node that believes it leads),
//! [`RaftGroup::probe`] and [`InvariantChecker`] (Figure 3's properties).
//!
//! Trace events (besides SimNet's `message_*`): `raft_group_started` (with the
//! seed and timings), `raft_election_started`,
//! `raft_vote_cast`, `raft_leader_elected`, `raft_term_adopted`,
//! `raft_leader_discovered`, `raft_stale_term_rejected`,
//! `raft_entries_appended`, `raft_append_rejected`, `raft_catch_up`
//! (`mode="log replay"`), `raft_commit_advanced`, `raft_write_proposed`,
//! `raft_write_committed`, `raft_write_refused`, `raft_read_index_started`,
//! `raft_read_served`, `raft_read_blocked`, `raft_node_crashed`,
//! `raft_node_restarted`, `raft_node_isolated`, `raft_node_healed`,
//! `raft_link_cut`, `raft_all_healed`, `raft_fsync`. Messages are labelled
//! `request_vote`, `request_vote_response`, `append_entries`, `heartbeat`
//! (an empty AppendEntries) and `append_entries_response`.
//!
//! ## Mirrors / simplifies / omits
//!
//! - **Mirrors** Figure 2 field by field (see [`RaftProbe`]), the §5.4.2
//!   restriction (Figure 8), the leader's no-op, conflict-term back-off,
//!   and etcd-style optimistic pipelining (`next_index` moves on send and
//!   is rewound by a rejection).
//! - **Simplifies** persistence: every node persists before it answers, so
//!   `fsync` and `crash(lose_unfsynced = true)` change nothing and the
//!   durable index is always the log end. Heartbeats are per follower and
//!   skipped while the leader is sending it entries anyway. `run_until_idle`
//!   means "no protocol work left" ([`RaftGroup::is_idle`]) because
//!   heartbeats never stop.
//! - **Omits** membership changes (the voter set is fixed), snapshots and
//!   log compaction (catch-up is always *log replay*), PreVote and
//!   CheckQuorum, leadership transfer, leases, client sessions and retries.
//!
//! ## Example
//!
//! ```
//! use proto_raft::{RaftConfig, RaftGroup};
//! use replication::{AckLevel, ReadLevel, ReplicationGroup};
//!
//! let mut group = RaftGroup::new(RaftConfig::default()).unwrap();
//! let leader = group.run_until_leader(None, 100).unwrap();
//! let w = group.client_write("k".into(), "v".into(), AckLevel::Quorum).unwrap();
//! assert_eq!((w.accepted, w.offset), (true, Some(2))); // index 1 is the no-op
//! let r = group.client_read(b"k", ReadLevel::Linearizable, None).unwrap();
//! assert_eq!((r.value.as_deref(), r.node), (Some(&b"v"[..]), leader));
//! ```
//!
//! A longer, runnable example: `cargo run -p proto-raft --example raft_failover`.
//! Throughput is measured by `cargo xtask bench` (workload `writes-raft`).

mod client;
mod config;
mod events;
mod follower;
mod group;
mod inflight;
mod invariants;
mod leader;
mod message;
mod node;
mod output;
mod probe;
mod reads;
mod replication_impl;
mod role;

pub use config::RaftConfig;
pub use group::RaftGroup;
pub use invariants::InvariantChecker;
pub use message::{Command, LogEntry, Message};
pub use probe::{NodeProbe, RaftProbe};
pub use reads::{GUARD_DEPOSED, GUARD_NO_CURRENT_TERM_COMMIT, GUARD_NO_QUORUM, GUARD_NOT_LEADER};
pub use role::Role;
