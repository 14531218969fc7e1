//! The group: owns the simulator and is the only place that sends and
//! delivers messages.

use std::fmt;
use std::sync::Arc;

use bytes::Bytes;
use replication::{AckLevel, ClientOp, ClientOps, GroupError, ReplicationGroup, WriteResult};
use sim_core::{DurableImages, NetConfig, NodeId, Rng, SimNet, Trace, record};

use crate::config::AsyncConfig;
use crate::inflight::PendingOp;
use crate::message::{AsyncMsg, Entry, replication_id_for};
use crate::node::{DurableImage, Node};
use crate::role::Role;

/// Protocol name used in errors and summaries.
pub(crate) const PROTOCOL: &str = "async";

/// A Redis-shaped asynchronous primary with its replicas, on one
/// deterministic simulator.
///
/// Writes are acknowledged as soon as the primary has applied them; the
/// primary streams each entry to every replica; replicas resynchronise with
/// `PSYNC` (partial from the backlog, or full). Promotion is manual
/// ([`AsyncPrimaryGroup::promote`]) and plays the part of Redis Sentinel:
/// it bumps the generation and reconfigures every other node.
pub struct AsyncPrimaryGroup {
    pub(crate) config: AsyncConfig,
    /// Ordered by node id.
    pub(crate) nodes: Vec<Node>,
    /// Index of the current primary (as the sentinel knows it).
    pub(crate) current: usize,
    /// The current generation.
    pub(crate) generation: u64,
    pub(crate) net: SimNet<AsyncMsg>,
    pub(crate) rng: Rng,
    pub(crate) trace: Trace,
    pub(crate) disk: DurableImages<DurableImage>,
    /// Per (primary, replica) index pair: entries written since the last
    /// tick, not yet handed to the network (the replica's output buffer).
    /// Flushed as one stream message per link at the next tick.
    pub(crate) outbox: Vec<Vec<Vec<Arc<Entry>>>>,
    /// Op ids, client events in the trace and completions not yet taken.
    pub(crate) ops: ClientOps,
    /// Operations accepted and not yet completed (see [`crate::inflight`]).
    pub(crate) pending: Vec<PendingOp>,
}

impl fmt::Debug for AsyncPrimaryGroup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AsyncPrimaryGroup")
            .field("tick", &self.net.now())
            .field("primary", self.current_primary())
            .field("leader", &self.leader())
            .field("generation", &self.generation)
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
        let net = SimNet::new(NetConfig::default().with_delay(config.replication_delay))?;
        let replid = replication_id_for(1);
        let mut ids = config.node_ids();
        ids.sort();
        let nodes: Vec<Node> = ids
            .iter()
            .map(|id| {
                let (role, following) = if *id == config.primary {
                    (Role::Primary, None)
                } else {
                    (Role::Replica, Some(config.primary.clone()))
                };
                Node::new(
                    id.clone(),
                    role,
                    following,
                    replid.clone(),
                    config.backlog_size,
                )
            })
            .collect();
        let current = nodes
            .iter()
            .position(|n| n.id == config.primary)
            .expect("the configured primary is one of the nodes");
        let mut nodes = nodes;
        for replica in &config.replicas {
            nodes[current].last_heard.insert(replica.clone(), 0);
        }
        let mut disk = DurableImages::new();
        for node in &nodes {
            disk.fsync(&node.id, node.image());
        }
        let outbox = vec![vec![Vec::new(); nodes.len()]; nodes.len()];
        let mut group = AsyncPrimaryGroup {
            outbox,
            rng: Rng::new(config.seed),
            config,
            nodes,
            current,
            generation: 1,
            net,
            trace: Trace::new(),
            disk,
            ops: ClientOps::new(),
            pending: Vec::new(),
        };
        record!(
            group.trace,
            0,
            "async_group_started",
            primary = &group.config.primary,
            replicas = group.config.replicas.clone(),
            generation = 1u64,
            replication_id = replid.to_string(),
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
        self.generation
    }

    /// The node the sentinel currently names primary (alive or not).
    #[must_use]
    pub fn current_primary(&self) -> &NodeId {
        &self.nodes[self.current].id
    }

    /// Index of `node`, or [`GroupError::UnknownNode`].
    pub(crate) fn index(&self, node: &NodeId) -> Result<usize, GroupError> {
        self.nodes
            .iter()
            .position(|n| n.id == *node)
            .ok_or_else(|| GroupError::UnknownNode(node.clone()))
    }

    /// Index of `node` if it is alive.
    pub(crate) fn alive_index(&self, node: &NodeId) -> Result<usize, GroupError> {
        let i = self.index(node)?;
        if self.nodes[i].alive {
            Ok(i)
        } else {
            Err(GroupError::NodeDown(node.clone()))
        }
    }

    pub(crate) fn check_ack_level(level: AckLevel) -> Result<(), GroupError> {
        match level {
            AckLevel::None | AckLevel::Leader => Ok(()),
            AckLevel::Quorum | AckLevel::AllIsr => Err(GroupError::UnsupportedAck {
                protocol: PROTOCOL,
                level,
            }),
        }
    }

    /// Writes `key = value` directly at `node`, as a client still connected
    /// to it would, and returns the acknowledgement: a thin wrapper over
    /// [`submit`](ReplicationGroup::submit) of
    /// `ClientOp::write(key, value, level).at(node)` and
    /// [`await_completion`](ReplicationGroup::await_completion) (which
    /// returns without a tick: async writes complete at once).
    ///
    /// Only a node that believes it is primary accepts writes (a replica
    /// answers `READONLY`): this is how a write reaches an old primary cut
    /// off in a minority. `None` and `Leader` are acknowledged once `node`
    /// has applied the write; `Quorum` / `AllIsr` are unsupported.
    pub fn client_write_at(
        &mut self,
        node: &NodeId,
        key: Bytes,
        value: Bytes,
        level: AckLevel,
    ) -> Result<WriteResult, GroupError> {
        let id = self.submit(ClientOp::write(key, value, level).at(node))?;
        self.await_completion(id)?.outcome.into_write_result()
    }

    /// Applies a write at node index `p` (alive, a primary, level already
    /// checked), records it and streams it; returns its offset.
    pub(crate) fn apply_write(
        &mut self,
        p: usize,
        key: Bytes,
        value: Bytes,
        level: AckLevel,
    ) -> u64 {
        debug_assert_eq!(
            self.nodes[p].role,
            Role::Primary,
            "only a primary applies client writes"
        );
        let entry = self.nodes[p].apply_write(key, value);
        let offset = entry.offset;
        record!(
            self.trace,
            self.net.now(),
            "async_write_applied",
            node = &self.nodes[p].id,
            level = level.name(),
            generation = entry.generation,
            offset = offset,
            key = &entry.key,
            value = &entry.value
        );
        self.stream(p, entry);
        offset
    }
}
