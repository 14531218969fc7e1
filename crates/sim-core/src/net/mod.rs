//! The simulated network: seeded delays, drops, reordering and partitions.

use std::collections::BTreeSet;

mod config;

pub use config::{NetConfig, Transport};

use crate::clock::Tick;
use crate::error::SimError;
use crate::node::NodeId;
use crate::record;
use crate::rng::Rng;
use crate::scheduler::Scheduler;
use crate::trace::Trace;

/// What a message must tell the network about itself: a short stable label
/// used in `message_sent` / `message_delivered` / `message_dropped` events.
pub trait Payload {
    /// Stable snake_case name of the message type, e.g. `append_entries`.
    fn label(&self) -> &'static str;

    /// A copy for a datagram network to deliver twice
    /// ([`NetConfig::duplicate_rate`]); `None` (the default) means this
    /// message type is never duplicated. Implement it as
    /// `Some(self.clone())` to let the network duplicate it.
    fn duplicate(&self) -> Option<Self>
    where
        Self: Sized,
    {
        None
    }
}

/// Sequential id of a message, unique within one network.
pub type MessageId = u64;

/// A message in flight.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Envelope<M> {
    /// The message's sequential id.
    pub id: MessageId,
    /// Sender.
    pub src: NodeId,
    /// Receiver.
    pub dst: NodeId,
    /// Tick at which it was sent.
    pub sent_at: Tick,
    /// The message itself.
    pub msg: M,
}

/// The network: a queue of [`Envelope`]s on a [`Scheduler`] (which also owns
/// the clock) plus the set of cut directional links.
///
/// `send` records `message_sent`, then either drops the message
/// (`message_dropped` with reason `partition` or `seeded_drop`) or schedules
/// it after a seeded delay. [`SimNet::next_delivery`] pops due messages,
/// dropping those whose link is cut at delivery time
/// (`partition_at_delivery`) and recording `message_delivered` for the rest.
pub struct SimNet<M> {
    config: NetConfig,
    queue: Scheduler<Envelope<M>>,
    cut: BTreeSet<(NodeId, NodeId)>,
    next_id: MessageId,
    /// Stream only: the tick the last message on each directed link is due
    /// (a later one is never due earlier).
    link_due: std::collections::BTreeMap<(NodeId, NodeId), Tick>,
    /// Sends dropped at capacity.
    overflowed: u64,
}

impl<M: Payload> SimNet<M> {
    /// A network at tick 0 with `config`, or a [`SimError::Config`].
    pub fn new(config: NetConfig) -> Result<Self, SimError> {
        config.validate()?;
        Ok(SimNet {
            config,
            queue: Scheduler::new(),
            cut: BTreeSet::new(),
            next_id: 0,
            link_due: std::collections::BTreeMap::new(),
            overflowed: 0,
        })
    }

    /// The settings in force.
    pub fn config(&self) -> &NetConfig {
        &self.config
    }

    /// Replaces the settings (e.g. an explorer's network profile), or a
    /// [`SimError::Config`]; only while nothing is in flight, so no message
    /// is judged by two settings.
    pub fn set_config(&mut self, config: NetConfig) -> Result<(), SimError> {
        config.validate()?;
        if !self.queue.is_empty() {
            return Err(SimError::Config {
                setting: "transport",
                reason: format!(
                    "{} messages are in flight; change the network before anything is sent",
                    self.queue.len()
                ),
            });
        }
        self.config = config;
        self.link_due.clear();
        Ok(())
    }

    /// The current tick.
    pub fn now(&self) -> Tick {
        self.queue.now()
    }

    /// Advances the clock one tick; then drain [`SimNet::next_delivery`].
    pub fn advance(&mut self) -> Tick {
        self.queue.advance()
    }

    /// Sends `msg` from `src` to `dst`; returns its id whether or not it was
    /// dropped.
    pub fn send(
        &mut self,
        src: &NodeId,
        dst: &NodeId,
        msg: M,
        rng: &mut Rng,
        trace: &mut Trace,
    ) -> MessageId {
        let id = self.next_id;
        self.next_id += 1;
        let now = self.queue.now();
        let label = msg.label();
        record!(
            trace,
            now,
            "message_sent",
            id = id,
            src = src,
            dst = dst,
            msg = label
        );
        let reason = if self.is_cut(src, dst) {
            Some("partition")
        } else if self.queue.len() >= self.config.capacity {
            self.overflowed += 1;
            Some("network_full")
        } else if rng.chance(self.config.drop_rate) {
            Some("seeded_drop")
        } else {
            None
        };
        if let Some(reason) = reason {
            record!(
                trace,
                now,
                "message_dropped",
                id = id,
                src = src,
                dst = dst,
                msg = label,
                reason = reason
            );
            return id;
        }
        let envelope = Envelope {
            id,
            src: src.clone(),
            dst: dst.clone(),
            sent_at: now,
            msg,
        };
        match self.config.transport {
            Transport::Datagram => {
                let due = now + self.datagram_delay(rng);
                if rng.chance(self.config.duplicate_rate)
                    && let Some(copy) = envelope.msg.duplicate()
                {
                    let copy_due = now + self.datagram_delay(rng);
                    record!(
                        trace,
                        now,
                        "message_duplicated",
                        id = id,
                        src = src,
                        dst = dst,
                        msg = label
                    );
                    self.queue.schedule_at(
                        copy_due,
                        Envelope {
                            id,
                            src: src.clone(),
                            dst: dst.clone(),
                            sent_at: now,
                            msg: copy,
                        },
                    );
                }
                self.queue.schedule_at(due, envelope);
            }
            Transport::Stream => {
                let mut delay = self.base_delay(rng);
                if rng.chance(self.config.stall_rate) {
                    delay += rng.range_inclusive(1, self.config.stall_ticks);
                }
                let link = (src.clone(), dst.clone());
                let due = self
                    .link_due
                    .get(&link)
                    .map_or(now + delay, |&last| last.max(now + delay));
                self.link_due.insert(link, due);
                self.queue.schedule_at(due, envelope);
            }
        }
        id
    }

    /// A seeded delay in `[min_delay, max_delay]` (no draw when fixed).
    fn base_delay(&self, rng: &mut Rng) -> u64 {
        if self.config.min_delay == self.config.max_delay {
            self.config.min_delay
        } else {
            rng.range_inclusive(self.config.min_delay, self.config.max_delay)
        }
    }

    /// A datagram's delay: the base delay plus, when reordered, a seeded
    /// extra that lets later messages overtake it.
    fn datagram_delay(&self, rng: &mut Rng) -> u64 {
        let mut delay = self.base_delay(rng);
        if rng.chance(self.config.reorder_rate) {
            delay += rng.range_inclusive(1, self.config.reorder_jitter);
        }
        delay
    }

    /// The next message due now whose link is still open. Messages whose
    /// link was cut while they were in flight are dropped here with reason
    /// `partition_at_delivery`.
    pub fn next_delivery(&mut self, trace: &mut Trace) -> Option<Envelope<M>> {
        loop {
            let env = self.queue.pop_due()?;
            let now = self.queue.now();
            if self.is_cut(&env.src, &env.dst) {
                record!(
                    trace,
                    now,
                    "message_dropped",
                    id = env.id,
                    src = &env.src,
                    dst = &env.dst,
                    msg = env.msg.label(),
                    reason = "partition_at_delivery"
                );
                continue;
            }
            record!(
                trace,
                now,
                "message_delivered",
                id = env.id,
                src = &env.src,
                dst = &env.dst,
                msg = env.msg.label()
            );
            return Some(env);
        }
    }

    /// Records that the owner discarded a delivered message (e.g. its
    /// receiver is down), with `reason`.
    pub fn record_discard(&self, env: &Envelope<M>, reason: &'static str, trace: &mut Trace) {
        record!(
            trace,
            self.queue.now(),
            "message_dropped",
            id = env.id,
            src = &env.src,
            dst = &env.dst,
            msg = env.msg.label(),
            reason = reason
        );
    }

    /// True when messages from `src` to `dst` are currently dropped.
    #[inline]
    pub fn is_cut(&self, src: &NodeId, dst: &NodeId) -> bool {
        !self.cut.is_empty() && self.cut.contains(&(src.clone(), dst.clone()))
    }

    /// Replaces the set of cut directional links with `cuts` and returns the
    /// links cut now that were open before, in order. On a
    /// [`Transport::Stream`] network each such link's connection resets:
    /// everything in flight on it is dropped now (`connection_reset`, and a
    /// `message_dropped` with that reason per message, in id order) — it is
    /// never delivered, even if the link is restored before it was due.
    pub fn set_cuts(
        &mut self,
        cuts: BTreeSet<(NodeId, NodeId)>,
        trace: &mut Trace,
    ) -> Vec<(NodeId, NodeId)> {
        let newly: Vec<(NodeId, NodeId)> = cuts.difference(&self.cut).cloned().collect();
        self.cut = cuts;
        if self.config.transport == Transport::Stream {
            let now = self.queue.now();
            for (src, dst) in &newly {
                record!(trace, now, "connection_reset", src = src, dst = dst);
                self.link_due.remove(&(src.clone(), dst.clone()));
                self.discard_where(
                    |env| env.src == *src && env.dst == *dst,
                    "connection_reset",
                    trace,
                );
            }
        }
        newly
    }

    /// Cuts the link from `src` to `dst` (one direction only). Messages in
    /// flight on it are dropped at delivery if it is still cut then (use
    /// [`SimNet::set_cuts`] for a stream's connection reset).
    pub fn partition(&mut self, src: &NodeId, dst: &NodeId) {
        self.cut.insert((src.clone(), dst.clone()));
    }

    /// Restores the link from `src` to `dst` (one direction only).
    pub fn heal(&mut self, src: &NodeId, dst: &NodeId) {
        self.cut.remove(&(src.clone(), dst.clone()));
    }

    /// Cuts both directions between `a` and `b`.
    pub fn partition_both(&mut self, a: &NodeId, b: &NodeId) {
        self.partition(a, b);
        self.partition(b, a);
    }

    /// Restores both directions between `a` and `b`.
    pub fn heal_both(&mut self, a: &NodeId, b: &NodeId) {
        self.heal(a, b);
        self.heal(b, a);
    }

    /// Cuts `node` from every one of `peers`, both ways.
    pub fn isolate<'a>(&mut self, node: &NodeId, peers: impl IntoIterator<Item = &'a NodeId>) {
        for peer in peers {
            if peer != node {
                self.partition_both(node, peer);
            }
        }
    }

    /// Restores every cut link touching `node`.
    pub fn heal_node(&mut self, node: &NodeId) {
        self.cut.retain(|(a, b)| a != node && b != node);
    }

    /// Restores every link.
    pub fn heal_all(&mut self) {
        self.cut.clear();
    }

    /// True when `node` has any cut link (in either direction).
    pub fn is_isolated_any(&self, node: &NodeId) -> bool {
        self.cut.iter().any(|(a, b)| a == node || b == node)
    }

    /// The messages in flight, in no particular order (for inspection and
    /// counting; never let this order reach a trace).
    pub fn pending(&self) -> impl Iterator<Item = &Envelope<M>> {
        self.queue.pending()
    }

    /// Number of messages in flight.
    pub fn in_flight(&self) -> usize {
        self.queue.len()
    }

    /// Messages dropped because [`NetConfig::capacity`] were in flight.
    pub fn overflowed(&self) -> u64 {
        self.overflowed
    }

    /// Drops, without delivering, every queued message for which `lose`
    /// returns true, recording each with `reason` (in id order, so the trace
    /// is deterministic).
    pub fn discard_where(
        &mut self,
        mut lose: impl FnMut(&Envelope<M>) -> bool,
        reason: &'static str,
        trace: &mut Trace,
    ) {
        let mut lost: Vec<(MessageId, NodeId, NodeId, &'static str)> = self
            .queue
            .pending()
            .filter(|env| lose(env))
            .map(|env| (env.id, env.src.clone(), env.dst.clone(), env.msg.label()))
            .collect();
        if lost.is_empty() {
            return;
        }
        lost.sort_by_key(|(id, ..)| *id);
        let ids: BTreeSet<MessageId> = lost.iter().map(|(id, ..)| *id).collect();
        self.queue.retain(|env| !ids.contains(&env.id));
        let now = self.queue.now();
        for (id, src, dst, label) in lost {
            record!(
                trace,
                now,
                "message_dropped",
                id = id,
                src = src,
                dst = dst,
                msg = label,
                reason = reason
            );
        }
    }
}
