//! The network side of the group: output buffers, sending, delivery and
//! ticking. Only the group sends and delivers; nodes return what to send.

use std::sync::Arc;

use replication::GroupError;
use sim_core::{NodeId, record};

use crate::group::AsyncPrimaryGroup;
use crate::message::{AsyncMsg, Entry};
use crate::node::{Outcome, Step};
use crate::role::Role;

impl AsyncPrimaryGroup {
    /// Queues `entry` from primary `p` for every other alive node; it goes
    /// on the wire at the next tick.
    pub(crate) fn stream(&mut self, p: usize, entry: Arc<Entry>) {
        for (j, node) in self.nodes.iter().enumerate() {
            if j != p && node.alive {
                self.outbox[p][j].push(Arc::clone(&entry));
            }
        }
    }

    /// True when some entry waits in an output buffer.
    pub(crate) fn outbox_pending(&self) -> bool {
        self.outbox.iter().flatten().any(|queue| !queue.is_empty())
    }

    /// Hands every output buffer to the network as one stream message per
    /// link; a cut link keeps the stream in the primary's output buffer
    /// (delivered from the backlog when the link heals, if still there).
    fn flush_outboxes(&mut self) {
        let n = self.nodes.len();
        for p in 0..n {
            for j in 0..n {
                if self.outbox[p][j].is_empty() {
                    continue;
                }
                let entries = std::mem::take(&mut self.outbox[p][j]);
                let (Some(first), Some(last)) = (entries.first(), entries.last()) else {
                    continue;
                };
                let (from, to) = (first.offset, last.offset);
                if self.net.is_cut(&self.nodes[p].id, &self.nodes[j].id) {
                    if !self.nodes[p].buffered.contains_key(&self.nodes[j].id) {
                        let dst = self.nodes[j].id.clone();
                        record!(
                            self.trace,
                            self.net.now(),
                            "async_stream_buffered",
                            primary = &self.nodes[p].id,
                            replica = &dst,
                            from_offset = from
                        );
                        self.nodes[p].buffered.insert(dst, from);
                    }
                    continue;
                }
                record!(
                    self.trace,
                    self.net.now(),
                    "async_stream_sent",
                    primary = &self.nodes[p].id,
                    replica = &self.nodes[j].id,
                    from_offset = from,
                    to_offset = to
                );
                self.net.send(
                    &self.nodes[p].id,
                    &self.nodes[j].id,
                    AsyncMsg::Stream(entries),
                    &mut self.rng,
                    &mut self.trace,
                );
            }
        }
    }

    /// Sends `msg` from node `src` to `dst` if `dst` is alive.
    pub(crate) fn send(&mut self, src: usize, dst: &NodeId, msg: AsyncMsg) {
        let alive = self.nodes.iter().any(|n| n.id == *dst && n.alive);
        if alive {
            self.net.send(
                &self.nodes[src].id,
                dst,
                msg,
                &mut self.rng,
                &mut self.trace,
            );
        }
    }

    /// Makes replica `r` send `PSYNC` to the primary it follows (if that
    /// primary is alive), recording why.
    pub(crate) fn request_resync(&mut self, r: usize, reason: &'static str) {
        let target_alive = self.nodes[r]
            .following
            .as_ref()
            .is_some_and(|p| self.nodes.iter().any(|n| n.id == *p && n.alive));
        if !self.nodes[r].alive || !target_alive {
            return;
        }
        if let Some((primary, msg)) = self.nodes[r].psync() {
            self.record_resync_request(r, &primary, reason);
            self.send(r, &primary, msg);
        }
    }

    fn record_resync_request(&mut self, r: usize, primary: &NodeId, reason: &'static str) {
        let node = &self.nodes[r];
        record!(
            self.trace,
            self.net.now(),
            "async_resync_requested",
            node = &node.id,
            primary = primary,
            reason = reason,
            replication_id = node.replication_id.to_string(),
            next_offset = node.offset + 1
        );
    }

    /// Delivers every message due now.
    pub(crate) fn deliver_due(&mut self) {
        while let Some(env) = self.net.next_delivery(&mut self.trace) {
            let Some(d) = self.nodes.iter().position(|n| n.id == env.dst) else {
                continue;
            };
            if !self.nodes[d].alive {
                self.net.record_discard(&env, "node_down", &mut self.trace);
                continue;
            }
            let label = sim_core::Payload::label(&env.msg);
            let msg_generation = env.msg.generation();
            let step = self.nodes[d].on_message(&env.src, env.msg);
            self.record_step(d, &env.src, label, msg_generation, &step);
            match step.outcome {
                // A primary hears from a replica through its PSYNC or ACK.
                Outcome::Served { .. } | Outcome::AckRecorded { .. } => {
                    let now = self.net.now();
                    self.nodes[d].last_heard.insert(env.src.clone(), now);
                }
                // A replica that applied something acknowledges its offset
                // (REPLCONF ACK) when a setting reads acknowledgements.
                Outcome::StreamApplied { .. }
                | Outcome::PartialApplied { .. }
                | Outcome::FullApplied { .. }
                    if self.config.replicas_ack() =>
                {
                    let ack = self.nodes[d].ack();
                    self.send(d, &env.src, ack);
                }
                _ => {}
            }
            if let Some(reply) = step.reply {
                if let AsyncMsg::Psync(_) = reply {
                    let reason = match step.outcome {
                        Outcome::Gap { .. } => "gap",
                        _ => "stale_replication_id",
                    };
                    self.record_resync_request(d, &env.src, reason);
                }
                self.send(d, &env.src, reply);
            }
        }
    }

    fn record_step(
        &mut self,
        d: usize,
        src: &NodeId,
        label: &'static str,
        msg_generation: u64,
        step: &Step,
    ) {
        if !self.trace.is_enabled() {
            return;
        }
        let now = self.net.now();
        let node = &self.nodes[d];
        let t = &mut self.trace;
        match step.outcome {
            Outcome::StreamApplied {
                prev,
                applied,
                offset,
            } => record!(
                t,
                now,
                "async_stream_applied",
                node = &node.id,
                from = src,
                generation = msg_generation,
                prev_offset = prev,
                entries = applied,
                offset = offset
            ),
            Outcome::Duplicate { offset } => record!(
                t,
                now,
                "async_stream_duplicate",
                node = &node.id,
                from = src,
                offset = offset,
                node_offset = node.offset
            ),
            Outcome::Rejected { reason } => record!(
                t,
                now,
                "async_message_rejected",
                node = &node.id,
                from = src,
                msg = label,
                reason = reason,
                msg_generation = msg_generation,
                node_generation = node.generation
            ),
            Outcome::Gap { expected, got } => record!(
                t,
                now,
                "async_gap_detected",
                node = &node.id,
                from = src,
                expected = expected,
                got = got
            ),
            Outcome::PartialApplied {
                prev,
                applied,
                offset,
            } => record!(
                t,
                now,
                "async_partial_sync_applied",
                node = &node.id,
                from = src,
                generation = msg_generation,
                prev_offset = prev,
                entries = applied,
                offset = offset
            ),
            Outcome::FullApplied { offset, keys } => record!(
                t,
                now,
                "async_full_sync_applied",
                node = &node.id,
                from = src,
                generation = msg_generation,
                replication_id = node.replication_id.to_string(),
                offset = offset,
                keys = keys
            ),
            Outcome::Served { mode, next_offset } => record!(
                t,
                now,
                "async_resync_served",
                node = &node.id,
                replica = src,
                mode = mode.name(),
                next_offset = next_offset,
                offset = node.offset
            ),
            Outcome::AckRecorded { offset } => record!(
                t,
                now,
                "async_ack_received",
                node = &node.id,
                replica = src,
                offset = offset
            ),
            Outcome::PsyncRefused { reason } => record!(
                t,
                now,
                "async_psync_refused",
                node = &node.id,
                from = src,
                reason = reason
            ),
        }
    }

    /// Flushes the output buffers, advances one tick, delivers what is
    /// due, then re-evaluates the operations in flight.
    pub(crate) fn step_tick(&mut self) {
        self.flush_outboxes();
        self.net.advance();
        self.deliver_due();
        self.heartbeat();
        self.settle_pending();
    }

    /// With `min-replicas-to-write` set: every primary hears, this tick,
    /// from each alive replica that follows it and can reach it (Redis'
    /// once-a-second `REPLCONF ACK`, modelled without a message so an idle
    /// group stays idle).
    fn heartbeat(&mut self) {
        if self.config.min_replicas_to_write == 0 {
            return;
        }
        let now = self.net.now();
        for p in 0..self.nodes.len() {
            if !self.nodes[p].alive || self.nodes[p].role != Role::Primary {
                continue;
            }
            for r in 0..self.nodes.len() {
                let replica = &self.nodes[r];
                let heard = r != p
                    && replica.alive
                    && replica.following.as_ref() == Some(&self.nodes[p].id)
                    && replica.generation == self.nodes[p].generation
                    && !self.net.is_cut(&replica.id, &self.nodes[p].id);
                if heard {
                    let id = replica.id.clone();
                    self.nodes[p].last_heard.insert(id, now);
                }
            }
        }
    }

    /// Ticks until no message is in flight or buffered, at most
    /// `max_ticks` ticks.
    pub(crate) fn run_idle(&mut self, max_ticks: u64) -> Result<u64, GroupError> {
        let mut ticks = 0;
        while self.net.in_flight() > 0 || self.outbox_pending() {
            if ticks >= max_ticks {
                return Err(GroupError::NotIdle {
                    ticks: max_ticks,
                    waiting_for: format!(
                        "{} replication messages in flight, output buffers {}",
                        self.net.in_flight(),
                        if self.outbox_pending() {
                            "not empty"
                        } else {
                            "empty"
                        }
                    ),
                });
            }
            self.step_tick();
            ticks += 1;
        }
        Ok(ticks)
    }
}
