//! # proto-wal — PostgreSQL-shaped WAL shipping with timelines
//!
//! One primary turns every write into a logical SET [`WalRecord`] — bytes
//! with a timeline, an LSN and a length-prefixed key and value — appends it
//! to its write-ahead log, flushes it, applies it, and streams the frame to
//! every standby. Standbys decode each frame, check it comes from the
//! primary they follow on their timeline, and apply records strictly in LSN
//! order, keeping the concatenated WAL bytes. The group runs on the
//! deterministic `sim-core` simulator and implements
//! [`replication::ReplicationGroup`].
//!
//! | level | meaning here |
//! |---|---|
//! | `LEADER` write | the primary has appended and flushed the record |
//! | `QUORUM` write | …and *every* configured synchronous standby has flushed and acknowledged it (not a majority), within `ack_timeout` ticks, else `accepted = false` |
//! | `NONE`, `ALL_ISR` write | unsupported |
//! | `LOCAL` read | the named node's data (may be stale) |
//! | `LEADER` read | the current primary's data |
//! | `LINEARIZABLE` read | unsupported: nothing proves a primary is still the primary |
//!
//! **Catch-up.** A standby that reconnects (restart, heal, a gap in the
//! stream, a new primary) asks its primary to start replication at its next
//! LSN. The answer is *incremental* — the missing records from the retained
//! tail — when the standby is on the primary's timeline and that LSN is
//! still retained; otherwise *full* — a base backup replacing its WAL and
//! data. [`SyncMode`] in the [`WalProbe`] shows the most recent mode.
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
//! **Durability.** The primary flushes every record; synchronous standbys
//! flush on apply; asynchronous standbys only on `fsync` or a base backup.
//! The durable image is an O(1) marker (LSN and timeline) into the
//! append-only WAL, so `crash(node, lose_unfsynced = true)` truncates the
//! WAL to it and rebuilds the data by replay.
//!
//! ## Mirrors, simplifies, omits (PostgreSQL)
//!
//! - **Mirrors** WAL records with LSNs, streaming replication,
//!   `synchronous_standby_names` with `synchronous_commit = on` (wait for
//!   the standby's flush), `wal_keep_size` retention versus `pg_basebackup`,
//!   `pg_promote` creating a new timeline, and the split brain an isolated
//!   old primary keeps accepting writes in.
//! - **Simplifies** LSNs to record numbers, a record to one logical SET (no
//!   pages, no heap), a timeline switch to "anything not on my timeline
//!   needs a base backup" (no timeline history files; a standby never
//!   follows a switch in place), `pg_rewind` to a base backup of a displaced
//!   primary once it hears the newer timeline, and `FIRST n` / `ANY n` to
//!   "every listed standby".
//! - **Omits** hot-standby query conflicts, replication slots, cascading
//!   replication, archiving and PITR, checkpoints, `remote_apply`, and any
//!   fencing of the old primary beyond what its peers reject.
//!
//! ## Example
//!
//! ```
//! use bytes::Bytes;
//! use proto_wal::{WalConfig, WalShippingGroup};
//! use replication::{AckLevel, ReadLevel, ReplicationGroup};
//! use sim_core::NodeId;
//!
//! let sync = NodeId::new("standby-1");
//! let config = WalConfig { synchronous_standbys: vec![sync.clone()], ..WalConfig::default() };
//! let mut group = WalShippingGroup::new(config)?;
//! let ack = group.client_write(Bytes::from("k"), Bytes::from("v"), AckLevel::Quorum)?;
//! assert!(ack.accepted);
//! // The synchronous standby has flushed it at the ack.
//! let read = group.client_read(b"k", ReadLevel::Local, Some(&sync))?;
//! assert_eq!(read.value, Some(Bytes::from("v")));
//! assert!(group.client_read(b"k", ReadLevel::Linearizable, None).is_err());
//! # Ok::<(), replication::GroupError>(())
//! ```
//!
//! A longer runnable example: `cargo run -p proto-wal --example wal_failover`.

mod config;
mod failover;
mod group;
mod invariants;
mod message;
mod node;
mod primary;
mod probe;
mod record;
mod replication_impl;
mod standby;

pub use config::WalConfig;
pub use group::WalShippingGroup;
pub use message::WalMsg;
pub use probe::{SyncMode, WalNodeProbe, WalProbe, WalRole};
pub use record::{RecordError, WalRecord};
