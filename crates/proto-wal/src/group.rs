//! [`WalShippingGroup`]: the nodes on one simulated network, the durable
//! images and the operator. The only place that sends, delivers and
//! persists; what a fault means for WAL shipping (a power loss restores the
//! fsynced image, a node that comes back reconnects) is its hooks.

use std::fmt;

use bytes::Bytes;
use replication::{
    AckLevel, ClientOp, Cluster, GroupError, OpId, Outcome, ReplicationGroup, WriteResult,
};
use sim_core::{NetConfig, NodeId, Tick, Trace, record};

use crate::config::WalConfig;
use crate::events;
use crate::invariants;
use crate::node::{DurableMark, NodeSettings, Output, WalEvent, WalMsg, WalNode};
use crate::operator::Operator;
use crate::pending::PendingWrite;
use crate::probe::{self, WalProbe};
use crate::record::WalRecord;

/// Protocol name used in errors and summaries.
pub(crate) const PROTOCOL: &str = "wal";

/// A PostgreSQL-shaped primary with streaming standbys on one simulator.
///
/// Build it with [`WalShippingGroup::new`], drive it through
/// [`ReplicationGroup`](crate::ReplicationGroup) plus the WAL-specific
/// [`promote`](WalShippingGroup::promote),
/// [`write_at`](WalShippingGroup::write_at),
/// [`deliver_raw`](WalShippingGroup::deliver_raw) and
/// [`probe`](WalShippingGroup::probe).
#[derive(Clone)]
pub struct WalShippingGroup {
    pub(crate) config: WalConfig,
    /// Ids, network, rng, trace, client operations and faults.
    pub(crate) cluster: Cluster<WalMsg>,
    /// Every node, in configuration order (primary, then standbys).
    pub(crate) nodes: Vec<WalNode>,
    /// Each node's last fsynced mark, by position (every node fsyncs
    /// when it starts).
    pub(crate) disk: Vec<DurableMark>,
    /// The last promoted primary and the newest timeline.
    pub(crate) operator: Operator,
    /// Positions of `synchronous_standby_names`, in priority order.
    pub(crate) synchronous: Vec<usize>,
    /// `QUORUM` writes waiting for their synchronous standbys, in
    /// submission order.
    pub(crate) pending: Vec<PendingWrite>,
    /// The outcome of the write a blocking `client_write` is waiting for
    /// (its pending entry has no op: nobody takes its completion).
    pub(crate) answered: Option<(OpId, Outcome)>,
    /// The outputs buffer every step reuses.
    out: Vec<Output>,
}

impl fmt::Debug for WalShippingGroup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WalShippingGroup")
            .field("tick", &self.cluster.now())
            .field("leader", &self.leader_index().map(|p| self.cluster.id(p)))
            .field("timeline", &self.operator.newest_timeline())
            .field("nodes", &self.nodes.len())
            .field("pending", &self.pending.len())
            .finish_non_exhaustive()
    }
}

impl WalShippingGroup {
    /// A group at tick 0 with every standby streaming from the primary on
    /// timeline 1, or a [`GroupError::Config`] naming the bad setting.
    pub fn new(config: WalConfig) -> Result<Self, GroupError> {
        let net = NetConfig::default().with_delay(config.delay);
        Self::with_network(config, net)
    }

    /// Like [`WalShippingGroup::new`] with explicit network settings (seeded
    /// delay range, drops, reordering); `config.delay` is ignored.
    pub fn with_network(config: WalConfig, net: NetConfig) -> Result<Self, GroupError> {
        config.validate()?;
        let ids = config.node_ids();
        let cluster = Cluster::new(ids.clone(), net, config.seed)?;
        let primary = ids.iter().position(|id| id == &config.primary);
        let synchronous: Vec<usize> = config
            .synchronous_standbys
            .iter()
            .filter_map(|s| ids.iter().position(|id| id == s))
            .collect();
        let mut nodes = Vec::with_capacity(ids.len());
        let mut disk = Vec::with_capacity(ids.len());
        for i in 0..ids.len() {
            let settings = NodeSettings::default()
                .with_retention(config.retention)
                .with_synchronous(synchronous.contains(&i))
                .with_synchronous_commit(config.synchronous_commit)
                .with_recovery_min_apply_delay(config.recovery_min_apply_delay)
                .with_planted(config.planted);
            let node = WalNode::new(i, ids.len(), primary.unwrap_or(0), settings)?;
            disk.push(node.durable_mark());
            nodes.push(node);
        }
        let mut group = WalShippingGroup {
            cluster,
            nodes,
            disk,
            operator: Operator::new(primary),
            synchronous,
            pending: Vec::new(),
            answered: None,
            out: Vec::new(),
            config,
        };
        let config = &group.config;
        record!(
            group.cluster.trace,
            0,
            "wal_group_created",
            primary = &config.primary,
            standbys = config.standbys.clone(),
            synchronous_standbys = config.synchronous_standbys.clone(),
            retention = config.retention,
            timeline = 1u64,
            seed = config.seed
        );
        if !config.is_classic_sync() {
            record!(
                group.cluster.trace,
                0,
                "wal_sync_replication_configured",
                synchronous_standby_names = config.synchronous_standby_names().to_string(),
                synchronous_commit = config.synchronous_commit.name(),
                recovery_min_apply_delay = config.recovery_min_apply_delay
            );
        }
        Ok(group)
    }

    /// The validated configuration.
    #[must_use]
    pub fn config(&self) -> &WalConfig {
        &self.config
    }

    /// The last promoted primary, if it is alive.
    pub(crate) fn leader_index(&self) -> Option<usize> {
        self.operator
            .primary()
            .filter(|&p| self.cluster.is_alive(p))
    }

    /// Runs `step` on node `i` with the reusable outputs buffer, then
    /// carries out what it asked for.
    pub(crate) fn with_node(
        &mut self,
        i: usize,
        step: impl FnOnce(&mut WalNode, &mut Vec<Output>),
    ) {
        let mut out = std::mem::take(&mut self.out);
        let node = &mut self.nodes[i];
        node.set_reporting(self.cluster.trace.is_enabled());
        step(node, &mut out);
        self.dispatch(i, &mut out);
        self.out = out;
    }

    /// Carries out node `from`'s outputs and empties `out`: first every
    /// event in order (recorded; an fsync stores the durable mark), then
    /// every message in order — a step's events precede its sends in the
    /// trace, as when the node recorded them itself.
    #[inline]
    fn dispatch(&mut self, from: usize, out: &mut Vec<Output>) {
        // Most steps output nothing: that check is inlined, the work not.
        if !out.is_empty() {
            self.dispatch_outputs(from, out);
        }
    }

    /// [`WalShippingGroup::dispatch`] of a non-empty `out`.
    fn dispatch_outputs(&mut self, from: usize, out: &mut Vec<Output>) {
        if !self.cluster.trace.is_enabled() {
            // Nothing is recorded, so the order of fsyncs and sends is all
            // that is left, and it is kept: one pass.
            for output in out.drain(..) {
                match output {
                    Output::Event(WalEvent::Fsync(mark)) => self.persist(from, mark),
                    Output::Event(_) => {}
                    Output::Send { to, msg } => {
                        self.cluster.send(from, to, msg);
                    }
                }
            }
            return;
        }
        let now = self.cluster.now();
        let ids = std::sync::Arc::clone(self.cluster.ids());
        for output in out.iter() {
            match output {
                Output::Event(WalEvent::Fsync(mark)) => self.persist(from, *mark),
                Output::Event(event) => {
                    events::render(&mut self.cluster.trace, &ids, now, from, event);
                }
                Output::Send { .. } => {}
            }
        }
        for output in out.drain(..) {
            if let Output::Send { to, msg } = output {
                self.cluster.send(from, to, msg);
            }
        }
    }

    /// Stores `mark` as node `from`'s durable image.
    fn persist(&mut self, from: usize, mark: DurableMark) {
        self.disk[from] = mark;
    }

    /// One tick: advance the clock, deliver every message now due, let
    /// every running node replay what its replay delay released, then
    /// re-judge every pending write.
    pub(crate) fn step_tick(&mut self) {
        // The state lines of the tick ending now (its messages and the
        // calls made since), noted at that tick.
        if self.cluster.states_due() {
            replication::ReplicationGroup::note_states(self);
        }
        let now = self.cluster.advance();
        let mut out = std::mem::take(&mut self.out);
        while let Some(d) = self.cluster.next_delivery() {
            let node = &mut self.nodes[d.to];
            node.set_reporting(self.cluster.trace.is_enabled());
            node.step(now, d.from, d.msg, &mut out);
            self.dispatch(d.to, &mut out);
        }
        for i in 0..self.nodes.len() {
            if self.cluster.is_alive(i) {
                let node = &mut self.nodes[i];
                node.set_reporting(self.cluster.trace.is_enabled());
                node.tick(now, &mut out);
                self.dispatch(i, &mut out);
            }
        }
        self.out = out;
        self.settle_pending();
    }

    /// The crash hook: a power loss (`lose_unfsynced`) rolls node `i` back
    /// to its durable mark; a `QUORUM` write waiting on it is re-judged.
    pub(crate) fn on_crash(&mut self, i: usize, lose_unfsynced: bool) {
        if lose_unfsynced {
            let mark = self.disk[i];
            self.with_node(i, |n, out| n.power_loss(mark, out));
        }
        self.settle_pending();
    }

    /// The restart hook: whatever was sent to node `i` while it was down
    /// had no connection to arrive on (`sent_while_down`); then it
    /// reconnects.
    pub(crate) fn on_restart(&mut self, i: usize) {
        self.cluster
            .discard_in_flight(i, "sent_while_down", |_| true);
        self.reconnect(i);
    }

    /// After a restart, heal or restored link of running node `i`: it
    /// reconnects (a standby asks for catch-up, a primary announces itself
    /// and re-ships what its peers have not flushed), and every other
    /// running primary announces itself to it.
    pub(crate) fn reconnect(&mut self, i: usize) {
        self.with_node(i, WalNode::reconnect);
        for j in 0..self.nodes.len() {
            if j != i && self.cluster.is_alive(j) {
                self.with_node(j, |n, out| n.peer_reconnected(i, out));
            }
        }
    }

    /// Promotes `node` (`pg_promote`): timeline + 1, retention cleared, the
    /// new primary fsyncs and announces its timeline to every other node;
    /// those that hear it follow it and resynchronise. A `QUORUM` write
    /// still waiting completes *unknown* at once: its client's primary was
    /// replaced under it.
    pub fn promote(&mut self, node: &NodeId) -> Result<(), GroupError> {
        let i = self.cluster.alive_index(node)?;
        let promotion = self
            .operator
            .promote(i)
            .map_err(|_| GroupError::not_permitted(node, "already the primary"))?;
        self.with_node(i, |n, out| {
            n.promote(promotion.timeline, promotion.previous, out);
        });
        self.settle_pending();
        Ok(())
    }

    /// Writes `key = value` at `node` and waits for `level`:
    /// [`submit`](crate::ReplicationGroup::submit) of the write sent to
    /// `node`, then
    /// [`await_completion`](crate::ReplicationGroup::await_completion).
    ///
    /// `node` must believe it is a primary: the current one, or a displaced
    /// one that has not heard of its successor — how a split-brain write is
    /// attempted. `LEADER` is acknowledged once the record is appended and
    /// flushed on `node`; `QUORUM` once the synchronous standbys
    /// `synchronous_standby_names` calls for (every listed one, `FIRST n`
    /// or `ANY n`) have confirmed it to `node` at the `synchronous_commit`
    /// position (written, flushed or applied), else, after at most
    /// `ack_timeout` ticks, `accepted = false` with the LSN (the record
    /// stays appended). A listed synchronous standby that is `node` itself
    /// (it was promoted) never confirms, so such a write waits out
    /// `ack_timeout`, as PostgreSQL's commit waits; only an empty
    /// `synchronous_standby_names` commits on the local flush. `NONE`
    /// and `ALL_ISR` are [`GroupError::UnsupportedAck`]; a standby or
    /// crashed `node` is an error.
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

    /// Hands raw bytes to standby `node` as if its primary had streamed
    /// them. Bytes that do not decode as one [`WalRecord`] are
    /// [`GroupError::Malformed`] and nothing is applied; a record that
    /// decodes goes through the ordinary fencing and LSN-order checks.
    pub fn deliver_raw(&mut self, node: &NodeId, bytes: &[u8]) -> Result<(), GroupError> {
        let i = self.cluster.alive_index(node)?;
        let Some(src) = self.nodes[i].upstream() else {
            return Err(GroupError::not_permitted(
                node,
                "a primary does not receive WAL",
            ));
        };
        if let Err(err) = WalRecord::decode(bytes) {
            let now = self.cluster.now();
            let ids = std::sync::Arc::clone(self.cluster.ids());
            record!(
                self.cluster.trace,
                now,
                "wal_record_malformed",
                node = node,
                src = &ids[src],
                reason = err.to_string()
            );
            return Err(GroupError::Malformed {
                node: node.clone(),
                reason: err.to_string(),
            });
        }
        let frame = Bytes::copy_from_slice(bytes);
        let now = self.cluster.now();
        self.with_node(i, |n, out| n.step(now, src, WalMsg::Record { frame }, out));
        Ok(())
    }

    /// A typed snapshot (copies every node's WAL and data).
    #[must_use]
    pub fn probe(&self) -> WalProbe {
        probe::snapshot(
            &self.cluster,
            &self.nodes,
            &self.operator,
            &self.config,
            &self.disk,
        )
    }

    /// Checks the protocol's safety invariants and returns the first one
    /// that fails, described. O(total WAL size): meant for tests.
    ///
    /// 1. Every node's WAL decodes to records with LSNs 1, 2, 3, … (applied
    ///    contiguously), with non-decreasing timeline tags no newer than the
    ///    node's own timeline, and its data is exactly the replay of it.
    /// 2. Flushed and durable LSNs never exceed the WAL's end.
    /// 3. Nodes on the same timeline hold WALs of which the shorter is a
    ///    byte prefix of the longer: every WAL is a prefix of its timeline's
    ///    history.
    /// 4. At most one node believes it is primary on any timeline; the
    ///    current primary is on the newest one.
    /// 5. A primary's retained records are the tail of its own WAL, and a
    ///    standby that follows it on its timeline has at least the LSN it
    ///    reported flushed.
    pub fn check_invariants(&self) -> Result<(), String> {
        invariants::check(&self.cluster, &self.nodes, &self.operator, &self.disk)
    }

    /// The group's trace.
    #[must_use]
    pub fn trace(&self) -> &Trace {
        &self.cluster.trace
    }

    pub(crate) fn now_tick(&self) -> Tick {
        self.cluster.now()
    }
}

/// A run you can steer: the group's whole state is its nodes, their disks,
/// the operator's view, the synchronous standbys and the writes waiting
/// for their flush.
impl replication::Steer for WalShippingGroup {
    fn fork(&self) -> Box<dyn replication::Steer> {
        Box::new(self.clone())
    }

    fn write_state(&self, out: &mut dyn fmt::Write) -> fmt::Result {
        write!(
            out,
            "{:?}|{:?}|{:?}|{:?}|{:?}|{:?}",
            self.nodes, self.disk, self.operator, self.synchronous, self.pending, self.answered
        )
    }

    /// The invariants read the nodes, the group's state and the network
    /// as they are now, and remember nothing.
    fn invariants_are_stateless(&self) -> bool {
        true
    }

    replication::steer_through_cluster!(cluster);
}
