//! The [`ReplicationGroup`] impl: the shared driver surface.

use bytes::Bytes;
use replication::{
    AckLevel, GroupError, GroupSummary, NodeSummary, ReadLevel, ReadResult, ReplicationGroup,
    WriteResult,
};
use sim_core::{NodeId, Tick, Trace, record};

use crate::group::RaftGroup;

impl ReplicationGroup for RaftGroup {
    fn protocol(&self) -> &'static str {
        "raft"
    }

    fn node_ids(&self) -> Vec<NodeId> {
        self.ids.clone()
    }

    /// The alive leader with the highest term (a deposed leader in a
    /// minority may still believe it leads a lower term).
    fn leader(&self) -> Option<NodeId> {
        self.leader_index().map(|i| self.ids[i].clone())
    }

    /// `Quorum` only: proposes at [`leader`](ReplicationGroup::leader) and
    /// waits as [`RaftGroup::write_at`] does.
    fn client_write(
        &mut self,
        key: Bytes,
        value: Bytes,
        level: AckLevel,
    ) -> Result<WriteResult, GroupError> {
        if level != AckLevel::Quorum {
            return Err(GroupError::UnsupportedAck {
                protocol: "raft",
                level,
            });
        }
        let leader = self
            .leader_index()
            .ok_or_else(|| GroupError::NoLeader("no alive node is leader; cannot append".into()))?;
        let node = self.ids[leader].clone();
        self.write_at(&node, key, value)
    }

    /// `Local`: `node` (default the leader) answers from its applied state
    /// machine. `Leader`: the alive highest-term leader's state machine, no
    /// authority proof; `node` is ignored. `Linearizable`: a read-index
    /// round run **at `node` if given** (the node that must prove its
    /// leadership), else at the leader; blocked with
    /// `read-index fenced (no quorum)` when no majority answers in time and
    /// `no current-term commit` when the leader has not committed in its
    /// term. A read-index read drives ticks.
    fn client_read(
        &mut self,
        key: &[u8],
        level: ReadLevel,
        node: Option<&NodeId>,
    ) -> Result<ReadResult, GroupError> {
        let no_leader = || GroupError::NoLeader(format!("no alive leader to serve a {level} read"));
        match level {
            ReadLevel::Local => {
                let i = match node {
                    Some(n) => self.alive_index(n)?,
                    None => self.leader_index().ok_or_else(no_leader)?,
                };
                Ok(self.serve_local(i, key, level))
            }
            ReadLevel::Leader => {
                if let Some(n) = node {
                    self.index_of(n)?;
                }
                let i = self.leader_index().ok_or_else(no_leader)?;
                Ok(self.serve_local(i, key, level))
            }
            ReadLevel::Linearizable => {
                let target = match node {
                    Some(n) => n.clone(),
                    None => self.leader().ok_or_else(no_leader)?,
                };
                self.read_index(&target, key)
            }
        }
    }

    fn tick(&mut self) {
        self.step_tick();
    }

    /// Ticks until [`RaftGroup::is_idle`] (checked first), at most
    /// `max_ticks`.
    fn run_until_idle(&mut self, max_ticks: u64) -> Result<u64, GroupError> {
        let mut ticks = 0;
        while !self.is_idle() {
            if ticks >= max_ticks {
                return Err(GroupError::NotIdle {
                    ticks: max_ticks,
                    waiting_for: "uncommitted entries, a lagging reachable follower or non-heartbeat messages".into(),
                });
            }
            self.step_tick();
            ticks += 1;
        }
        Ok(ticks)
    }

    /// Keeps term, vote and log; loses role, commit index, applied state and
    /// the leader state. In-flight messages to and from the node are lost.
    /// `lose_unfsynced` changes nothing: Raft persists before it answers.
    fn crash(&mut self, node: &NodeId, lose_unfsynced: bool) -> Result<(), GroupError> {
        let i = self.alive_index(node)?;
        self.nodes[i].crash();
        let id = node.clone();
        self.net.discard_where(
            |env| env.src == id || env.dst == id,
            "node_crashed",
            &mut self.trace,
        );
        let now = self.now_tick();
        record!(
            self.trace,
            now,
            "raft_node_crashed",
            node = node,
            term = self.nodes[i].current_term,
            log_end = self.nodes[i].last_index(),
            lose_unfsynced = lose_unfsynced
        );
        Ok(())
    }

    fn restart(&mut self, node: &NodeId) -> Result<(), GroupError> {
        let i = self.index_of(node)?;
        if self.nodes[i].alive {
            return Err(GroupError::AlreadyRunning(node.clone()));
        }
        let now = self.now_tick();
        self.nodes[i].restart(now, &mut self.rng);
        let n = &self.nodes[i];
        record!(
            self.trace,
            now,
            "raft_node_restarted",
            node = node,
            term = n.current_term,
            voted_for = n.voted_for.map(|v| self.ids[v].clone()),
            log_end = n.last_index()
        );
        Ok(())
    }

    fn isolate(&mut self, node: &NodeId) -> Result<(), GroupError> {
        self.index_of(node)?;
        self.net.isolate(node, &self.ids);
        let now = self.now_tick();
        record!(self.trace, now, "raft_node_isolated", node = node);
        Ok(())
    }

    fn heal(&mut self, node: &NodeId) -> Result<(), GroupError> {
        self.index_of(node)?;
        self.net.heal_node(node);
        let now = self.now_tick();
        record!(self.trace, now, "raft_node_healed", node = node);
        Ok(())
    }

    /// A no-op beyond validation: every Raft node persists term, vote and
    /// log before answering, so its durable index is always its log end.
    fn fsync(&mut self, node: &NodeId) -> Result<(), GroupError> {
        let i = self.alive_index(node)?;
        let now = self.now_tick();
        record!(
            self.trace,
            now,
            "raft_fsync",
            node = node,
            durable_index = self.nodes[i].last_index()
        );
        Ok(())
    }

    /// `None`: waits (at most 10 × the highest election timeout) until the
    /// nodes elect a leader other than the current one — crash or isolate it
    /// first. `Some(_)`: [`GroupError::NotPermitted`], Raft elects its own.
    fn failover(&mut self, candidate: Option<&NodeId>) -> Result<NodeId, GroupError> {
        if let Some(node) = candidate {
            self.index_of(node)?;
            return Err(GroupError::not_permitted(
                node,
                "raft elects its own leader; call failover(None) and let the election run",
            ));
        }
        let old = self.leader();
        let bound = self.config.election_timeout.1.saturating_mul(10);
        self.run_until_leader(old.as_ref(), bound)
    }

    fn trace(&self) -> &Trace {
        &self.trace
    }

    fn trace_mut(&mut self) -> &mut Trace {
        &mut self.trace
    }

    fn now(&self) -> Tick {
        self.now_tick()
    }

    fn summary(&self) -> GroupSummary {
        let mut summary = GroupSummary {
            protocol: "raft",
            tick: self.now_tick(),
            leader: self.leader(),
            nodes: self
                .nodes
                .iter()
                .map(|n| NodeSummary {
                    id: self.ids[n.me].clone(),
                    alive: n.alive,
                    role: n.role.name(),
                    applied_offset: n.last_applied,
                    data: n.data.clone(),
                })
                .collect(),
        };
        summary.nodes.sort_by(|a, b| a.id.cmp(&b.id));
        summary
    }
}
