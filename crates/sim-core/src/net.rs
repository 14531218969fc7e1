//! The simulated network: seeded delays, drops, reordering and partitions.

use std::collections::BTreeSet;

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

/// Network settings. Build with [`NetConfig::default`] and the `with_*`
/// methods; [`SimNet::new`] validates.
#[derive(Debug, Clone, PartialEq)]
pub struct NetConfig {
    /// Smallest delivery delay in ticks.
    pub min_delay: u64,
    /// Largest delivery delay in ticks (≥ `min_delay`).
    pub max_delay: u64,
    /// Probability in [0, 1] that a message is dropped on send.
    pub drop_rate: f64,
    /// Probability in [0, 1] that a message gets extra delay so a later one
    /// may overtake it.
    pub reorder_rate: f64,
    /// Largest extra delay added to a reordered message (≥ 1 when
    /// `reorder_rate` > 0).
    pub reorder_jitter: u64,
}

impl Default for NetConfig {
    /// Delay exactly 1 tick, no drops, no reordering.
    fn default() -> Self {
        NetConfig {
            min_delay: 1,
            max_delay: 1,
            drop_rate: 0.0,
            reorder_rate: 0.0,
            reorder_jitter: 2,
        }
    }
}

impl NetConfig {
    /// A fixed delay of `ticks` for every message.
    pub fn with_delay(mut self, ticks: u64) -> Self {
        self.min_delay = ticks;
        self.max_delay = ticks;
        self
    }

    /// A seeded delay drawn uniformly from `min..=max`.
    pub fn with_delay_range(mut self, min: u64, max: u64) -> Self {
        self.min_delay = min;
        self.max_delay = max;
        self
    }

    /// Seeded drops with probability `rate`.
    pub fn with_drop_rate(mut self, rate: f64) -> Self {
        self.drop_rate = rate;
        self
    }

    /// Seeded reordering: with probability `rate`, up to `jitter` extra ticks.
    pub fn with_reorder(mut self, rate: f64, jitter: u64) -> Self {
        self.reorder_rate = rate;
        self.reorder_jitter = jitter;
        self
    }

    /// Checks every setting; the error names the one at fault.
    pub fn validate(&self) -> Result<(), SimError> {
        if self.max_delay < self.min_delay {
            return Err(SimError::Config {
                setting: "max_delay",
                reason: format!(
                    "max_delay {} is below min_delay {}",
                    self.max_delay, self.min_delay
                ),
            });
        }
        for (setting, rate) in [
            ("drop_rate", self.drop_rate),
            ("reorder_rate", self.reorder_rate),
        ] {
            if !(0.0..=1.0).contains(&rate) {
                return Err(SimError::Config {
                    setting,
                    reason: format!("{rate} is outside [0, 1]"),
                });
            }
        }
        if self.reorder_rate > 0.0 && self.reorder_jitter == 0 {
            return Err(SimError::Config {
                setting: "reorder_jitter",
                reason: "must be at least 1 when reorder_rate > 0".into(),
            });
        }
        Ok(())
    }
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
        })
    }

    /// The settings in force.
    pub fn config(&self) -> &NetConfig {
        &self.config
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
        let mut delay = if self.config.min_delay == self.config.max_delay {
            self.config.min_delay
        } else {
            rng.range_inclusive(self.config.min_delay, self.config.max_delay)
        };
        if rng.chance(self.config.reorder_rate) {
            delay += rng.range_inclusive(1, self.config.reorder_jitter);
        }
        self.queue.schedule(
            delay,
            Envelope {
                id,
                src: src.clone(),
                dst: dst.clone(),
                sent_at: now,
                msg,
            },
        );
        id
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

    /// Cuts the link from `src` to `dst` (one direction only).
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
