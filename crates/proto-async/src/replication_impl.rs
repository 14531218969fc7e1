//! The shared driver surface, and what each fault means for async (the
//! hooks run after the harness's own call).

use replication::{AckLevel, NodeState, ScenarioGroup, StateRecorder, WriteResult};
use std::sync::Arc;

use replication::{
    ClientOp, Completion, GroupError, GroupSummary, NodeSummary, OpId, ReplicationGroup,
};
use sim_core::{NodeId, Tick, Trace};

use crate::group::{AsyncPrimaryGroup, PROTOCOL};
use crate::output::AsyncEvent;
use crate::sentinel::Restart;

impl ReplicationGroup for AsyncPrimaryGroup {
    fn protocol(&self) -> &'static str {
        PROTOCOL
    }

    fn node_ids(&self) -> Vec<NodeId> {
        self.cluster.ids().to_vec()
    }

    fn leader(&self) -> Option<NodeId> {
        let p = self.sentinel.primary();
        self.cluster.is_alive(p).then(|| self.cluster.id(p).clone())
    }

    /// Starts `op`; in async it also completes in this call (no tick
    /// passes), so its completion is ready at once — except a `Leader`
    /// write in a group configured with `wait`, which completes when its
    /// `WAIT` returns (see the crate docs).
    ///
    /// - **Writes** (`None` / `Leader`) are applied by the primary and
    ///   complete *done* with their offset; replicas are not waited for.
    ///   Without a node they go to the current primary (crashed:
    ///   [`GroupError::NodeDown`]). With [`ClientOp::at`] they go to that
    ///   node, as [`write_at`](AsyncPrimaryGroup::write_at)
    ///   does: any node that believes it is primary accepts them — an old
    ///   primary cut off in a minority acknowledges a dirty write — and a
    ///   replica refuses with [`GroupError::NotPermitted`] (`READONLY`).
    ///   `Quorum` / `AllIsr` are [`GroupError::UnsupportedAck`].
    /// - **Reads**: `Local` at the named node (default the current
    ///   primary), `Leader` at the current primary whatever node is named
    ///   (crashed: [`GroupError::NoLeader`]); `Linearizable` is
    ///   [`GroupError::UnsupportedRead`]. A read completes *done* with the
    ///   node's value now.
    ///
    /// Every refusal is an `Err` here, before anything happens: no id, no
    /// trace event, no state change — except `min-replicas-to-write`, which
    /// completes the write *failed* (refused before it is applied). Only a
    /// write whose `WAIT` did not reach `numreplicas` completes *unknown*.
    fn submit(&mut self, op: ClientOp) -> Result<OpId, GroupError> {
        self.submit_op(op)
    }

    /// As `submit` + `await_completion` (same events, op id and answer);
    /// a write that completes in this call skips the in-flight
    /// bookkeeping.
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

    fn run_until_idle(&mut self, max_ticks: u64) -> Result<u64, GroupError> {
        self.run_idle(max_ticks)
    }

    /// The harness's crash (in-flight traffic to and from the node is
    /// lost), then: every node forgets what it queued or kept for the
    /// crashed one; the node itself loses its output buffers and any
    /// outstanding `PSYNC`; with `lose_unfsynced` it rolls back to its last
    /// fsync (`async_power_loss_restored` says from and to which offset; a
    /// primary's backlog is trimmed, and on restart it starts a new
    /// history); without, it keeps its data set (a restart with
    /// persistence). A `WAIT` at it returns.
    fn crash(&mut self, node: &NodeId, lose_unfsynced: bool) -> Result<(), GroupError> {
        let x = self.cluster.crash(node, lose_unfsynced)?;
        for other in &mut self.nodes {
            other.peer_crashed(x);
        }
        self.drive(x, |node, _, out| node.crash(lose_unfsynced, out));
        self.settle_pending();
        Ok(())
    }

    /// The harness's restart, then: an outdated primary is demoted, the
    /// current primary that lost writes to a power loss starts a new
    /// history (every other node reconfigured), and otherwise the node and
    /// the replicas following it ask to resynchronise.
    fn restart(&mut self, node: &NodeId) -> Result<(), GroupError> {
        let x = self.cluster.restart(node)?;
        let view = self.views()[x];
        match self
            .sentinel
            .on_restart(x, view, self.nodes[x].lost_history())
        {
            Restart::Demote => self.demote(x),
            Restart::NewHistory => {
                let generation = self.sentinel.reset_history();
                self.nodes[x].become_primary(generation);
                let event = AsyncEvent::HistoryReset {
                    generation,
                    replication_id: Arc::clone(self.nodes[x].replication_id()),
                    offset: self.nodes[x].offset(),
                };
                self.record(x, event);
                self.reconfigure_others();
                return Ok(());
            }
            Restart::Rejoin => {}
        }
        self.resync_around(x, "restarted", &[]);
        Ok(())
    }

    /// The harness's isolation: nothing else happens until it heals (a
    /// primary keeps its output for the cut replicas).
    fn isolate(&mut self, node: &NodeId) -> Result<(), GroupError> {
        self.cluster.isolate(node).map(drop)
    }

    /// The harness's heal, then: every primary up flushes the output it
    /// kept for a replica it can reach again (if its backlog still holds
    /// it); a primary that is no longer current is demoted by the
    /// sentinel; the replicas at or of `node` not served by a flush `PSYNC`.
    fn heal(&mut self, node: &NodeId) -> Result<(), GroupError> {
        let x = self.cluster.heal(node)?;
        let mut flushed = Vec::new();
        for p in 0..self.nodes.len() {
            if !self.cluster.is_alive(p) {
                continue;
            }
            let replicas = self.drive(p, |node, peers, out| node.flush_buffered(peers, out));
            let history = self.nodes[p].replication_id();
            flushed.extend(
                replicas
                    .into_iter()
                    .filter(|&r| self.nodes[r].continues_stream_of(p, history)),
            );
        }
        let view = self.views()[x];
        if self.sentinel.demote_on_heal(x, view) {
            self.demote(x);
        }
        self.resync_around(x, "healed", &flushed);
        Ok(())
    }

    fn fsync(&mut self, node: &NodeId) -> Result<(), GroupError> {
        let x = self.cluster.alive_index(node)?;
        self.drive(x, |node, _, out| node.fsync(out));
        Ok(())
    }

    /// The harness's one-way cut: messages from `from` to `to` are dropped
    /// until [`restore_link`](ReplicationGroup::restore_link) or `heal` of
    /// either node.
    fn cut_link(&mut self, from: &NodeId, to: &NodeId) -> Result<(), GroupError> {
        self.cluster.cut_link(from, to).map(drop)
    }

    /// Restores `from → to` (an isolated end stays isolated); a replica
    /// that missed stream output resyncs when `heal` runs, as after any
    /// partition.
    fn restore_link(&mut self, from: &NodeId, to: &NodeId) -> Result<(), GroupError> {
        self.cluster.restore_link(from, to).map(drop)
    }

    fn steerable(&self) -> Option<&dyn replication::Steer> {
        Some(self)
    }

    fn steerable_mut(&mut self) -> Option<&mut dyn replication::Steer> {
        Some(self)
    }

    fn check_invariants(&self) -> Result<(), String> {
        self.cluster.check_network()?;
        AsyncPrimaryGroup::check_invariants(self)
    }

    fn set_network(&mut self, net: replication::NetConfig) -> Result<(), GroupError> {
        self.cluster.set_network(net)
    }

    /// The primary is up; with `min-replicas-to-write N` or `WAIT N`, at
    /// least N replicas are up and linked to it both ways. Writes at
    /// `LEADER` need nothing else: no replica is waited for.
    fn tolerates_current_faults(&self) -> bool {
        let p = self.sentinel.primary();
        if !self.cluster.is_alive(p) || self.wait_outpaced().is_some() {
            return false;
        }
        let needed = self
            .config
            .min_replicas_to_write
            .max(self.config.wait.map_or(0, |w| w.numreplicas));
        let linked = (0..self.nodes.len())
            .filter(|&r| r != p && self.cluster.is_alive(r) && self.cluster.linked(p, r))
            .count();
        linked >= needed
    }

    /// A `WAIT` timeout shorter than the network's slowest round trip:
    /// whether a replica's acknowledgement returns in time is chance.
    fn outside_assumptions(&self) -> Option<String> {
        self.wait_outpaced()
    }

    /// `WAIT N T` cannot be answered when `T` is shorter than the
    /// *shortest* round trip to a replica on this network: every write
    /// then ends *unknown*, by the client's own setting. (When only the
    /// slowest round trip outlasts `T`, some writes are answered: the
    /// group is not unavailable, it is outside its assumptions.)
    fn unavailable(&self) -> Option<String> {
        self.wait_outlasted_by(self.cluster.net_config().min_delay, "any", "at least")
    }

    /// A resynchronisation and the replicas' acknowledgements: the
    /// `min-replicas-max-lag` plus a `WAIT` timeout, and a few ticks.
    fn recovery_bound(&self) -> u64 {
        self.config.min_replicas_max_lag + self.config.wait.map_or(0, |w| w.timeout) + 10
    }

    /// `Some(n)` promotes `n`; `None` promotes the first alive replica in
    /// id order.
    fn failover(&mut self, candidate: Option<&NodeId>) -> Result<NodeId, GroupError> {
        let chosen = match candidate {
            Some(node) => node.clone(),
            None => {
                let i = self
                    .sentinel
                    .candidate(&self.views())
                    .ok_or_else(|| GroupError::NoLeader("no alive replica to promote".into()))?;
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
        self.cluster.now()
    }

    /// Per node (in id order), whether the harness has it up, and its role,
    /// offset and data as the node holds them.
    fn summary(&self) -> GroupSummary {
        let nodes = self
            .cluster
            .ids()
            .iter()
            .zip(&self.nodes)
            .enumerate()
            .map(|(i, (id, node))| NodeSummary {
                id: id.clone(),
                alive: self.cluster.is_alive(i),
                role: node.role().name(),
                applied_offset: node.offset(),
                data: node.data().clone(),
            })
            .collect();
        GroupSummary {
            protocol: PROTOCOL,
            tick: self.cluster.now(),
            leader: self.leader(),
            nodes,
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

/// What a scenario reads from the group in the protocol's own words (see
/// [`ScenarioGroup`]).
impl ScenarioGroup for AsyncPrimaryGroup {
    fn catch_up(&self, node: &NodeId) -> Option<String> {
        let probe = self.probe();
        probe.node(node).map(|n| n.catch_up_mode.name().to_owned())
    }

    fn fenced(&self) -> u64 {
        use replication::ReplicationGroup;
        self.trace()
            .of_kind("async_message_rejected")
            .filter(|e| {
                matches!(
                    e.str_field("reason"),
                    Some("non_current_primary" | "stale_generation")
                )
            })
            .count() as u64
    }

    fn gate(&self, node: &NodeId, _level: AckLevel, write: &WriteResult) -> String {
        let probe = self.probe();
        let acked_at = write.offset.unwrap_or(0);
        match probe.node(node) {
            // The ack came while this replica lacked the entry: it has no vote.
            Some(n) if write.accepted && n.offset < acked_at => format!(
                "{} {} is not a voter: acked at offset {} while it was at offset {}",
                n.role.name(),
                n.id,
                acked_at,
                n.offset
            ),
            Some(n) => format!(
                "{} {} held offset {} when offset {} was answered",
                n.role.name(),
                n.id,
                n.offset,
                acked_at
            ),
            None => format!("{node} is not in the probe"),
        }
    }
}

impl AsyncPrimaryGroup {
    /// Why `WAIT`'s timeout may not be met on this network (its slowest
    /// round trip outlasts it), if so.
    fn wait_outpaced(&self) -> Option<String> {
        self.wait_outlasted_by(self.cluster.net_config().worst_delay(), "a", "up to")
    }

    /// Why `WAIT`'s timeout is shorter than a round trip of one-way
    /// `delay` (`which` acknowledgement, the round trip `bound` ticks), if
    /// it is.
    fn wait_outlasted_by(&self, delay: u64, which: &str, bound: &str) -> Option<String> {
        let wait = self.config.wait?;
        let round_trip = 2 * delay;
        (wait.timeout < round_trip).then(|| {
            format!(
                "WAIT {} {} times out before {which} replica's acknowledgement can return (round trip {bound} {round_trip} ticks)",
                wait.numreplicas, wait.timeout
            )
        })
    }
}
