//! # proto-wal — PostgreSQL-shaped WAL shipping with timelines
//!
//! One primary turns every write into a logical SET [`WalRecord`] — bytes
//! with a timeline, an LSN and a length-prefixed key and value — appends it
//! to its write-ahead log, flushes it, applies it, and streams the frame to
//! every standby. Standbys decode each frame, check it comes from the
//! primary they follow on their timeline, and apply records strictly in LSN
//! order, keeping the concatenated WAL bytes. The group runs on the
//! deterministic `sim-core` simulator and implements
//! [`ReplicationGroup`].
//!
//! **The node is a pure state machine.** A [`node::WalNode`] never sees the
//! network, the clock or the trace: [`step`](node::WalNode::step) (a
//! message arrived) and [`tick`](node::WalNode::tick) (time passed) write
//! [`node::Output`]s — messages to send, [`node::WalEvent`]s to record, and
//! fsyncs ([`node::WalEvent::Fsync`]) the group carries out against the
//! durable images. [`WalShippingGroup`] owns a [`replication::Cluster`]
//! (ids, network, rng, trace, client operations, every fault), the nodes,
//! the durable images and the operator's view (the last promoted primary,
//! the newest timeline), delivers, records, and adds what each fault means
//! here. The [`node`] module says how a model checker drives nodes without
//! the group.
//!
//! | level | meaning here |
//! |---|---|
//! | `LEADER` write | the primary has appended and flushed the record |
//! | `QUORUM` write | …and the synchronous standbys `synchronous_standby_names` calls for (every listed one by default, `FIRST n` or `ANY n`; not a majority) have confirmed it at the `synchronous_commit` position (received, flushed — the default — or replayed), within `ack_timeout` ticks, else *unknown* (`accepted = false` from the blocking call) |
//! | `NONE`, `ALL_ISR` write | unsupported |
//! | `LOCAL` read | the named node's data (may be stale) |
//! | `LEADER` read | the current primary's data |
//! | `LINEARIZABLE` read | unsupported: nothing proves a primary is still the primary |
//!
//! **Operations in flight.** [`ReplicationGroup::submit`] starts a write or
//! a read without letting time pass and returns its [`OpId`]; each ends as
//! one [`Completion`], taken in completion order with
//! [`take_completions`](ReplicationGroup::take_completions) or by id with
//! [`take_completion`](ReplicationGroup::take_completion). Any number may
//! be in flight; the blocking `client_write` / `client_read` /
//! [`write_at`](WalShippingGroup::write_at) are `submit` plus
//! [`await_completion`](ReplicationGroup::await_completion).
//!
//! - A read is served at submission: *done* with the node's value.
//! - A write is appended, flushed on its primary and shipped at submission.
//!   `LEADER` completes *done* at once. `QUORUM` waits, as a PostgreSQL
//!   backend waits in `SyncRepWaitForLSN`, and is re-judged after every
//!   tick and after every crash or promotion: *done* in the tick the last
//!   synchronous standby's flush acknowledgement arrives; *unknown* when
//!   `ack_timeout` ticks have passed, its primary crashed or stepped down,
//!   or another node was promoted first.
//! - *Unknown* means the record is in the primary's WAL, flushed, and may
//!   already be on a standby: it survives if that node stays or becomes
//!   primary, and vanishes if a node without it is promoted and the old
//!   primary is rebased. The outcome carries its LSN.
//! - Nothing completes *failed*: everything that would stop a write before
//!   its append (an unsupported level, an unknown or crashed node, no
//!   primary, a standby) is refused by `submit` itself, with no id and no
//!   state change.
//!
//! **Catch-up.** A standby that reconnects (restart, heal, a gap in the
//! stream, a new primary) asks its primary to start replication at its next
//! LSN. The answer is *incremental* — the missing records from the retained
//! tail — when the standby is on the primary's timeline and that LSN is
//! still retained; otherwise *full* — a base backup replacing its WAL and
//! data. [`CatchUpMode`] in the [`WalProbe`] shows the most recent mode.
//!
//! **Promotion.** [`WalShippingGroup::promote`] (or `failover`) moves the
//! primary to a new timeline (one higher than any issued), clears retention,
//! fsyncs, and announces the timeline. A node that hears a newer timeline
//! follows its primary (a displaced primary steps down) and is resynchronised
//! by base backup. Records or announcements from an older timeline
//! (`stale_timeline`) or from a node that is not the primary the receiver
//! follows (`non_current_primary`) are rejected before anything is applied,
//! as `wal_fenced` trace events.
//!
//! **Synchronous replication.** [`WalConfig::synchronous_standbys`] lists
//! the candidates in priority order and [`SyncQuorum`] says how many must
//! confirm: [`SyncQuorum::Every`] (every listed standby — what
//! [`WalConfig::with_synchronous_standbys`] sets), `FIRST n` (the first `n`
//! *connected* candidates; when one is cut off, the next takes its place)
//! or `ANY n` (any `n` connected candidates).
//! [`WalConfig::with_synchronous_standby_names`] parses PostgreSQL's text,
//! e.g. `"ANY 1 (standby-1, standby-2)"`. A candidate is connected while it
//! is alive, follows the primary on its timeline and the link is open both
//! ways; a listed node that is the primary itself never is, so its own
//! flush never confirms. [`SynchronousCommit`] says how far a confirmation
//! goes: `remote_write` (received — the standby does not fsync it, so a
//! power loss on that standby can lose an acknowledged commit), `on`
//! (flushed) or `remote_apply` (replayed, so a `LOCAL` read on that standby
//! sees it once acknowledged). `recovery_min_apply_delay` holds each record
//! back on a standby for that many ticks before replay; 0 (the default)
//! replays on receipt. A non-default setting records
//! `wal_sync_replication_configured` at creation, a QUORUM write records
//! `wal_commit_waits_for_sync_standby` (which standby, which position, why)
//! and `wal_sync_confirmed` (by whom); the default records exactly what it
//! always did.
//!
//! **Durability.** The primary flushes every record; synchronous standbys
//! flush on receipt (unless `remote_write`); asynchronous standbys only on
//! `fsync` or a base backup.
//! The durable image is an O(1) marker (LSN and timeline) into the
//! append-only WAL, so `crash(node, lose_unfsynced = true)` truncates the
//! WAL to it and rebuilds the data by replay.
//!
//! **Trace.** Besides SimNet's `message_*` and the shared
//! `client_op_submitted` / `client_op_completed`: the `wal_` events listed
//! in the [`node::WalEvent`] docs and the group's `wal_group_created`,
//! `wal_sync_replication_configured`, `wal_write_acked`,
//! `wal_write_refused`, `wal_commit_waits_for_sync_standby`,
//! `wal_sync_confirmed` and `wal_fsynced`. Faults are the harness's
//! neutral events (`node_crashed`, `node_restarted`, `node_isolated`,
//! `node_healed`, `link_cut`, `link_restored`, see
//! [`replication::Cluster`]); a power loss adds
//! `wal_power_loss_restored lsn_before lsn timeline` (what it rolled back
//! to), and a restart drops what was sent to the node while it was down
//! (`message_dropped reason="sent_while_down"`: a new connection starts
//! from a catch-up request).
//!
//! ## Mirrors, simplifies, omits (PostgreSQL)
//!
//! - **Mirrors** WAL records with LSNs, streaming replication,
//!   `synchronous_standby_names` in its `FIRST n (…)`, `ANY n (…)`, `n (…)`
//!   and plain-list (= `FIRST 1`) forms, `synchronous_commit` =
//!   `remote_write` / `on` / `remote_apply` (wait for the standby's write,
//!   flush or replay position), `recovery_min_apply_delay`, the rule that
//!   a primary's own flush never stands in for a synchronous standby's,
//!   `wal_keep_size` retention versus `pg_basebackup`, `pg_promote`
//!   creating a new timeline (recovery replays everything received first),
//!   and the split brain an isolated old primary keeps accepting writes in.
//! - **Simplifies** LSNs to record numbers, a record to one logical SET (no
//!   pages, no heap), a timeline switch to "anything not on my timeline
//!   needs a base backup" (no timeline history files; a standby never
//!   follows a switch in place), `pg_rewind` to a base backup of a displaced
//!   primary once it hears the newer timeline, a standby's connection state
//!   to what the simulator knows at once (no `wal_sender_timeout`),
//!   `synchronous_commit` to one setting for the whole group (not per
//!   transaction) with standbys reporting only the position it waits for,
//!   a `remote_write` standby's flush to "only on `fsync` or a base backup"
//!   (PostgreSQL's walreceiver flushes soon after writing; here the window a
//!   power loss hits is as wide as it gets), the replay delay to ticks
//!   after receipt (not commit timestamps), and this crate's original
//!   "every listed standby" to [`SyncQuorum::Every`]: `FIRST len(list)`,
//!   except that a confirmation already reported still counts after its
//!   standby disconnects.
//! - **Omits** hot-standby query conflicts, replication slots, cascading
//!   replication, archiving and PITR, checkpoints, the `*` wildcard in
//!   `synchronous_standby_names`, `synchronous_commit = off` (this crate's
//!   `NONE`, unsupported) and `local` (its `LEADER`), choosing the most
//!   advanced standby at failover (an `ANY` / `FIRST` failover to a
//!   standby that did not confirm loses commits, as in PostgreSQL), and
//!   any fencing of the old primary beyond what its peers reject.
//!
//! ## Example
//!
//! ```
//! use proto_wal::prelude::*;
//!
//! let sync = NodeId::new("standby-1");
//! let config = WalConfig::default().with_synchronous_standbys([sync.clone()]);
//! let mut group = WalShippingGroup::new(config)?;
//!
//! // Blocking: a QUORUM write returns once standby-1 has flushed it.
//! let ack = group.client_write(Bytes::from("k"), Bytes::from("v"), AckLevel::Quorum)?;
//! assert!(ack.accepted);
//! let read = group.client_read(b"k", ReadLevel::Local, Some(&sync))?;
//! assert_eq!(read.value, Some(Bytes::from("v")));
//! let linearizable = group.client_read(b"k", ReadLevel::Linearizable, None);
//! assert!(matches!(
//!     linearizable,
//!     Err(GroupError::UnsupportedRead { .. })
//! ));
//!
//! // In flight: two QUORUM writes overlap and complete, in order, in the
//! // tick standby-1's flush acknowledgement reaches the primary.
//! let a = group.submit(ClientOp::write("a", "1", AckLevel::Quorum))?;
//! let b = group.submit(ClientOp::write("b", "2", AckLevel::Quorum))?;
//! assert!(group.take_completions().is_empty());
//! group.run_until_idle(100)?;
//! let done = group.take_completions();
//! assert_eq!(done.iter().map(|c| c.id).collect::<Vec<_>>(), vec![a, b]);
//! let statuses: Vec<_> = done.iter().map(|c| c.outcome.status()).collect();
//! assert_eq!(statuses, [OutcomeStatus::Done; 2]);
//!
//! // Cut standby-1 off: the next QUORUM write is appended on the primary
//! // but unacknowledged after ack_timeout ticks: unknown, with its LSN (the
//! // blocking call answers it as a refused write).
//! group.isolate(&sync)?;
//! let c = group.submit(ClientOp::write("c", "3", AckLevel::Quorum))?;
//! let end = group.await_completion(c)?;
//! assert_eq!(end.outcome.status(), OutcomeStatus::Unknown);
//! assert_eq!(end.completed - end.submitted, group.config().ack_timeout);
//! let answer = end.outcome.into_write_result()?;
//! assert_eq!((answer.accepted, answer.offset), (false, Some(4)));
//! # Ok::<(), GroupError>(())
//! ```
//!
//! A longer runnable example: `cargo run -p proto-wal --example wal_failover`.

mod client;
mod config;
mod events;
mod group;
mod invariants;
mod message;
pub mod node;
mod operator;
mod output;
mod pending;
pub mod planted;
mod probe;
mod record;
mod registration;
mod replication_impl;
mod role;
mod state_line;
mod sync_names;
mod sync_rep;

pub use config::WalConfig;
pub use group::WalShippingGroup;
pub use probe::{NodeProbe, WalProbe};
pub use record::{RecordError, WalRecord};
pub use registration::WalRegistration;
pub use role::{CatchUpMode, Role};
pub use sync_names::{SyncQuorum, SynchronousCommit, SynchronousStandbyNames};

// The shared vocabulary, so that depending on this crate is enough.
pub use replication::{
    AckLevel, Bytes, ClientOp, Completion, GroupError, GroupSummary, NodeId, NodeSummary, OpId,
    Outcome, OutcomeStatus, ReadLevel, ReadResult, ReplicationGroup, Tick, Trace, WriteResult,
};
pub use sim_core::NetConfig;

/// The names most programs against this crate use:
/// `use proto_wal::prelude::*;`.
pub mod prelude {
    pub use crate::{
        AckLevel, Bytes, CatchUpMode, ClientOp, Completion, GroupError, NodeId, OpId, Outcome,
        OutcomeStatus, ReadLevel, ReplicationGroup, Role, SyncQuorum, SynchronousCommit, WalConfig,
        WalShippingGroup,
    };
}

/// The README's example, compiled and run as a doctest so it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
