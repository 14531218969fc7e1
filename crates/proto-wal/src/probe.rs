//! The typed snapshot of a group: every field the SPEC lists.

use std::collections::BTreeMap;

use bytes::Bytes;
use replication::Cluster;
use sim_core::{NodeId, Tick};

use crate::config::WalConfig;
use crate::node::{DurableMark, WalMsg, WalNode};
use crate::operator::Operator;
use crate::role::{CatchUpMode, Role};

/// One node in a [`WalProbe`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct NodeProbe {
    /// The node.
    pub id: NodeId,
    /// False while crashed.
    pub alive: bool,
    /// The role it believes it has.
    pub role: Role,
    /// Its timeline.
    pub timeline: u64,
    /// The primary it streams from (standbys only).
    pub following: Option<NodeId>,
    /// Listed in `synchronous_standby_names`: a candidate that may gate
    /// `QUORUM` commits; it fsyncs on receipt unless `synchronous_commit =
    /// remote_write`.
    pub synchronous: bool,
    /// Its whole WAL: the concatenated encoded records.
    pub wal: Bytes,
    /// Last LSN applied to `data` (replay LSN).
    pub applied_lsn: u64,
    /// Last LSN in its WAL (received; ahead of `applied_lsn` while a replay
    /// delay holds records back).
    pub received_lsn: u64,
    /// Last LSN flushed (fsynced) and reported to its primary.
    pub flushed_lsn: u64,
    /// Last LSN of its durable image: what a power loss rolls back to.
    pub durable_lsn: u64,
    /// Its key/value state.
    pub data: BTreeMap<Bytes, Bytes>,
    /// How it most recently received WAL.
    pub catch_up_mode: CatchUpMode,
}

/// A snapshot of a [`WalShippingGroup`](crate::WalShippingGroup).
///
/// Building one copies every node's WAL and data: it is for tests and
/// experiments, not for hot loops.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct WalProbe {
    /// Current tick.
    pub tick: Tick,
    /// The current primary (the last one promoted) if it is alive, as
    /// [`ReplicationGroup::leader`](crate::ReplicationGroup::leader).
    pub leader: Option<NodeId>,
    /// The newest timeline (the current primary's).
    pub timeline: u64,
    /// Configured synchronous standbys.
    pub synchronous_standbys: Vec<NodeId>,
    /// LSNs the current primary retains for incremental catch-up.
    pub retained_lsns: Vec<u64>,
    /// One entry per node, in configuration order (primary, then the
    /// standbys as listed).
    pub nodes: Vec<NodeProbe>,
}

impl WalProbe {
    /// The probe of `id`, if it is in the group.
    #[must_use]
    pub fn node(&self, id: &NodeId) -> Option<&NodeProbe> {
        self.nodes.iter().find(|n| &n.id == id)
    }
}

/// The probe of a group made of these parts (copies every node's WAL and
/// data).
pub(crate) fn snapshot(
    cluster: &Cluster<WalMsg>,
    nodes: &[WalNode],
    operator: &Operator,
    config: &WalConfig,
    disk: &[DurableMark],
) -> WalProbe {
    let ids = cluster.ids();
    let primary = operator.primary().map(|p| &nodes[p]);
    WalProbe {
        tick: cluster.now(),
        leader: operator
            .primary()
            .filter(|&p| cluster.is_alive(p))
            .map(|p| ids[p].clone()),
        timeline: operator.newest_timeline(),
        synchronous_standbys: config.synchronous_standbys.clone(),
        retained_lsns: primary.map_or_else(Vec::new, |p| (p.retained_first()..=p.lsn()).collect()),
        nodes: nodes
            .iter()
            .enumerate()
            .map(|(i, n)| NodeProbe {
                id: ids[i].clone(),
                alive: cluster.is_alive(i),
                role: n.role(),
                timeline: n.timeline(),
                following: n.following().map(|p| ids[p].clone()),
                synchronous: n.is_synchronous(),
                wal: Bytes::copy_from_slice(n.wal()),
                applied_lsn: n.applied_lsn(),
                received_lsn: n.lsn(),
                flushed_lsn: n.flushed_lsn(),
                durable_lsn: disk[i].lsn,
                data: n.data().to_sorted(),
                catch_up_mode: n.catch_up_mode(),
            })
            .collect(),
    }
}
