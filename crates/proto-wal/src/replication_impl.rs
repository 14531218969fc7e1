//! The shared driver surface for WAL shipping.

use replication::{
    ClientOp, Completion, GroupError, GroupSummary, NodeSummary, OpId, ReplicationGroup,
};
use sim_core::{NodeId, Tick, Trace, record};

use crate::group::{DurableMark, PROTOCOL, WalShippingGroup};

impl ReplicationGroup for WalShippingGroup {
    fn protocol(&self) -> &'static str {
        PROTOCOL
    }

    fn node_ids(&self) -> Vec<NodeId> {
        self.nodes.iter().map(|n| n.id.clone()).collect()
    }

    fn leader(&self) -> Option<NodeId> {
        self.primary
            .filter(|&p| self.nodes[p].alive)
            .map(|p| self.nodes[p].id.clone())
    }

    /// Starts `op` without letting time pass.
    ///
    /// **Writes.** `node: None` writes at the current primary; `Some(n)`
    /// writes at `n` as [`WalShippingGroup::write_at`] does (`n` must
    /// believe it is a primary — a displaced one accepts split-brain
    /// writes). The record is appended, flushed and shipped at submission.
    /// `LEADER` completes *done* at once; `QUORUM` completes *done* after
    /// the tick in which the last configured synchronous standby's flush
    /// acknowledgement arrives, or *unknown* (with its LSN: it is in the
    /// primary's WAL and may survive) when `ack_timeout` ticks pass, its
    /// primary crashes or steps down, or another node is promoted first.
    ///
    /// **Reads** complete at submission: `LOCAL` at `node` (default: the
    /// current primary), `LEADER` at the current primary (`node` ignored).
    ///
    /// **Refused up front** (no id, no trace event, no state change), with
    /// the same errors as the blocking calls: `NONE` / `ALL_ISR` writes and
    /// `LINEARIZABLE` reads (unsupported), an unknown or crashed node, no
    /// alive primary, a write at a standby, a key or value longer than
    /// `u32::MAX` bytes.
    fn submit(&mut self, op: ClientOp) -> Result<OpId, GroupError> {
        self.submit_op(op)
    }

    fn take_completions(&mut self) -> Vec<Completion> {
        self.client.take_all()
    }

    fn take_completion(&mut self, id: OpId) -> Option<Completion> {
        self.client.take(id)
    }

    fn tick(&mut self) {
        self.step();
    }

    /// Ticks until no WAL message is in flight, no `QUORUM` write is
    /// waiting (each waits at most `ack_timeout` ticks) and no running
    /// standby holds a received record back for its replay delay.
    fn run_until_idle(&mut self, max_ticks: u64) -> Result<u64, GroupError> {
        let mut ticks = 0;
        let replaying = |g: &Self| {
            g.nodes
                .iter()
                .filter(|n| n.alive)
                .map(|n| n.replay_due.len())
                .sum::<usize>()
        };
        while self.net.in_flight() > 0 || !self.pending.is_empty() || replaying(self) > 0 {
            if ticks >= max_ticks {
                let waiting_for = if self.net.in_flight() > 0 {
                    format!("{} WAL messages in flight", self.net.in_flight())
                } else if self.pending.is_empty() {
                    format!("{} received records waiting to replay", replaying(self))
                } else {
                    format!("{} QUORUM writes in flight", self.pending.len())
                };
                return Err(GroupError::NotIdle {
                    ticks: max_ticks,
                    waiting_for,
                });
            }
            self.step();
            ticks += 1;
        }
        Ok(ticks)
    }

    /// A process crash keeps the WAL; `lose_unfsynced` (a power loss) rolls
    /// the node back to its last fsynced LSN and timeline and rebuilds its
    /// data from that WAL prefix. Traffic to and from it is lost, and a
    /// `QUORUM` write waiting on it completes *unknown* at once.
    fn crash(&mut self, node: &NodeId, lose_unfsynced: bool) -> Result<(), GroupError> {
        let i = self.alive_index(node)?;
        let now = self.net.now();
        let before = self.nodes[i].lsn();
        self.nodes[i].alive = false;
        self.net.discard_where(
            |env| &env.src == node || &env.dst == node,
            "node_crashed",
            &mut self.trace,
        );
        if lose_unfsynced {
            let mark = self.disk.image(node).copied().unwrap_or(DurableMark {
                lsn: 0,
                timeline: 1,
            });
            self.nodes[i].restore(mark.lsn, mark.timeline);
        }
        record!(
            self.trace,
            now,
            "wal_node_crashed",
            node = node,
            lose_unfsynced = lose_unfsynced,
            lsn_before = before,
            lsn_after = self.nodes[i].lsn()
        );
        self.settle_pending();
        Ok(())
    }

    /// Restarts a crashed node in the role it had. Messages sent to it while
    /// it was down are dropped (`sent_while_down`); it then reconnects (a
    /// standby asks for catch-up, a primary announces itself).
    fn restart(&mut self, node: &NodeId) -> Result<(), GroupError> {
        let i = self.index(node)?;
        if self.nodes[i].alive {
            return Err(GroupError::AlreadyRunning(node.clone()));
        }
        self.nodes[i].alive = true;
        // Whatever was sent while it was down had no connection to arrive on.
        self.net
            .discard_where(|env| &env.dst == node, "sent_while_down", &mut self.trace);
        record!(
            self.trace,
            self.net.now(),
            "wal_node_restarted",
            node = node,
            role = self.nodes[i].role.name(),
            lsn = self.nodes[i].lsn()
        );
        self.reconnect(i);
        Ok(())
    }

    fn isolate(&mut self, node: &NodeId) -> Result<(), GroupError> {
        self.index(node)?;
        let peers = self.node_ids();
        self.net.isolate(node, peers.iter());
        record!(self.trace, self.net.now(), "wal_node_isolated", node = node);
        Ok(())
    }

    /// Restores every link of `node`; if it is alive it reconnects.
    fn heal(&mut self, node: &NodeId) -> Result<(), GroupError> {
        let i = self.index(node)?;
        self.net.heal_node(node);
        record!(self.trace, self.net.now(), "wal_node_healed", node = node);
        if self.nodes[i].alive {
            self.reconnect(i);
        }
        Ok(())
    }

    /// Drops every message from `from` to `to` until `heal` of either
    /// node or [`restore_link`](ReplicationGroup::restore_link).
    fn cut_link(&mut self, from: &NodeId, to: &NodeId) -> Result<(), GroupError> {
        self.index(from)?;
        self.index(to)?;
        self.net.partition(from, to);
        record!(
            self.trace,
            self.net.now(),
            "wal_link_cut",
            from = from,
            to = to
        );
        Ok(())
    }

    /// Restores `from → to`; the receiving node, if alive, reconnects.
    fn restore_link(&mut self, from: &NodeId, to: &NodeId) -> Result<(), GroupError> {
        self.index(from)?;
        let j = self.index(to)?;
        self.net.heal(from, to);
        record!(
            self.trace,
            self.net.now(),
            "wal_link_restored",
            from = from,
            to = to
        );
        if self.nodes[j].alive {
            self.reconnect(j);
        }
        Ok(())
    }

    fn check_invariants(&self) -> Result<(), String> {
        WalShippingGroup::check_invariants(self)
    }

    /// Flushes `node`'s WAL; a standby reports the new flush LSN.
    fn fsync(&mut self, node: &NodeId) -> Result<(), GroupError> {
        let i = self.alive_index(node)?;
        record!(
            self.trace,
            self.net.now(),
            "wal_fsynced",
            node = node,
            lsn = self.nodes[i].lsn()
        );
        self.flush_node(i);
        Ok(())
    }

    /// `Some(n)` promotes `n`; `None` promotes the first alive node other
    /// than the current primary in configuration order, preferring a
    /// configured synchronous standby (it holds every `QUORUM`-acknowledged
    /// write). A `QUORUM` write still waiting completes *unknown*.
    fn failover(&mut self, candidate: Option<&NodeId>) -> Result<NodeId, GroupError> {
        let chosen = match candidate {
            Some(node) => node.clone(),
            None => {
                let eligible = |sync: bool| {
                    self.nodes.iter().enumerate().find(|(i, n)| {
                        n.alive && Some(*i) != self.primary && (!sync || n.synchronous)
                    })
                };
                let (_, node) = eligible(true)
                    .or_else(|| eligible(false))
                    .ok_or_else(|| GroupError::NoLeader("no alive standby to promote".into()))?;
                node.id.clone()
            }
        };
        self.promote(&chosen)?;
        Ok(chosen)
    }

    fn trace(&self) -> &Trace {
        &self.trace
    }

    fn trace_mut(&mut self) -> &mut Trace {
        &mut self.trace
    }

    fn now(&self) -> Tick {
        self.net.now()
    }

    fn summary(&self) -> GroupSummary {
        GroupSummary {
            protocol: PROTOCOL,
            tick: self.net.now(),
            leader: self.leader(),
            nodes: self
                .nodes
                .iter()
                .map(|n| NodeSummary {
                    id: n.id.clone(),
                    alive: n.alive,
                    role: n.role.name(),
                    applied_offset: n.applied_lsn,
                    data: n.data.clone(),
                })
                .collect(),
        }
    }
}
