//! [`Cluster`]: the one harness every protocol's group runs on.

mod faults;
mod state;
mod timers;

use std::sync::Arc;

use sim_core::{MessageId, NetConfig, NodeId, Payload, Rng, SimNet, Tick, Trace, record};

use crate::error::GroupError;
use crate::inflight::ClientOps;
use crate::op::{ClientOp, Completion, OpId};
use crate::state::{NodeState, StateLog};

use state::Faults;
use timers::ChosenTimers;

/// A message handed to its receiver: positions in [`Cluster::ids`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery<M> {
    /// The message's sequential id in the trace.
    pub id: MessageId,
    /// The sender's position.
    pub from: usize,
    /// The receiver's position.
    pub to: usize,
    /// The tick it was sent at.
    pub sent_at: Tick,
    /// The message.
    pub msg: M,
}

/// A protocol's group owns its nodes (pure state machines that never see
/// the network, the clock or the trace) and a `Cluster`, which owns
/// everything else: the node ids, the simulated network, the seeded
/// generator, the trace, the client-operation table, and the fault state —
/// which nodes are down, isolated, slow, and which one-way links are cut.
/// Every fault is implemented here once (see *Faults* below) and
/// recorded with one neutral vocabulary; the group adds only what the fault
/// means for its protocol (a hook it runs after the harness call: a Raft
/// node loses its volatile state, a WAL standby rolls back to its fsynced
/// LSN, an ISR replica leaves the ISR).
///
/// The shape follows tokio-rs/turmoil's `Sim`: hosts by name, `partition` /
/// `repair` as plain calls, the owner pops and dispatches deliveries.
///
/// # The delivery loop
///
/// ```
/// use replication::Cluster;
/// use sim_core::{NetConfig, NodeId, Payload};
///
/// #[derive(Debug)]
/// struct Ping;
/// impl Payload for Ping {
///     fn label(&self) -> &'static str { "ping" }
/// }
///
/// let ids = vec![NodeId::new("a"), NodeId::new("b")];
/// let mut cluster = Cluster::<Ping>::new(ids, NetConfig::default(), 7).unwrap();
/// cluster.send(0, 1, Ping);
/// cluster.advance();
/// let delivery = cluster.next_delivery().expect("due after one tick");
/// assert_eq!((delivery.from, delivery.to), (0, 1));
/// ```
///
/// # Faults
///
/// | call | state | event |
/// |---|---|---|
/// | [`Cluster::crash`] | the node is down: it neither sends nor receives; everything in flight to or from it is lost (`message_dropped reason=node_crashed`), and a message that reaches it while down is dropped (`reason=receiver_down`) | `node_crashed node lose_unfsynced` |
/// | [`Cluster::restart`] | up again | `node_restarted node` |
/// | [`Cluster::isolate`] | cut from every peer, both ways | `node_isolated node` |
/// | [`Cluster::heal`] | not isolated, and every one-way cut touching it restored | `node_healed node` |
/// | [`Cluster::cut_link`] / [`Cluster::restore_link`] | the one-way link `from → to` | `link_cut` / `link_restored from to` |
/// | [`Cluster::partition`] | both directions between two nodes | two `link_cut` |
/// | [`Cluster::heal_all`] | nothing isolated, no cut | `all_healed` |
/// | [`Cluster::set_slow`] | the slow mark (what it means is the protocol's) | `node_slow node slow` |
///
/// A link `a → b` carries messages when neither end is isolated and
/// `a → b` is not cut; isolating `a` then `b` and healing `a` leaves `b`
/// isolated. A message in flight on a link that is cut before it arrives is
/// dropped at delivery (`partition_at_delivery`). Every fault call that
/// names an unknown node is [`GroupError::UnknownNode`] and changes
/// nothing; crashing a down node is [`GroupError::NodeDown`], restarting a
/// running one [`GroupError::AlreadyRunning`].
#[derive(Clone)]
pub struct Cluster<M> {
    /// The run's trace. Public so a group can record while it reads its
    /// nodes (a field borrow, not a method call).
    pub trace: Trace,
    /// The group's one seeded generator.
    pub rng: Rng,
    /// Op ids, `client_op_*` events and completions not yet taken.
    pub ops: ClientOps,
    ids: Arc<[NodeId]>,
    net: SimNet<M>,
    faults: Faults,
    /// The nodes whose timers may fire at the next tick while held.
    timers: ChosenTimers,
    /// Stream connections reset since the group last asked, `(from, to)`.
    resets: Vec<(usize, usize)>,
    /// The node state lines, while recording them.
    states: Option<StateLog>,
    /// The trace's length when the lines were last noted.
    noted_at: usize,
}

impl<M> std::fmt::Debug for Cluster<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cluster")
            .field("nodes", &self.ids)
            .field("faults", &self.faults)
            .finish_non_exhaustive()
    }
}

impl<M: Payload> Cluster<M> {
    /// A cluster of `ids` at tick 0, every node up and linked, or
    /// [`GroupError::Config`] for invalid network settings.
    pub fn new(ids: Vec<NodeId>, net: NetConfig, seed: u64) -> Result<Self, GroupError> {
        let mut net = SimNet::new(net)?;
        // The network's positions are the cluster's: a delivery names its
        // ends without a lookup.
        if let Some((_, twice)) = ids
            .iter()
            .enumerate()
            .find(|&(i, id)| ids[..i].contains(id))
        {
            return Err(GroupError::config(
                "nodes",
                format!("{twice} is named twice"),
            ));
        }
        net.register(&ids);
        let n = ids.len();
        Ok(Cluster {
            trace: Trace::new(),
            rng: Rng::new(seed),
            ops: ClientOps::new(),
            ids: ids.into(),
            net,
            faults: Faults::new(n),
            timers: ChosenTimers::default(),
            resets: Vec::new(),
            states: None,
            noted_at: 0,
        })
    }

    /// Starts recording node state lines (see [`StateLog`]); a group
    /// notes them with [`note_states`](Self::note_states).
    pub fn record_states(&mut self) {
        self.states.get_or_insert_with(StateLog::new);
    }

    /// True while recording state lines: a group builds its lines only
    /// then.
    pub fn records_states(&self) -> bool {
        self.states.is_some()
    }

    /// True while recording when something may have changed since the
    /// lines were last noted: the trace grew (every change of a state line
    /// comes with an event — a delivery, a timer's event, a fault), or the
    /// trace is off. A group checks it at each tick, so idle ticks build
    /// no lines.
    pub fn states_due(&self) -> bool {
        self.states.is_some() && (!self.trace.is_enabled() || self.trace.len() != self.noted_at)
    }

    /// Notes every node's line now (ignored while not recording).
    pub fn note_states(&mut self, states: Vec<NodeState>) {
        let now = self.now();
        self.noted_at = self.trace.len();
        if let Some(log) = &mut self.states {
            log.note(now, states);
        }
    }

    /// The state lines recorded so far, while recording.
    pub fn state_log(&self) -> Option<&StateLog> {
        self.states.as_ref()
    }

    /// Every node id, in configuration order; a node's position here is its
    /// index everywhere in the harness.
    pub fn ids(&self) -> &Arc<[NodeId]> {
        &self.ids
    }

    /// The id of the node at position `i`.
    ///
    /// # Panics
    ///
    /// When `i` is not a position of this cluster (a caller bug: positions
    /// come from [`Cluster::index`] or a [`Delivery`]).
    pub fn id(&self, i: usize) -> &NodeId {
        &self.ids[i]
    }

    /// The number of nodes.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// True for a cluster of no nodes.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The current tick.
    pub fn now(&self) -> Tick {
        self.net.now()
    }

    /// The network settings in force.
    pub fn net_config(&self) -> &NetConfig {
        self.net.config()
    }

    /// Puts the cluster on another network (transport, delays, faults):
    /// only before anything is in flight; [`GroupError::Config`] naming the
    /// setting otherwise or for an invalid one.
    pub fn set_network(&mut self, net: NetConfig) -> Result<(), GroupError> {
        self.net.set_config(net)?;
        Ok(())
    }

    /// The stream connections reset (a cut link, a crashed end) since the
    /// last call, `(from, to)` in the order they reset; empty on a datagram
    /// network. A protocol whose nodes resynchronise when a connection is
    /// re-established (as PostgreSQL's walreceiver or a Kafka fetcher does)
    /// reads this after every fault.
    pub fn take_resets(&mut self) -> Vec<(usize, usize)> {
        std::mem::take(&mut self.resets)
    }

    /// The position of `node`, or [`GroupError::UnknownNode`].
    pub fn index(&self, node: &NodeId) -> Result<usize, GroupError> {
        self.position(node)
            .ok_or_else(|| GroupError::UnknownNode(node.clone()))
    }

    /// The position of `node` when it is up, else [`GroupError::UnknownNode`]
    /// or [`GroupError::NodeDown`].
    pub fn alive_index(&self, node: &NodeId) -> Result<usize, GroupError> {
        let i = self.index(node)?;
        if self.faults.is_alive(i) {
            Ok(i)
        } else {
            Err(GroupError::NodeDown(node.clone()))
        }
    }

    /// True while node `i` is up.
    #[inline]
    pub fn is_alive(&self, i: usize) -> bool {
        self.faults.is_alive(i)
    }

    /// True while node `i` is isolated.
    pub fn is_isolated(&self, i: usize) -> bool {
        self.faults.is_isolated(i)
    }

    /// True while node `i` is marked slow.
    #[inline]
    pub fn is_slow(&self, i: usize) -> bool {
        self.faults.is_slow(i)
    }

    /// Node `i`'s faults: down, isolated, slow.
    pub fn node_faults(&self, i: usize) -> crate::NodeFaults {
        crate::NodeFaults {
            down: !self.is_alive(i),
            isolated: self.is_isolated(i),
            slow: self.is_slow(i),
        }
    }

    /// The one-way links cut (isolations aside), by position, in the
    /// order they were cut.
    pub fn cut_links(&self) -> Vec<(usize, usize)> {
        self.faults.cuts.clone()
    }

    /// True when messages from `a` to `b` are delivered (neither end
    /// isolated, the one-way link not cut). Says nothing about whether
    /// either node is up.
    #[inline]
    pub fn can_send(&self, a: usize, b: usize) -> bool {
        // The fault state the network's cut set is derived from (`relink`),
        // read by position: no names are compared.
        !self.faults.cuts_link(a, b)
    }

    /// True when messages flow both ways between `a` and `b`.
    #[inline]
    pub fn linked(&self, a: usize, b: usize) -> bool {
        self.can_send(a, b) && self.can_send(b, a)
    }

    /// Sends `msg` from node `from` to node `to`, recording `message_sent`
    /// (and `message_dropped` when the link is cut); returns its id.
    #[inline]
    pub fn send(&mut self, from: usize, to: usize, msg: M) -> MessageId {
        self.net
            .send_at(from, to, msg, &mut self.rng, &mut self.trace)
    }

    /// Advances the clock one tick; then drain [`Cluster::next_delivery`].
    pub fn advance(&mut self) -> Tick {
        self.net.advance()
    }

    /// True when node `i`'s timers may fire at this tick: always in a free
    /// run; while the network is held (a steered run), only when a chooser
    /// made one of them due since the last tick
    /// ([`choose_timer`](Self::choose_timer)). A protocol that lists its
    /// timers ([`Steer::timers`](crate::Steer::timers)) asks before it
    /// lets a node's timers run, and calls
    /// [`timers_spent`](Self::timers_spent) once they have: time then
    /// passes in a steered run without a timer firing by itself, and a
    /// timer fires when the chooser says so.
    #[inline]
    pub fn timers_fire(&self, i: usize) -> bool {
        !self.net.is_holding() || self.timers.is_chosen(i)
    }

    /// Lets node `i`'s timers fire at the next tick while held.
    pub fn choose_timer(&mut self, i: usize) {
        self.timers.choose(i);
    }

    /// The nodes' timers have run for this tick: the choices are spent.
    #[inline]
    pub fn timers_spent(&mut self) {
        self.timers.spent();
    }

    /// True while the network is held (a steered run).
    pub fn is_holding(&self) -> bool {
        self.net.is_holding()
    }

    /// True while a timer may be past its deadline without having fired:
    /// while held, and from the end of a hold to the next tick (which
    /// fires every timer that came due meanwhile). A protocol's invariant
    /// that a timer is never overdue holds only outside these.
    pub fn timers_may_be_overdue(&self) -> bool {
        self.net.is_holding() || self.timers.just_let_go()
    }

    /// The next message due now whose link is open and whose receiver is
    /// up. Messages for a node that is down are dropped here
    /// (`receiver_down`).
    #[inline]
    pub fn next_delivery(&mut self) -> Option<Delivery<M>> {
        loop {
            let env = self.net.next_delivery_at(&mut self.trace)?;
            // The network's positions are the cluster's (registered first,
            // in order); any other node is none of this cluster's.
            let (to, from) = (env.dst, env.src);
            if to >= self.ids.len() || from >= self.ids.len() {
                self.net
                    .record_discard_at(&env, "unknown_receiver", &mut self.trace);
                continue;
            }
            if !self.faults.is_alive(to) {
                self.net
                    .record_discard_at(&env, "receiver_down", &mut self.trace);
                continue;
            }
            return Some(Delivery {
                id: env.id,
                from,
                to,
                sent_at: env.sent_at,
                msg: env.msg,
            });
        }
    }

    /// The position of `node`: the ids in envelopes are clones of
    /// [`Cluster::ids`], so a pointer comparison finds them without reading
    /// names; a separately built equal id is found by name.
    #[inline]
    fn position(&self, node: &NodeId) -> Option<usize> {
        self.ids
            .iter()
            .position(|id| id.same(node))
            .or_else(|| self.ids.iter().position(|id| id == node))
    }

    /// Messages in flight.
    pub fn in_flight(&self) -> usize {
        self.net.in_flight()
    }

    /// Messages sent so far (dropped ones included).
    pub fn messages_sent(&self) -> u64 {
        self.net.messages_sent()
    }

    /// `Err` when the network ever dropped a send for being full
    /// ([`NetConfig::capacity`](sim_core::NetConfig::capacity)): a message
    /// storm, which every protocol's invariant check reports first.
    pub fn check_network(&self) -> Result<(), String> {
        match self.net.overflowed() {
            0 => Ok(()),
            n => Err(format!(
                "message storm: {n} sends dropped with {} messages in flight (the network's capacity)",
                self.net.config().capacity
            )),
        }
    }

    /// True when some message in flight satisfies `pred` (inspection only:
    /// the order is not the delivery order).
    pub fn any_in_flight(&self, mut pred: impl FnMut(&M) -> bool) -> bool {
        self.net.pending().any(|env| pred(env.msg))
    }

    /// Drops, without delivering, every message in flight from or to node
    /// `i` for which `lose` is true, recording each with `reason` (in id
    /// order).
    pub fn discard_in_flight(
        &mut self,
        i: usize,
        reason: &'static str,
        mut lose: impl FnMut(&M) -> bool,
    ) {
        let id = &self.ids[i];
        self.net.discard_where(
            |env| (env.src == id || env.dst == id) && lose(env.msg),
            reason,
            &mut self.trace,
        );
    }

    /// Gives `op` the next id and records `client_op_submitted`.
    pub fn submitted(&mut self, op: &ClientOp) -> OpId {
        let now = self.net.now();
        self.ops.submitted(&mut self.trace, now, op)
    }

    /// Completes `id` now with `outcome` (see [`ClientOps::complete`]).
    pub fn complete(
        &mut self,
        id: OpId,
        op: ClientOp,
        submitted: Tick,
        node: Option<NodeId>,
        outcome: crate::op::Outcome,
    ) {
        let now = self.net.now();
        self.ops
            .complete(&mut self.trace, now, id, op, submitted, node, outcome);
    }

    /// Records `client_op_completed` for `id` now, answered by node
    /// `node`, as [`Cluster::complete`] does, without queueing the
    /// completion (see [`ClientOps::record_completed`]).
    pub fn record_completed(
        &mut self,
        id: OpId,
        node: Option<usize>,
        outcome: &crate::op::Outcome,
    ) {
        let now = self.net.now();
        let node = node.map(|i| &self.ids[i]);
        ClientOps::record_completed(&mut self.trace, now, id, node, outcome);
    }

    /// Every completion not yet taken, in completion order.
    pub fn take_completions(&mut self) -> Vec<Completion> {
        self.ops.take_all()
    }

    /// The completion of `id`, if it has completed and was not yet taken.
    pub fn take_completion(&mut self, id: OpId) -> Option<Completion> {
        self.ops.take(id)
    }

    /// Records `kind` with `node` at the current tick (the neutral fault
    /// events).
    fn record_node(&mut self, kind: &'static str, i: usize) {
        let now = self.net.now();
        record!(self.trace, now, kind, node = &self.ids[i]);
    }
}

/// Steering (see [`Steer`](crate::Steer)): what a group's `Steer` impl
/// forwards to.
impl<M: Payload + std::fmt::Debug> Cluster<M> {
    /// Holds the network (`true`) — and the timers of a protocol that
    /// asks [`timers_fire`](Self::timers_fire) — or lets both run by
    /// themselves again (`false`).
    pub fn hold(&mut self, on: bool) -> Result<(), GroupError> {
        if !on && self.net.is_holding() {
            self.timers.let_go();
        } else {
            self.timers.spent();
        }
        self.net.hold(on);
        Ok(())
    }

    /// The messages held, in send order.
    pub fn held(&self) -> Vec<crate::HeldMessage> {
        self.net
            .held()
            .into_iter()
            .map(|h| crate::HeldMessage {
                id: h.id,
                from: h.src,
                to: h.dst,
                label: h.msg.label(),
                deliverable: h.deliverable,
            })
            .collect()
    }

    /// Delivers held message `id` at the next tick.
    pub fn release(&mut self, id: MessageId) -> Result<(), GroupError> {
        self.net.release(id)?;
        Ok(())
    }

    /// Drops held message `id`.
    pub fn drop_held(&mut self, id: MessageId) -> Result<(), GroupError> {
        self.net.drop_held(id, &mut self.trace)?;
        Ok(())
    }

    /// Holds a second copy of message `id`.
    pub fn duplicate_held(&mut self, id: MessageId) -> Result<(), GroupError> {
        self.net.duplicate_held(id, &mut self.trace)?;
        Ok(())
    }

    /// The messages held as `(from, to, hash)`, each message hashed alone
    /// by `hash`, in a canonical order: per link in send order on a stream
    /// (its order is state), sorted on datagrams (a multiset).
    fn held_canonical(&self, hash: impl Fn(&M) -> u64) -> Vec<(usize, usize, u64)> {
        let mut held: Vec<(usize, usize, u64)> = self
            .net
            .held()
            .into_iter()
            .map(|m| (m.src, m.dst, hash(m.msg)))
            .collect();
        if self.net.config().transport == sim_core::Transport::Datagram {
            held.sort_unstable();
        } else {
            held.sort_by_key(|(a, b, _)| (*a, *b));
        }
        held
    }

    /// [`write_harness`](Self::write_harness)'s state, hashed as derived
    /// where its types allow (the messages above all), for a protocol
    /// whose messages derive `Hash`: the same parts, no text for them.
    pub fn hash_harness(&self, h: &mut crate::StateHasher)
    where
        M: std::hash::Hash,
    {
        use std::hash::{Hash, Hasher};
        h.write_u64(self.net.now());
        self.rng.hash(h);
        self.hash_harness_timeless(h);
    }

    /// [`hash_harness`](Self::hash_harness) without the tick and the
    /// generator: for a held run of a protocol whose timers fire only
    /// when chosen and whose generator draws only their deadlines (see
    /// `Steer::hash_timeless`). Messages scheduled after a hold are
    /// named by their send tick, as in the whole hash.
    pub fn hash_harness_timeless(&self, h: &mut crate::StateHasher)
    where
        M: std::hash::Hash,
    {
        use std::hash::{Hash, Hasher};
        let one = |msg: &M| {
            let mut m = crate::StateHasher::default();
            msg.hash(&mut m);
            m.finish()
        };
        self.faults.hash(h);
        self.timers.hash(h);
        self.ops.hash_into(h);
        self.resets.hash(h);
        h.write_u64(self.net.overflowed());
        if !h.hashes_messages() {
            return;
        }
        if h.wants_delivery_order() {
            let order = self.net.in_delivery_order();
            h.write_usize(order.len());
            for (due, e) in order {
                (due, e.src, e.dst, e.sent_at, one(e.msg)).hash(h);
            }
            h.note_delivery_order();
            return;
        }
        self.held_canonical(one).hash(h);
        if !self.net.is_holding() {
            let mut scheduled: Vec<(&NodeId, &NodeId, u64, u64)> = self
                .net
                .pending()
                .map(|e| (e.src, e.dst, e.sent_at, one(e.msg)))
                .collect();
            scheduled.sort_unstable();
            scheduled.hash(h);
        }
    }

    /// The harness's state for a fingerprint: tick, rng, faults, client
    /// operations waiting to be taken, stream resets, the messages held
    /// (per link, in order; links sorted; no ids) and those scheduled.
    pub fn write_harness(&self, out: &mut dyn std::fmt::Write) -> std::fmt::Result {
        self.write_harness_parts(out, true)
    }

    /// [`write_harness`](Self::write_harness)'s text fed into `h`, without
    /// the messages in flight when `h` leaves them out
    /// ([`StateHasher::without_messages`](crate::StateHasher::without_messages)):
    /// the harness's hash for a protocol whose messages are hashed by
    /// their text. For a hasher that wants them in delivery order
    /// ([`StateHasher::in_delivery_order`](crate::StateHasher::in_delivery_order)),
    /// each message's text hash in that order, with its due tick.
    pub fn hash_harness_text(&self, h: &mut crate::StateHasher) {
        use std::fmt::Write as _;
        let messages = h.hashes_messages();
        let ordered = messages && h.wants_delivery_order();
        // Writing into a hasher cannot fail.
        let _ = self.write_harness_parts(h, messages && !ordered);
        if ordered {
            for (due, e) in self.net.in_delivery_order() {
                let _ = write!(
                    h,
                    "{due:?} {}>{}@{}:{:x};",
                    e.src,
                    e.dst,
                    e.sent_at,
                    crate::StateHasher::of_debug(e.msg)
                );
            }
            h.note_delivery_order();
        }
    }

    /// The harness's text, the messages in flight included when
    /// `messages`.
    fn write_harness_parts(
        &self,
        out: &mut dyn std::fmt::Write,
        messages: bool,
    ) -> std::fmt::Result {
        write!(
            out,
            "t{} {:?} {:?} {:?} {:?} {:?} o{}|",
            self.net.now(),
            self.rng,
            self.faults,
            self.timers,
            self.ops,
            self.resets,
            self.net.overflowed()
        )?;
        if !messages {
            return Ok(());
        }
        for (a, b, m) in self.held_canonical(|msg| crate::StateHasher::of_debug(msg)) {
            write!(out, "{a}>{b}:{m:x};")?;
        }
        if !self.net.is_holding() {
            let mut scheduled: Vec<String> = self
                .net
                .pending()
                .map(|e| format!("{}>{}@{}:{:?}", e.src, e.dst, e.sent_at, e.msg))
                .collect();
            scheduled.sort();
            for m in scheduled {
                write!(out, "{m};")?;
            }
        }
        Ok(())
    }
}
