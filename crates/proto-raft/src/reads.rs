//! The three read levels: serving from a node's state machine, and the
//! guards a LINEARIZABLE read can be blocked by (the read-index round
//! itself is driven by `client.rs`).

use replication::{Cluster, GroupError, ReadLevel, ReadResult};
use sim_core::record;

use crate::message::Message;
use crate::node::RaftNode;

/// Guard name: the read-index round got no majority in time.
pub const GUARD_NO_QUORUM: &str = "read-index fenced (no quorum)";
/// Guard name: the leader has not committed an entry in its own term.
pub const GUARD_NO_CURRENT_TERM_COMMIT: &str = "no current-term commit";
/// Guard name: the named node is not a leader.
pub const GUARD_NOT_LEADER: &str = "not leader";
/// Guard name: the node lost leadership while the round ran.
pub const GUARD_DEPOSED: &str = "read-index fenced (deposed)";

/// Serves `key` from node `i`'s applied state machine and records
/// `raft_read_served`.
pub(crate) fn serve_local(
    cluster: &mut Cluster<Message>,
    n: &RaftNode,
    i: usize,
    key: &[u8],
    level: ReadLevel,
) -> ReadResult {
    {
        let value = n.data.get(key).cloned();
        let now = cluster.now();
        record!(
            cluster.trace,
            now,
            "raft_read_served",
            node = cluster.id(i).clone(),
            level = level.name(),
            key = bytes::Bytes::copy_from_slice(key),
            value = value.clone(),
            applied = n.last_applied
        );
        ReadResult {
            value,
            node: cluster.id(i).clone(),
            offset: n.last_applied,
        }
    }
}

/// Records `raft_read_blocked` and returns the error the blocking read
/// answers with.
pub(crate) fn blocked(
    cluster: &mut Cluster<Message>,
    i: usize,
    guard: &'static str,
    reason: String,
) -> GroupError {
    {
        let now = cluster.now();
        record!(
            cluster.trace,
            now,
            "raft_read_blocked",
            node = cluster.id(i).clone(),
            guard = guard,
            reason = reason.clone()
        );
        GroupError::ReadBlocked {
            level: ReadLevel::Linearizable,
            node: cluster.id(i).clone(),
            guard,
            reason,
        }
    }
}
