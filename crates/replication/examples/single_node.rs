//! The smallest possible `ReplicationGroup`: one node, no replication.
//! Shows the contract every protocol keeps — supported levels answer,
//! unsupported ones say so, bad node names are errors.
//!
//! Run: `cargo run -p replication --example single_node`

use std::collections::BTreeMap;

use replication::{
    AckLevel, Bytes, GroupError, GroupSummary, NodeId, NodeSummary, ReadLevel, ReadResult,
    ReplicationGroup, Tick, Trace, WriteResult,
};
use sim_core::record;

struct SingleNode {
    id: NodeId,
    alive: bool,
    data: BTreeMap<Bytes, Bytes>,
    offset: u64,
    now: Tick,
    trace: Trace,
}

impl SingleNode {
    fn check(&self, node: &NodeId) -> Result<(), GroupError> {
        if node != &self.id {
            return Err(GroupError::UnknownNode(node.clone()));
        }
        Ok(())
    }
}

impl ReplicationGroup for SingleNode {
    fn protocol(&self) -> &'static str {
        "single"
    }
    fn node_ids(&self) -> Vec<NodeId> {
        vec![self.id.clone()]
    }
    fn leader(&self) -> Option<NodeId> {
        self.alive.then(|| self.id.clone())
    }
    fn client_write(
        &mut self,
        key: Bytes,
        value: Bytes,
        level: AckLevel,
    ) -> Result<WriteResult, GroupError> {
        if level != AckLevel::Leader {
            return Err(GroupError::UnsupportedAck {
                protocol: "single",
                level,
            });
        }
        if !self.alive {
            return Err(GroupError::NodeDown(self.id.clone()));
        }
        self.offset += 1;
        record!(
            self.trace,
            self.now,
            "write_applied",
            offset = self.offset,
            key = &key
        );
        self.data.insert(key, value);
        Ok(WriteResult::accepted(self.offset, "applied locally"))
    }
    fn client_read(
        &mut self,
        key: &[u8],
        level: ReadLevel,
        node: Option<&NodeId>,
    ) -> Result<ReadResult, GroupError> {
        if level == ReadLevel::Linearizable {
            return Err(GroupError::UnsupportedRead {
                protocol: "single",
                level,
            });
        }
        if let Some(node) = node {
            self.check(node)?;
        }
        if !self.alive {
            return Err(GroupError::NodeDown(self.id.clone()));
        }
        Ok(ReadResult {
            value: self.data.get(key).cloned(),
            node: self.id.clone(),
            offset: self.offset,
        })
    }
    fn tick(&mut self) {
        self.now += 1;
    }
    fn run_until_idle(&mut self, _max_ticks: u64) -> Result<u64, GroupError> {
        Ok(0)
    }
    fn crash(&mut self, node: &NodeId, _lose_unfsynced: bool) -> Result<(), GroupError> {
        self.check(node)?;
        if !self.alive {
            return Err(GroupError::NodeDown(node.clone()));
        }
        self.alive = false;
        Ok(())
    }
    fn restart(&mut self, node: &NodeId) -> Result<(), GroupError> {
        self.check(node)?;
        if self.alive {
            return Err(GroupError::AlreadyRunning(node.clone()));
        }
        self.alive = true;
        Ok(())
    }
    fn isolate(&mut self, node: &NodeId) -> Result<(), GroupError> {
        self.check(node)
    }
    fn heal(&mut self, node: &NodeId) -> Result<(), GroupError> {
        self.check(node)
    }
    fn fsync(&mut self, node: &NodeId) -> Result<(), GroupError> {
        self.check(node)
    }
    fn failover(&mut self, _candidate: Option<&NodeId>) -> Result<NodeId, GroupError> {
        Err(GroupError::not_permitted(
            &self.id,
            "a single node has no one to fail over to",
        ))
    }
    fn trace(&self) -> &Trace {
        &self.trace
    }
    fn trace_mut(&mut self) -> &mut Trace {
        &mut self.trace
    }
    fn now(&self) -> Tick {
        self.now
    }
    fn summary(&self) -> GroupSummary {
        GroupSummary {
            protocol: "single",
            tick: self.now,
            leader: self.leader(),
            nodes: vec![NodeSummary {
                id: self.id.clone(),
                alive: self.alive,
                role: "leader",
                applied_offset: self.offset,
                data: self.data.clone(),
            }],
        }
    }
}

fn main() -> Result<(), GroupError> {
    let mut group = SingleNode {
        id: NodeId::new("solo"),
        alive: true,
        data: BTreeMap::new(),
        offset: 0,
        now: 0,
        trace: Trace::new(),
    };
    let w = group.client_write(
        Bytes::from_static(b"k"),
        Bytes::from_static(b"v"),
        AckLevel::Leader,
    )?;
    println!("write: accepted={} offset={:?}", w.accepted, w.offset);
    println!(
        "QUORUM: {}",
        group
            .client_write(Bytes::new(), Bytes::new(), AckLevel::Quorum)
            .unwrap_err()
    );
    println!(
        "LINEARIZABLE: {}",
        group
            .client_read(b"k", ReadLevel::Linearizable, None)
            .unwrap_err()
    );
    println!(
        "unknown node: {}",
        group.crash(&NodeId::new("ghost"), false).unwrap_err()
    );
    print!("{}", group.trace().to_text());
    Ok(())
}
