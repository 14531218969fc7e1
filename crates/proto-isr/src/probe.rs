//! The typed snapshot of a group: every field of SPEC §6.

use std::collections::BTreeMap;
use std::fmt;

use bytes::Bytes;
use replication::{NodeId, Tick};

use crate::log::LogEntry;
use crate::role::Role;

/// How a replica last got its log from a leader.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum CatchUpMode {
    /// Never received anything from a leader.
    Never,
    /// Followed the leader's live appends without ever needing a catch-up.
    Streaming,
    /// Last caught up from the leader's retained window (or was level).
    Incremental,
    /// Last caught up by a full snapshot (log, data, HW) replacing its state.
    Full,
}

impl CatchUpMode {
    /// `never`, `streaming`, `incremental` or `full` (the words of the
    /// matrix).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            CatchUpMode::Never => "never",
            CatchUpMode::Streaming => "streaming",
            CatchUpMode::Incremental => "incremental",
            CatchUpMode::Full => "full",
        }
    }
}

impl fmt::Display for CatchUpMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One replica as the probe sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeProbe {
    /// The replica.
    pub id: NodeId,
    /// False while crashed.
    pub alive: bool,
    /// [`Role::Leader`] when this replica believes it leads (a displaced,
    /// isolated leader still does until it hears of the election), else
    /// [`Role::Follower`].
    pub role: Role,
    /// Marked slow with `set_replica_slow` (the harness's slow mark).
    pub slow: bool,
    /// The leader epoch this replica knows.
    pub known_leader_epoch: u64,
    /// The whole log.
    pub log: Vec<LogEntry>,
    /// Offset of the last log entry (0 when empty).
    pub log_end_offset: u64,
    /// Offset through which `committed_data` has been applied.
    pub applied_hw: u64,
    /// Log length at the last fsync.
    pub durable_offset: u64,
    /// Every appended entry applied.
    pub data: BTreeMap<Bytes, Bytes>,
    /// Only entries at or below `applied_hw` applied.
    pub committed_data: BTreeMap<Bytes, Bytes>,
    /// How it last caught up.
    pub catch_up_mode: CatchUpMode,
    /// Leader packets it refused as fenced so far (`isr_append_rejected`
    /// with `stale_leader_epoch` or `non_current_leader`).
    pub fenced_packets: u64,
}

/// The whole group: controller state plus every replica.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IsrProbe {
    /// Current tick.
    pub tick: Tick,
    /// The controller's leader while it can serve (alive and in the ISR),
    /// as [`ReplicationGroup::leader`](replication::ReplicationGroup::leader).
    pub leader: Option<NodeId>,
    /// The replica the controller names leader, even while it is crashed
    /// or restarted without the committed prefix (then `leader` is `None`).
    pub controller_leader: NodeId,
    /// The controller's leader epoch (starts at 1).
    pub leader_epoch: u64,
    /// The controller epoch (starts at 1).
    pub controller_epoch: u64,
    /// The in-sync replica set, sorted by id.
    pub isr: Vec<NodeId>,
    /// The high watermark.
    pub high_watermark: u64,
    /// `min.insync.replicas`.
    pub min_insync_replicas: usize,
    /// Tick at which the leader's lease expires.
    pub lease_expiry: Tick,
    /// Offsets in the leader's retained window, ascending.
    pub retained_offsets: Vec<u64>,
    /// Every replica, in configuration order.
    pub nodes: Vec<NodeProbe>,
}

impl IsrProbe {
    /// The probe of `id`, if it is in the group.
    #[must_use]
    pub fn node(&self, id: &NodeId) -> Option<&NodeProbe> {
        self.nodes.iter().find(|n| &n.id == id)
    }

    /// True when `node` is in the ISR.
    #[must_use]
    pub fn in_isr(&self, node: &NodeId) -> bool {
        self.isr.contains(node)
    }
}
