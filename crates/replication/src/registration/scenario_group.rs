//! [`ScenarioGroup`]: what a scenario reads from a group in its
//! protocol's own words.

use sim_core::NodeId;

use crate::error::GroupError;
use crate::group::ReplicationGroup;
use crate::level::AckLevel;
use crate::outcome::{ReadResult, WriteResult};
use crate::state::{NodeState, StateLog};

/// A group a scenario drives: the [`ReplicationGroup`] trait, plus the
/// readings an experiment reports in the protocol's words, each taken from
/// the protocol's own state (its probe), never from trace event names.
pub trait ScenarioGroup: ReplicationGroup {
    /// A LINEARIZABLE read addressed to `node` that only a leader with a
    /// live lease may serve (isr's `lease_read`); `None` when the protocol
    /// has no such call (the default).
    fn lease_read(&mut self, node: &NodeId, key: &[u8]) -> Option<Result<ReadResult, GroupError>> {
        let _ = (node, key);
        None
    }

    /// How `node` last caught up, in the protocol's words (`partial`,
    /// `incremental`, `log replay`, …); `None` for an unknown node.
    fn catch_up(&self, node: &NodeId) -> Option<String>;

    /// Old-lineage messages its nodes have rejected so far (stale term,
    /// epoch, timeline or generation).
    fn fenced(&self) -> u64;

    /// Why `node` did or did not gate `write` (made at `level`), from the
    /// protocol's state now.
    fn gate(&self, node: &NodeId, level: AckLevel, write: &WriteResult) -> String;

    /// Every node's state line now, in node order, from the protocol's
    /// probe (role, term / epoch, log end, HW or commit index, ISR /
    /// synchronous set, durable offset, catch-up mode — what it has). The
    /// default shows the summary's role and applied offset.
    fn node_states(&self) -> Vec<NodeState> {
        self.summary()
            .nodes
            .into_iter()
            .map(|n| NodeState::new(n.id, n.alive, n.role).with("applied", n.applied_offset))
            .collect()
    }

    /// Starts recording the state lines: noted now, at the end of every
    /// tick from now on, and at every [`note_states`](Self::note_states).
    /// The default records nothing ([`state_log`](Self::state_log) stays
    /// `None`).
    fn record_states(&mut self) {}

    /// Notes the state lines now, while recording (the scenario
    /// interpreter calls it after every directive, which may change state
    /// without a tick).
    fn note_states(&mut self) {}

    /// The state lines recorded so far, while recording.
    fn state_log(&self) -> Option<&StateLog> {
        None
    }
}
