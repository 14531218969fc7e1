//! Configuration checks every protocol shares.

use std::collections::BTreeSet;

use sim_core::NodeId;

use crate::error::GroupError;

/// Checks a node list: at least `min` nodes, every name non-empty, no name
/// twice. The error names `setting`.
pub fn validate_node_ids(setting: &str, nodes: &[NodeId], min: usize) -> Result<(), GroupError> {
    if nodes.len() < min {
        return Err(GroupError::config(
            setting,
            format!("need at least {min} nodes, got {}", nodes.len()),
        ));
    }
    let mut seen = BTreeSet::new();
    for node in nodes {
        if node.as_str().is_empty() {
            return Err(GroupError::config(setting, "node ids must be non-empty"));
        }
        if !seen.insert(node) {
            return Err(GroupError::config(
                setting,
                format!("duplicate node id {node}"),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(names: &[&str]) -> Vec<NodeId> {
        names.iter().map(NodeId::new).collect()
    }

    #[test]
    fn node_lists_need_enough_distinct_non_empty_names() {
        assert!(validate_node_ids("nodes", &ids(&["a", "b"]), 2).is_ok());
        for (list, min) in [
            (ids(&["a"]), 2),
            (ids(&["a", ""]), 2),
            (ids(&["a", "a"]), 2),
        ] {
            match validate_node_ids("nodes", &list, min) {
                Err(GroupError::Config { setting, .. }) => assert_eq!(setting, "nodes"),
                other => panic!("{list:?}: {other:?}"),
            }
        }
    }
}
