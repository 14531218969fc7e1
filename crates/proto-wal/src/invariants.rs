//! Safety invariants, checked from the outside after every step in tests.

use std::collections::BTreeMap;

use bytes::Bytes;

use crate::group::WalShippingGroup;
use crate::node::WalNode;
use crate::role::Role;

impl WalShippingGroup {
    /// Checks the protocol's safety invariants and returns the first one
    /// that fails, described. O(total WAL size): meant for tests.
    ///
    /// 1. Every node's WAL decodes to records with LSNs 1, 2, 3, … (applied
    ///    contiguously), with non-decreasing timeline tags no newer than the
    ///    node's own timeline, and its data is exactly the replay of it.
    /// 2. Flushed and durable LSNs never exceed the WAL's end.
    /// 3. Nodes on the same timeline hold WALs of which the shorter is a
    ///    byte prefix of the longer: every WAL is a prefix of its timeline's
    ///    history.
    /// 4. At most one node believes it is primary on any timeline; the
    ///    current primary is on the newest one.
    /// 5. A primary's retained records are the tail of its own WAL, and a
    ///    standby that follows it on its timeline has at least the LSN it
    ///    reported flushed.
    pub fn check_invariants(&self) -> Result<(), String> {
        for node in &self.nodes {
            self.check_node(node)?;
        }
        let mut primaries: BTreeMap<u64, &WalNode> = BTreeMap::new();
        for (i, a) in self.nodes.iter().enumerate() {
            if a.role == Role::Primary
                && let Some(b) = primaries.insert(a.timeline, a)
            {
                return Err(format!(
                    "{} and {} are both primary on timeline {}",
                    a.id, b.id, a.timeline
                ));
            }
            for b in &self.nodes[i + 1..] {
                if a.timeline == b.timeline {
                    let n = a.wal.len().min(b.wal.len());
                    if a.wal[..n] != b.wal[..n] {
                        return Err(format!(
                            "{} and {} on timeline {} have diverging WAL bytes",
                            a.id, b.id, a.timeline
                        ));
                    }
                }
            }
        }
        if let Some(p) = self.primary {
            let primary = &self.nodes[p];
            if primary.timeline != self.top_timeline {
                return Err(format!(
                    "current primary {} is on timeline {}, newest is {}",
                    primary.id, primary.timeline, self.top_timeline
                ));
            }
        }
        for primary in primaries.values() {
            for (peer, &flushed) in &primary.peer_flush {
                if let Some(s) = self.nodes.iter().find(|n| &n.id == peer)
                    && s.timeline == primary.timeline
                    && s.following.as_ref() == Some(&primary.id)
                    && s.lsn() < flushed
                {
                    return Err(format!(
                        "{peer} reported LSN {flushed} flushed to {} but holds only {}",
                        primary.id,
                        s.lsn()
                    ));
                }
            }
        }
        Ok(())
    }

    fn check_node(&self, node: &WalNode) -> Result<(), String> {
        let wal = Bytes::copy_from_slice(&node.wal);
        let records = WalNode::contiguous(&wal).map_err(|e| format!("{}: WAL {e}", node.id))?;
        if records.len() != node.record_ends.len() {
            return Err(format!("{}: record index out of step with WAL", node.id));
        }
        let mut data = BTreeMap::new();
        let mut end = 0;
        let mut last_timeline = 0;
        if node.applied_lsn > node.lsn()
            || node.replay_due.len() as u64 != node.lsn() - node.applied_lsn
        {
            return Err(format!(
                "{}: applied LSN {} with {} records waiting to replay, WAL end {}",
                node.id,
                node.applied_lsn,
                node.replay_due.len(),
                node.lsn()
            ));
        }
        for (record, &recorded_end) in records.into_iter().zip(&node.record_ends) {
            end += record.encoded_len();
            if end != recorded_end {
                return Err(format!(
                    "{}: record end of LSN {} misplaced",
                    node.id, record.lsn
                ));
            }
            if record.timeline < last_timeline || record.timeline > node.timeline {
                return Err(format!(
                    "{}: LSN {} tagged timeline {} (previous {}, node on {})",
                    node.id, record.lsn, record.timeline, last_timeline, node.timeline
                ));
            }
            last_timeline = record.timeline;
            if record.lsn <= node.applied_lsn {
                data.insert(record.key, record.value);
            }
        }
        if data != node.data {
            return Err(format!(
                "{}: data differs from the replay of its WAL up to its applied LSN",
                node.id
            ));
        }
        let durable = self.disk.image(&node.id).map_or(0, |m| m.lsn);
        if node.flushed_lsn > node.lsn() || durable > node.lsn() {
            return Err(format!(
                "{}: flushed {} / durable {} beyond WAL end {}",
                node.id,
                node.flushed_lsn,
                durable,
                node.lsn()
            ));
        }
        if node.role == Role::Primary {
            let first = node.retained_first() as usize;
            for (k, frame) in node.retained.iter().enumerate() {
                let lsn = first + k;
                let start = if lsn == 1 {
                    0
                } else {
                    node.record_ends[lsn - 2]
                };
                if node.wal[start..node.record_ends[lsn - 1]] != frame[..] {
                    return Err(format!(
                        "{}: retained LSN {lsn} is not its own WAL",
                        node.id
                    ));
                }
            }
        }
        Ok(())
    }
}
