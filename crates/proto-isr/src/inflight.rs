//! Operations in flight: submission, re-evaluation after every tick, and
//! completion.
//!
//! Reads and `Leader` writes are answered at submission; only writes that
//! were appended and wait for an acknowledgement (`AllIsr` at the
//! controller's leader, and any write at a displaced leader that still
//! believes it leads) stay pending, as [`PendingWrite`]s, until their
//! verdict.

use replication::{ClientOp, GroupError, NodeId, OpId, Outcome, Tick};

use crate::group::IsrGroup;
use crate::pending::PendingWrite;

impl IsrGroup {
    /// Starts `op`; see [`ReplicationGroup::submit`](replication::ReplicationGroup::submit)
    /// on [`IsrGroup`] for what a named node means.
    pub(crate) fn submit_op(&mut self, op: ClientOp) -> Result<OpId, GroupError> {
        match &op {
            ClientOp::Write {
                key,
                value,
                level,
                node,
            } => {
                let writer = self.admit_write(*level, node.as_ref())?;
                let (key, value, level) = (key.clone(), value.clone(), *level);
                let now = self.tick_now();
                let id = self.client_ops.submitted(&mut self.trace, now, &op);
                if let Some(write) = self.start_write(writer, id, op, key, value, level) {
                    self.settle_one(write);
                }
                Ok(id)
            }
            ClientOp::Read { key, level, node } => {
                let (outcome, answered_by) = match self.read(key, *level, node.as_ref()) {
                    Ok(read) => {
                        let by = read.node.clone();
                        (Outcome::Read(read), by)
                    }
                    Err(err) => match &err {
                        GroupError::ReadBlocked { node: by, .. } => {
                            let by = by.clone();
                            (Outcome::failed_with(err), by)
                        }
                        _ => return Err(err),
                    },
                };
                let now = self.tick_now();
                let id = self.client_ops.submitted(&mut self.trace, now, &op);
                self.complete(id, op, now, Some(answered_by), outcome);
                Ok(id)
            }
            other => Err(GroupError::NoLeader(format!(
                "isr does not serve {} operations",
                other.kind()
            ))),
        }
    }

    /// Completes `id` now with `outcome`, answered by `node`.
    pub(crate) fn complete(
        &mut self,
        id: OpId,
        op: ClientOp,
        submitted: Tick,
        node: Option<NodeId>,
        outcome: Outcome,
    ) {
        let now = self.tick_now();
        self.client_ops
            .complete(&mut self.trace, now, id, op, submitted, node, outcome);
    }

    /// Judges a write just appended and either completes it or keeps it.
    fn settle_one(&mut self, write: PendingWrite) {
        match self.judge(&write) {
            Some(verdict) => self.finish_write(write, verdict),
            None => self.pending.push(write),
        }
    }

    /// Re-evaluates every pending write after a tick, in submission order
    /// (so writes at one leader complete in offset order), and completes
    /// those whose fate is decided.
    pub(crate) fn settle_pending(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        for write in std::mem::take(&mut self.pending) {
            self.settle_one(write);
        }
    }
}
