//! The protocol's structural invariants, checked over the nodes as they
//! are (see [`AsyncPrimaryGroup::check_invariants`](crate::AsyncPrimaryGroup::check_invariants)).

use sim_core::NodeId;

use crate::node::AsyncNode;
use crate::role::Role;

/// Checks `nodes` (named `ids`) against the sentinel's `primary` and
/// `generation`; `primary_alive` when the harness has it up. The error
/// says which invariant broke.
pub(crate) fn check(
    nodes: &[AsyncNode],
    ids: &[NodeId],
    primary: usize,
    generation: u64,
    primary_alive: bool,
) -> Result<(), String> {
    let p = &nodes[primary];
    let name = &ids[primary];
    if p.role() != Role::Primary || p.generation() != generation {
        return Err(format!(
            "current primary {name} is not a primary of generation {generation}"
        ));
    }
    let offsets = p.backlog_offsets();
    for pair in offsets.windows(2) {
        if pair[1] != pair[0] + 1 {
            return Err(format!("backlog offsets not consecutive: {offsets:?}"));
        }
    }
    if offsets.last().is_some_and(|last| *last != p.offset()) {
        return Err(format!(
            "backlog {offsets:?} does not end at primary offset {}",
            p.offset()
        ));
    }
    for (i, node) in nodes.iter().enumerate() {
        if node.role() == Role::Primary && node.generation() > generation {
            return Err(format!("{} is ahead of the current generation", ids[i]));
        }
        if node.generation() == generation && node.role() == Role::Primary && i != primary {
            return Err(format!(
                "two primaries in generation {generation}: {} and {name}",
                ids[i]
            ));
        }
        if node.role() != Role::Replica || node.replication_id() != p.replication_id() {
            continue;
        }
        // A crashed primary may have been rolled back by a power loss;
        // it starts a new history when it restarts.
        if primary_alive && node.offset() > p.offset() {
            return Err(format!(
                "replica {} at offset {} is ahead of primary at {}",
                ids[i],
                node.offset(),
                p.offset()
            ));
        }
    }
    Ok(())
}
