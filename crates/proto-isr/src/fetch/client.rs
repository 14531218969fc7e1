//! Client operations in fetch mode: produce at `acks=1` / `acks=all`
//! (with `min.insync.replicas` checked before append and again when HW
//! covers the record, as Kafka's `NOT_ENOUGH_REPLICAS_AFTER_APPEND`), and
//! reads, answered at submission.

use replication::{AckLevel, ClientOp, GroupError, NodeId, OpId, Outcome, ReadLevel, ReadResult};
use sim_core::record;

use super::group::{FetchGroup, Pending};

impl FetchGroup {
    /// Starts `op` (see [`ReplicationGroup::submit`](replication::ReplicationGroup::submit)
    /// on [`FetchGroup`]).
    pub(crate) fn submit_op(&mut self, op: ClientOp) -> Result<OpId, GroupError> {
        match &op {
            ClientOp::Write {
                key,
                value,
                level,
                node,
            } => {
                if !matches!(level, AckLevel::Leader | AckLevel::AllIsr) {
                    return Err(GroupError::UnsupportedAck {
                        protocol: "isr",
                        level: *level,
                    });
                }
                let l = self.write_target(node.as_ref())?;
                let (key, value, level) = (key.clone(), value.clone(), *level);
                let id = self.cluster.submitted(&op);
                let now = self.now();
                let isr = self.replicas[l].leading().map_or(0, |s| s.isr.len());
                if level == AckLevel::AllIsr && isr < self.config.min_insync_replicas {
                    let outcome = Outcome::refused_before_append(format!(
                        "NOT_ENOUGH_REPLICAS: the ISR ({isr}) is below min.insync.replicas ({})",
                        self.config.min_insync_replicas
                    ));
                    self.cluster
                        .complete(id, op, now, Some(self.cluster.id(l).clone()), outcome);
                    return Ok(id);
                }
                let offset = self.replicas[l].append(key, value);
                let node_id = self.cluster.id(l).clone();
                record!(
                    self.cluster.trace,
                    now,
                    "isr_produce",
                    node = &node_id,
                    offset = offset,
                    level = level.name(),
                    epoch = self.replicas[l].epoch()
                );
                if level == AckLevel::Leader {
                    let outcome = Outcome::Written {
                        offset,
                        message: "appended on the leader (acks=1)".to_owned(),
                    };
                    self.cluster.complete(id, op, now, Some(node_id), outcome);
                } else {
                    self.pending.push(Pending {
                        id,
                        op,
                        submitted: now,
                        leader: l,
                        epoch: self.replicas[l].epoch(),
                        offset,
                        deadline: now + self.config.ack_timeout,
                    });
                }
                Ok(id)
            }
            ClientOp::Read { key, level, node } => {
                let (outcome, by) = match self.read(key, *level, node.as_ref()) {
                    Ok(read) => {
                        let by = read.node.clone();
                        (Outcome::Read(read), by)
                    }
                    Err(err) => match &err {
                        GroupError::ReadBlocked { node, .. } => {
                            let by = node.clone();
                            (Outcome::failed_with(err), by)
                        }
                        _ => return Err(err),
                    },
                };
                let now = self.now();
                let id = self.cluster.submitted(&op);
                self.cluster.complete(id, op, now, Some(by), outcome);
                Ok(id)
            }
            other => Err(GroupError::NoLeader(format!(
                "isr does not serve {} operations",
                other.kind()
            ))),
        }
    }

    /// Where a produce goes: the named broker if it believes it leads (a
    /// client with stale metadata), else the controller's leader.
    fn write_target(&self, node: Option<&NodeId>) -> Result<usize, GroupError> {
        if let Some(node) = node {
            let i = self.cluster.alive_index(node)?;
            if self.replicas[i].leading().is_none() {
                return Err(GroupError::not_permitted(
                    node,
                    "not a leader (NOT_LEADER_OR_FOLLOWER)",
                ));
            }
            return Ok(i);
        }
        self.serving_leader()
    }

    /// The controller's leader, when it is up and knows it leads.
    pub(crate) fn serving_leader(&self) -> Result<usize, GroupError> {
        let Some(l) = self.controller.leader() else {
            return Err(GroupError::NoLeader(format!(
                "offline partition: no live replica of the ISR {:?} to elect",
                self.names(self.controller.isr())
            )));
        };
        if !self.cluster.is_alive(l) {
            return Err(GroupError::NodeDown(self.cluster.id(l).clone()));
        }
        if !self.replicas[l].leads_in(self.controller.leader_epoch()) {
            return Err(GroupError::NoLeader(format!(
                "{} has not yet learned that it leads epoch {}",
                self.cluster.id(l),
                self.controller.leader_epoch()
            )));
        }
        Ok(l)
    }

    pub(crate) fn names(&self, positions: &[usize]) -> Vec<String> {
        positions
            .iter()
            .map(|&i| self.cluster.id(i).to_string())
            .collect()
    }

    /// `Local` (a broker's whole log), `Leader` (the controller's leader's
    /// whole log, records above HW included) and `Linearizable` (the
    /// controller's leader's records up to its HW, once HW has reached the
    /// start of its epoch, so that every record an earlier leader
    /// acknowledged is covered).
    fn read(
        &self,
        key: &[u8],
        level: ReadLevel,
        node: Option<&NodeId>,
    ) -> Result<ReadResult, GroupError> {
        let (i, upto) = match (level, node) {
            (ReadLevel::Local, Some(n)) => {
                let i = self.cluster.alive_index(n)?;
                (i, self.replicas[i].log_end())
            }
            (ReadLevel::Local | ReadLevel::Leader, _) => {
                let l = self.serving_leader()?;
                (l, self.replicas[l].log_end())
            }
            (ReadLevel::Linearizable, _) => {
                let l = self.serving_leader()?;
                let r = &self.replicas[l];
                let start = r.leading().map_or(0, |s| s.epoch_start);
                if r.high_watermark() < start {
                    return Err(GroupError::ReadBlocked {
                        level,
                        node: self.cluster.id(l).clone(),
                        guard: "high watermark below epoch start",
                        reason: format!(
                            "HW {} has not reached the start of epoch {} ({start}): records of earlier leaders may be acknowledged above it",
                            r.high_watermark(),
                            r.epoch()
                        ),
                    });
                }
                (l, r.high_watermark())
            }
        };
        Ok(ReadResult {
            value: self.replicas[i].value(key, upto),
            node: self.cluster.id(i).clone(),
            offset: upto,
        })
    }

    /// Completes every pending write that is decided: *done* when its
    /// leader still leads its epoch, HW covers it and the ISR is at least
    /// min.insync; *unknown* when HW covers it with a smaller ISR, its
    /// leader lost the epoch, or `ack_timeout` passed.
    pub(crate) fn judge_pending(&mut self) {
        let now = self.now();
        let mut i = 0;
        while i < self.pending.len() {
            let w = &self.pending[i];
            let r = &self.replicas[w.leader];
            let leads = self.cluster.is_alive(w.leader) && r.leads_in(w.epoch);
            let isr = r.leading().map_or(0, |s| s.isr.len());
            let verdict = if !leads {
                Some(Outcome::unknown(
                    Some(w.offset),
                    format!(
                        "{} no longer leads epoch {}",
                        self.cluster.id(w.leader),
                        w.epoch
                    ),
                ))
            } else if r.high_watermark() >= w.offset {
                Some(if isr >= self.config.min_insync_replicas {
                    Outcome::Written {
                        offset: w.offset,
                        message: "the ISR fetched it and HW covers it".to_owned(),
                    }
                } else {
                    Outcome::unknown(
                        Some(w.offset),
                        format!(
                            "NOT_ENOUGH_REPLICAS_AFTER_APPEND: HW covers it but the ISR ({isr}) is below min.insync.replicas"
                        ),
                    )
                })
            } else if now >= w.deadline {
                Some(Outcome::unknown(
                    Some(w.offset),
                    "request timed out before HW covered it",
                ))
            } else {
                None
            };
            match verdict {
                Some(outcome) => {
                    let w = self.pending.remove(i);
                    let by = self.cluster.id(w.leader).clone();
                    if matches!(outcome, Outcome::Written { .. }) {
                        record!(
                            self.cluster.trace,
                            now,
                            "isr_write_acknowledged",
                            offset = w.offset,
                            level = "ALL_ISR",
                            high_watermark = self.replicas[w.leader].high_watermark()
                        );
                    }
                    self.cluster
                        .complete(w.id, w.op, w.submitted, Some(by), outcome);
                }
                None => i += 1,
            }
        }
    }
}
