//! The shared driver surface for WAL shipping.

use crate::SyncQuorum;
use replication::{AckLevel, NodeState, ScenarioGroup, StateRecorder, WriteResult};
use replication::{
    ClientOp, Completion, GroupError, GroupSummary, NodeSummary, OpId, ReplicationGroup,
};
use sim_core::{NodeId, Tick, Trace, record};

use crate::group::{PROTOCOL, WalShippingGroup};
use crate::node::WalNode;
use crate::operator::Standing;

impl ReplicationGroup for WalShippingGroup {
    fn protocol(&self) -> &'static str {
        PROTOCOL
    }

    fn node_ids(&self) -> Vec<NodeId> {
        self.cluster.ids().to_vec()
    }

    /// The last promoted primary, if it is alive.
    fn leader(&self) -> Option<NodeId> {
        self.leader_index().map(|p| self.cluster.id(p).clone())
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

    /// As `submit` + `await_completion` (same events, op id and answer),
    /// without queueing the completion nobody else could take.
    fn client_write(
        &mut self,
        key: bytes::Bytes,
        value: bytes::Bytes,
        level: AckLevel,
    ) -> Result<WriteResult, GroupError> {
        self.write_blocking(key, value, level)
    }

    fn take_completions(&mut self) -> Vec<Completion> {
        self.cluster.take_completions()
    }

    fn take_completion(&mut self, id: OpId) -> Option<Completion> {
        self.cluster.take_completion(id)
    }

    fn tick(&mut self) {
        self.step_tick();
    }

    /// No timer of its own keeps it busy: healed, it goes idle.
    fn quiesces(&self) -> bool {
        true
    }

    /// Ticks until no WAL message is in flight, no `QUORUM` write is
    /// waiting (each waits at most `ack_timeout` ticks) and no running
    /// standby holds a received record back for its replay delay.
    fn run_until_idle(&mut self, max_ticks: u64) -> Result<u64, GroupError> {
        let mut ticks = 0;
        let replaying = |g: &Self| {
            (0..g.nodes.len())
                .filter(|&i| g.cluster.is_alive(i))
                .map(|i| g.nodes[i].records_awaiting_replay())
                .sum::<usize>()
        };
        while self.cluster.in_flight() > 0 || !self.pending.is_empty() || replaying(self) > 0 {
            if ticks >= max_ticks {
                let waiting_for = if self.cluster.in_flight() > 0 {
                    format!("{} WAL messages in flight", self.cluster.in_flight())
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
            self.step_tick();
            ticks += 1;
        }
        Ok(ticks)
    }

    /// A process crash keeps the WAL; `lose_unfsynced` (a power loss) rolls
    /// the node back to its last fsynced LSN and timeline and rebuilds its
    /// data from that WAL prefix (`wal_power_loss_restored`, after the
    /// harness's `node_crashed`). Traffic to and from it is lost, and a
    /// `QUORUM` write waiting on it completes *unknown* at once.
    fn crash(&mut self, node: &NodeId, lose_unfsynced: bool) -> Result<(), GroupError> {
        let i = self.cluster.crash(node, lose_unfsynced)?;
        self.on_crash(i, lose_unfsynced);
        Ok(())
    }

    /// Restarts a crashed node in the role it had. Messages sent to it while
    /// it was down are dropped (`sent_while_down`: they had no connection
    /// to arrive on); it then reconnects (a standby asks for catch-up, a
    /// primary announces itself).
    fn restart(&mut self, node: &NodeId) -> Result<(), GroupError> {
        let i = self.cluster.restart(node)?;
        self.on_restart(i);
        Ok(())
    }

    fn isolate(&mut self, node: &NodeId) -> Result<(), GroupError> {
        self.cluster.isolate(node).map(drop)
    }

    /// Restores every link of `node` (another isolated node stays
    /// isolated); if it is alive it reconnects.
    fn heal(&mut self, node: &NodeId) -> Result<(), GroupError> {
        let i = self.cluster.heal(node)?;
        if self.cluster.is_alive(i) {
            self.reconnect(i);
        }
        Ok(())
    }

    /// Drops every message from `from` to `to` until `heal` of either
    /// node or [`restore_link`](ReplicationGroup::restore_link).
    fn cut_link(&mut self, from: &NodeId, to: &NodeId) -> Result<(), GroupError> {
        self.cluster.cut_link(from, to).map(drop)
    }

    /// Restores `from → to` (an isolated end stays isolated); the
    /// receiving node, if alive, reconnects.
    fn restore_link(&mut self, from: &NodeId, to: &NodeId) -> Result<(), GroupError> {
        let (_, j) = self.cluster.restore_link(from, to)?;
        if self.cluster.is_alive(j) {
            self.reconnect(j);
        }
        Ok(())
    }

    fn steerable(&self) -> Option<&dyn replication::Steer> {
        Some(self)
    }

    fn steerable_mut(&mut self) -> Option<&mut dyn replication::Steer> {
        Some(self)
    }

    fn check_invariants(&self) -> Result<(), String> {
        self.cluster.check_network()?;
        WalShippingGroup::check_invariants(self)
    }

    fn set_network(&mut self, net: replication::NetConfig) -> Result<(), GroupError> {
        self.cluster.set_network(net)
    }

    /// The primary is up and reachable, and — when standbys are listed in
    /// `synchronous_standby_names` — as many listed standbys as the rule
    /// needs (every one, `FIRST n`, `ANY n`; the primary itself never
    /// counts) are up, not slow and linked to it both ways.
    fn tolerates_current_faults(&self) -> bool {
        let Some(p) = self.operator.primary() else {
            return false;
        };
        if !self.cluster.is_alive(p) || self.cluster.is_isolated(p) {
            return false;
        }
        if self.synchronous.is_empty() {
            return true;
        }
        let listed: Vec<usize> = self
            .synchronous
            .iter()
            .copied()
            .filter(|&s| s != p)
            .collect();
        let healthy = listed
            .iter()
            .filter(|&&s| {
                self.cluster.is_alive(s) && !self.cluster.is_slow(s) && self.cluster.linked(p, s)
            })
            .count();
        let needed = match self.config.sync_quorum {
            SyncQuorum::Every => listed.len(),
            SyncQuorum::First(n) | SyncQuorum::Any(n) => n,
        };
        !listed.is_empty() && healthy >= needed
    }

    /// A standby's catch-up after a failover or a heal, and the apply
    /// delay `remote_apply` waits for.
    fn recovery_bound(&self) -> u64 {
        20 + self.config.recovery_min_apply_delay
    }

    /// A promoted synchronous standby is still listed in
    /// `synchronous_standby_names`, and the standbys left cannot satisfy the
    /// rule without it: too few for `FIRST n` / `ANY n`, or — under the
    /// every-listed-standby rule — any listed primary at all, since a
    /// primary never confirms its own commit. PostgreSQL then makes every
    /// synchronous commit wait, and so does this model.
    fn unavailable(&self) -> Option<String> {
        let p = self.operator.primary()?;
        let others = self.synchronous.iter().filter(|&&s| s != p).count();
        let unsatisfiable = match self.config.sync_quorum {
            // Every listed standby must confirm, and a listed primary never
            // does (sync_rep::decide).
            SyncQuorum::Every => others < self.synchronous.len(),
            SyncQuorum::First(n) | SyncQuorum::Any(n) => others < n,
        };
        (!self.synchronous.is_empty() && unsatisfiable).then(|| {
            format!(
                "{}: the primary {} is listed itself and {others} other standby cannot satisfy it, so QUORUM commits wait",
                self.config.synchronous_standby_names(),
                self.cluster.id(p)
            )
        })
    }

    /// Flushes `node`'s WAL; a standby reports the new flush LSN.
    fn fsync(&mut self, node: &NodeId) -> Result<(), GroupError> {
        let i = self.cluster.alive_index(node)?;
        record!(
            self.cluster.trace,
            self.cluster.now(),
            "wal_fsynced",
            node = node,
            lsn = self.nodes[i].lsn()
        );
        self.with_node(i, WalNode::flush);
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
                let standings: Vec<Standing> = (0..self.nodes.len())
                    .map(|i| Standing {
                        alive: self.cluster.is_alive(i),
                        synchronous: self.synchronous.contains(&i),
                    })
                    .collect();
                let i = self
                    .operator
                    .failover_candidate(&standings)
                    .ok_or_else(|| GroupError::NoLeader("no alive standby to promote".into()))?;
                self.cluster.id(i).clone()
            }
        };
        self.promote(&chosen)?;
        Ok(chosen)
    }

    fn trace(&self) -> &Trace {
        &self.cluster.trace
    }

    fn trace_mut(&mut self) -> &mut Trace {
        &mut self.cluster.trace
    }

    fn now(&self) -> Tick {
        self.now_tick()
    }

    fn summary(&self) -> GroupSummary {
        GroupSummary {
            protocol: PROTOCOL,
            tick: self.now_tick(),
            leader: self.leader(),
            nodes: self
                .nodes
                .iter()
                .enumerate()
                .map(|(i, n)| NodeSummary {
                    id: self.cluster.id(i).clone(),
                    alive: self.cluster.is_alive(i),
                    role: n.role().name(),
                    applied_offset: n.applied_lsn(),
                    data: n.data().to_sorted(),
                })
                .collect(),
        }
    }

    fn node_states(&self) -> Vec<NodeState> {
        crate::state_line::lines(&self.probe())
    }

    fn recorder(&self) -> Option<&dyn StateRecorder> {
        Some(&self.cluster)
    }

    fn recorder_mut(&mut self) -> Option<&mut dyn StateRecorder> {
        Some(&mut self.cluster)
    }
}

fn acked(write: &WriteResult) -> &'static str {
    if write.accepted { "acked" } else { "refused" }
}

fn offset(write: &WriteResult) -> String {
    write.offset.map_or("-".to_owned(), |o| o.to_string())
}

/// What a scenario reads from the group in the protocol's own words (see
/// [`ScenarioGroup`]).
impl ScenarioGroup for WalShippingGroup {
    fn catch_up(&self, node: &NodeId) -> Option<String> {
        let probe = self.probe();
        probe.node(node).map(|n| n.catch_up_mode.name().to_owned())
    }

    fn fenced(&self) -> u64 {
        self.trace().count("wal_fenced") as u64
    }

    fn gate(&self, node: &NodeId, level: AckLevel, write: &WriteResult) -> String {
        let probe = self.probe();
        let lsn = probe.node(node).map_or(0, |n| n.applied_lsn);
        let config = self.config();
        if matches!(
            config.sync_quorum,
            SyncQuorum::First(_) | SyncQuorum::Any(_)
        ) {
            let confirmed_by = self
                .trace()
                .of_kind("wal_sync_confirmed")
                .last()
                .and_then(|e| e.field("confirmed_by"))
                .map_or_else(|| "nobody".to_owned(), |v| v.to_string());
            return format!(
                "{}: {node} cut off, confirmed by {confirmed_by}: {} LSN {} while {node} was at LSN {lsn}",
                config.synchronous_standby_names(),
                acked(write),
                offset(write),
            );
        }
        let outcome = format!(
            "{} LSN {} while it was at LSN {lsn}",
            acked(write),
            offset(write)
        );
        if probe.synchronous_standbys.contains(node) {
            format!("synchronous standby {node} gates {level} commit: {outcome}")
        } else {
            format!("async standby {node} does not gate commit: {outcome}")
        }
    }
}
