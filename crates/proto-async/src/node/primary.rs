//! The primary's half of [`AsyncNode`]: client writes, the per-replica
//! output buffers streamed every tick, `PSYNC` answers, `REPLCONF ACK` and
//! heartbeat bookkeeping (what `WAIT` and `min-replicas-to-write` count),
//! the buffers flushed on heal, and becoming the primary of a new history.

use std::sync::Arc;

use bytes::Bytes;
use replication::AckLevel;
use sim_core::Tick;

use super::{AsyncNode, Output, Peers, WriteRefused};
use crate::message::{
    AsyncMsg, Entry, FullSync, PartialSync, Psync, ReplConfAck, replication_id_for,
};
use crate::output::AsyncEvent;
use crate::role::{CatchUpMode, Role};

impl AsyncNode {
    /// A client writes `key = value` at `level` at tick `now`: a primary
    /// applies it at once and queues it in the output buffer of every other
    /// node that is up (streamed at the end of the tick), reporting
    /// [`AsyncEvent::WriteApplied`]; returns its offset. Refused, with
    /// nothing applied, at a replica ([`WriteRefused::ReadOnly`], nothing
    /// reported) and when `min-replicas-to-write` is not met
    /// ([`WriteRefused::NoReplicas`], reported as
    /// [`AsyncEvent::WriteRefused`]). The level is only recorded: nobody
    /// waits for a replica here.
    pub fn write(
        &mut self,
        now: Tick,
        key: Bytes,
        value: Bytes,
        level: AckLevel,
        peers: &impl Peers,
        out: &mut Vec<Output>,
    ) -> Result<u64, WriteRefused> {
        if self.role != Role::Primary {
            return Err(WriteRefused::ReadOnly);
        }
        let needed = self.settings.min_replicas_to_write;
        if needed > 0 {
            let good = self.good_replicas(now);
            if good < needed {
                let max_lag = self.settings.min_replicas_max_lag;
                out.push(Output::Event(AsyncEvent::WriteRefused {
                    good_replicas: good,
                    min_replicas_to_write: needed,
                    min_replicas_max_lag: max_lag,
                }));
                return Err(WriteRefused::NoReplicas {
                    good_replicas: good,
                    min_replicas_to_write: needed,
                    min_replicas_max_lag: max_lag,
                });
            }
        }
        self.offset += 1;
        self.data.insert(key.clone(), value.clone());
        let entry = Arc::new(Entry {
            generation: self.generation,
            replication_id: Arc::clone(&self.replication_id),
            offset: self.offset,
            key,
            value,
        });
        self.backlog.push(Arc::clone(&entry));
        for (j, queue) in self.output.iter_mut().enumerate() {
            if j != self.me && peers.is_up(j) {
                queue.push(Arc::clone(&entry));
            }
        }
        out.push(Output::Event(AsyncEvent::WriteApplied { level, entry }));
        Ok(self.offset)
    }

    /// Hands every non-empty output buffer to the network as one stream
    /// message; a cut link keeps the stream (as its first offset) until
    /// [`AsyncNode::flush_buffered`]. Runs whatever the role: a primary
    /// demoted since it queued still hands over what it queued (and the
    /// receivers fence it).
    pub(super) fn stream_output(&mut self, peers: &impl Peers, out: &mut Vec<Output>) {
        for j in 0..self.output.len() {
            if self.output[j].is_empty() {
                continue;
            }
            let entries = std::mem::take(&mut self.output[j]);
            let (Some(first), Some(last)) = (entries.first(), entries.last()) else {
                continue;
            };
            let (from, to) = (first.offset, last.offset);
            if !peers.can_send(self.me, j) {
                if self.buffered[j].is_none() {
                    out.push(Output::Event(AsyncEvent::StreamBuffered {
                        replica: j,
                        from_offset: from,
                    }));
                    self.buffered[j] = Some(from);
                }
                continue;
            }
            out.push(Output::Event(AsyncEvent::StreamSent {
                replica: j,
                from_offset: from,
                to_offset: to,
            }));
            out.push(Output::Send {
                to: j,
                msg: AsyncMsg::Stream(entries),
            });
        }
    }

    /// A healed link: a primary sends each kept output buffer whose link is
    /// open again from its backlog ([`AsyncEvent::StreamFlushed`]), or
    /// drops it when the backlog no longer holds its start
    /// ([`AsyncEvent::StreamBufferDiscarded`]); a replica (or a node cut
    /// off from a buffer's replica) does nothing. Returns the replicas
    /// flushed to, in position order.
    pub fn flush_buffered(&mut self, peers: &impl Peers, out: &mut Vec<Output>) -> Vec<usize> {
        let mut flushed = Vec::new();
        if self.role != Role::Primary {
            return flushed;
        }
        for replica in 0..self.buffered.len() {
            let Some(from) = self.buffered[replica] else {
                continue;
            };
            if !peers.can_send(self.me, replica) {
                continue;
            }
            self.buffered[replica] = None;
            if !self.backlog.covers(from, self.offset) || from > self.offset {
                out.push(Output::Event(AsyncEvent::StreamBufferDiscarded {
                    replica,
                    from_offset: from,
                    backlog_start: self.backlog.first_offset(),
                }));
                continue;
            }
            let entries = self.backlog.entries_from(from);
            out.push(Output::Event(AsyncEvent::StreamFlushed {
                replica,
                from_offset: from,
                to_offset: self.offset,
            }));
            flushed.push(replica);
            if !entries.is_empty() {
                out.push(Output::Send {
                    to: replica,
                    msg: AsyncMsg::Stream(entries),
                });
            }
        }
        flushed
    }

    /// `PSYNC` from replica `from`: `+CONTINUE` with the backlog when it
    /// holds this history and its next offset is still retained (or it is
    /// level), `+FULLRESYNC` otherwise. Refused by a replica and across
    /// generations. Answering counts as hearing from the replica.
    pub(super) fn on_psync(&mut self, now: Tick, from: usize, m: &Psync, out: &mut Vec<Output>) {
        let refusal = if self.role != Role::Primary {
            Some("not_primary")
        } else if m.generation != self.generation {
            Some("stale_generation")
        } else {
            None
        };
        if let Some(reason) = refusal {
            out.push(Output::Event(AsyncEvent::PsyncRefused { from, reason }));
            return;
        }
        let next = m.next_offset;
        let partial =
            m.replication_id == self.replication_id && self.backlog.covers(next, self.offset);
        let (mode, reply) = if partial {
            (
                CatchUpMode::Partial,
                AsyncMsg::PartialSync(Box::new(PartialSync {
                    generation: self.generation,
                    replication_id: Arc::clone(&self.replication_id),
                    offset: self.offset,
                    entries: self.backlog.entries_from(next),
                })),
            )
        } else {
            (
                CatchUpMode::Full,
                AsyncMsg::FullSync(Box::new(FullSync {
                    generation: self.generation,
                    replication_id: Arc::clone(&self.replication_id),
                    offset: self.offset,
                    data: self.data.clone(),
                })),
            )
        };
        out.push(Output::Event(AsyncEvent::ResyncServed {
            replica: from,
            mode,
            next_offset: next,
            offset: self.offset,
        }));
        self.last_heard[from] = Some(now);
        out.push(Output::Send {
            to: from,
            msg: reply,
        });
    }

    /// `REPLCONF ACK` from replica `from`: recorded (never beyond this
    /// primary's own offset) when it is of this primary's generation and
    /// history; counts as hearing from the replica.
    pub(super) fn on_ack(
        &mut self,
        now: Tick,
        from: usize,
        ack: &ReplConfAck,
        out: &mut Vec<Output>,
    ) {
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
            out.push(Output::Event(AsyncEvent::MessageRejected {
                from,
                msg: "replconf_ack",
                reason,
                msg_generation: ack.generation,
                node_generation: self.generation,
            }));
            return;
        }
        let acked = self.replica_acks[from]
            .unwrap_or(0)
            .max(ack.offset.min(self.offset));
        self.replica_acks[from] = Some(acked);
        out.push(Output::Event(AsyncEvent::AckReceived {
            replica: from,
            offset: acked,
        }));
        self.last_heard[from] = Some(now);
    }

    /// Replica `from`'s heartbeat of `generation` reached this node at
    /// `now`: a primary of that generation has heard from it.
    pub fn on_heartbeat(&mut self, now: Tick, from: usize, generation: u64) {
        if self.role == Role::Primary && generation == self.generation {
            self.last_heard[from] = Some(now);
        }
    }

    /// How many replicas acknowledged `offset` or beyond (what `WAIT`
    /// counts).
    #[must_use]
    pub fn acked_at_least(&self, offset: u64) -> usize {
        self.replica_acks
            .iter()
            .filter(|a| a.is_some_and(|o| o >= offset))
            .count()
    }

    /// Replicas heard from at `now - min-replicas-max-lag` or later.
    #[must_use]
    pub fn good_replicas(&self, now: Tick) -> usize {
        let max_lag = self.settings.min_replicas_max_lag;
        self.last_heard
            .iter()
            .filter(|h| h.is_some_and(|t| now.saturating_sub(t) <= max_lag))
            .count()
    }

    /// The sentinel makes this node the primary of `generation`
    /// (`REPLICAOF NO ONE`): a new replication id `repl-<generation>`, the
    /// backlog and kept buffers cleared, nothing acknowledged or heard yet;
    /// it keeps its data and offset.
    pub fn become_primary(&mut self, generation: u64) {
        self.role = Role::Primary;
        self.following = None;
        self.generation = generation;
        self.replication_id = replication_id_for(generation);
        self.backlog.clear();
        self.buffered.iter_mut().for_each(|b| *b = None);
        self.resync_pending = false;
        self.lost_history = false;
        self.forget_replicas();
    }
}
