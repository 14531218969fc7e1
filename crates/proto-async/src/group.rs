//! [`AsyncPrimaryGroup`]: the nodes on one simulated network, the sentinel
//! and the client operations in flight. The only place that sends and
//! delivers messages, and that carries out the sentinel's decisions.

use std::fmt;
use std::sync::Arc;

use bytes::Bytes;
use replication::{AckLevel, ClientOp, Cluster, GroupError, ReplicationGroup, WriteResult};
use sim_core::{NetConfig, NodeId, Payload, record};

use crate::config::AsyncConfig;
use crate::events;
use crate::inflight::PendingOp;
use crate::invariants;
use crate::message::AsyncMsg;
use crate::node::{AsyncNode, NodeSettings, Output, Peers};
use crate::output::AsyncEvent;
use crate::probe::{AsyncProbe, NodeProbe};
use crate::sentinel::{NodeView, Order, Sentinel};

/// Protocol name used in errors and summaries.
pub(crate) const PROTOCOL: &str = "async";

/// The harness is what the nodes are told about each other.
impl<M: Payload> Peers for Cluster<M> {
    #[inline]
    fn is_up(&self, node: usize) -> bool {
        self.is_alive(node)
    }
    #[inline]
    fn can_send(&self, from: usize, to: usize) -> bool {
        Cluster::can_send(self, from, to)
    }
}

/// A Redis-shaped asynchronous primary with its replicas, on one
/// deterministic simulator.
///
/// Writes are acknowledged as soon as the primary has applied them; the
/// primary streams each entry to every replica; replicas resynchronise with
/// `PSYNC` (partial from the backlog, or full). Promotion is manual
/// ([`AsyncPrimaryGroup::promote`]) and plays the part of Redis Sentinel:
/// it bumps the generation and reconfigures every other node.
#[derive(Clone)]
pub struct AsyncPrimaryGroup {
    pub(crate) config: AsyncConfig,
    /// Ids (ordered by node id), network, rng, trace, client operations
    /// and faults.
    pub(crate) cluster: Cluster<AsyncMsg>,
    /// One per node, in the cluster's order.
    pub(crate) nodes: Vec<AsyncNode>,
    /// Who is primary, of which generation.
    pub(crate) sentinel: Sentinel,
    /// Operations accepted and not yet completed (see [`crate::inflight`]).
    pub(crate) pending: Vec<PendingOp>,
    /// The buffer node steps write their outputs into (reused).
    pub(crate) outputs: Vec<Output>,
}

impl fmt::Debug for AsyncPrimaryGroup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AsyncPrimaryGroup")
            .field("tick", &self.cluster.now())
            .field("primary", self.current_primary())
            .field("leader", &self.leader())
            .field("generation", &self.sentinel.generation())
            .field("nodes", &self.nodes.len())
            .field("pending", &self.pending.len())
            .finish_non_exhaustive()
    }
}

impl AsyncPrimaryGroup {
    /// Builds the group from a validated `config`: the primary at
    /// generation 1 (`repl-1`), every replica following it, everyone empty
    /// and fsynced at offset 0.
    pub fn new(config: AsyncConfig) -> Result<Self, GroupError> {
        config.validate()?;
        let mut ids = config.node_ids();
        ids.sort();
        let primary = ids
            .iter()
            .position(|id| *id == config.primary)
            .expect("the configured primary is one of the nodes");
        let n = ids.len();
        let cluster = Cluster::new(
            ids,
            NetConfig::default().with_delay(config.replication_delay),
            config.seed,
        )?;
        let settings = NodeSettings::from(&config);
        let nodes = (0..n)
            .map(|i| {
                if i == primary {
                    AsyncNode::primary(i, n, settings)
                } else {
                    AsyncNode::replica(i, n, primary, settings)
                }
            })
            .collect();
        let mut group = AsyncPrimaryGroup {
            config,
            cluster,
            nodes,
            sentinel: Sentinel::new(primary),
            pending: Vec::new(),
            outputs: Vec::new(),
        };
        record!(
            group.cluster.trace,
            0,
            "async_group_started",
            primary = &group.config.primary,
            replicas = group.config.replicas.clone(),
            generation = 1u64,
            replication_id = group.nodes[primary].replication_id().to_string(),
            backlog_size = group.config.backlog_size,
            seed = group.config.seed
        );
        Ok(group)
    }

    /// The configuration the group was built from.
    #[must_use]
    pub fn config(&self) -> &AsyncConfig {
        &self.config
    }

    /// The current generation (1 at start, + 1 per promotion or primary
    /// history reset).
    #[must_use]
    pub fn generation(&self) -> u64 {
        self.sentinel.generation()
    }

    /// The node the sentinel currently names primary (alive or not).
    #[must_use]
    pub fn current_primary(&self) -> &NodeId {
        self.cluster.id(self.sentinel.primary())
    }

    /// `node`'s state machine, for inspection (up or not).
    #[must_use]
    pub fn node(&self, node: &NodeId) -> Option<&AsyncNode> {
        self.cluster.index(node).ok().map(|i| &self.nodes[i])
    }

    /// Writes `key = value` at `node`, as a client still connected to it
    /// would, and returns the acknowledgement: a thin wrapper over
    /// [`submit`](ReplicationGroup::submit) of
    /// `ClientOp::write(key, value, level).at(node)` and
    /// [`await_completion`](ReplicationGroup::await_completion) (which
    /// returns without a tick: async writes complete at once, unless
    /// `WAIT` is configured).
    ///
    /// Only a node that believes it is primary accepts writes (a replica
    /// answers `READONLY`): this is how a write reaches an old primary cut
    /// off in a minority. `None` and `Leader` are acknowledged once `node`
    /// has applied the write; `Quorum` / `AllIsr` are unsupported.
    pub fn write_at(
        &mut self,
        node: &NodeId,
        key: Bytes,
        value: Bytes,
        level: AckLevel,
    ) -> Result<WriteResult, GroupError> {
        let id = self.submit(ClientOp::write(key, value, level).at(node))?;
        self.await_completion(id)?.outcome.into_write_result()
    }

    /// Records `event` at node `at` now.
    #[inline]
    pub(crate) fn record(&mut self, at: usize, event: AsyncEvent) {
        if !self.cluster.trace.is_enabled() {
            return;
        }
        let ids = Arc::clone(self.cluster.ids());
        let now = self.cluster.now();
        events::record(&mut self.cluster.trace, &ids, now, at, event);
    }

    /// Carries out node `from`'s outputs in order (draining `out`): sends to
    /// a node that is up, records events.
    pub(crate) fn dispatch(&mut self, from: usize, out: &mut Vec<Output>) {
        for output in out.drain(..) {
            match output {
                Output::Send { to, msg } => {
                    if self.cluster.is_alive(to) {
                        self.cluster.send(from, to, msg);
                    }
                }
                Output::Event(event) => self.record(from, event),
            }
        }
    }

    /// Runs `f` on node `i` with the reused output buffer and the harness
    /// as its view of the peers, then carries out its outputs.
    pub(crate) fn drive<R>(
        &mut self,
        i: usize,
        f: impl FnOnce(&mut AsyncNode, &Cluster<AsyncMsg>, &mut Vec<Output>) -> R,
    ) -> R {
        let mut out = std::mem::take(&mut self.outputs);
        let result = f(&mut self.nodes[i], &self.cluster, &mut out);
        self.dispatch(i, &mut out);
        self.outputs = out;
        result
    }

    /// One tick: every node up hands its output buffers to the network,
    /// the clock advances, every message now due is delivered, replicas
    /// heartbeat their primaries, then every operation in flight is judged.
    pub(crate) fn step_tick(&mut self) {
        // The state lines of the tick ending now (its messages and the
        // calls made since), noted at that tick.
        if self.cluster.states_due() {
            replication::ReplicationGroup::note_states(self);
        }
        for i in 0..self.nodes.len() {
            if self.cluster.is_alive(i) {
                self.drive(i, |node, peers, out| node.tick(peers, out));
            }
        }
        let now = self.cluster.advance();
        while let Some(d) = self.cluster.next_delivery() {
            self.drive(d.to, |node, _, out| node.step(now, d.from, d.msg, out));
        }
        self.heartbeat();
        self.settle_pending();
    }

    /// With `min-replicas-to-write` set, every replica up heartbeats the
    /// primary it follows ([`AsyncNode::heartbeat`]), which hears it when
    /// that primary is up and the link carries it (Redis' once-a-second
    /// `REPLCONF ACK`, modelled without a message so an idle group stays
    /// idle).
    fn heartbeat(&mut self) {
        let now = self.cluster.now();
        for r in 0..self.nodes.len() {
            if !self.cluster.is_alive(r) {
                continue;
            }
            let Some(beat) = self.nodes[r].heartbeat() else {
                continue;
            };
            if self.cluster.is_alive(beat.to) && self.cluster.can_send(r, beat.to) {
                self.nodes[beat.to].on_heartbeat(now, r, beat.generation);
            }
        }
    }

    /// True when a message is in flight or an output buffer not yet sent.
    pub(crate) fn busy(&self) -> bool {
        self.cluster.in_flight() > 0 || self.nodes.iter().any(AsyncNode::has_unsent_output)
    }

    /// Ticks until nothing is in flight or buffered, at most `max_ticks`.
    pub(crate) fn run_idle(&mut self, max_ticks: u64) -> Result<u64, GroupError> {
        let mut ticks = 0;
        while self.busy() {
            if ticks >= max_ticks {
                let unsent = self.nodes.iter().any(AsyncNode::has_unsent_output);
                return Err(GroupError::NotIdle {
                    ticks: max_ticks,
                    waiting_for: format!(
                        "{} replication messages in flight, output buffers {}",
                        self.cluster.in_flight(),
                        if unsent { "not empty" } else { "empty" }
                    ),
                });
            }
            self.step_tick();
            ticks += 1;
        }
        Ok(ticks)
    }

    /// What the sentinel sees of every node.
    pub(crate) fn views(&self) -> Vec<NodeView> {
        let primary = self.sentinel.primary();
        (0..self.nodes.len())
            .map(|i| NodeView {
                alive: self.cluster.is_alive(i),
                claims_primary: self.nodes[i].is_primary(),
                linked_to_primary: self.cluster.linked(i, primary),
            })
            .collect()
    }

    /// Manually promotes `node` to primary (`REPLICAOF NO ONE` plus the
    /// sentinel's reconfiguration): generation + 1, a new replication id
    /// `repl-<generation>`, the backlog cleared, the node keeps its data and
    /// offset. Every other node is reconfigured to follow it and every alive
    /// one asks to resynchronise (a full sync, since its replication id
    /// differs). An old primary that is crashed or cut off from `node` keeps
    /// believing it is primary until it restarts or is healed.
    ///
    /// Errors (nothing changes): unknown node, node down, or `node` already
    /// the primary.
    pub fn promote(&mut self, node: &NodeId) -> Result<(), GroupError> {
        let n = self.cluster.alive_index(node)?;
        let Some((previous, generation)) = self.sentinel.promote(n) else {
            return Err(GroupError::not_permitted(
                node,
                "already the current primary",
            ));
        };
        self.nodes[n].become_primary(generation);
        let event = AsyncEvent::Promoted {
            previous,
            generation,
            replication_id: Arc::clone(self.nodes[n].replication_id()),
            offset: self.nodes[n].offset(),
        };
        self.record(n, event);
        self.reconfigure_others();
        Ok(())
    }

    /// The sentinel's orders to every node but the current primary, carried
    /// out in position order; every node told to follow (or demoted) then
    /// asks to resynchronise.
    pub(crate) fn reconfigure_others(&mut self) {
        let (primary, generation) = (self.sentinel.primary(), self.sentinel.generation());
        for (j, order) in self.sentinel.reconfigure(&self.views()) {
            match order {
                Order::DeferDemotion(reason) => {
                    self.record(j, AsyncEvent::DemotionDeferred { reason });
                    continue;
                }
                Order::Demote => self.demote(j),
                Order::Follow => {
                    self.drive(j, |node, _, out| node.follow(primary, generation, out));
                }
            }
            if self.cluster.is_alive(j) {
                self.drive(j, |node, peers, out| {
                    node.request_resync("reconfigured", peers, out);
                });
            }
        }
    }

    /// Turns old primary `j` into a replica of the current primary, then
    /// settles what waited on it.
    pub(crate) fn demote(&mut self, j: usize) {
        let (primary, generation) = (self.sentinel.primary(), self.sentinel.generation());
        self.drive(j, |node, _, out| node.demote(primary, generation, out));
        self.settle_pending();
    }

    /// Every replica up that is `x` or follows `x` asks to resynchronise
    /// (`reason`), except those in `skip`.
    pub(crate) fn resync_around(&mut self, x: usize, reason: &'static str, skip: &[usize]) {
        for r in 0..self.nodes.len() {
            if self.cluster.is_alive(r) && !skip.contains(&r) {
                self.drive(r, |node, peers, out| {
                    node.reconnected(x, reason, peers, out)
                });
            }
        }
    }

    /// A snapshot of every field of the protocol state.
    #[must_use]
    pub fn probe(&self) -> AsyncProbe {
        let p = self.sentinel.primary();
        let nodes = self
            .config
            .node_ids()
            .iter()
            .filter_map(|id| self.cluster.index(id).ok())
            .map(|i| NodeProbe::of(&self.nodes[i], self.cluster.ids(), self.cluster.is_alive(i)))
            .collect();
        AsyncProbe::of(
            self.cluster.now(),
            &self.nodes[p],
            self.cluster.id(p),
            self.cluster.is_alive(p),
            self.sentinel.generation(),
            nodes,
        )
    }

    /// Checks the protocol's structural invariants on the current state;
    /// the error says which one broke.
    ///
    /// - exactly the current primary is a primary of the current generation;
    /// - the backlog holds consecutive offsets ending at the primary's offset;
    /// - a replica in an alive current primary's history is never ahead of
    ///   it.
    pub fn check_invariants(&self) -> Result<(), String> {
        invariants::check(
            &self.nodes,
            self.cluster.ids(),
            self.sentinel.primary(),
            self.sentinel.generation(),
            self.cluster.is_alive(self.sentinel.primary()),
        )
    }
}

/// A run you can steer: the group's whole state is its nodes, the
/// Sentinel's view and the client operations waiting for an answer.
impl replication::Steer for AsyncPrimaryGroup {
    fn fork(&self) -> Box<dyn replication::Steer> {
        Box::new(self.clone())
    }

    fn write_state(&self, out: &mut dyn fmt::Write) -> fmt::Result {
        write!(
            out,
            "{:?}|{:?}|{:?}",
            self.nodes, self.sentinel, self.pending
        )
    }

    /// The invariants read the nodes, the group's state and the network
    /// as they are now, and remember nothing.
    fn invariants_are_stateless(&self) -> bool {
        true
    }

    replication::steer_through_cluster!(cluster);
}
