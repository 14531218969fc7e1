//! The group: owns the simulator and is the only place that sends, delivers
//! and persists.

use bytes::Bytes;
use replication::{AckLevel, GroupError, WriteResult};
use sim_core::{DurableImages, NetConfig, NodeId, Rng, SimNet, Tick, Trace, record};

use crate::config::WalConfig;
use crate::message::WalMsg;
use crate::node::{Effects, WalNode};
use crate::probe::{SyncMode, WalRole};
use crate::record::WalRecord;

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
/// [`ReplicationGroup`](replication::ReplicationGroup) plus the WAL-specific
/// [`promote`](WalShippingGroup::promote),
/// [`write_at`](WalShippingGroup::write_at),
/// [`deliver_raw`](WalShippingGroup::deliver_raw) and
/// [`probe`](WalShippingGroup::probe).
pub struct WalShippingGroup {
    pub(crate) config: WalConfig,
    /// Every node, ordered by id.
    pub(crate) nodes: Vec<WalNode>,
    pub(crate) net: SimNet<WalMsg>,
    pub(crate) rng: Rng,
    pub(crate) trace: Trace,
    pub(crate) disk: DurableImages<DurableMark>,
    /// Index of the last promoted primary (the operator's view).
    pub(crate) primary: Option<usize>,
    /// The newest timeline ever issued.
    pub(crate) top_timeline: u64,
    fx: Effects,
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
                    WalRole::Primary
                } else {
                    WalRole::Standby
                };
                let sync = config.synchronous_standbys.contains(&id);
                WalNode::new(id, role, &config.primary, sync, config.retention)
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
        Ok(group)
    }

    /// The validated configuration.
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

    /// Advances one tick and delivers every message now due.
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
    }

    /// Writes `key = value` at `node`, which must believe it is a primary
    /// (the current one, or a displaced one that has not heard of its
    /// successor — how a split-brain write is attempted).
    ///
    /// `LEADER` returns once the record is appended and flushed on `node`;
    /// `QUORUM` then drives ticks (at most `ack_timeout`) until every
    /// configured synchronous standby other than `node` has flushed and
    /// acknowledged it, else `accepted = false` (the record stays appended).
    /// When no configured synchronous standby remains besides `node` (e.g.
    /// the only one was promoted), the local flush commits, as with an empty
    /// `synchronous_standby_names`. `NONE` and `ALL_ISR` are
    /// [`GroupError::UnsupportedAck`]; a standby or crashed `node` is an error.
    pub fn write_at(
        &mut self,
        node: &NodeId,
        key: Bytes,
        value: Bytes,
        level: AckLevel,
    ) -> Result<WriteResult, GroupError> {
        if !matches!(level, AckLevel::Leader | AckLevel::Quorum) {
            return Err(GroupError::UnsupportedAck {
                protocol: PROTOCOL,
                level,
            });
        }
        let p = self.alive_index(node)?;
        if self.nodes[p].role != WalRole::Primary {
            return Err(GroupError::not_permitted(
                node,
                "not a primary: standbys are read-only",
            ));
        }
        if u32::try_from(key.len()).is_err() || u32::try_from(value.len()).is_err() {
            return Err(GroupError::not_permitted(
                node,
                "key or value longer than u32::MAX bytes",
            ));
        }
        let mut frame = Bytes::new();
        self.with_node(p, |n, now, trace, fx| {
            frame = n.append(key, value, now, trace, fx)
        });
        let lsn = self.nodes[p].lsn();
        for j in 0..self.nodes.len() {
            if j != p {
                let msg = WalMsg::Record {
                    frame: frame.clone(),
                };
                self.net.send(
                    &self.nodes[p].id,
                    &self.nodes[j].id,
                    msg,
                    &mut self.rng,
                    &mut self.trace,
                );
            }
        }
        if level == AckLevel::Leader {
            record!(
                self.trace,
                self.net.now(),
                "wal_write_acked",
                node = node,
                level = "LEADER",
                lsn = lsn
            );
            return Ok(WriteResult::accepted(
                lsn,
                format!("flushed on {node} at LSN {lsn}"),
            ));
        }
        let mut waited = 0;
        loop {
            match self.missing_sync_ack(p, lsn) {
                None => {
                    record!(
                        self.trace,
                        self.net.now(),
                        "wal_write_acked",
                        node = node,
                        level = "QUORUM",
                        lsn = lsn,
                        waited = waited
                    );
                    return Ok(WriteResult::accepted(
                        lsn,
                        if self.config.synchronous_standbys.iter().any(|s| s != node) {
                            format!("flushed on {node} and every synchronous standby at LSN {lsn}")
                        } else {
                            format!(
                                "flushed on {node} at LSN {lsn} (no synchronous standby \
                                 besides the primary: local flush commits)"
                            )
                        },
                    ));
                }
                Some(missing)
                    if waited >= self.config.ack_timeout || !self.is_acting_primary(p) =>
                {
                    let message = format!(
                        "synchronous standby {missing} did not acknowledge LSN {lsn} within {} ticks",
                        self.config.ack_timeout
                    );
                    record!(
                        self.trace,
                        self.net.now(),
                        "wal_write_refused",
                        node = node,
                        level = "QUORUM",
                        lsn = lsn,
                        missing = &missing,
                        waited = waited
                    );
                    return Ok(WriteResult::refused(Some(lsn), message));
                }
                Some(_) => {
                    self.step();
                    waited += 1;
                }
            }
        }
    }

    fn is_acting_primary(&self, p: usize) -> bool {
        self.nodes[p].alive && self.nodes[p].role == WalRole::Primary
    }

    /// The first configured synchronous standby (other than `p` itself)
    /// that has not acknowledged `lsn` to primary `p`.
    fn missing_sync_ack(&self, p: usize, lsn: u64) -> Option<NodeId> {
        let primary = &self.nodes[p];
        self.config
            .synchronous_standbys
            .iter()
            .filter(|s| **s != primary.id)
            .find(|s| primary.peer_flush.get(*s).is_none_or(|&f| f < lsn))
            .cloned()
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
            .filter(|_| self.nodes[i].role == WalRole::Standby)
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
    pub fn trace(&self) -> &Trace {
        &self.trace
    }
}
