//! Operations in flight: where a submitted operation goes, and when it
//! completes.
//!
//! A Redis primary acknowledges a write as soon as it has applied it and
//! answers a read from the map of the node asked; neither waits for a
//! replica. So every operation accepted by
//! [`submit`](replication::ReplicationGroup::submit) is decided in the same
//! call — except a `Leader` write in a group configured with `wait`
//! ([`AsyncConfig::with_wait`](crate::AsyncConfig::with_wait)): the client
//! follows it with `WAIT numreplicas timeout`, so it stays pending until
//! enough replicas sent `REPLCONF ACK` for its offset (*done*) or the
//! timeout passes, its primary crashes or is demoted (*unknown*: it is
//! applied there). The pending list is re-evaluated after every tick and
//! after a crash or demotion.

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
    /// A write applied at `offset`, then `WAIT numreplicas` until
    /// `deadline`.
    Wait {
        offset: u64,
        numreplicas: usize,
        deadline: Tick,
    },
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
    /// `client_op_submitted`, refuse a write before applying it when
    /// `min-replicas-to-write` is not met, apply a write at its primary
    /// (issuing `WAIT` after it when configured), then evaluate.
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
            } => {
                if let Some(message) = self.min_replicas_refusal(p) {
                    let node = Some(self.nodes[p].id.clone());
                    let outcome = Outcome::refused_before_append(message);
                    self.ops
                        .complete(&mut self.trace, now, id, op, now, node, outcome);
                    return Ok(id);
                }
                let offset = self.apply_write(p, key, value, level);
                let awaiting = match self.config.wait {
                    Some(wait) if level == AckLevel::Leader => {
                        record!(
                            self.trace,
                            now,
                            "async_wait_started",
                            node = &self.nodes[p].id,
                            offset = offset,
                            numreplicas = wait.numreplicas,
                            timeout = wait.timeout
                        );
                        Awaiting::Wait {
                            offset,
                            numreplicas: wait.numreplicas,
                            deadline: now + wait.timeout,
                        }
                    }
                    _ => Awaiting::Ack { offset },
                };
                (p, awaiting)
            }
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
        Ok(id)
    }

    /// `min-replicas-to-write`: the refusal message when primary `p` has
    /// heard from fewer replicas than required within
    /// `min-replicas-max-lag` ticks (recording `async_write_refused`), or
    /// `None` when the write may proceed.
    fn min_replicas_refusal(&mut self, p: usize) -> Option<String> {
        let needed = self.config.min_replicas_to_write;
        if needed == 0 {
            return None;
        }
        let now = self.net.now();
        let max_lag = self.config.min_replicas_max_lag;
        let good = self.nodes[p].good_replicas(now, max_lag);
        if good >= needed {
            return None;
        }
        record!(
            self.trace,
            now,
            "async_write_refused",
            node = &self.nodes[p].id,
            reason = "min_replicas_to_write",
            good_replicas = good,
            min_replicas_to_write = needed,
            min_replicas_max_lag = max_lag
        );
        Some(format!(
            "NOREPLICAS: refused before append: {good} replicas heard from within \
             min-replicas-max-lag {max_lag} ticks, min-replicas-to-write is {needed}"
        ))
    }

    /// Completes every pending operation that can be decided now: a plain
    /// write is *done* at the offset it was applied at, a read is served
    /// now, a write followed by `WAIT` is *done* once enough replicas
    /// acknowledged its offset and *unknown* when the `WAIT` times out or
    /// its primary crashed or stepped down first (the write stays applied
    /// there). Undecided operations stay pending.
    pub(crate) fn settle_pending(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        for pending in std::mem::take(&mut self.pending) {
            let Some(outcome) = self.decide(&pending) else {
                self.pending.push(pending);
                continue;
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

    /// The outcome of `pending` if it is decided now.
    fn decide(&mut self, pending: &PendingOp) -> Option<Outcome> {
        match &pending.awaiting {
            Awaiting::Ack { offset } => {
                debug_assert!(
                    self.nodes[pending.node].alive,
                    "a write without WAIT completes in the submit that applied it"
                );
                Some(Outcome::Written {
                    offset: *offset,
                    message: WRITE_ACKED.to_owned(),
                })
            }
            Awaiting::Read { key, level } => Some(Outcome::Read(self.serve_read(
                pending.node,
                key.clone(),
                *level,
            ))),
            Awaiting::Wait {
                offset,
                numreplicas,
                deadline,
            } => self.decide_wait(pending.node, *offset, *numreplicas, *deadline),
        }
    }

    /// `WAIT numreplicas` for a write applied at `offset` by node `p`.
    fn decide_wait(
        &mut self,
        p: usize,
        offset: u64,
        numreplicas: usize,
        deadline: Tick,
    ) -> Option<Outcome> {
        let now = self.net.now();
        let node = &self.nodes[p];
        let (acked, result, message) = if !node.alive {
            (
                0,
                "primary_crashed",
                format!("{} crashed before WAIT {numreplicas} returned", node.id),
            )
        } else if node.role != Role::Primary {
            (
                0,
                "demoted",
                format!("{} was demoted before WAIT {numreplicas} returned", node.id),
            )
        } else {
            let acked = node.acked_at_least(offset);
            if acked >= numreplicas {
                (acked, "reached", String::new())
            } else if now >= deadline {
                (
                    acked,
                    "timeout",
                    format!(
                        "applied by {}, but WAIT {numreplicas} returned {acked}: \
                         too few replicas acknowledged offset {offset} in time",
                        node.id
                    ),
                )
            } else {
                return None;
            }
        };
        record!(
            self.trace,
            now,
            "async_wait_returned",
            node = &node.id,
            offset = offset,
            acked = acked,
            numreplicas = numreplicas,
            result = result
        );
        Some(if result == "reached" {
            Outcome::Written {
                offset,
                message: format!("applied by the primary; WAIT {numreplicas} returned {acked}"),
            }
        } else {
            Outcome::unknown(Some(offset), message)
        })
    }

    /// Blocking `WAIT numreplicas timeout` at the current primary: ticks
    /// until at least `numreplicas` replicas acknowledged the primary's
    /// offset at the call, or `timeout` ticks passed, and returns how many
    /// did (Redis' reply). Like Redis, it does not make anything durable: a
    /// failover to a replica that had not acknowledged still loses the
    /// writes. Acknowledgements flow only when the group is configured with
    /// `wait` or `min_replicas_to_write` (see [`AsyncConfig::replicas_ack`](crate::AsyncConfig::replicas_ack)).
    ///
    /// Errors: the primary down, or `numreplicas` 0 or more than the
    /// replicas (`GroupError::Config` naming `numreplicas`).
    pub fn wait(&mut self, numreplicas: usize, timeout: u64) -> Result<usize, GroupError> {
        if numreplicas == 0 || numreplicas > self.config.replicas.len() {
            return Err(GroupError::config(
                "numreplicas",
                format!(
                    "WAIT {numreplicas}: expected 1..={} (the replicas)",
                    self.config.replicas.len()
                ),
            ));
        }
        let p = self.current;
        if !self.nodes[p].alive {
            return Err(GroupError::NodeDown(self.nodes[p].id.clone()));
        }
        let offset = self.nodes[p].offset;
        let deadline = self.net.now() + timeout;
        record!(
            self.trace,
            self.net.now(),
            "async_wait_started",
            node = &self.nodes[p].id,
            offset = offset,
            numreplicas = numreplicas,
            timeout = timeout
        );
        loop {
            let node = &self.nodes[p];
            let acked = if node.alive && node.role == Role::Primary {
                node.acked_at_least(offset)
            } else {
                0
            };
            let now = self.net.now();
            if acked >= numreplicas || now >= deadline || !node.alive {
                record!(
                    self.trace,
                    now,
                    "async_wait_returned",
                    node = &self.nodes[p].id,
                    offset = offset,
                    acked = acked,
                    numreplicas = numreplicas,
                    result = if acked >= numreplicas {
                        "reached"
                    } else {
                        "timeout"
                    }
                );
                return Ok(acked);
            }
            self.step_tick();
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
