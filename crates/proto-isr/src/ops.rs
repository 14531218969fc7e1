//! Operator and fault operations: slow replicas, controller election,
//! crash / restart, isolate / heal, fsync.

use replication::{GroupError, NodeId};
use sim_core::record;

use crate::group::IsrGroup;
use crate::message::{AppendKind, IsrMessage};

impl IsrGroup {
    /// Marks follower `node` slow (it receives nothing; the leader records
    /// `isr_replication_delayed`) or clears the mark (which starts its
    /// catch-up). Marking the leader is [`GroupError::NotPermitted`].
    pub fn set_replica_slow(&mut self, node: &NodeId, slow: bool) -> Result<(), GroupError> {
        let idx = self.index_of(node)?;
        if idx == self.leader {
            return Err(GroupError::not_permitted(
                node,
                "the leader cannot be marked slow",
            ));
        }
        self.slow[idx] = slow;
        record!(
            self.trace,
            self.tick_now(),
            "isr_replica_slow",
            node = node,
            slow = slow
        );
        if !slow {
            self.sync(idx);
        }
        Ok(())
    }

    /// Controller election of `node`: only a live ISR member other than the
    /// current leader. Both epochs + 1, the candidate truncated to HW, the
    /// old leader out of the ISR, a new lease, followers resynchronised.
    /// Returns the new leader epoch.
    ///
    /// With `unclean.leader.election.enable` on and no ISR member alive, a
    /// live out-of-sync replica (the leader itself, if it restarted without
    /// the committed prefix) may be elected instead: an *unclean* election
    /// ([`IsrConfig::unclean_leader_election`](crate::IsrConfig::unclean_leader_election)),
    /// traced as `isr_unclean_election`.
    pub fn controller_elect(&mut self, node: &NodeId) -> Result<u64, GroupError> {
        let idx = self.alive_index(node)?;
        if idx == self.leader && self.leader_available() {
            return Err(GroupError::not_permitted(node, "already the leader"));
        }
        if !self.in_isr[idx] {
            if self.unclean_permitted() {
                self.elect_unclean(idx);
                return Ok(self.leader_epoch);
            }
            let why = if self.config.unclean_leader_election {
                "a live ISR member can still be elected cleanly"
            } else {
                "a clean election picks only ISR members \
                 (unclean.leader.election.enable is off)"
            };
            return Err(GroupError::not_permitted(
                node,
                format!("not in the ISR {:?}; {why}", self.isr_sorted()),
            ));
        }
        if idx == self.leader {
            return Err(GroupError::not_permitted(node, "already the leader"));
        }
        self.elect(idx, "controller_elect");
        Ok(self.leader_epoch)
    }

    /// True when an unclean election may happen now: the setting is on and
    /// no ISR member is alive.
    pub(crate) fn unclean_permitted(&self) -> bool {
        self.config.unclean_leader_election
            && !(0..self.nodes.len()).any(|j| self.in_isr[j] && self.nodes[j].alive)
    }

    /// The first live replica in id order, for an unclean election.
    pub(crate) fn first_unclean_candidate(&self) -> Option<usize> {
        let mut order: Vec<usize> = (0..self.nodes.len()).collect();
        order.sort_by(|a, b| self.nodes[*a].id.cmp(&self.nodes[*b].id));
        order.into_iter().find(|&j| self.nodes[j].alive)
    }

    /// The first live ISR member other than the leader, in id order.
    pub(crate) fn first_eligible(&self) -> Option<usize> {
        let mut order: Vec<usize> = (0..self.nodes.len()).collect();
        order.sort_by(|a, b| self.nodes[*a].id.cmp(&self.nodes[*b].id));
        order
            .into_iter()
            .find(|&j| j != self.leader && self.in_isr[j] && self.nodes[j].alive)
    }

    pub(crate) fn crash_node(
        &mut self,
        node: &NodeId,
        lose_unfsynced: bool,
    ) -> Result<(), GroupError> {
        let idx = self.alive_index(node)?;
        let now = self.tick_now();
        self.nodes[idx].alive = false;
        self.nodes[idx].matched_epoch = 0;
        self.nodes[idx].matched_end = 0;
        record!(
            self.trace,
            now,
            "isr_node_crashed",
            node = node,
            lose_unfsynced = lose_unfsynced,
            log_end = self.nodes[idx].log.end()
        );
        if self.in_isr[idx] {
            self.in_isr[idx] = false;
            record!(
                self.trace,
                now,
                "isr_member_removed",
                node = node,
                reason = "crashed",
                lag_ticks = 0u64,
                log_end = self.nodes[idx].log.end(),
                leader_log_end = self.nodes[self.leader].log.end(),
                isr = self.isr_sorted()
            );
        }
        if lose_unfsynced {
            let durable = self.durable.image(node).copied().unwrap_or(0);
            if self.nodes[idx].log.truncate_above(durable) {
                record!(
                    self.trace,
                    now,
                    "isr_log_truncated",
                    node = node,
                    above = durable,
                    reason = "power_loss"
                );
            }
        }
        self.recompute_links();
        Ok(())
    }

    pub(crate) fn restart_node(&mut self, node: &NodeId) -> Result<(), GroupError> {
        let idx = self.index_of(node)?;
        if self.nodes[idx].alive {
            return Err(GroupError::AlreadyRunning(node.clone()));
        }
        self.nodes[idx].alive = true;
        record!(
            self.trace,
            self.tick_now(),
            "isr_node_restarted",
            node = node,
            log_end = self.nodes[idx].log.end()
        );
        self.recompute_links();
        self.notify(idx);
        if idx == self.leader {
            if self.nodes[idx].log.end() >= self.high_watermark {
                // The controller re-establishes the leader in a new epoch, so
                // entries it may have lost can never be confused with new ones.
                self.elect(idx, "leader_restarted");
            } else {
                record!(
                    self.trace,
                    self.tick_now(),
                    "isr_leader_unavailable",
                    node = node,
                    log_end = self.nodes[idx].log.end(),
                    high_watermark = self.high_watermark
                );
            }
        } else {
            self.sync(idx);
        }
        Ok(())
    }

    pub(crate) fn isolate_node(&mut self, node: &NodeId) -> Result<(), GroupError> {
        let idx = self.index_of(node)?;
        self.isolated[idx] = true;
        record!(
            self.trace,
            self.tick_now(),
            "isr_node_isolated",
            node = node
        );
        self.recompute_links();
        Ok(())
    }

    /// Cuts the one-way link `from → to` (kept across isolate / heal of
    /// other nodes; `heal` of either end restores it).
    pub(crate) fn cut_one_way(&mut self, from: &NodeId, to: &NodeId) -> Result<(), GroupError> {
        let (a, b) = (self.index_of(from)?, self.index_of(to)?);
        if !self.cut_links.contains(&(a, b)) {
            self.cut_links.push((a, b));
        }
        record!(
            self.trace,
            self.tick_now(),
            "isr_link_cut",
            from = from,
            to = to
        );
        self.recompute_links();
        Ok(())
    }

    /// Restores the one-way link `from → to`; the receiver catches up.
    pub(crate) fn restore_one_way(&mut self, from: &NodeId, to: &NodeId) -> Result<(), GroupError> {
        let (a, b) = (self.index_of(from)?, self.index_of(to)?);
        self.cut_links.retain(|&link| link != (a, b));
        record!(
            self.trace,
            self.tick_now(),
            "isr_link_restored",
            from = from,
            to = to
        );
        self.recompute_links();
        if self.nodes[b].alive && b != self.leader {
            self.sync(b);
        }
        Ok(())
    }

    pub(crate) fn heal_node(&mut self, node: &NodeId) -> Result<(), GroupError> {
        let idx = self.index_of(node)?;
        self.isolated[idx] = false;
        self.cut_links.retain(|&(a, b)| a != idx && b != idx);
        record!(self.trace, self.tick_now(), "isr_node_healed", node = node);
        self.recompute_links();
        if !self.nodes[idx].alive {
            return Ok(());
        }
        if idx != self.leader && self.nodes[idx].believes_leader() {
            self.resend_as_stale_leader(idx);
        }
        self.notify(idx);
        if idx == self.leader {
            for j in 0..self.nodes.len() {
                self.sync(j);
            }
        } else {
            self.sync(idx);
        }
        Ok(())
    }

    /// A displaced leader that reconnects before hearing of the election
    /// retransmits its uncommitted suffix in its old epoch; receivers fence it.
    fn resend_as_stale_leader(&mut self, idx: usize) {
        let node = &self.nodes[idx];
        let from = node.log.applied_hw;
        if from >= node.log.end() {
            return;
        }
        let epoch = node.known_epoch;
        let msg = IsrMessage::Append {
            kind: AppendKind::Live,
            leader_epoch: epoch,
            source: node.id.clone(),
            prev_offset: from,
            prev_epoch: node.log.epoch_at(from),
            entries: std::sync::Arc::from(&node.log.entries[from as usize..]),
            leader_log_end: node.log.end(),
            high_watermark: from,
        };
        record!(
            self.trace,
            self.tick_now(),
            "isr_stale_leader_resent",
            node = &node.id,
            leader_epoch = epoch,
            from_offset = from + 1,
            log_end = node.log.end()
        );
        for j in 0..self.nodes.len() {
            if j != idx {
                self.send(idx, j, msg.clone());
            }
        }
    }

    pub(crate) fn fsync_node(&mut self, node: &NodeId) -> Result<(), GroupError> {
        let idx = self.alive_index(node)?;
        let end = self.nodes[idx].log.end();
        self.durable.fsync(node, end);
        record!(
            self.trace,
            self.tick_now(),
            "isr_fsync",
            node = node,
            durable_offset = end
        );
        Ok(())
    }
}
