//! The shared driver surface for WAL shipping.

use bytes::Bytes;
use replication::{
    AckLevel, GroupError, GroupSummary, NodeSummary, ReadLevel, ReadResult, ReplicationGroup,
    WriteResult,
};
use sim_core::{NodeId, Tick, Trace, record};

use crate::group::{DurableMark, PROTOCOL, WalShippingGroup};
use crate::probe::WalRole;

impl WalShippingGroup {
    /// The current primary's index, alive, or the reason there is none.
    fn current_primary(&self) -> Result<usize, GroupError> {
        let p = self
            .primary
            .ok_or_else(|| GroupError::NoLeader("no primary has been promoted".into()))?;
        if !self.nodes[p].alive {
            return Err(GroupError::NodeDown(self.nodes[p].id.clone()));
        }
        Ok(p)
    }
}

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

    /// Writes at the current primary; see [`WalShippingGroup::write_at`].
    fn client_write(
        &mut self,
        key: Bytes,
        value: Bytes,
        level: AckLevel,
    ) -> Result<WriteResult, GroupError> {
        if !matches!(level, AckLevel::Leader | AckLevel::Quorum) {
            return Err(GroupError::UnsupportedAck {
                protocol: PROTOCOL,
                level,
            });
        }
        let p = self.current_primary()?;
        let id = self.nodes[p].id.clone();
        self.write_at(&id, key, value, level)
    }

    /// `LOCAL` reads `node` (default: the current primary); `LEADER` reads
    /// the current primary; `LINEARIZABLE` is unsupported (a primary has no
    /// way to prove it is still the primary).
    fn client_read(
        &mut self,
        key: &[u8],
        level: ReadLevel,
        node: Option<&NodeId>,
    ) -> Result<ReadResult, GroupError> {
        let i = match (level, node) {
            (ReadLevel::Linearizable, _) => {
                return Err(GroupError::UnsupportedRead {
                    protocol: PROTOCOL,
                    level,
                });
            }
            (ReadLevel::Local, Some(node)) => self.alive_index(node)?,
            (ReadLevel::Local, None) | (ReadLevel::Leader, _) => self.current_primary()?,
        };
        let node = &self.nodes[i];
        Ok(ReadResult {
            value: node.data.get(key).cloned(),
            node: node.id.clone(),
            offset: node.lsn(),
        })
    }

    fn tick(&mut self) {
        self.step();
    }

    fn run_until_idle(&mut self, max_ticks: u64) -> Result<u64, GroupError> {
        let mut ticks = 0;
        while self.net.in_flight() > 0 {
            if ticks >= max_ticks {
                return Err(GroupError::NotIdle {
                    ticks: max_ticks,
                    waiting_for: format!("{} WAL messages in flight", self.net.in_flight()),
                });
            }
            self.step();
            ticks += 1;
        }
        Ok(ticks)
    }

    /// A process crash keeps the WAL; `lose_unfsynced` (a power loss) rolls
    /// the node back to its last fsynced LSN and timeline and rebuilds its
    /// data from that WAL prefix. Traffic to and from it is lost.
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
    /// than the current primary in id order, preferring a configured
    /// synchronous standby (it holds every `QUORUM`-acknowledged write).
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
                    role: match n.role {
                        WalRole::Primary => "primary",
                        WalRole::Standby => "standby",
                    },
                    applied_offset: n.lsn(),
                    data: n.data.clone(),
                })
                .collect(),
        }
    }
}
