//! Reads: `Local`, `Leader`, `Linearizable` (HW, ISR and lease guards) and
//! `lease_read`.

use bytes::Bytes;
use replication::{GroupError, NodeId, ReadLevel, ReadResult};

use crate::group::IsrGroup;

impl IsrGroup {
    fn blocked(
        &self,
        level: ReadLevel,
        idx: usize,
        guard: &'static str,
        reason: String,
    ) -> GroupError {
        GroupError::ReadBlocked {
            level,
            node: self.nodes[idx].id.clone(),
            guard,
            reason,
        }
    }

    /// Index of the controller's leader when it can serve.
    fn serving_leader(&self) -> Result<usize, GroupError> {
        let l = self.leader;
        if !self.nodes[l].alive {
            return Err(GroupError::NodeDown(self.nodes[l].id.clone()));
        }
        if !self.in_isr[l] {
            return Err(GroupError::NoLeader(format!(
                "leader {} is not in the ISR (restarted without the committed prefix)",
                self.nodes[l].id
            )));
        }
        Ok(l)
    }

    /// Serves a read at once, changing nothing: `Err` is an up-front error
    /// or [`GroupError::ReadBlocked`].
    pub(crate) fn read(
        &self,
        key: &[u8],
        level: ReadLevel,
        node: Option<&NodeId>,
    ) -> Result<ReadResult, GroupError> {
        match level {
            ReadLevel::Local => {
                let idx = match node {
                    Some(n) => self.alive_index(n)?,
                    None => self.serving_leader()?,
                };
                let n = &self.nodes[idx];
                Ok(ReadResult {
                    value: n.log.data.get(key).cloned(),
                    node: n.id.clone(),
                    offset: n.log.end(),
                })
            }
            ReadLevel::Leader => {
                let idx = self.serving_leader()?;
                let n = &self.nodes[idx];
                Ok(ReadResult {
                    value: n.log.data.get(key).cloned(),
                    node: n.id.clone(),
                    offset: n.log.end(),
                })
            }
            ReadLevel::Linearizable => self.linearizable(key),
        }
    }

    /// The leader's `committed_data`, only when the leader has nothing above
    /// HW, ISR ≥ min.insync and the lease is live.
    fn linearizable(&self, key: &[u8]) -> Result<ReadResult, GroupError> {
        let level = ReadLevel::Linearizable;
        let l = self.serving_leader()?;
        let end = self.nodes[l].log.end();
        let hw = self.high_watermark;
        if end > hw {
            return Err(self.blocked(
                level,
                l,
                "above high watermark",
                format!("leader log end {end} is above HW {hw}"),
            ));
        }
        let (size, min) = (self.isr_len(), self.config.min_insync_replicas);
        if size < min {
            return Err(self.blocked(
                level,
                l,
                "isr below min.insync",
                format!("ISR size {size} is below min.insync.replicas {min}"),
            ));
        }
        let now = self.tick_now();
        if now >= self.lease_expiry {
            return Err(self.blocked(
                level,
                l,
                "lease expired",
                format!("lease expired at tick {} (now {now})", self.lease_expiry),
            ));
        }
        let n = &self.nodes[l];
        debug_assert_eq!(n.log.applied_hw, hw, "leader applies HW as it advances");
        Ok(ReadResult {
            value: n.log.committed.get(key).cloned(),
            node: n.id.clone(),
            offset: n.log.applied_hw,
        })
    }

    /// A lease-checked read addressed to `node`: it must be the controller's
    /// current leader with a live lease (else blocked with guard
    /// `lease fenced` / `lease expired`), then the `Linearizable` guards
    /// apply. A displaced old leader therefore fails closed.
    pub fn lease_read(
        &mut self,
        node: &NodeId,
        key: impl AsRef<[u8]>,
    ) -> Result<ReadResult, GroupError> {
        let idx = self.alive_index(node)?;
        let level = ReadLevel::Linearizable;
        if idx != self.leader || !self.in_isr[idx] {
            return Err(self.blocked(
                level,
                idx,
                "lease fenced",
                format!(
                    "{node} is not the current leader (controller leader {} in epoch {}; \
                     {node} knows epoch {})",
                    self.nodes[self.leader].id, self.leader_epoch, self.nodes[idx].known_epoch
                ),
            ));
        }
        let now = self.tick_now();
        if now >= self.lease_expiry {
            return Err(self.blocked(
                level,
                idx,
                "lease expired",
                format!("lease expired at tick {} (now {now})", self.lease_expiry),
            ));
        }
        self.linearizable(key.as_ref())
    }

    /// The value of `key` in `node`'s `committed_data` (no guard; for
    /// inspection).
    pub fn committed_value(&self, node: &NodeId, key: &[u8]) -> Result<Option<Bytes>, GroupError> {
        let idx = self.index_of(node)?;
        Ok(self.nodes[idx].log.committed.get(key).cloned())
    }
}
