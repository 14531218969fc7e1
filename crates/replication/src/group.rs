//! The driver surface every protocol implements.

use bytes::Bytes;
use sim_core::{NetConfig, NodeId, Tick, Trace};

use crate::error::GroupError;
use crate::level::{AckLevel, ReadLevel};
use crate::op::{ClientOp, Completion, OpId};
use crate::outcome::{ReadResult, WriteResult};
use crate::recorder::StateRecorder;
use crate::state::{NodeState, StateLog};
use crate::summary::GroupSummary;

/// How a node goes down in [`ReplicationGroup::crash_as`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Crash {
    /// The process dies: the node keeps what the protocol persists.
    Process,
    /// The machine loses power: the node also loses everything it had not
    /// fsynced.
    PowerLoss,
}

/// The safety net of [`ReplicationGroup::await_completion`]: far above every
/// protocol's own bound.
pub const AWAIT_BOUND: u64 = 1_000_000;

/// One replication protocol instance on its own simulator.
///
/// Every method that names a node returns [`GroupError::UnknownNode`] for a
/// name outside the group, and [`GroupError::NodeDown`] where the operation
/// needs the node alive. An `Err` leaves the group's state unchanged and
/// lets no time pass — with one documented exception: the calls that wait
/// ([`run_until_idle`](Self::run_until_idle), [`failover`](Self::failover)
/// where the protocol's failover is an election, and the blocking
/// [`await_completion`](Self::await_completion)) may have let ticks pass
/// when they answer [`GroupError::NotIdle`]; every operation that completed
/// meanwhile is still waiting in
/// [`take_completions`](Self::take_completions).
///
/// A protocol implements it on a [`Cluster`](crate::Cluster), which
/// provides the faults, the network and the client-operation table; see
/// the guide page *Adding a protocol*.
pub trait ReplicationGroup {
    /// Protocol name: `async`, `wal`, `isr` or `raft`.
    fn protocol(&self) -> &'static str;

    /// Every node id, in order.
    fn node_ids(&self) -> Vec<NodeId>;

    /// The current leader / primary, if one is known and alive.
    fn leader(&self) -> Option<NodeId>;

    /// Starts `op` without letting any time pass and returns its id.
    ///
    /// Refused — with no state change and no id — only when the operation
    /// cannot start: an unknown node, an unsupported level, a named node
    /// that is down, no leader to send it to. Everything decided later
    /// (acknowledged, refused before append, blocked, timed out) arrives as
    /// a [`Completion`] from [`take_completions`](Self::take_completions) /
    /// [`take_completion`](Self::take_completion), at the latest when the
    /// protocol's bound (e.g. `ack_timeout`) has passed. Any number of
    /// operations may be in flight at once.
    fn submit(&mut self, op: ClientOp) -> Result<OpId, GroupError>;

    /// Every completion not yet taken, in completion order.
    fn take_completions(&mut self) -> Vec<Completion>;

    /// The completion of `id`, if it has completed and was not yet taken.
    fn take_completion(&mut self, id: OpId) -> Option<Completion>;

    /// Ticks until `id` completes and returns its completion. The protocol
    /// completes every operation within its own bound; this loop's bound
    /// ([`AWAIT_BOUND`] ticks) only turns a protocol bug into
    /// [`GroupError::NotIdle`] instead of a hang.
    fn await_completion(&mut self, id: OpId) -> Result<Completion, GroupError> {
        let mut ticks = 0;
        loop {
            if let Some(done) = self.take_completion(id) {
                return Ok(done);
            }
            if ticks >= AWAIT_BOUND {
                return Err(GroupError::NotIdle {
                    ticks,
                    waiting_for: format!("{id} to complete"),
                });
            }
            self.tick();
            ticks += 1;
        }
    }

    /// Writes `key = value` at the leader and waits (driving ticks, bounded)
    /// for `level`. A write owns its key and value (`Bytes`, kept in the
    /// log), a read only borrows its key (`&[u8]`): the shapes differ on
    /// purpose. Waits for `level`: [`submit`](Self::submit) then
    /// [`await_completion`](Self::await_completion). *Done* is an accepted
    /// [`WriteResult`]; *failed* and *unknown* are one not accepted whose
    /// [`status`](WriteResult::status) says which (with the offset when it
    /// was appended), or the error a failed operation names.
    fn client_write(
        &mut self,
        key: Bytes,
        value: Bytes,
        level: AckLevel,
    ) -> Result<WriteResult, GroupError> {
        let id = self.submit(ClientOp::write(key, value, level))?;
        self.await_completion(id)?.outcome.into_write_result()
    }

    /// Reads `key` at `level`; `node` picks the node for `Local` reads (the
    /// leader when `None`) and is ignored by the other levels unless the
    /// protocol documents otherwise. [`submit`](Self::submit) then
    /// [`await_completion`](Self::await_completion); a blocked read is
    /// [`GroupError::ReadBlocked`].
    fn client_read(
        &mut self,
        key: &[u8],
        level: ReadLevel,
        node: Option<&NodeId>,
    ) -> Result<ReadResult, GroupError> {
        let mut op = ClientOp::read(Bytes::copy_from_slice(key), level);
        if let Some(node) = node {
            op = op.at(node);
        }
        let id = self.submit(op)?;
        self.await_completion(id)?.outcome.into_read_result(level)
    }

    /// Advances the simulation one tick.
    fn tick(&mut self);

    /// Ticks until no protocol work is pending, at most `max_ticks`; returns
    /// the ticks taken or [`GroupError::NotIdle`] (after `max_ticks` ticks
    /// have passed).
    fn run_until_idle(&mut self, max_ticks: u64) -> Result<u64, GroupError>;

    /// Crashes `node`. With `lose_unfsynced`, it also loses everything it had
    /// not fsynced (a power loss); without, it keeps what the protocol
    /// persists (a process crash). [`crash_as`](Self::crash_as) says which
    /// by name.
    fn crash(&mut self, node: &NodeId, lose_unfsynced: bool) -> Result<(), GroupError>;

    /// [`crash`](Self::crash) with the kind of crash named:
    /// `g.crash_as(&node, Crash::PowerLoss)` is `g.crash(&node, true)`.
    fn crash_as(&mut self, node: &NodeId, kind: Crash) -> Result<(), GroupError> {
        self.crash(node, kind == Crash::PowerLoss)
    }

    /// Restarts a crashed node.
    fn restart(&mut self, node: &NodeId) -> Result<(), GroupError>;

    /// Cuts `node` from every peer, both ways.
    fn isolate(&mut self, node: &NodeId) -> Result<(), GroupError>;

    /// Restores every link of `node`.
    fn heal(&mut self, node: &NodeId) -> Result<(), GroupError>;

    /// Cuts the one-way link `from → to` (messages from `from` to `to` are
    /// dropped; the other direction keeps working). Protocols without
    /// one-way links answer [`GroupError::NotPermitted`]; the default does.
    fn cut_link(&mut self, from: &NodeId, to: &NodeId) -> Result<(), GroupError> {
        let _ = to;
        Err(GroupError::not_permitted(
            from,
            format!("{} does not offer one-way link cuts", self.protocol()),
        ))
    }

    /// Restores the one-way link `from → to` cut by
    /// [`cut_link`](Self::cut_link).
    fn restore_link(&mut self, from: &NodeId, to: &NodeId) -> Result<(), GroupError> {
        let _ = to;
        Err(GroupError::not_permitted(
            from,
            format!("{} does not offer one-way link cuts", self.protocol()),
        ))
    }

    /// Marks a replica slow (it receives no replication traffic until
    /// cleared) or clears it. Refused with [`GroupError::NotPermitted`] for
    /// the leader, and by protocols that do not model slowness (the
    /// default).
    fn set_slow(&mut self, node: &NodeId, slow: bool) -> Result<(), GroupError> {
        let _ = slow;
        Err(GroupError::not_permitted(
            node,
            format!("{} does not model slow replicas", self.protocol()),
        ))
    }

    /// Puts the group on another network (its transport's delays and
    /// faults, e.g. an explorer's profile) before anything was sent.
    /// A protocol that cannot answers [`GroupError::Config`] (the default).
    fn set_network(&mut self, net: NetConfig) -> Result<(), GroupError> {
        let _ = net;
        Err(GroupError::config(
            "network",
            format!("{} cannot change its network", self.protocol()),
        ))
    }

    /// Why the group legitimately cannot serve now, in the protocol's
    /// terms, read from its own state — e.g. ISR with no in-sync replica
    /// left alive and unclean election off. A claim of certainty: the
    /// explorer checks it (a write at the strongest level must then not
    /// complete *done*). `None` (the default) claims it can: once every
    /// fault is healed and the protocol's bound has passed, a write and a
    /// read at the strongest levels must complete, unless
    /// [`outside_assumptions`](ReplicationGroup::outside_assumptions) says
    /// why no promise is made.
    fn unavailable(&self) -> Option<String> {
        None
    }

    /// Why the group makes no recovery promise on its present network: an
    /// assumption its recovery rests on is broken, so whether it serves is
    /// chance — e.g. ISR with `replica.lag.time.max` not above the
    /// network's worst delay (a follower may leave the ISR before the
    /// leader's entries reach it), a Redis `WAIT` timeout shorter than the
    /// slowest round trip. Unlike [`unavailable`](ReplicationGroup::unavailable)
    /// it is not checked by a probe (some writes do complete). `None` (the
    /// default): no assumption is broken.
    fn outside_assumptions(&self) -> Option<String> {
        None
    }

    /// True when the reason [`unavailable`](ReplicationGroup::unavailable)
    /// gives now lasts: with every fault healed, no tick ends it, only an
    /// operator's act (ISR's offline partition: no live in-sync replica
    /// to elect, unclean election off). The explorer then stops retrying
    /// its final reads at once instead of letting ticks pass. `false` (the
    /// default) for a reason time may end (Raft: no leader *yet*).
    fn unavailable_lasts(&self) -> bool {
        false
    }

    /// Why a `LINEARIZABLE` read sent to the current leader is refused now
    /// by the protocol's design, read from its own state — ISR's chapter
    /// read is refused while the leader's log end is above HW (a write in
    /// flight). The explorer's *available* excuses a refused
    /// `LINEARIZABLE` read only when this names a reason at the tick it was
    /// served; `None` (the default) excuses nothing.
    fn read_refused_by_design(&self) -> Option<String> {
        None
    }

    /// True when the faults now in force are ones the protocol is designed
    /// to tolerate without losing availability (Raft: a minority down or
    /// cut off; ISR: the ISR still at or above min.insync; WAL: every
    /// synchronous standby reachable). The default claims nothing.
    fn tolerates_current_faults(&self) -> bool {
        false
    }

    /// Ticks the protocol needs, after the faults became tolerated, to
    /// serve again (an election, a lag timeout): operations submitted later
    /// than this must complete while the faults stay tolerated.
    fn recovery_bound(&self) -> u64 {
        50
    }

    /// A LINEARIZABLE read addressed to `node` that only a leader with a
    /// live lease may serve (isr's `lease_read`); `None` when the protocol
    /// has no such call (the default). The explorer's *recovers* asks it of
    /// a converged group: served at the leader, refused at every follower.
    fn lease_read(&mut self, node: &NodeId, key: &[u8]) -> Option<Result<ReadResult, GroupError>> {
        let _ = (node, key);
        None
    }

    /// For a protocol with [`lease_read`](Self::lease_read): the ticks
    /// within which its leader's lease lapses once the leader reaches no
    /// peer — cut off that long, it serves no lease read. `None` (the
    /// default): no such promise. The explorer holds a group to it at the
    /// end of a run that recovered.
    fn lease_lapse_bound(&self) -> Option<u64> {
        None
    }

    /// True when, with every fault healed and every node running, the
    /// group promises to go idle — [`run_until_idle`](ReplicationGroup::run_until_idle)
    /// returns `Ok` — within a few hundred ticks (the explorer's *recovers*
    /// holds it to that). Raft promises it only inside its timing
    /// assumption, where elections do not churn. `false` (the default)
    /// promises nothing.
    fn quiesces(&self) -> bool {
        false
    }

    /// The protocol's [`SteadyState`](crate::SteadyState) bounds — write
    /// latency and idle chatter — when it makes such a promise in the
    /// group's present configuration and network (a network that loses,
    /// duplicates, reorders or stalls nothing). `None` (the default)
    /// promises nothing, and the explorer checks nothing.
    fn steady_state(&self) -> Option<crate::SteadyState> {
        None
    }

    /// Messages sent since the group was built (each one counted once,
    /// dropped or not), for [`steady_state`](ReplicationGroup::steady_state)'s
    /// idle bound. `None` (the default) when the protocol does not count.
    fn messages_sent(&self) -> Option<u64> {
        None
    }

    /// This group as a run you can steer ([`Steer`](Steer): hold
    /// the network, choose each delivery, fork, fingerprint the whole
    /// state), or `None` when the protocol does not offer it.
    fn steerable(&self) -> Option<&dyn Steer> {
        None
    }

    /// [`steerable`](ReplicationGroup::steerable), to act on.
    fn steerable_mut(&mut self) -> Option<&mut dyn Steer> {
        None
    }

    /// A hash of the group's whole simulated state (nodes, harness, in-flight
    /// messages, clock excluded), for the explorer's bounded exhaustive mode
    /// to explore an equivalent state once. The default hashes the summary,
    /// which is coarser (its fields, not their text: formatting the
    /// summary cost ten times as much, and it runs at the end of every
    /// explorer schedule).
    fn fingerprint(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.summary().nodes.hash(&mut h);
        h.finish()
    }

    /// The protocol's own safety invariants over its current state (SPEC
    /// §6 for ISR; log matching and commit rules for Raft; …): `Err` names
    /// the first one broken. The default checks nothing.
    fn check_invariants(&self) -> Result<(), String> {
        Ok(())
    }

    /// That the group's trace, recorded from its start, tells the truth:
    /// folded event by event, it ends where the group's state is (the
    /// membership, the high watermark, each node's log end and durable
    /// mark, …), and every reason it gives holds when it is given. `Err`
    /// names the first disagreement. Meaningful only when the trace was
    /// on since the group was built; the default checks nothing. The
    /// explorer asks it on a sample of its schedules, whose trace it keeps
    /// on.
    fn check_trace(&self) -> Result<(), String> {
        Ok(())
    }

    /// Makes `node`'s current state durable.
    fn fsync(&mut self, node: &NodeId) -> Result<(), GroupError>;

    /// The protocol's way of replacing the leader: a manual promotion of
    /// `candidate` (async, wal), a controller election of `candidate` (isr),
    /// or waiting until the nodes elect a leader other than the current one
    /// (raft). `None` lets the protocol pick the first eligible node in id
    /// order; a protocol that cannot honour a named candidate (raft) answers
    /// [`GroupError::NotPermitted`]. Returns the new leader. A failover that
    /// waits for an election may answer [`GroupError::NotIdle`] after its
    /// bound has passed (the one kind of `Err` that lets time pass).
    fn failover(&mut self, candidate: Option<&NodeId>) -> Result<NodeId, GroupError>;

    /// The run's trace.
    fn trace(&self) -> &Trace;

    /// Mutable trace access, e.g. to switch recording off.
    fn trace_mut(&mut self) -> &mut Trace;

    /// The current tick.
    fn now(&self) -> Tick;

    /// A protocol-neutral snapshot.
    fn summary(&self) -> GroupSummary;

    /// Every node's state line now, in node order, from the protocol's
    /// probe (role, term / epoch, log end, HW or commit index, ISR /
    /// synchronous set, durable offset, catch-up mode — what it has). The
    /// default shows the summary's role and applied offset.
    fn node_states(&self) -> Vec<NodeState> {
        self.summary()
            .nodes
            .into_iter()
            .map(|n| NodeState::new(n.id, n.alive, n.role).with("applied", n.applied_offset))
            .collect()
    }

    /// Where this group records its state lines (a protocol on the
    /// [`Cluster`](crate::Cluster) harness answers `Some(&self.cluster)`);
    /// `None` (the default) records nothing.
    fn recorder(&self) -> Option<&dyn StateRecorder> {
        None
    }

    /// [`recorder`](Self::recorder), to write to.
    fn recorder_mut(&mut self) -> Option<&mut dyn StateRecorder> {
        None
    }

    /// Starts recording the state lines: noted now, at the end of every
    /// tick from now on, and at every [`note_states`](Self::note_states).
    /// Without a [`recorder`](Self::recorder) nothing is recorded
    /// ([`state_log`](Self::state_log) stays `None`).
    fn record_states(&mut self) {
        if let Some(r) = self.recorder_mut() {
            r.start();
        }
        self.note_states();
    }

    /// Notes the state lines now, while recording (the scenario
    /// interpreter calls it after every directive, which may change state
    /// without a tick); builds no line otherwise.
    fn note_states(&mut self) {
        if self.recorder().is_some_and(|r| r.recording()) {
            let states = self.node_states();
            if let Some(r) = self.recorder_mut() {
                r.note(states);
            }
        }
    }

    /// The state lines recorded so far, while recording.
    fn state_log(&self) -> Option<&StateLog> {
        self.recorder().and_then(|r| r.log())
    }
}

/// A group whose run can be steered: it can hold its network (nothing
/// sent is delivered until a chooser says so), list the messages held,
/// deliver, drop or duplicate one, be cloned, and give a fingerprint of
/// its complete state — every node, every message held, the client
/// operations in flight, the fault state, the rng and the tick; never the
/// trace. A model checker, a debugger and a lab grader drive the real
/// protocol code through it (stateright's `Deliver` / `Timeout` actions;
/// turmoil's `hold` / `release`). Time stays concrete (ticks pass, and
/// what a protocol decides by elapsed time, such as a PreVote's "a leader
/// was heard lately", sees them), and a released message is delivered at
/// the next tick. A timer fires when the chooser makes a node's timer due
/// ([`Steer::expire`], DSLabs' timer firing); a protocol that lists its
/// timers holds them with the network ([`Steer::chooses_timers`]), so
/// that none fires by itself, and one whose timers only the passing of
/// ticks fires lets a tick fire them ([`ReplicationGroup::tick`]).
pub trait Steer: ReplicationGroup {
    /// An independent copy of the whole group (its trace included).
    fn fork(&self) -> Box<dyn Steer>;

    /// Writes the protocol's own state — every node and every piece of
    /// group state that decides what happens next (pending writes, the
    /// controller) — in a canonical text form. Nothing that only describes
    /// the past (the trace, scratch buffers, caches) belongs here.
    fn write_state(&self, out: &mut dyn std::fmt::Write) -> std::fmt::Result;

    /// Feeds the same state as [`write_state`](Self::write_state) into
    /// `hasher` — by default its text; a protocol whose state derives
    /// `Hash` hashes it directly, which is several times faster than
    /// formatting it (every field still feeds it).
    fn hash_state(&self, hasher: &mut crate::StateHasher) {
        let _ = self.write_state(hasher);
    }

    /// Writes the harness's state (tick, rng, faults, client operations,
    /// the messages held — without their ids, which depend on the order
    /// things happened in).
    fn write_harness(&self, out: &mut dyn std::fmt::Write) -> std::fmt::Result;

    /// Feeds the harness's state into `hasher`: by default its text
    /// ([`write_harness`](Self::write_harness)); hashed as derived where
    /// the protocol's messages allow.
    fn hash_harness(&self, hasher: &mut crate::StateHasher) {
        let _ = self.write_harness(hasher);
    }

    /// Feeds `hasher` what decides a held run's next steps, leaving out
    /// *when* they happen: the state a model checker deduplicates by
    /// ([`timeless_fingerprint`]). By default the whole state (what
    /// [`state_fingerprint`] hashes). A protocol whose timers, while
    /// held, fire only when chosen ([`chooses_timers`](Self::chooses_timers))
    /// may leave out the tick, the generator that draws its deadlines and
    /// every deadline whose value decides nothing before the hold ends,
    /// and hash each other time as its distance from now (a lease's age,
    /// the ticks a client operation still waits): two states that differ
    /// only there then take the same steps to the same states, so the
    /// same state reached by paths of different lengths, or by deliveries
    /// to two nodes in either order, is one state. What time decides
    /// after the hold (a judged end lets time run) comes from the first
    /// such state found.
    fn hash_timeless(&self, hasher: &mut crate::StateHasher) {
        hash_whole_state(self, hasher);
    }

    /// Holds the network (`true`) or lets it deliver by itself again
    /// (`false`, every held message due at the next tick).
    fn hold(&mut self, on: bool) -> Result<(), GroupError>;

    /// The messages held, in send order.
    fn held(&self) -> Vec<crate::HeldMessage>;

    /// Delivers held message `id` at the next tick (the caller then lets
    /// the tick pass).
    fn release(&mut self, id: sim_core::MessageId) -> Result<(), GroupError>;

    /// Drops held message `id`.
    fn drop_held(&mut self, id: sim_core::MessageId) -> Result<(), GroupError>;

    /// Holds a second copy of message `id` (datagram transports only).
    fn duplicate_held(&mut self, id: sim_core::MessageId) -> Result<(), GroupError>;

    /// Node `node`'s faults (a position in the node list): a chooser that
    /// takes over a group mid-run starts from them.
    fn node_faults(&self, node: usize) -> crate::NodeFaults;

    /// The one-way links cut (isolations aside), by position.
    fn cut_links(&self) -> Vec<(usize, usize)>;

    /// Node `node`'s log, an entry a line in the protocol's words (`3 t2
    /// k0=v1`: index, term or epoch, what it holds), for a debugger's
    /// lane; empty when the protocol does not show it.
    fn node_log(&self, node: usize) -> Vec<String> {
        let _ = node;
        Vec::new()
    }

    /// The timers armed at the nodes that are up, node by node (none by
    /// default: a protocol whose timers only the passing of ticks fires).
    fn timers(&self) -> Vec<crate::ArmedTimer> {
        Vec::new()
    }

    /// True when this group's timers, while held, fire only when a
    /// chooser makes them due ([`expire`](Self::expire)), as DSLabs and
    /// stateright treat a timer: ticks then pass without any timer firing
    /// by itself, and a chooser need not let time pass to see one fire.
    /// False by default: a protocol whose timers only the passing of
    /// ticks fires.
    fn chooses_timers(&self) -> bool {
        false
    }

    /// True when [`check_invariants`](ReplicationGroup::check_invariants)
    /// answers from the group's current state alone, remembering nothing
    /// between calls (no monotonicity across checks): two runs in one
    /// state then get one answer, and a model checker may leave the check
    /// of a state it only fingerprints to when it judges that state.
    /// False by default.
    fn invariants_are_stateless(&self) -> bool {
        false
    }

    /// Makes the first timer armed at node `node` (a position in the node
    /// list) due now, so that it fires when the next tick passes, however
    /// far its deadline was. Refused for a node with no armed timer.
    fn expire(&mut self, node: usize) -> Result<(), GroupError> {
        Err(GroupError::config(
            "timers",
            format!("node #{node}: this protocol's timers fire only as ticks pass"),
        ))
    }
}

/// A 64-bit fingerprint of `group`'s complete state: [`Steer::hash_state`]
/// and [`Steer::hash_harness`] hashed as they are written (no text is
/// kept).
pub fn state_fingerprint(group: &dyn Steer) -> u64 {
    let mut sink = crate::StateHasher::default();
    hash_whole_state(group, &mut sink);
    std::hash::Hasher::finish(&sink)
}

/// [`state_fingerprint`] with the messages in flight hashed in the order
/// the network will deliver them, each with its due tick
/// ([`StateHasher::in_delivery_order`](crate::StateHasher::in_delivery_order)):
/// two groups with the same answer run alike from here on, however many
/// messages one tick delivers (the canonical order of
/// [`state_fingerprint`] names what is in flight, not in which order a
/// tick hands it over). `None` for a group whose harness does not hash
/// that order (one that does not go through a `Cluster`): a memo keyed
/// by it must not be used.
pub fn ordered_fingerprint(group: &dyn Steer) -> Option<u64> {
    let mut sink = crate::StateHasher::in_delivery_order();
    hash_whole_state(group, &mut sink);
    sink.hashed_in_delivery_order()
        .then(|| std::hash::Hasher::finish(&sink))
}

/// Feeds `hasher` `group`'s complete state, what [`state_fingerprint`]
/// hashes: [`Steer::hash_state`], a separator, [`Steer::hash_harness`].
pub fn hash_whole_state<G: Steer + ?Sized>(group: &G, hasher: &mut crate::StateHasher) {
    // Writing into a hasher cannot fail.
    group.hash_state(hasher);
    let _ = std::fmt::Write::write_char(hasher, '\u{1}');
    group.hash_harness(hasher);
}

/// A 64-bit fingerprint of what decides `group`'s next steps, up to time
/// ([`Steer::hash_timeless`]): the complete state for a protocol that
/// keeps time concrete.
pub fn timeless_fingerprint(group: &dyn Steer) -> u64 {
    let mut sink = crate::StateHasher::default();
    group.hash_timeless(&mut sink);
    std::hash::Hasher::finish(&sink)
}

/// [`timeless_fingerprint`] without the messages in flight: a coarser
/// view, in which two states that differ only in what the network still
/// carries are one (TLC's `VIEW`). A search deduplicated by it is no
/// longer exhaustive — a message a merged state held may never be
/// delivered — but every path it finds is a real one. A group whose
/// harness does not go through a `Cluster` (or ignores
/// [`StateHasher::without_messages`](crate::StateHasher::without_messages))
/// hashes its messages anyway: a finer view, never a coarser one.
pub fn fingerprint_without_messages(group: &dyn Steer) -> u64 {
    let mut sink = crate::StateHasher::without_messages();
    group.hash_timeless(&mut sink);
    std::hash::Hasher::finish(&sink)
}
