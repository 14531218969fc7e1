//! The group's safety invariants, checked from the outside after every
//! step in tests: each node's own (see `WalNode::check_invariants`), then
//! those across nodes.

use std::collections::BTreeMap;

use crate::group::WalShippingGroup;
use crate::node::WalNode;

/// See [`WalShippingGroup::check_invariants`].
pub(crate) fn check(g: &WalShippingGroup) -> Result<(), String> {
    let ids = g.cluster.ids();
    for (i, node) in g.nodes.iter().enumerate() {
        node.check_invariants(&ids[i], g.durable_lsn(i))?;
    }
    let mut primaries: BTreeMap<u64, usize> = BTreeMap::new();
    for (i, a) in g.nodes.iter().enumerate() {
        if a.is_primary()
            && let Some(b) = primaries.insert(a.timeline(), i)
        {
            return Err(format!(
                "{} and {} are both primary on timeline {}",
                ids[i],
                ids[b],
                a.timeline()
            ));
        }
        for (j, b) in g.nodes.iter().enumerate().skip(i + 1) {
            if a.timeline() == b.timeline() {
                let n = a.wal().len().min(b.wal().len());
                if a.wal()[..n] != b.wal()[..n] {
                    return Err(format!(
                        "{} and {} on timeline {} have diverging WAL bytes",
                        ids[i],
                        ids[j],
                        a.timeline()
                    ));
                }
            }
        }
    }
    if let Some(p) = g.operator.primary() {
        let primary = &g.nodes[p];
        if primary.timeline() != g.operator.newest_timeline() {
            return Err(format!(
                "current primary {} is on timeline {}, newest is {}",
                ids[p],
                primary.timeline(),
                g.operator.newest_timeline()
            ));
        }
    }
    for &p in primaries.values() {
        let primary: &WalNode = &g.nodes[p];
        for (peer, flushed) in primary.flush_reports() {
            let s = &g.nodes[peer];
            if s.timeline() == primary.timeline() && s.following() == Some(p) && s.lsn() < flushed {
                return Err(format!(
                    "{} reported LSN {flushed} flushed to {} but holds only {}",
                    ids[peer],
                    ids[p],
                    s.lsn()
                ));
            }
        }
    }
    Ok(())
}
