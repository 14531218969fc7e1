//! Node references: a role resolved when the directive runs, or a literal
//! node id.
//!
//! | reference | resolves to |
//! |---|---|
//! | `leader` | the current leader (an error when there is none) |
//! | `old-leader` | the leader before the last `failover` |
//! | `follower-N` | the N-th node (from 1) that is not the current leader, in id order; N at most the followers a group of the part has (a typo is a parse error) |
//! | any other word | that node id; it must be a node of at least one protocol's group as the last `config` builds it (its default group before any `config`) |
//!
//! A literal id that belongs to another protocol (`standby-1` on raft) is
//! not a scenario error: it runs, and the protocol answers `unknown node`.

use replication::{NodeId, Registry, ReplicationGroup, Settings};

/// A node as a scenario names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodeRef {
    /// The current leader.
    Leader,
    /// The leader before the last failover.
    OldLeader,
    /// The n-th non-leader in id order, from 1.
    Follower(usize),
    /// A node id.
    Literal(NodeId),
}

/// Every node id of every registered protocol's default group, sorted.
/// From the registrations, not from built groups: parsing a file starts
/// no group (and so logs no trace event).
pub fn known_nodes(registry: &Registry) -> Vec<NodeId> {
    known_nodes_with(registry, &Settings::new())
}

/// The most followers a group of the protocols `runs_on` accepts has
/// when built with `settings` (its size less its leader): a `follower-N`
/// beyond it is a mistake in the file.
pub fn most_followers(
    registry: &Registry,
    settings: &Settings,
    runs_on: impl Fn(&str) -> bool,
) -> usize {
    registry
        .protocols()
        .iter()
        .filter(|p| runs_on(p.name()))
        .map(|p| {
            p.registration()
                .nodes_with(settings)
                .len()
                .saturating_sub(1)
        })
        .max()
        .unwrap_or(0)
}

/// Every node id of every registered protocol's group built with
/// `settings` (a `nodes=` count adds nodes) and of its default group,
/// sorted. Without building a group.
pub fn known_nodes_with(registry: &Registry, settings: &Settings) -> Vec<NodeId> {
    let mut ids: Vec<NodeId> = registry
        .protocols()
        .iter()
        .flat_map(|p| {
            let reg = p.registration();
            let mut ids = reg.default_nodes();
            ids.extend(reg.nodes_with(settings));
            ids
        })
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

impl NodeRef {
    /// Parses a role or one of the node ids `known` (see [`known_nodes`]);
    /// `follower-N` must be at most `followers` (see [`most_followers`]).
    pub fn parse(text: &str, known: &[NodeId], followers: usize) -> Result<NodeRef, String> {
        match text {
            "leader" => return Ok(NodeRef::Leader),
            "old-leader" => return Ok(NodeRef::OldLeader),
            _ => {}
        }
        if let Some(n) = text.strip_prefix("follower-") {
            return match n.parse::<usize>() {
                Ok(n) if (1..=followers).contains(&n) => Ok(NodeRef::Follower(n)),
                Ok(n) if n >= 1 => Err(format!(
                    "`{text}`: the groups here have at most {followers} followers \
                     (follower-1 … follower-{followers}); `config nodes=N` makes more"
                )),
                _ => Err(format!("`{text}`: followers are numbered from follower-1")),
            };
        }
        let id = NodeId::new(text);
        if known.contains(&id) {
            return Ok(NodeRef::Literal(id));
        }
        let names: Vec<String> = known.iter().map(ToString::to_string).collect();
        Err(format!(
            "unknown node `{text}` (roles: leader, old-leader, follower-N; nodes: {})",
            names.join(", ")
        ))
    }

    /// The node this reference names in `group` now; `old_leader` is the
    /// leader before the last failover, if there was one.
    pub fn resolve(
        &self,
        group: &dyn ReplicationGroup,
        old_leader: Option<&NodeId>,
    ) -> Result<NodeId, String> {
        match self {
            NodeRef::Literal(id) => Ok(id.clone()),
            NodeRef::Leader => group
                .leader()
                .ok_or_else(|| "no leader to resolve `leader`".to_owned()),
            NodeRef::OldLeader => old_leader
                .cloned()
                .ok_or_else(|| "no failover yet, so no `old-leader`".to_owned()),
            NodeRef::Follower(n) => {
                let leader = group.leader();
                let mut followers: Vec<NodeId> = group
                    .node_ids()
                    .into_iter()
                    .filter(|id| Some(id) != leader.as_ref())
                    .collect();
                followers.sort();
                let count = followers.len();
                n.checked_sub(1)
                    .and_then(|i| followers.into_iter().nth(i))
                    .ok_or_else(|| format!("no follower-{n} ({count} followers)"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_registry;

    #[test]
    fn roles_and_known_ids_parse_and_unknown_ids_do_not() {
        let r = &known_nodes(&test_registry());
        assert_eq!(NodeRef::parse("follower-2", r, 2), Ok(NodeRef::Follower(2)));
        assert_eq!(
            NodeRef::parse("standby-1", r, 2),
            Ok(NodeRef::Literal(NodeId::new("standby-1")))
        );
        let err = NodeRef::parse("standby-9", r, 2).expect_err("no such node");
        assert!(err.contains("node-1"), "{err}");
        assert!(NodeRef::parse("follower-0", r, 2).is_err());
        let err = NodeRef::parse("follower-7", r, 2).expect_err("a typo");
        assert!(err.contains("at most 2 followers"), "{err}");
    }
}
