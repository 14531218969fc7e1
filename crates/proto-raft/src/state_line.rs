//! Each node's state line ([`NodeState`]), from the probe: role, its
//! `currentTerm`, the index of its last log entry (`log`), its
//! `commitIndex` (`commit`) and the index its snapshot replaces (`snap`,
//! once it has one). Raft persists before it answers, so the durable index
//! is always the log end and is not shown.

use replication::NodeState;

use crate::probe::RaftProbe;

/// One line per node, in configuration order.
pub(crate) fn lines(probe: &RaftProbe) -> Vec<NodeState> {
    probe
        .nodes
        .iter()
        .map(|n| {
            let line = NodeState::new(n.id.clone(), n.alive, n.role.name())
                .with("term", n.term)
                .with("log", n.last_index())
                .with("commit", n.commit_index);
            if n.snapshot_index > 0 {
                line.with("snap", n.snapshot_index)
            } else {
                line
            }
        })
        .collect()
}
