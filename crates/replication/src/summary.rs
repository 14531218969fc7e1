//! A protocol-neutral snapshot of a group.

use std::collections::BTreeMap;

use bytes::Bytes;
use sim_core::{NodeId, Tick};

/// What every protocol can say about one node.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NodeSummary {
    /// The node.
    pub id: NodeId,
    /// False while crashed.
    pub alive: bool,
    /// Role in the protocol's own words (`primary`, `standby`, `follower`, …).
    pub role: &'static str,
    /// The node's applied offset / LSN / index.
    pub applied_offset: u64,
    /// The node's visible key/value state.
    pub data: BTreeMap<Bytes, Bytes>,
}

/// What every protocol can say about the whole group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupSummary {
    /// Protocol name.
    pub protocol: &'static str,
    /// Current tick.
    pub tick: Tick,
    /// Current leader / primary, if any.
    pub leader: Option<NodeId>,
    /// One entry per node, ordered by node id.
    pub nodes: Vec<NodeSummary>,
}

impl GroupSummary {
    /// The summary of `node`, if it exists.
    pub fn node(&self, node: &NodeId) -> Option<&NodeSummary> {
        self.nodes.iter().find(|n| &n.id == node)
    }

    /// True when every alive node holds the same data at the same offset.
    pub fn alive_nodes_agree(&self) -> bool {
        let mut alive = self.nodes.iter().filter(|n| n.alive);
        match alive.next() {
            None => true,
            Some(first) => {
                alive.all(|n| n.data == first.data && n.applied_offset == first.applied_offset)
            }
        }
    }
}
