//! Operator and fault operations: promotion (the sentinel's job), crash,
//! restart, isolation, healing and fsync.

use replication::GroupError;
use sim_core::{NodeId, record};

use crate::group::AsyncPrimaryGroup;
use crate::message::{AsyncMsg, replication_id_for};
use crate::role::Role;

impl AsyncPrimaryGroup {
    /// Manually promotes `node` to primary (`REPLICAOF NO ONE` plus the
    /// sentinel's reconfiguration): generation + 1, a new replication id
    /// `repl-<generation>`, the backlog cleared, the node keeps its data and
    /// offset. Every other node is reconfigured to follow it and every alive
    /// one asks to resynchronise (a full sync, since its replication id
    /// differs). An old primary that is crashed or cut off from `node` keeps
    /// believing it is primary until it restarts or is healed.
    ///
    /// Errors: unknown node, node down, or `node` already the primary.
    pub fn promote(&mut self, node: &NodeId) -> Result<(), GroupError> {
        let n = self.alive_index(node)?;
        if n == self.current {
            return Err(GroupError::not_permitted(
                node,
                "already the current primary",
            ));
        }
        let previous = self.nodes[self.current].id.clone();
        self.start_lineage(n);
        record!(
            self.trace,
            self.net.now(),
            "async_promoted",
            node = node,
            previous = &previous,
            generation = self.generation,
            replication_id = self.nodes[n].replication_id.to_string(),
            offset = self.nodes[n].offset
        );
        self.reconfigure_others(n);
        Ok(())
    }

    /// Makes `n` the current primary of a new generation and history.
    fn start_lineage(&mut self, n: usize) {
        self.generation += 1;
        let primary = &mut self.nodes[n];
        primary.role = Role::Primary;
        primary.following = None;
        primary.generation = self.generation;
        primary.replication_id = replication_id_for(self.generation);
        primary.backlog.clear();
        primary.buffered.clear();
        primary.resync_pending = false;
        primary.lost_history = false;
        primary.forget_acks();
        self.current = n;
    }

    /// The sentinel points every node but `n` at `n`; alive ones `PSYNC`.
    fn reconfigure_others(&mut self, n: usize) {
        for j in 0..self.nodes.len() {
            if j == n {
                continue;
            }
            if self.nodes[j].role == Role::Primary {
                let reachable = !self.net.is_cut(&self.nodes[j].id, &self.nodes[n].id)
                    && !self.net.is_cut(&self.nodes[n].id, &self.nodes[j].id);
                if self.nodes[j].alive && reachable {
                    self.demote(j);
                } else {
                    record!(
                        self.trace,
                        self.net.now(),
                        "async_demotion_deferred",
                        node = &self.nodes[j].id,
                        reason = if self.nodes[j].alive {
                            "unreachable"
                        } else {
                            "crashed"
                        }
                    );
                    continue;
                }
            } else {
                let primary = self.nodes[n].id.clone();
                let replica = &mut self.nodes[j];
                replica.following = Some(primary);
                replica.generation = self.generation;
                replica.resync_pending = false;
                record!(
                    self.trace,
                    self.net.now(),
                    "async_replica_reconfigured",
                    node = &self.nodes[j].id,
                    primary = &self.nodes[n].id,
                    generation = self.generation
                );
            }
            self.request_resync(j, "reconfigured");
        }
    }

    /// Turns a primary that is no longer current into a replica of the
    /// current primary.
    fn demote(&mut self, j: usize) {
        let primary = self.nodes[self.current].id.clone();
        let node = &mut self.nodes[j];
        node.role = Role::Replica;
        node.following = Some(primary.clone());
        node.generation = self.generation;
        node.backlog.clear();
        node.buffered.clear();
        node.resync_pending = false;
        node.lost_history = false;
        node.forget_acks();
        record!(
            self.trace,
            self.net.now(),
            "async_demoted",
            node = &self.nodes[j].id,
            primary = &primary,
            generation = self.generation
        );
        self.settle_pending();
    }

    /// Crashes `node`. Its queued traffic is lost and its links close. With
    /// `lose_unfsynced` it rolls back to its last fsync (a primary's backlog
    /// is trimmed to that point, and on restart it starts a new history);
    /// without, it keeps its data set (a restart with persistence).
    pub(crate) fn crash_node(&mut self, node: &NodeId, lose: bool) -> Result<(), GroupError> {
        let x = self.alive_index(node)?;
        let id = self.nodes[x].id.clone();
        self.nodes[x].alive = false;
        self.net.discard_where(
            |env| env.src == id || env.dst == id,
            "node_crashed",
            &mut self.trace,
        );
        for other in &mut self.nodes {
            other.buffered.remove(&id);
        }
        for (p, row) in self.outbox.iter_mut().enumerate() {
            for (j, queue) in row.iter_mut().enumerate() {
                if p == x || j == x {
                    queue.clear();
                }
            }
        }
        let before = self.nodes[x].offset;
        let crashed = &mut self.nodes[x];
        crashed.buffered.clear();
        crashed.resync_pending = false;
        if lose {
            let image = self
                .disk
                .image(&id)
                .cloned()
                .expect("every node is fsynced when the group is built");
            let lost =
                image.offset < crashed.offset || image.replication_id != crashed.replication_id;
            crashed.restore(image);
            if crashed.role == Role::Primary && lost {
                crashed.lost_history = true;
            }
        }
        record!(
            self.trace,
            self.net.now(),
            "async_node_crashed",
            node = &id,
            lose_unfsynced = lose,
            offset = before,
            restored_offset = self.nodes[x].offset
        );
        self.settle_pending();
        Ok(())
    }

    /// Restarts a crashed node: an outdated primary is demoted, a primary
    /// that lost writes to a power loss starts a new history, and replicas
    /// of or at this node ask to resynchronise.
    pub(crate) fn restart_node(&mut self, node: &NodeId) -> Result<(), GroupError> {
        let x = self.index(node)?;
        if self.nodes[x].alive {
            return Err(GroupError::AlreadyRunning(node.clone()));
        }
        self.nodes[x].alive = true;
        record!(
            self.trace,
            self.net.now(),
            "async_node_restarted",
            node = node,
            role = self.nodes[x].role.name(),
            offset = self.nodes[x].offset
        );
        if self.nodes[x].role == Role::Primary {
            if x != self.current {
                self.demote(x);
            } else if self.nodes[x].lost_history {
                self.start_lineage(x);
                record!(
                    self.trace,
                    self.net.now(),
                    "async_history_reset",
                    node = node,
                    generation = self.generation,
                    replication_id = self.nodes[x].replication_id.to_string(),
                    offset = self.nodes[x].offset
                );
                self.reconfigure_others(x);
                return Ok(());
            }
        }
        self.resync_around(x, "restarted", &[]);
        Ok(())
    }

    /// Every alive replica that is `x` or follows `x` sends `PSYNC`, except
    /// those in `skip`.
    fn resync_around(&mut self, x: usize, reason: &'static str, skip: &[usize]) {
        for r in 0..self.nodes.len() {
            let node = &self.nodes[r];
            let involved = r == x || node.following.as_ref() == Some(&self.nodes[x].id);
            if node.alive && node.role == Role::Replica && involved && !skip.contains(&r) {
                self.request_resync(r, reason);
            }
        }
    }

    /// Cuts `node` from every peer, both ways.
    pub(crate) fn isolate_node(&mut self, node: &NodeId) -> Result<(), GroupError> {
        let x = self.index(node)?;
        let peers: Vec<NodeId> = self.nodes.iter().map(|n| n.id.clone()).collect();
        self.net.isolate(&self.nodes[x].id, peers.iter());
        record!(
            self.trace,
            self.net.now(),
            "async_node_isolated",
            node = node
        );
        Ok(())
    }

    /// Cuts the one-way link `from → to`.
    pub(crate) fn cut_one_way(&mut self, from: &NodeId, to: &NodeId) -> Result<(), GroupError> {
        self.index(from)?;
        self.index(to)?;
        self.net.partition(from, to);
        record!(
            self.trace,
            self.net.now(),
            "async_link_cut",
            from = from,
            to = to
        );
        Ok(())
    }

    /// Restores the one-way link `from → to`.
    pub(crate) fn restore_one_way(&mut self, from: &NodeId, to: &NodeId) -> Result<(), GroupError> {
        self.index(from)?;
        self.index(to)?;
        self.net.heal(from, to);
        record!(
            self.trace,
            self.net.now(),
            "async_link_restored",
            from = from,
            to = to
        );
        Ok(())
    }

    /// Restores every link of `node`. Each primary first flushes the output
    /// it buffered for a now-reachable replica (if the backlog still holds
    /// it); a primary that is no longer current is then demoted by the
    /// sentinel; replicas at or of `node` not served by a flush `PSYNC`.
    pub(crate) fn heal_node(&mut self, node: &NodeId) -> Result<(), GroupError> {
        let x = self.index(node)?;
        self.net.heal_node(node);
        record!(self.trace, self.net.now(), "async_node_healed", node = node);
        let mut flushed = Vec::new();
        for p in 0..self.nodes.len() {
            if !self.nodes[p].alive || self.nodes[p].role != Role::Primary {
                continue;
            }
            let buffers: Vec<(NodeId, u64)> = self.nodes[p]
                .buffered
                .iter()
                .map(|(r, from)| (r.clone(), *from))
                .collect();
            for (replica, from) in buffers {
                if self.net.is_cut(&self.nodes[p].id, &replica) {
                    continue;
                }
                self.nodes[p].buffered.remove(&replica);
                self.flush(p, &replica, from, &mut flushed);
            }
        }
        if self.nodes[x].alive && self.nodes[x].role == Role::Primary && x != self.current {
            self.demote(x);
        }
        self.resync_around(x, "healed", &flushed);
        Ok(())
    }

    /// Sends primary `p`'s buffered stream for `replica` from offset `from`.
    fn flush(&mut self, p: usize, replica: &NodeId, from: u64, flushed: &mut Vec<usize>) {
        let primary = &self.nodes[p];
        if !primary.backlog.covers(from, primary.offset) || from > primary.offset {
            record!(
                self.trace,
                self.net.now(),
                "async_stream_buffer_discarded",
                primary = &primary.id,
                replica = replica,
                from_offset = from,
                backlog_start = primary.backlog.first_offset()
            );
            return;
        }
        let entries = primary.backlog.entries_from(from);
        record!(
            self.trace,
            self.net.now(),
            "async_stream_flushed",
            primary = &primary.id,
            replica = replica,
            from_offset = from,
            to_offset = primary.offset
        );
        // The flush stands in for a PSYNC only when it can be applied: the
        // replica follows `p`, holds `p`'s history and awaits no resync.
        if let Some(r) = self.nodes.iter().position(|n| n.id == *replica) {
            let target = &self.nodes[r];
            if target.following.as_ref() == Some(&self.nodes[p].id)
                && target.replication_id == self.nodes[p].replication_id
                && !target.resync_pending
            {
                flushed.push(r);
            }
        }
        if !entries.is_empty() {
            self.send(p, replica, AsyncMsg::Stream(entries));
        }
    }

    /// Stores `node`'s current state as its durable image.
    pub(crate) fn fsync_node(&mut self, node: &NodeId) -> Result<(), GroupError> {
        let x = self.alive_index(node)?;
        let image = self.nodes[x].image();
        self.disk.fsync(node, image);
        self.nodes[x].durable_offset = self.nodes[x].offset;
        record!(
            self.trace,
            self.net.now(),
            "async_fsync",
            node = node,
            offset = self.nodes[x].offset
        );
        Ok(())
    }
}
