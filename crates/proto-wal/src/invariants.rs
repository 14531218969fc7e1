//! The group's safety invariants, checked from the outside after every
//! step in tests: each node's own (see `WalNode::check_invariants`), then
//! those across nodes.

use std::collections::BTreeMap;

use replication::Cluster;

use crate::node::{DurableMark, WalMsg, WalNode};
use crate::operator::Operator;

/// Checks a group made of these parts (see
/// [`WalShippingGroup::check_invariants`](crate::WalShippingGroup::check_invariants)).
pub(crate) fn check(
    cluster: &Cluster<WalMsg>,
    nodes: &[WalNode],
    operator: &Operator,
    disk: &[DurableMark],
) -> Result<(), String> {
    let ids = cluster.ids();
    for (i, node) in nodes.iter().enumerate() {
        node.check_invariants(&ids[i], disk[i].lsn)?;
    }
    let mut primaries: BTreeMap<u64, usize> = BTreeMap::new();
    for (i, a) in nodes.iter().enumerate() {
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
        for (j, b) in nodes.iter().enumerate().skip(i + 1) {
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
    if let Some(p) = operator.primary() {
        let primary = &nodes[p];
        if primary.timeline() != operator.newest_timeline() {
            return Err(format!(
                "current primary {} is on timeline {}, newest is {}",
                ids[p],
                primary.timeline(),
                operator.newest_timeline()
            ));
        }
    }
    for &p in primaries.values() {
        let primary: &WalNode = &nodes[p];
        for (peer, flushed) in primary.flush_reports() {
            let s = &nodes[peer];
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
