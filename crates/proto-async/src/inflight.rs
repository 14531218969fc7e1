//! Operations in flight: where a submitted operation goes, and when it
//! completes.
//!
//! A Redis primary acknowledges a write as soon as it has applied it and
//! answers a read from the map of the node asked; neither waits for a
//! replica (this crate omits `WAIT`). So every operation accepted by
//! [`submit`](replication::ReplicationGroup::submit) is decided in the same
//! call: it is pushed on the pending list and evaluated at once, and its
//! completion tick is its submit tick. The pending list is re-evaluated after
//! every tick too, as the trait asks; here it is always empty by then.

use bytes::Bytes;
use replication::{AckLevel, ClientOp, GroupError, OpId, Outcome, ReadLevel, ReadResult};
use sim_core::{Tick, record};

use crate::group::{AsyncPrimaryGroup, PROTOCOL};
use crate::role::Role;

/// What the client is told when its write is acknowledged.
const WRITE_ACKED: &str = "applied by the primary; replicas are not waited for";

/// An operation accepted by `submit` and not yet completed.
#[derive(Debug, Clone)]
pub(crate) struct PendingOp {
    id: OpId,
    op: ClientOp,
    submitted: Tick,
    /// Index of the node that took it: the primary that applied the write,
    /// or the node the read is served by.
    node: usize,
    /// What completes it.
    awaiting: Awaiting,
}

/// What a pending operation waits for.
#[derive(Debug, Clone)]
enum Awaiting {
    /// A write applied at `offset`: the primary's own apply is the
    /// acknowledgement.
    Ack { offset: u64 },
    /// A read, served from the node's map when evaluated.
    Read { key: Bytes, level: ReadLevel },
}

/// Where `route` sends an operation, and what it does there.
enum Routed {
    /// Apply `key = value` at primary `p`.
    Write {
        p: usize,
        key: Bytes,
        value: Bytes,
        level: AckLevel,
    },
    /// Read `key` at node `i`.
    Read {
        i: usize,
        key: Bytes,
        level: ReadLevel,
    },
}

impl AsyncPrimaryGroup {
    /// Where `op` goes, or the error the blocking call answered with before
    /// doing anything (checked in the same order as ever: level first, then
    /// the node). Changes nothing.
    fn route(&self, op: &ClientOp) -> Result<Routed, GroupError> {
        match op {
            ClientOp::Write {
                key,
                value,
                level,
                node,
            } => {
                Self::check_ack_level(*level)?;
                let p = match node {
                    Some(node) => self.alive_index(node)?,
                    None => {
                        if !self.nodes[self.current].alive {
                            return Err(GroupError::NodeDown(self.nodes[self.current].id.clone()));
                        }
                        self.current
                    }
                };
                if self.nodes[p].role != Role::Primary {
                    return Err(GroupError::not_permitted(
                        &self.nodes[p].id,
                        "READONLY: a replica does not accept writes",
                    ));
                }
                Ok(Routed::Write {
                    p,
                    key: key.clone(),
                    value: value.clone(),
                    level: *level,
                })
            }
            ClientOp::Read { key, level, node } => {
                let i = match level {
                    ReadLevel::Linearizable => {
                        return Err(GroupError::UnsupportedRead {
                            protocol: PROTOCOL,
                            level: *level,
                        });
                    }
                    ReadLevel::Local => match node {
                        Some(node) => self.alive_index(node)?,
                        None => self.alive_index(&self.nodes[self.current].id)?,
                    },
                    ReadLevel::Leader => {
                        let primary = &self.nodes[self.current];
                        if !primary.alive {
                            return Err(GroupError::NoLeader(format!(
                                "primary {} is down and no replica has been promoted",
                                primary.id
                            )));
                        }
                        self.current
                    }
                };
                Ok(Routed::Read {
                    i,
                    key: key.clone(),
                    level: *level,
                })
            }
            other => Err(GroupError::not_permitted(
                other.node().unwrap_or(&self.nodes[self.current].id),
                format!("{PROTOCOL} does not know {} operations", other.kind()),
            )),
        }
    }

    /// [`submit`](replication::ReplicationGroup::submit): route, record
    /// `client_op_submitted`, apply a write at its primary, then evaluate.
    pub(crate) fn submit_op(&mut self, op: ClientOp) -> Result<OpId, GroupError> {
        let routed = self.route(&op)?;
        let now = self.net.now();
        let id = self.ops.submitted(&mut self.trace, now, &op);
        let (node, awaiting) = match routed {
            Routed::Write {
                p,
                key,
                value,
                level,
            } => (
                p,
                Awaiting::Ack {
                    offset: self.apply_write(p, key, value, level),
                },
            ),
            Routed::Read { i, key, level } => (i, Awaiting::Read { key, level }),
        };
        self.pending.push(PendingOp {
            id,
            op,
            submitted: now,
            node,
            awaiting,
        });
        self.settle_pending();
        debug_assert!(
            self.pending.is_empty(),
            "an async operation completes in the submit that accepted it"
        );
        Ok(id)
    }

    /// Completes every pending operation: nothing an async operation waits
    /// for can still be missing, so a write is *done* at the offset it was
    /// applied at and a read is served now.
    pub(crate) fn settle_pending(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        for pending in std::mem::take(&mut self.pending) {
            debug_assert!(
                self.nodes[pending.node].alive,
                "a pending operation's node is alive (it completes before any crash)"
            );
            let outcome = match &pending.awaiting {
                Awaiting::Ack { offset } => Outcome::Written {
                    offset: *offset,
                    message: WRITE_ACKED.to_owned(),
                },
                Awaiting::Read { key, level } => {
                    Outcome::Read(self.serve_read(pending.node, key.clone(), *level))
                }
            };
            let now = self.net.now();
            let node = Some(self.nodes[pending.node].id.clone());
            self.ops.complete(
                &mut self.trace,
                now,
                pending.id,
                pending.op,
                pending.submitted,
                node,
                outcome,
            );
        }
    }

    /// Reads `key` from node `i`'s map as it is now.
    fn serve_read(&mut self, i: usize, key: Bytes, level: ReadLevel) -> ReadResult {
        let node = &self.nodes[i];
        let value = node.data.get(&key).cloned();
        record!(
            self.trace,
            self.net.now(),
            "async_read_served",
            node = &node.id,
            level = level.name(),
            key = key,
            offset = node.offset,
            found = value.is_some()
        );
        ReadResult {
            value,
            node: node.id.clone(),
            offset: node.offset,
        }
    }
}
