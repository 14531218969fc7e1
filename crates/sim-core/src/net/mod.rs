//! The simulated network: seeded delays, drops, reordering and partitions.

use std::collections::BTreeSet;

mod config;
mod link_due;

pub use config::{NetConfig, Transport};

use crate::clock::Tick;
use crate::error::SimError;
use crate::node::NodeId;
use crate::record;
use crate::rng::Rng;
use crate::scheduler::Scheduler;
use crate::trace::Trace;
use link_due::LinkDue;

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

/// A message in flight; its ends named by `Id` — a [`NodeId`], a
/// `&NodeId` ([`SimNet::pending`]), or a position in [`SimNet::nodes`]
/// ([`SimNet::next_delivery_at`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Envelope<M, Id = NodeId> {
    /// The message's sequential id.
    pub id: MessageId,
    /// Sender.
    pub src: Id,
    /// Receiver.
    pub dst: Id,
    /// Tick at which it was sent.
    pub sent_at: Tick,
    /// The message itself.
    pub msg: M,
}

/// How the queue holds a message: its ends as positions in
/// [`SimNet::nodes`], so sending and delivering touch no shared name.
type Queued<M> = Envelope<M, u32>;

/// The network: a queue of [`Envelope`]s on a [`Scheduler`] (which also owns
/// the clock) plus the set of cut directional links.
///
/// `send` records `message_sent`, then either drops the message
/// (`message_dropped` with reason `partition` or `seeded_drop`) or schedules
/// it after a seeded delay. [`SimNet::next_delivery`] pops due messages,
/// dropping those whose link is cut at delivery time
/// (`partition_at_delivery`) and recording `message_delivered` for the rest.
#[derive(Clone)]
pub struct SimNet<M> {
    config: NetConfig,
    queue: Scheduler<Queued<M>>,
    cut: BTreeSet<(NodeId, NodeId)>,
    next_id: MessageId,
    /// Stream only: the tick the last message on each directed link (as
    /// positions in `nodes`) is due (a later one is never due earlier).
    link_due: LinkDue,
    /// Sends dropped at capacity.
    overflowed: u64,
    /// Every node registered or sent between, in that order.
    nodes: Vec<NodeId>,
    /// Steering: `Some` while the network holds what is sent until a
    /// chooser releases it ([`SimNet::hold`]), in send order.
    held: Option<Vec<Queued<M>>>,
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
            link_due: LinkDue::default(),
            overflowed: 0,
            nodes: Vec::new(),
            held: None,
        })
    }

    /// Gives each of `nodes` not known yet the next position in
    /// [`SimNet::nodes`] (a network's first registered nodes are at
    /// positions `0..n`, in order). A node first named by a send is
    /// registered then.
    pub fn register<'a>(&mut self, nodes: impl IntoIterator<Item = &'a NodeId>) {
        for node in nodes {
            self.intern(node);
        }
    }

    /// Every node the network knows, by position (see
    /// [`SimNet::register`]).
    pub fn nodes(&self) -> &[NodeId] {
        &self.nodes
    }

    /// The position of `node`: the same id (a clone of a registered one)
    /// is found without reading names; an equal one by name.
    fn position(&self, node: &NodeId) -> Option<u32> {
        self.nodes
            .iter()
            .position(|n| n.same(node))
            .or_else(|| self.nodes.iter().position(|n| n == node))
            .map(|i| i as u32)
    }

    /// The position of `node`, registering it when new.
    fn intern(&mut self, node: &NodeId) -> u32 {
        self.position(node).unwrap_or_else(|| {
            self.nodes.push(node.clone());
            (self.nodes.len() - 1) as u32
        })
    }

    /// The node at position `i` (positions only come from this network).
    fn node(&self, i: u32) -> &NodeId {
        &self.nodes[i as usize]
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
        if self.in_flight() > 0 {
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

    /// Messages sent so far, dropped ones included (the next message's id).
    pub fn messages_sent(&self) -> u64 {
        self.next_id
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
        let (src, dst) = (self.intern(src), self.intern(dst));
        self.send_at(src as usize, dst as usize, msg, rng, trace)
    }

    /// [`SimNet::send`] between the nodes at positions `src` and `dst` of
    /// [`SimNet::nodes`] (no name is cloned or looked up).
    ///
    /// # Panics
    ///
    /// When `src` or `dst` is not a position of [`SimNet::nodes`] (a caller
    /// bug: positions come from [`SimNet::register`]'s order).
    #[inline]
    pub fn send_at(
        &mut self,
        src: usize,
        dst: usize,
        msg: M,
        rng: &mut Rng,
        trace: &mut Trace,
    ) -> MessageId {
        // The names are read while the queue changes: set them aside.
        let nodes = std::mem::take(&mut self.nodes);
        let id = self.send_named(
            &nodes[src],
            &nodes[dst],
            (src as u32, dst as u32),
            msg,
            rng,
            trace,
        );
        self.nodes = nodes;
        id
    }

    fn send_named(
        &mut self,
        src: &NodeId,
        dst: &NodeId,
        (src_at, dst_at): (u32, u32),
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
        } else if self.in_flight() >= self.config.capacity {
            self.overflowed += 1;
            Some("network_full")
        } else if self.held.is_none() && rng.chance(self.config.drop_rate) {
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
            src: src_at,
            dst: dst_at,
            sent_at: now,
            msg,
        };
        if let Some(held) = &mut self.held {
            held.push(envelope);
            return id;
        }
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
                            src: src_at,
                            dst: dst_at,
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
                let due = self.link_due.fifo(src_at, dst_at, now + delay);
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
        let env = self.next_delivery_at(trace)?;
        Some(Envelope {
            id: env.id,
            src: self.nodes[env.src].clone(),
            dst: self.nodes[env.dst].clone(),
            sent_at: env.sent_at,
            msg: env.msg,
        })
    }

    /// [`SimNet::next_delivery`] with the ends as positions in
    /// [`SimNet::nodes`] (no name is cloned).
    #[inline]
    pub fn next_delivery_at(&mut self, trace: &mut Trace) -> Option<Envelope<M, usize>> {
        loop {
            let env = self.queue.pop_due()?;
            let now = self.queue.now();
            let (src, dst) = (self.node(env.src), self.node(env.dst));
            if self.is_cut(src, dst) {
                record!(
                    trace,
                    now,
                    "message_dropped",
                    id = env.id,
                    src = src,
                    dst = dst,
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
                src = src,
                dst = dst,
                msg = env.msg.label()
            );
            return Some(Envelope {
                id: env.id,
                src: env.src as usize,
                dst: env.dst as usize,
                sent_at: env.sent_at,
                msg: env.msg,
            });
        }
    }

    /// Records that the owner discarded a delivered message (e.g. its
    /// receiver is down), with `reason`.
    pub fn record_discard(&self, env: &Envelope<M>, reason: &'static str, trace: &mut Trace) {
        self.record_dropped(env.id, &env.src, &env.dst, env.msg.label(), reason, trace);
    }

    /// [`SimNet::record_discard`] of a message from
    /// [`SimNet::next_delivery_at`].
    pub fn record_discard_at(
        &self,
        env: &Envelope<M, usize>,
        reason: &'static str,
        trace: &mut Trace,
    ) {
        let (src, dst) = (&self.nodes[env.src], &self.nodes[env.dst]);
        self.record_dropped(env.id, src, dst, env.msg.label(), reason, trace);
    }

    fn record_dropped(
        &self,
        id: MessageId,
        src: &NodeId,
        dst: &NodeId,
        label: &'static str,
        reason: &'static str,
        trace: &mut Trace,
    ) {
        record!(
            trace,
            self.queue.now(),
            "message_dropped",
            id = id,
            src = src,
            dst = dst,
            msg = label,
            reason = reason
        );
    }

    /// True when messages from `src` to `dst` are currently dropped.
    #[inline]
    pub fn is_cut(&self, src: &NodeId, dst: &NodeId) -> bool {
        // Usually nothing is cut: that check is inlined, the lookup not.
        !self.cut.is_empty() && self.cut_contains(src, dst)
    }

    /// A scan, not a lookup: a cut set holds a few links, and a lookup
    /// would clone both names (two reference-count updates each way).
    fn cut_contains(&self, src: &NodeId, dst: &NodeId) -> bool {
        self.cut.iter().any(|(a, b)| a == src && b == dst)
    }

    /// True when some link is cut.
    pub fn has_cuts(&self) -> bool {
        !self.cut.is_empty()
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
                if let (Some(a), Some(b)) = (self.position(src), self.position(dst)) {
                    self.link_due.reset(a, b);
                }
                self.discard_where(
                    |env| env.src == src && env.dst == dst,
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
    pub fn pending(&self) -> impl Iterator<Item = Envelope<&M, &NodeId>> {
        self.queue
            .pending()
            .chain(self.held.iter().flatten())
            .map(|env| self.view(env))
    }

    /// The messages in flight in the order the network hands them over:
    /// the scheduled ones by due tick, then send order, each with its due
    /// tick; then the held ones in send order, with no due tick (a
    /// chooser decides). Ends as positions in [`SimNet::nodes`]. Two
    /// networks that list the same messages here deliver them alike
    /// (what [`SimNet::pending`], in no order, cannot say).
    pub fn in_delivery_order(&self) -> Vec<(Option<Tick>, Envelope<&M, usize>)> {
        fn view<M>(env: &Queued<M>) -> Envelope<&M, usize> {
            Envelope {
                id: env.id,
                src: env.src as usize,
                dst: env.dst as usize,
                sent_at: env.sent_at,
                msg: &env.msg,
            }
        }
        let scheduled = self.queue.in_order().into_iter();
        let held = self.held.iter().flatten();
        scheduled
            .map(|(due, env)| (Some(due), view(env)))
            .chain(held.map(|env| (None, view(env))))
            .collect()
    }

    /// A queued message with its ends by name.
    fn view<'a>(&'a self, env: &'a Queued<M>) -> Envelope<&'a M, &'a NodeId> {
        Envelope {
            id: env.id,
            src: self.node(env.src),
            dst: self.node(env.dst),
            sent_at: env.sent_at,
            msg: &env.msg,
        }
    }

    /// Number of messages in flight.
    pub fn in_flight(&self) -> usize {
        self.queue.len() + self.held.as_ref().map_or(0, Vec::len)
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
        mut lose: impl FnMut(&Envelope<&M, &NodeId>) -> bool,
        reason: &'static str,
        trace: &mut Trace,
    ) {
        let mut lost: Vec<(MessageId, u32, u32, &'static str)> = self
            .queue
            .pending()
            .chain(self.held.iter().flatten())
            .filter(|env| lose(&self.view(env)))
            .map(|env| (env.id, env.src, env.dst, env.msg.label()))
            .collect();
        if lost.is_empty() {
            return;
        }
        lost.sort_by_key(|(id, ..)| *id);
        let ids: BTreeSet<MessageId> = lost.iter().map(|(id, ..)| *id).collect();
        self.queue.retain(|env| !ids.contains(&env.id));
        if let Some(held) = &mut self.held {
            held.retain(|env| !ids.contains(&env.id));
        }
        for (id, src, dst, label) in lost {
            self.record_dropped(id, self.node(src), self.node(dst), label, reason, trace);
        }
    }
}

/// A message the network holds for a chooser ([`SimNet::hold`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Held<'a, M> {
    /// Its id.
    pub id: MessageId,
    /// Sender and receiver, as positions in [`SimNet::nodes`].
    pub src: usize,
    /// Receiver.
    pub dst: usize,
    /// The message.
    pub msg: &'a M,
    /// True when it may be delivered next: on a datagram network always,
    /// on a stream only the oldest held message of its link (FIFO).
    pub deliverable: bool,
}

impl<M: Payload> SimNet<M> {
    /// Steering on (`true`): from now on nothing sent is scheduled; it is
    /// held until [`SimNet::release`], [`SimNet::drop_held`] or
    /// [`SimNet::duplicate_held`] says what happens to it, and no seeded
    /// drop or duplicate applies; what was already scheduled is held too,
    /// in the order it was due. Off (`false`): every held message is
    /// scheduled for the next tick, in that order, and sends are scheduled
    /// again.
    pub fn hold(&mut self, on: bool) {
        match (on, self.held.take()) {
            (true, None) => self.held = Some(self.queue.drain()),
            (true, Some(held)) => self.held = Some(held),
            (false, held) => {
                let due = self.queue.now() + 1;
                for env in held.into_iter().flatten() {
                    self.queue.schedule_at(due, env);
                }
            }
        }
    }

    /// True while the network holds what is sent.
    pub fn is_holding(&self) -> bool {
        self.held.is_some()
    }

    /// The held messages, in send order.
    pub fn held(&self) -> Vec<Held<'_, M>> {
        let Some(held) = &self.held else {
            return Vec::new();
        };
        let stream = self.config.transport == Transport::Stream;
        // One pass: on a stream, a message is deliverable when no earlier
        // held message is on its link.
        let mut links: Vec<(u32, u32)> = Vec::new();
        held.iter()
            .map(|env| {
                let first = !links.contains(&(env.src, env.dst));
                if first {
                    links.push((env.src, env.dst));
                }
                Held {
                    id: env.id,
                    src: env.src as usize,
                    dst: env.dst as usize,
                    msg: &env.msg,
                    deliverable: !stream || first,
                }
            })
            .collect()
    }

    fn take_held(&mut self, id: MessageId) -> Result<Queued<M>, SimError> {
        let unknown = || SimError::Config {
            setting: "message",
            reason: format!("message {id} is not held"),
        };
        let held = self.held.as_mut().ok_or_else(unknown)?;
        let at = held.iter().position(|e| e.id == id).ok_or_else(unknown)?;
        Ok(held.remove(at))
    }

    /// Schedules held message `id` for the next tick (a stream's message
    /// only when it is the oldest held on its link), or an error naming it.
    pub fn release(&mut self, id: MessageId) -> Result<(), SimError> {
        if !self.held().iter().any(|h| h.id == id && h.deliverable) {
            return Err(SimError::Config {
                setting: "message",
                reason: format!("message {id} is not held, or not first on its stream"),
            });
        }
        let env = self.take_held(id)?;
        let due = self.queue.now() + 1;
        self.queue.schedule_at(due, env);
        Ok(())
    }

    /// Drops held message `id` (`message_dropped`, reason `chosen`); on a
    /// stream only the oldest of its link.
    pub fn drop_held(&mut self, id: MessageId, trace: &mut Trace) -> Result<(), SimError> {
        let env = self.take_held(id)?;
        self.record_dropped(
            env.id,
            self.node(env.src),
            self.node(env.dst),
            env.msg.label(),
            "chosen",
            trace,
        );
        Ok(())
    }

    /// Holds a second copy of held message `id` (datagrams: a message type
    /// that can be duplicated); records `message_duplicated`.
    pub fn duplicate_held(&mut self, id: MessageId, trace: &mut Trace) -> Result<(), SimError> {
        let not = |why: &str| SimError::Config {
            setting: "message",
            reason: format!("message {id} {why}"),
        };
        if self.config.transport == Transport::Stream {
            return Err(not("is on a stream, which never duplicates"));
        }
        let held = self.held.as_mut().ok_or_else(|| not("is not held"))?;
        let env = held
            .iter()
            .find(|e| e.id == id)
            .ok_or_else(|| not("is not held"))?;
        let copy = env
            .msg
            .duplicate()
            .ok_or_else(|| not("cannot be duplicated"))?;
        let copy = Envelope {
            id: env.id,
            src: env.src,
            dst: env.dst,
            sent_at: env.sent_at,
            msg: copy,
        };
        let (src, dst, label) = (copy.src, copy.dst, copy.msg.label());
        held.push(copy);
        record!(
            trace,
            self.queue.now(),
            "message_duplicated",
            id = id,
            src = self.node(src),
            dst = self.node(dst),
            msg = label
        );
        Ok(())
    }
}
