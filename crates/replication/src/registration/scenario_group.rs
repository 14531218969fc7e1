//! [`ScenarioGroup`]: what a scenario reads from a group in its
//! protocol's own words.

use sim_core::NodeId;

use crate::group::ReplicationGroup;
use crate::level::AckLevel;
use crate::outcome::WriteResult;

/// A group a scenario drives: the [`ReplicationGroup`] trait, plus the
/// readings an experiment reports in the protocol's words, each taken from
/// the protocol's own state (its probe), never from trace event names.
pub trait ScenarioGroup: ReplicationGroup {
    /// How `node` last caught up, in the protocol's words (`partial`,
    /// `incremental`, `log replay`, …); `None` for an unknown node.
    fn catch_up(&self, node: &NodeId) -> Option<String>;

    /// Old-lineage messages its nodes have rejected so far (stale term,
    /// epoch, timeline or generation).
    fn fenced(&self) -> u64;

    /// Why `node` did or did not gate `write` (made at `level`), from the
    /// protocol's state now.
    fn gate(&self, node: &NodeId, level: AckLevel, write: &WriteResult) -> String;
}
