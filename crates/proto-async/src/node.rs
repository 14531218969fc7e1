//! Per-node state and the pure step logic of one node.
//!
//! Nothing here touches the simulator: [`Node::on_message`] takes a message
//! and returns a [`Step`] — what happened and what to answer the sender —
//! and the group records and sends it.

use std::collections::BTreeMap;
use std::sync::Arc;

use bytes::Bytes;
use sim_core::NodeId;

use crate::backlog::Backlog;
use crate::message::{AsyncMsg, Entry, FullSync, PartialSync, Psync, ReplConfAck, ReplicationId};
use crate::role::{Role, SyncMode};

/// The fsynced image of a node: what a power loss rolls it back to.
#[derive(Debug, Clone)]
pub(crate) struct DurableImage {
    pub(crate) replication_id: ReplicationId,
    pub(crate) offset: u64,
    pub(crate) data: BTreeMap<Bytes, Bytes>,
}

/// What handling one message did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Streamed entries were applied: from `prev` to `offset`.
    StreamApplied {
        prev: u64,
        applied: u64,
        offset: u64,
    },
    /// Streamed entries at or below the node's offset were ignored.
    Duplicate { offset: u64 },
    /// The message was refused before touching state.
    Rejected { reason: &'static str },
    /// The stream has a hole; the node asks to resynchronise.
    Gap { expected: u64, got: u64 },
    /// A `+CONTINUE` was applied: `applied` entries, from `prev` to `offset`.
    PartialApplied {
        prev: u64,
        applied: u64,
        offset: u64,
    },
    /// A `+FULLRESYNC` replaced the data set.
    FullApplied { offset: u64, keys: usize },
    /// A primary answered a `PSYNC` in `mode`.
    Served { mode: SyncMode, next_offset: u64 },
    /// A `PSYNC` reached a node that cannot serve it.
    PsyncRefused { reason: &'static str },
    /// A primary recorded a replica's `REPLCONF ACK` of `offset`.
    AckRecorded { offset: u64 },
}

/// The result of [`Node::on_message`]: the outcome and an optional answer to
/// the sender (a `PSYNC`, or a sync reply).
#[derive(Debug)]
pub(crate) struct Step {
    pub(crate) outcome: Outcome,
    pub(crate) reply: Option<AsyncMsg>,
}

impl Step {
    fn just(outcome: Outcome) -> Step {
        Step {
            outcome,
            reply: None,
        }
    }
}

/// One node of the group.
#[derive(Debug, Clone)]
pub(crate) struct Node {
    pub(crate) id: NodeId,
    pub(crate) alive: bool,
    pub(crate) role: Role,
    /// The primary a replica is configured to follow (`REPLICAOF`).
    pub(crate) following: Option<NodeId>,
    /// The generation this node believes current.
    pub(crate) generation: u64,
    /// The history the node's data set belongs to.
    pub(crate) replication_id: ReplicationId,
    pub(crate) offset: u64,
    pub(crate) data: BTreeMap<Bytes, Bytes>,
    pub(crate) sync_mode: SyncMode,
    /// A `PSYNC` is outstanding; do not ask again until answered.
    pub(crate) resync_pending: bool,
    pub(crate) durable_offset: u64,
    /// Primary only: the recent history for partial resynchronisation.
    pub(crate) backlog: Backlog,
    /// Primary only: per replica, the first offset held in its output buffer
    /// because the link was down when it was streamed.
    pub(crate) buffered: BTreeMap<NodeId, u64>,
    /// Set when a power loss rolled a primary back: on restart it must
    /// start a new history so no replica splices onto forgotten entries.
    pub(crate) lost_history: bool,
    /// Primary only: per replica, the highest offset of the current history
    /// it acknowledged (`REPLCONF ACK`); what `WAIT` counts.
    pub(crate) replica_acks: BTreeMap<NodeId, u64>,
    /// Primary only: per replica, the last tick it was heard from (its
    /// `PSYNC`, `REPLCONF ACK`, or the per-tick heartbeat of a connected
    /// replica); what `min-replicas-to-write` counts.
    pub(crate) last_heard: BTreeMap<NodeId, u64>,
}

impl Node {
    pub(crate) fn new(
        id: NodeId,
        role: Role,
        following: Option<NodeId>,
        replication_id: ReplicationId,
        backlog_size: usize,
    ) -> Node {
        Node {
            id,
            alive: true,
            role,
            following,
            generation: 1,
            replication_id,
            offset: 0,
            data: BTreeMap::new(),
            sync_mode: SyncMode::Never,
            resync_pending: false,
            durable_offset: 0,
            backlog: Backlog::new(backlog_size),
            buffered: BTreeMap::new(),
            lost_history: false,
            replica_acks: BTreeMap::new(),
            last_heard: BTreeMap::new(),
        }
    }

    /// Primary: applies a client write and returns the entry to stream.
    pub(crate) fn apply_write(&mut self, key: Bytes, value: Bytes) -> Arc<Entry> {
        debug_assert_eq!(
            self.role,
            Role::Primary,
            "only a primary applies client writes"
        );
        self.offset += 1;
        self.data.insert(key.clone(), value.clone());
        let entry = Arc::new(Entry {
            generation: self.generation,
            replication_id: self.replication_id.clone(),
            offset: self.offset,
            key,
            value,
        });
        self.backlog.push(Arc::clone(&entry));
        entry
    }

    /// Replica: the `PSYNC` to send to the configured primary, marking a
    /// resynchronisation as outstanding. `None` for a primary.
    pub(crate) fn psync(&mut self) -> Option<(NodeId, AsyncMsg)> {
        if self.role != Role::Replica {
            return None;
        }
        let primary = self.following.clone()?;
        self.resync_pending = true;
        Some((
            primary,
            AsyncMsg::Psync(Box::new(Psync {
                generation: self.generation,
                replication_id: self.replication_id.clone(),
                next_offset: self.offset + 1,
            })),
        ))
    }

    fn resync_reply(&mut self) -> Option<AsyncMsg> {
        if self.resync_pending {
            None
        } else {
            self.psync().map(|(_, msg)| msg)
        }
    }

    /// Replica-side fencing: the sender must be the configured primary and
    /// the message of the current generation.
    fn fence(&self, src: &NodeId, generation: u64) -> Option<&'static str> {
        if self.role != Role::Replica || self.following.as_ref() != Some(src) {
            Some("non_current_primary")
        } else if generation != self.generation {
            Some("stale_generation")
        } else {
            None
        }
    }

    /// Handles one delivered message from `src`.
    pub(crate) fn on_message(&mut self, src: &NodeId, msg: AsyncMsg) -> Step {
        match msg {
            AsyncMsg::Stream(entries) => self.on_stream(src, &entries),
            AsyncMsg::Psync(m) => self.on_psync(m.generation, &m.replication_id, m.next_offset),
            AsyncMsg::PartialSync(m) => {
                let PartialSync {
                    generation,
                    replication_id,
                    entries,
                    ..
                } = *m;
                self.on_partial(src, generation, &replication_id, entries)
            }
            AsyncMsg::ReplConfAck(m) => self.on_ack(src, &m),
            AsyncMsg::FullSync(m) => {
                let FullSync {
                    generation,
                    replication_id,
                    offset,
                    data,
                } = *m;
                self.on_full(src, generation, replication_id, offset, data)
            }
        }
    }

    fn apply_entry(&mut self, entry: &Entry) {
        debug_assert_eq!(
            entry.offset,
            self.offset + 1,
            "offsets advance by exactly one"
        );
        self.offset = entry.offset;
        self.data.insert(entry.key.clone(), entry.value.clone());
    }

    /// Applies the entries above the node's offset, strictly in order;
    /// stops at a hole and returns `Err((expected, got))`.
    fn apply_run(&mut self, entries: &[Arc<Entry>]) -> Result<u64, (u64, u64)> {
        let mut applied = 0;
        for entry in entries {
            if entry.offset <= self.offset {
                continue;
            }
            if entry.offset > self.offset + 1 {
                return Err((self.offset + 1, entry.offset));
            }
            self.apply_entry(entry);
            applied += 1;
        }
        Ok(applied)
    }

    fn gap(&mut self, (expected, got): (u64, u64)) -> Step {
        Step {
            outcome: Outcome::Gap { expected, got },
            reply: self.resync_reply(),
        }
    }

    fn on_stream(&mut self, src: &NodeId, entries: &[Arc<Entry>]) -> Step {
        let Some(first) = entries.first() else {
            return Step::just(Outcome::Duplicate {
                offset: self.offset,
            });
        };
        if let Some(reason) = self.fence(src, first.generation) {
            return Step::just(Outcome::Rejected { reason });
        }
        if first.replication_id != self.replication_id {
            return Step {
                outcome: Outcome::Rejected {
                    reason: "stale_replication_id",
                },
                reply: self.resync_reply(),
            };
        }
        let prev = self.offset;
        match self.apply_run(entries) {
            Err(hole) => self.gap(hole),
            Ok(0) => Step::just(Outcome::Duplicate {
                offset: entries.last().map_or(prev, |e| e.offset),
            }),
            Ok(applied) => {
                self.sync_mode = SyncMode::Streaming;
                Step::just(Outcome::StreamApplied {
                    prev,
                    applied,
                    offset: self.offset,
                })
            }
        }
    }

    fn on_psync(&mut self, generation: u64, replid: &ReplicationId, next: u64) -> Step {
        if self.role != Role::Primary {
            return Step::just(Outcome::PsyncRefused {
                reason: "not_primary",
            });
        }
        if generation != self.generation {
            return Step::just(Outcome::PsyncRefused {
                reason: "stale_generation",
            });
        }
        let partial = *replid == self.replication_id && self.backlog.covers(next, self.offset);
        let reply = if partial {
            AsyncMsg::PartialSync(Box::new(PartialSync {
                generation: self.generation,
                replication_id: self.replication_id.clone(),
                offset: self.offset,
                entries: self.backlog.entries_from(next),
            }))
        } else {
            AsyncMsg::FullSync(Box::new(FullSync {
                generation: self.generation,
                replication_id: self.replication_id.clone(),
                offset: self.offset,
                data: self.data.clone(),
            }))
        };
        let mode = if partial {
            SyncMode::Partial
        } else {
            SyncMode::Full
        };
        Step {
            outcome: Outcome::Served {
                mode,
                next_offset: next,
            },
            reply: Some(reply),
        }
    }

    fn on_partial(
        &mut self,
        src: &NodeId,
        generation: u64,
        replid: &ReplicationId,
        entries: Vec<Arc<Entry>>,
    ) -> Step {
        if let Some(reason) = self.fence(src, generation) {
            return Step::just(Outcome::Rejected { reason });
        }
        if *replid != self.replication_id {
            self.resync_pending = false;
            return Step {
                outcome: Outcome::Rejected {
                    reason: "stale_replication_id",
                },
                reply: self.resync_reply(),
            };
        }
        self.resync_pending = false;
        let prev = self.offset;
        match self.apply_run(&entries) {
            Err(hole) => self.gap(hole),
            Ok(applied) => {
                self.sync_mode = SyncMode::Partial;
                Step::just(Outcome::PartialApplied {
                    prev,
                    applied,
                    offset: self.offset,
                })
            }
        }
    }

    fn on_full(
        &mut self,
        src: &NodeId,
        generation: u64,
        replid: ReplicationId,
        offset: u64,
        data: BTreeMap<Bytes, Bytes>,
    ) -> Step {
        if let Some(reason) = self.fence(src, generation) {
            return Step::just(Outcome::Rejected { reason });
        }
        self.resync_pending = false;
        self.replication_id = replid;
        self.offset = offset;
        let keys = data.len();
        self.data = data;
        self.sync_mode = SyncMode::Full;
        Step::just(Outcome::FullApplied { offset, keys })
    }

    /// Replica: the `REPLCONF ACK` of its current offset.
    pub(crate) fn ack(&self) -> AsyncMsg {
        AsyncMsg::ReplConfAck(Box::new(ReplConfAck {
            generation: self.generation,
            replication_id: self.replication_id.clone(),
            offset: self.offset,
        }))
    }

    /// Primary: records a replica's acknowledged offset if it is of the
    /// primary's own generation and history.
    fn on_ack(&mut self, src: &NodeId, ack: &ReplConfAck) -> Step {
        let reason = if self.role != Role::Primary {
            Some("not_primary")
        } else if ack.generation != self.generation {
            Some("stale_generation")
        } else if ack.replication_id != self.replication_id {
            Some("stale_replication_id")
        } else {
            None
        };
        if let Some(reason) = reason {
            return Step::just(Outcome::Rejected { reason });
        }
        let acked = self.replica_acks.entry(src.clone()).or_insert(0);
        *acked = (*acked).max(ack.offset.min(self.offset));
        Step::just(Outcome::AckRecorded { offset: *acked })
    }

    /// Primary: how many replicas acknowledged `offset` or beyond.
    pub(crate) fn acked_at_least(&self, offset: u64) -> usize {
        self.replica_acks.values().filter(|&&o| o >= offset).count()
    }

    /// Forgets what replicas acknowledged (a new history, or no longer
    /// primary).
    pub(crate) fn forget_acks(&mut self) {
        self.replica_acks.clear();
        self.last_heard.clear();
    }

    /// Primary: replicas heard from at `now - max_lag` or later.
    pub(crate) fn good_replicas(&self, now: u64, max_lag: u64) -> usize {
        self.last_heard
            .values()
            .filter(|&&t| now.saturating_sub(t) <= max_lag)
            .count()
    }

    /// The image `fsync` stores.
    pub(crate) fn image(&self) -> DurableImage {
        DurableImage {
            replication_id: self.replication_id.clone(),
            offset: self.offset,
            data: self.data.clone(),
        }
    }

    /// Power loss: back to `image`; a primary's backlog loses what the image
    /// does not hold.
    pub(crate) fn restore(&mut self, image: DurableImage) {
        if image.replication_id != self.replication_id {
            self.backlog.clear();
        }
        self.forget_acks();
        self.replication_id = image.replication_id;
        self.offset = image.offset;
        self.data = image.data;
        self.backlog.truncate_after(self.offset);
        self.durable_offset = self.offset;
    }
}
