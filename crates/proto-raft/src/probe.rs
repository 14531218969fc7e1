//! [`RaftProbe`]: a typed snapshot of the whole group.

use std::collections::BTreeMap;

use bytes::Bytes;
use sim_core::{NodeId, Tick};

use replication::Cluster;

use crate::message::LogEntry;
use crate::message::Message;
use crate::node::Role;
use crate::node::{RaftNode, highest_term_leader};

/// One node as the probe sees it (Figure 2's state, by name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RaftNodeProbe {
    /// The node.
    pub id: NodeId,
    /// False while crashed.
    pub alive: bool,
    /// Current role (a crashed node reports `Follower`, what it restarts as).
    pub role: Role,
    /// Persistent `currentTerm`.
    pub term: u64,
    /// Persistent `votedFor` in `term`.
    pub voted_for: Option<NodeId>,
    /// Persistent log after the snapshot: `log[0]` is index
    /// `snapshot_index + 1` (index 1 before any compaction; the sentinel is
    /// not shown).
    pub log: Vec<LogEntry>,
    /// Index of the last entry the node's snapshot replaces (0: none).
    pub snapshot_index: u64,
    /// Term of that entry (0: none).
    pub snapshot_term: u64,
    /// Volatile `commitIndex`.
    pub commit_index: u64,
    /// Volatile `lastApplied`.
    pub last_applied: u64,
    /// Index through which the log is durable. Raft persists before it
    /// answers, so this is always the log end.
    pub durable_index: u64,
    /// The applied key/value state machine.
    pub data: BTreeMap<Bytes, Bytes>,
    /// The leader this node last heard from in its term (itself if leader).
    pub leader_hint: Option<NodeId>,
    /// On a leader, `matchIndex` per node (its own entry is its log end);
    /// empty otherwise.
    pub match_index: Vec<(NodeId, u64)>,
}

impl RaftNodeProbe {
    /// Index of the last log entry.
    #[must_use]
    pub fn last_index(&self) -> u64 {
        self.snapshot_index + self.log.len() as u64
    }

    /// The entry at `index`, if the log holds it (compacted entries are
    /// gone).
    #[must_use]
    pub fn entry(&self, index: u64) -> Option<&LogEntry> {
        let k = index.checked_sub(self.snapshot_index + 1)?;
        self.log.get(k as usize)
    }

    /// Term of the entry at `index`: from the log, or the snapshot's term
    /// at its own index; `None` when compacted or beyond the log.
    #[must_use]
    pub fn term_at(&self, index: u64) -> Option<u64> {
        if index == self.snapshot_index {
            return Some(self.snapshot_term);
        }
        self.entry(index).map(|e| e.term)
    }
}

/// The former name of [`RaftNodeProbe`].
#[deprecated(note = "renamed RaftNodeProbe, the shape every protocol's node probe has")]
pub type NodeProbe = RaftNodeProbe;

/// The whole group at one tick.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RaftProbe {
    /// Current tick.
    pub tick: Tick,
    /// The alive leader with the highest term, if any.
    pub leader: Option<NodeId>,
    /// The voting configuration (fixed: every configured node).
    pub voters: Vec<NodeId>,
    /// One entry per node, in configuration order.
    pub nodes: Vec<RaftNodeProbe>,
}

impl RaftProbe {
    /// The probe of `id`, if it is in the group.
    #[must_use]
    pub fn node(&self, id: &NodeId) -> Option<&RaftNodeProbe> {
        self.nodes.iter().find(|n| &n.id == id)
    }

    /// How many nodes' logs hold the entry `(index, term)` (a snapshot
    /// ending on it counts; a compacted entry does not, as it cannot be
    /// checked).
    #[must_use]
    pub fn replicas_of(&self, index: u64, term: u64) -> usize {
        self.nodes
            .iter()
            .filter(|n| index >= 1 && n.term_at(index) == Some(term))
            .count()
    }
}

/// A typed snapshot of every node (clones logs and maps: not for hot
/// paths).
pub(crate) fn build(cluster: &Cluster<Message>, nodes: &[RaftNode]) -> RaftProbe {
    {
        let id = |i: usize| cluster.id(i).clone();
        RaftProbe {
            tick: cluster.now(),
            leader: highest_term_leader(nodes).map(id),
            voters: cluster.ids().to_vec(),
            nodes: nodes
                .iter()
                .map(|n| RaftNodeProbe {
                    id: id(n.me),
                    alive: n.alive,
                    role: n.role,
                    term: n.current_term,
                    voted_for: n.voted_for.map(id),
                    log: n.log[1..].to_vec(),
                    snapshot_index: n.snapshot.index,
                    snapshot_term: n.snapshot.term,
                    commit_index: n.commit_index,
                    last_applied: n.last_applied,
                    durable_index: n.last_index(),
                    data: n.data.clone(),
                    leader_hint: n.leader_hint.map(id),
                    match_index: if n.leads() {
                        (0..n.cluster)
                            .map(|p| {
                                (
                                    id(p),
                                    if p == n.me {
                                        n.last_index()
                                    } else {
                                        n.match_index[p]
                                    },
                                )
                            })
                            .collect()
                    } else {
                        Vec::new()
                    },
                })
                .collect(),
        }
    }
}
