//! The replica's half of [`AsyncNode`]: fencing, applying the stream and
//! the sync replies, `REPLCONF ACK`, asking to resynchronise (`PSYNC`), the
//! heartbeat, and the sentinel's reconfiguration and demotion.

use std::collections::BTreeMap;
use std::sync::Arc;

use bytes::Bytes;

use super::{AsyncNode, Heartbeat, Output, Peers};
use crate::message::{AsyncMsg, Entry, FullSync, PartialSync, Psync, ReplConfAck, ReplicationId};
use crate::output::AsyncEvent;
use crate::role::{CatchUpMode, Role};

impl AsyncNode {
    /// Replica-side fencing: the sender must be the configured primary and
    /// the message of the current generation.
    fn fence(&self, from: usize, generation: u64) -> Option<&'static str> {
        if self.role == Role::Replica
            && crate::planted::on(self.settings.planted, crate::planted::ACCEPT_ANY_PRIMARY)
        {
            None
        } else if self.role != Role::Replica || self.following != Some(from) {
            Some("non_current_primary")
        } else if generation != self.generation {
            Some("stale_generation")
        } else {
            None
        }
    }

    fn reject(
        &self,
        from: usize,
        msg: &'static str,
        reason: &'static str,
        msg_generation: u64,
        out: &mut Vec<Output>,
    ) {
        out.push(Output::Event(AsyncEvent::MessageRejected {
            from,
            msg,
            reason,
            msg_generation,
            node_generation: self.generation,
        }));
    }

    /// Sends `PSYNC` to the configured primary, marking a resynchronisation
    /// as outstanding. Nothing for a primary.
    fn send_psync(&mut self, reason: &'static str, out: &mut Vec<Output>) {
        if self.role != Role::Replica
            || crate::planted::on(self.settings.planted, crate::planted::NEVER_PSYNC)
        {
            return;
        }
        let Some(primary) = self.following else {
            return;
        };
        self.resync_pending = true;
        out.push(Output::Event(AsyncEvent::ResyncRequested {
            primary,
            reason,
            replication_id: Arc::clone(&self.replication_id),
            next_offset: self.offset + 1,
        }));
        out.push(Output::Send {
            to: primary,
            msg: AsyncMsg::Psync(Box::new(Psync {
                generation: self.generation,
                replication_id: Arc::clone(&self.replication_id),
                next_offset: self.offset + 1,
            })),
        });
    }

    /// The answer to a message that showed the replica out of step: a
    /// `PSYNC`, unless one is already outstanding.
    fn resync_reply(&mut self, reason: &'static str, out: &mut Vec<Output>) {
        if !self.resync_pending {
            self.send_psync(reason, out);
        }
    }

    /// Asks the primary this replica follows to resynchronise it (`PSYNC`),
    /// if that primary is up — whether or not a `PSYNC` is outstanding
    /// (the sentinel reconfigured it, it or its primary restarted or
    /// healed). Nothing for a primary.
    pub fn request_resync(
        &mut self,
        reason: &'static str,
        peers: &impl Peers,
        out: &mut Vec<Output>,
    ) {
        if self.following.is_some_and(|p| peers.is_up(p)) {
            self.send_psync(reason, out);
        }
    }

    /// Node `node` restarted or healed: a replica that is `node`, or follows
    /// it, asks to resynchronise ([`AsyncNode::request_resync`]).
    pub fn reconnected(
        &mut self,
        node: usize,
        reason: &'static str,
        peers: &impl Peers,
        out: &mut Vec<Output>,
    ) {
        if self.role == Role::Replica && self.is_or_follows(node) {
            self.request_resync(reason, peers, out);
        }
    }

    /// True when a stream of `primary`'s history `replication_id` would be
    /// applied here without a `PSYNC`: this replica follows `primary`,
    /// holds that history and awaits no resync (so a buffered stream
    /// flushed to it on heal stands in for a `PSYNC`).
    #[must_use]
    pub fn continues_stream_of(&self, primary: usize, replication_id: &ReplicationId) -> bool {
        self.following == Some(primary)
            && self.replication_id == *replication_id
            && !self.resync_pending
    }

    /// With `min-replicas-to-write` set, the heartbeat a replica sends its
    /// primary every tick.
    #[must_use]
    pub fn heartbeat(&self) -> Option<Heartbeat> {
        if self.settings.min_replicas_to_write == 0 {
            return None;
        }
        self.following.map(|to| Heartbeat {
            to,
            generation: self.generation,
        })
    }

    /// The sentinel points this replica at `primary` of `generation`
    /// (its old `PSYNC`, if any, is forgotten).
    pub fn follow(&mut self, primary: usize, generation: u64, out: &mut Vec<Output>) {
        self.following = Some(primary);
        self.generation = generation;
        self.resync_pending = false;
        out.push(Output::Event(AsyncEvent::ReplicaReconfigured {
            primary,
            generation,
        }));
    }

    /// The sentinel turns this old primary into a replica of `primary` of
    /// `generation`: its backlog, kept buffers and replica bookkeeping go.
    pub fn demote(&mut self, primary: usize, generation: u64, out: &mut Vec<Output>) {
        self.role = Role::Replica;
        self.following = Some(primary);
        self.generation = generation;
        self.backlog.clear();
        self.buffered.iter_mut().for_each(|b| *b = None);
        self.resync_pending = false;
        self.lost_history = false;
        self.forget_replicas();
        out.push(Output::Event(AsyncEvent::Demoted {
            primary,
            generation,
        }));
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

    fn gap(&mut self, from: usize, (expected, got): (u64, u64), out: &mut Vec<Output>) {
        out.push(Output::Event(AsyncEvent::GapDetected {
            from,
            expected,
            got,
        }));
        self.resync_reply("gap", out);
    }

    /// A replica that applied something acknowledges its offset
    /// (`REPLCONF ACK`) when a setting reads acknowledgements.
    fn ack_applied(&self, primary: usize, out: &mut Vec<Output>) {
        if self.settings.send_acks {
            out.push(Output::Send {
                to: primary,
                msg: AsyncMsg::ReplConfAck(Box::new(ReplConfAck {
                    generation: self.generation,
                    replication_id: Arc::clone(&self.replication_id),
                    offset: self.offset,
                })),
            });
        }
    }

    pub(super) fn on_stream(&mut self, from: usize, entries: &[Arc<Entry>], out: &mut Vec<Output>) {
        let Some(first) = entries.first() else {
            out.push(Output::Event(AsyncEvent::StreamDuplicate {
                from,
                offset: self.offset,
                node_offset: self.offset,
            }));
            return;
        };
        let generation = first.generation;
        if let Some(reason) = self.fence(from, generation) {
            self.reject(from, "replication_stream", reason, generation, out);
            return;
        }
        if first.replication_id != self.replication_id
            && !crate::planted::on(self.settings.planted, crate::planted::ACCEPT_ANY_PRIMARY)
        {
            self.reject(
                from,
                "replication_stream",
                "stale_replication_id",
                generation,
                out,
            );
            self.resync_reply("stale_replication_id", out);
            return;
        }
        let prev = self.offset;
        match self.apply_run(entries) {
            Err(hole) => self.gap(from, hole, out),
            Ok(0) => out.push(Output::Event(AsyncEvent::StreamDuplicate {
                from,
                offset: entries.last().map_or(prev, |e| e.offset),
                node_offset: self.offset,
            })),
            Ok(applied) => {
                self.catch_up_mode = CatchUpMode::Streaming;
                out.push(Output::Event(AsyncEvent::StreamApplied {
                    from,
                    generation,
                    prev_offset: prev,
                    entries: applied,
                    offset: self.offset,
                }));
                self.ack_applied(from, out);
            }
        }
    }

    pub(super) fn on_partial(&mut self, from: usize, m: PartialSync, out: &mut Vec<Output>) {
        let PartialSync {
            generation,
            replication_id,
            entries,
            ..
        } = m;
        if let Some(reason) = self.fence(from, generation) {
            self.reject(from, "partial_sync", reason, generation, out);
            return;
        }
        self.resync_pending = false;
        if replication_id != self.replication_id
            && !crate::planted::on(self.settings.planted, crate::planted::ACCEPT_ANY_PRIMARY)
        {
            self.reject(
                from,
                "partial_sync",
                "stale_replication_id",
                generation,
                out,
            );
            self.resync_reply("stale_replication_id", out);
            return;
        }
        let prev = self.offset;
        match self.apply_run(&entries) {
            Err(hole) => self.gap(from, hole, out),
            Ok(applied) => {
                self.catch_up_mode = CatchUpMode::Partial;
                out.push(Output::Event(AsyncEvent::PartialSyncApplied {
                    from,
                    generation,
                    prev_offset: prev,
                    entries: applied,
                    offset: self.offset,
                }));
                self.ack_applied(from, out);
            }
        }
    }

    pub(super) fn on_full(&mut self, from: usize, m: FullSync, out: &mut Vec<Output>) {
        let FullSync {
            generation,
            replication_id,
            offset,
            data,
        } = m;
        if let Some(reason) = self.fence(from, generation) {
            self.reject(from, "full_sync", reason, generation, out);
            return;
        }
        self.install(replication_id, offset, data);
        out.push(Output::Event(AsyncEvent::FullSyncApplied {
            from,
            generation,
            replication_id: Arc::clone(&self.replication_id),
            offset,
            keys: self.data.len(),
        }));
        self.ack_applied(from, out);
    }

    /// `+FULLRESYNC`: the primary's history replaces this node's.
    fn install(
        &mut self,
        replication_id: ReplicationId,
        offset: u64,
        data: BTreeMap<Bytes, Bytes>,
    ) {
        self.resync_pending = false;
        self.replication_id = replication_id;
        self.offset = offset;
        self.data = data;
        self.catch_up_mode = CatchUpMode::Full;
    }
}
