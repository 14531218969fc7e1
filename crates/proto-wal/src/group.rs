//! The group: owns the simulator and is the only place that sends, delivers
//! and persists.

use std::fmt;

use bytes::Bytes;
use replication::{ClientOps, GroupError};
use sim_core::{DurableImages, NetConfig, NodeId, Rng, SimNet, Tick, Trace, record};

use crate::config::WalConfig;
use crate::message::WalMsg;
use crate::node::{Effects, WalNode};
use crate::pending::PendingWrite;
use crate::record::WalRecord;
use crate::role::{Role, SyncMode};

/// Protocol name used in errors and summaries.
pub(crate) const PROTOCOL: &str = "wal";

/// What survives a power loss: an O(1) marker into the append-only WAL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DurableMark {
    pub lsn: u64,
    pub timeline: u64,
}

/// A PostgreSQL-shaped primary with streaming standbys on one simulator.
///
/// Build it with [`WalShippingGroup::new`], drive it through
/// [`ReplicationGroup`](crate::ReplicationGroup) plus the WAL-specific
/// [`promote`](WalShippingGroup::promote),
/// [`write_at`](WalShippingGroup::write_at),
/// [`deliver_raw`](WalShippingGroup::deliver_raw) and
/// [`probe`](WalShippingGroup::probe).
pub struct WalShippingGroup {
    pub(crate) config: WalConfig,
    /// Every node, in configuration order (primary, then standbys).
    pub(crate) nodes: Vec<WalNode>,
    pub(crate) net: SimNet<WalMsg>,
    pub(crate) rng: Rng,
    pub(crate) trace: Trace,
    pub(crate) disk: DurableImages<DurableMark>,
    /// Index of the last promoted primary (the operator's view).
    pub(crate) primary: Option<usize>,
    /// The newest timeline ever issued.
    pub(crate) top_timeline: u64,
    /// Op ids, client events and completions not yet taken.
    pub(crate) client: ClientOps,
    /// `QUORUM` writes waiting for their synchronous standbys, in
    /// submission order.
    pub(crate) pending: Vec<PendingWrite>,
    fx: Effects,
}

impl fmt::Debug for WalShippingGroup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WalShippingGroup")
            .field("tick", &self.net.now())
            .field(
                "leader",
                &self
                    .primary
                    .filter(|&p| self.nodes[p].alive)
                    .map(|p| &self.nodes[p].id),
            )
            .field("timeline", &self.top_timeline)
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
        let net = SimNet::new(net)?;
        let nodes: Vec<WalNode> = config
            .node_ids()
            .into_iter()
            .map(|id| {
                let role = if id == config.primary {
                    Role::Primary
                } else {
                    Role::Standby
                };
                let sync = config.synchronous_standbys.contains(&id);
                let mut node = WalNode::new(id, role, &config.primary, sync, config.retention);
                node.commit = config.synchronous_commit;
                node.apply_delay = config.recovery_min_apply_delay;
                node
            })
            .collect();
        let primary = nodes.iter().position(|n| n.id == config.primary);
        let mut group = WalShippingGroup {
            rng: Rng::new(config.seed),
            trace: Trace::new(),
            disk: DurableImages::new(),
            net,
            nodes,
            primary,
            top_timeline: 1,
            client: ClientOps::new(),
            pending: Vec::new(),
            fx: Effects::default(),
            config,
        };
        for i in 0..group.nodes.len() {
            group.persist(i);
        }
        record!(
            group.trace,
            0,
            "wal_group_created",
            primary = &group.config.primary,
            standbys = group.config.standbys.clone(),
            synchronous_standbys = group.config.synchronous_standbys.clone(),
            retention = group.config.retention,
            timeline = 1u64,
            seed = group.config.seed
        );
        if !group.config.is_classic_sync() {
            record!(
                group.trace,
                0,
                "wal_sync_replication_configured",
                synchronous_standby_names = group.config.synchronous_standby_names().to_string(),
                synchronous_commit = group.config.synchronous_commit.name(),
                recovery_min_apply_delay = group.config.recovery_min_apply_delay
            );
        }
        Ok(group)
    }

    /// The validated configuration.
    #[must_use]
    pub fn config(&self) -> &WalConfig {
        &self.config
    }

    pub(crate) fn index(&self, node: &NodeId) -> Result<usize, GroupError> {
        self.nodes
            .iter()
            .position(|n| &n.id == node)
            .ok_or_else(|| GroupError::UnknownNode(node.clone()))
    }

    pub(crate) fn alive_index(&self, node: &NodeId) -> Result<usize, GroupError> {
        let i = self.index(node)?;
        if !self.nodes[i].alive {
            return Err(GroupError::NodeDown(node.clone()));
        }
        Ok(i)
    }

    /// Stores node `i`'s durable mark (its WAL end and timeline).
    fn persist(&mut self, i: usize) {
        let node = &self.nodes[i];
        let mark = DurableMark {
            lsn: node.lsn(),
            timeline: node.timeline,
        };
        match self.disk.image_mut(&node.id) {
            Some(image) => *image = mark,
            None => self.disk.fsync(&node.id, mark),
        }
    }

    /// Carries out what node `i` asked for in `fx`, then clears it.
    fn apply_effects(&mut self, i: usize, fx: &mut Effects) {
        if fx.fsync {
            self.persist(i);
            fx.fsync = false;
        }
        for (dst, msg) in fx.sends.drain(..) {
            self.net
                .send(&self.nodes[i].id, &dst, msg, &mut self.rng, &mut self.trace);
        }
    }

    /// Runs `step` on node `i` with a reusable effects buffer, then applies it.
    pub(crate) fn with_node(
        &mut self,
        i: usize,
        step: impl FnOnce(&mut WalNode, Tick, &mut Trace, &mut Effects),
    ) {
        let mut fx = std::mem::take(&mut self.fx);
        let now = self.net.now();
        step(&mut self.nodes[i], now, &mut self.trace, &mut fx);
        self.apply_effects(i, &mut fx);
        self.fx = fx;
    }

    /// Flushes node `i` (`fsync`); a standby reports the new flush LSN.
    pub(crate) fn flush_node(&mut self, i: usize) {
        self.with_node(i, |n, _, _, fx| n.flush(fx));
    }

    /// Advances one tick, delivers every message now due, replays every
    /// received record whose replay delay has passed, then re-judges every
    /// pending write.
    pub(crate) fn step(&mut self) {
        self.net.advance();
        while let Some(env) = self.net.next_delivery(&mut self.trace) {
            let Some(i) = self.nodes.iter().position(|n| n.id == env.dst) else {
                self.net
                    .record_discard(&env, "unknown_receiver", &mut self.trace);
                continue;
            };
            if !self.nodes[i].alive {
                self.net
                    .record_discard(&env, "receiver_down", &mut self.trace);
                continue;
            }
            let src = env.src;
            let msg = env.msg;
            self.with_node(i, |node, now, trace, fx| {
                node.handle(&src, msg, now, trace, fx)
            });
        }
        for i in 0..self.nodes.len() {
            if self.nodes[i].alive && !self.nodes[i].replay_due.is_empty() {
                self.with_node(i, |node, now, trace, fx| {
                    node.replay_due_records(now, trace, fx)
                });
            }
        }
        self.settle_pending();
    }

    /// Hands raw bytes to standby `node` as if its primary had streamed
    /// them. Bytes that do not decode as one [`WalRecord`] are
    /// [`GroupError::Malformed`] and nothing is applied; a record that
    /// decodes goes through the ordinary fencing and LSN-order checks.
    pub fn deliver_raw(&mut self, node: &NodeId, bytes: &[u8]) -> Result<(), GroupError> {
        let i = self.alive_index(node)?;
        let Some(src) = self.nodes[i]
            .following
            .clone()
            .filter(|_| self.nodes[i].role == Role::Standby)
        else {
            return Err(GroupError::not_permitted(
                node,
                "a primary does not receive WAL",
            ));
        };
        if let Err(err) = WalRecord::decode(bytes) {
            record!(
                self.trace,
                self.net.now(),
                "wal_record_malformed",
                node = node,
                src = &src,
                reason = err.to_string()
            );
            return Err(GroupError::Malformed {
                node: node.clone(),
                reason: err.to_string(),
            });
        }
        let frame = Bytes::copy_from_slice(bytes);
        self.with_node(i, |n, now, trace, fx| {
            let _ = n.receive_frame(&src, &frame, SyncMode::Streaming, now, trace, fx);
        });
        Ok(())
    }

    /// The group's trace.
    #[must_use]
    pub fn trace(&self) -> &Trace {
        &self.trace
    }
}
