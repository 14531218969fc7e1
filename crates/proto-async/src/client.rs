//! Client operations: [`AsyncPrimaryGroup::submit_op`] routes and starts
//! one, [`AsyncPrimaryGroup::settle_pending`] acts on each pending op's
//! [`Verdict`], and [`AsyncPrimaryGroup::wait`] is the blocking `WAIT`.

use bytes::Bytes;
use replication::{
    AckLevel, ClientOp, GroupError, OpId, Outcome, ReadLevel, ReadResult, ReplicationGroup,
    WriteResult,
};
use sim_core::NodeId;

use crate::group::{AsyncPrimaryGroup, PROTOCOL};
use crate::inflight::{Awaiting, PendingOp, Verdict, WRITE_ACKED};
use crate::node::WriteRefused;
use crate::output::AsyncEvent;

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
    /// The primary a write at `level` sent to `node` (default: the current
    /// primary) is applied at, or the error the blocking call answers with
    /// before doing anything (level first, then the node).
    fn write_target(&self, level: AckLevel, node: Option<&NodeId>) -> Result<usize, GroupError> {
        match level {
            AckLevel::None | AckLevel::Leader => {}
            AckLevel::Quorum | AckLevel::AllIsr => {
                return Err(GroupError::UnsupportedAck {
                    protocol: PROTOCOL,
                    level,
                });
            }
        }
        let current = self.sentinel.primary();
        let p = match node {
            Some(node) => self.cluster.alive_index(node)?,
            None if self.cluster.is_alive(current) => current,
            None => return Err(GroupError::NodeDown(self.cluster.id(current).clone())),
        };
        if !self.nodes[p].is_primary() {
            return Err(GroupError::not_permitted(
                self.cluster.id(p),
                "READONLY: a replica does not accept writes",
            ));
        }
        Ok(p)
    }

    /// [`client_write`](replication::ReplicationGroup::client_write): a
    /// write that completes in its own call (no `WAIT`, nothing else
    /// pending) is applied without the in-flight machinery — no pending
    /// entry, no queued completion, no clone of the operation — with the
    /// same events, op id and answer as `submit` + `await_completion`;
    /// any other write goes that way.
    pub(crate) fn write_blocking(
        &mut self,
        key: Bytes,
        value: Bytes,
        level: AckLevel,
    ) -> Result<WriteResult, GroupError> {
        let waits = self.config.wait.is_some() && level == AckLevel::Leader;
        if waits || !self.pending.is_empty() {
            let id = self.submit_op(ClientOp::write(key, value, level))?;
            return self.await_completion(id)?.outcome.into_write_result();
        }
        let p = self.write_target(level, None)?;
        let now = self.cluster.now();
        let op = ClientOp::write(key, value, level);
        let id = self.cluster.submitted(&op);
        let ClientOp::Write { key, value, .. } = op else {
            unreachable!("built as a write")
        };
        let mut out = std::mem::take(&mut self.outputs);
        let written = self.nodes[p].write(now, key, value, level, &self.cluster, &mut out);
        self.dispatch(p, &mut out);
        self.outputs = out;
        let outcome = match written {
            Ok(offset) => Outcome::Written {
                offset,
                message: WRITE_ACKED.to_owned(),
            },
            Err(refused) => Outcome::refused_before_append(Self::refusal(refused)),
        };
        self.cluster.record_completed(id, Some(p), &outcome);
        outcome.into_write_result()
    }

    /// The client's words for a write the primary refused before applying.
    fn refusal(refused: WriteRefused) -> String {
        match refused {
            WriteRefused::NoReplicas {
                good_replicas,
                min_replicas_to_write,
                min_replicas_max_lag,
            } => format!(
                "NOREPLICAS: refused before append: {good_replicas} replicas heard from within \
                 min-replicas-max-lag {min_replicas_max_lag} ticks, min-replicas-to-write is \
                 {min_replicas_to_write}"
            ),
            WriteRefused::ReadOnly => {
                unreachable!("writes are routed only to a node that believes it is primary")
            }
        }
    }

    /// Where `op` goes, or the error the blocking call answered with before
    /// doing anything (level first, then the node). Changes nothing.
    fn route(&self, op: &ClientOp) -> Result<Routed, GroupError> {
        let current = self.sentinel.primary();
        let current_id = self.cluster.id(current);
        match op {
            ClientOp::Write {
                key,
                value,
                level,
                node,
            } => Ok(Routed::Write {
                p: self.write_target(*level, node.as_ref())?,
                key: key.clone(),
                value: value.clone(),
                level: *level,
            }),
            ClientOp::Read { key, level, node } => {
                let i = match level {
                    ReadLevel::Linearizable => {
                        return Err(GroupError::UnsupportedRead {
                            protocol: PROTOCOL,
                            level: *level,
                        });
                    }
                    ReadLevel::Local => match node {
                        Some(node) => self.cluster.alive_index(node)?,
                        None if self.cluster.is_alive(current) => current,
                        None => return Err(GroupError::NodeDown(current_id.clone())),
                    },
                    ReadLevel::Leader => {
                        if !self.cluster.is_alive(current) {
                            return Err(GroupError::NoLeader(format!(
                                "primary {current_id} is down and no replica has been promoted"
                            )));
                        }
                        current
                    }
                };
                Ok(Routed::Read {
                    i,
                    key: key.clone(),
                    level: *level,
                })
            }
            other => Err(GroupError::not_permitted(
                other.node().unwrap_or(current_id),
                format!("{PROTOCOL} does not know {} operations", other.kind()),
            )),
        }
    }

    /// [`submit`](replication::ReplicationGroup::submit): route, record
    /// `client_op_submitted`, write at the primary (refused before it is
    /// applied when `min-replicas-to-write` is not met; followed by `WAIT`
    /// when configured), then settle.
    pub(crate) fn submit_op(&mut self, op: ClientOp) -> Result<OpId, GroupError> {
        let routed = self.route(&op)?;
        let now = self.cluster.now();
        let id = self.cluster.submitted(&op);
        let (node, awaiting) = match routed {
            Routed::Write {
                p,
                key,
                value,
                level,
            } => {
                let mut out = std::mem::take(&mut self.outputs);
                let written = self.nodes[p].write(now, key, value, level, &self.cluster, &mut out);
                self.dispatch(p, &mut out);
                self.outputs = out;
                let offset = match written {
                    Ok(offset) => offset,
                    Err(refused) => {
                        let node = Some(self.cluster.id(p).clone());
                        let outcome = Outcome::refused_before_append(Self::refusal(refused));
                        self.cluster.complete(id, op, now, node, outcome);
                        return Ok(id);
                    }
                };
                let awaiting = match self.config.wait {
                    Some(wait) if level == AckLevel::Leader => {
                        self.record(
                            p,
                            AsyncEvent::WaitStarted {
                                offset,
                                numreplicas: wait.numreplicas,
                                timeout: wait.timeout,
                            },
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

    /// Completes every pending operation its [`Verdict`] decides now, in
    /// submission order; undecided ones stay pending.
    pub(crate) fn settle_pending(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let now = self.cluster.now();
        for pending in std::mem::take(&mut self.pending) {
            let p = pending.node;
            let verdict = pending.judge(
                &self.nodes[p],
                self.cluster.id(p),
                self.cluster.is_alive(p),
                now,
            );
            let outcome = match verdict {
                Verdict::Pending => {
                    self.pending.push(pending);
                    continue;
                }
                Verdict::Complete(outcome) => outcome,
                Verdict::Serve { key, level } => Outcome::Read(self.serve_read(p, key, level)),
                Verdict::WaitReturned {
                    offset,
                    acked,
                    numreplicas,
                    result,
                    outcome,
                } => {
                    self.record(
                        p,
                        AsyncEvent::WaitReturned {
                            offset,
                            acked,
                            numreplicas,
                            result,
                        },
                    );
                    outcome
                }
            };
            let node = Some(self.cluster.id(p).clone());
            self.cluster
                .complete(pending.id, pending.op, pending.submitted, node, outcome);
        }
    }

    /// Reads `key` from node `i`'s map as it is now.
    fn serve_read(&mut self, i: usize, key: Bytes, level: ReadLevel) -> ReadResult {
        let value = self.nodes[i].get(&key).cloned();
        let offset = self.nodes[i].offset();
        self.record(
            i,
            AsyncEvent::ReadServed {
                level,
                key,
                offset,
                found: value.is_some(),
            },
        );
        ReadResult {
            value,
            node: self.cluster.id(i).clone(),
            offset,
        }
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
        let p = self.sentinel.primary();
        self.cluster.alive_index(self.cluster.id(p))?;
        let offset = self.nodes[p].offset();
        let deadline = self.cluster.now() + timeout;
        self.record(
            p,
            AsyncEvent::WaitStarted {
                offset,
                numreplicas,
                timeout,
            },
        );
        loop {
            let alive = self.cluster.is_alive(p);
            let acked = if alive && self.nodes[p].is_primary() {
                self.nodes[p].acked_at_least(offset)
            } else {
                0
            };
            if acked >= numreplicas || self.cluster.now() >= deadline || !alive {
                let result = if acked >= numreplicas {
                    "reached"
                } else {
                    "timeout"
                };
                self.record(
                    p,
                    AsyncEvent::WaitReturned {
                        offset,
                        acked,
                        numreplicas,
                        result,
                    },
                );
                return Ok(acked);
            }
            self.step_tick();
        }
    }
}
