//! The invariants one node keeps on its own, checked from the outside in
//! tests (the group's `check_invariants` adds those across nodes).

use bytes::Bytes;
use sim_core::NodeId;

use super::WalNode;
use crate::role::Role;

impl WalNode {
    /// Checks this node's own invariants (`name` is its id, for the
    /// message; `durable_lsn` its stored durable LSN) and describes the
    /// first that fails. O(WAL size): meant for tests.
    ///
    /// 1. The WAL decodes to records with LSNs 1, 2, 3, … whose end
    ///    offsets are the record index, with non-decreasing timeline tags
    ///    no newer than the node's own timeline; the data is exactly the
    ///    replay up to the applied LSN, and one replay due time waits per
    ///    received, unreplayed record.
    /// 2. Flushed and durable LSNs never exceed the WAL's end.
    /// 3. A primary's retained records are the tail of its own WAL.
    pub fn check_invariants(&self, name: &NodeId, durable_lsn: u64) -> Result<(), String> {
        let wal = Bytes::copy_from_slice(&self.wal);
        let records = WalNode::contiguous(&wal).map_err(|e| format!("{name}: WAL {e}"))?;
        if records.len() != self.record_ends.len() {
            return Err(format!("{name}: record index out of step with WAL"));
        }
        let mut data = replication::KvState::default();
        let mut end = 0;
        let mut last_timeline = 0;
        if self.applied_lsn > self.lsn()
            || self.replay_due.len() as u64 != self.lsn() - self.applied_lsn
        {
            return Err(format!(
                "{name}: applied LSN {} with {} records waiting to replay, WAL end {}",
                self.applied_lsn,
                self.replay_due.len(),
                self.lsn()
            ));
        }
        for (record, &recorded_end) in records.into_iter().zip(&self.record_ends) {
            end += record.encoded_len();
            if end != recorded_end {
                return Err(format!(
                    "{name}: record end of LSN {} misplaced",
                    record.lsn
                ));
            }
            if record.timeline < last_timeline || record.timeline > self.timeline {
                return Err(format!(
                    "{name}: LSN {} tagged timeline {} (previous {}, node on {})",
                    record.lsn, record.timeline, last_timeline, self.timeline
                ));
            }
            last_timeline = record.timeline;
            if record.lsn <= self.applied_lsn {
                data.insert(record.key, record.value);
            }
        }
        if data != self.data {
            return Err(format!(
                "{name}: data differs from the replay of its WAL up to its applied LSN"
            ));
        }
        if self.flushed_lsn > self.lsn() || durable_lsn > self.lsn() {
            return Err(format!(
                "{name}: flushed {} / durable {} beyond WAL end {}",
                self.flushed_lsn,
                durable_lsn,
                self.lsn()
            ));
        }
        if self.role == Role::Primary {
            let first = self.retained_first() as usize;
            for (k, frame) in self.retained.iter().enumerate() {
                let lsn = first + k;
                let start = if lsn == 1 {
                    0
                } else {
                    self.record_ends[lsn - 2]
                };
                if self.wal[start..self.record_ends[lsn - 1]] != frame[..] {
                    return Err(format!("{name}: retained LSN {lsn} is not its own WAL"));
                }
            }
        }
        Ok(())
    }
}
