//! The smallest possible `ReplicationGroup`: one node, no replication, on
//! the shared [`Cluster`] harness. Shows the contract every protocol keeps
//! — supported levels answer, unsupported ones say so, bad node names are
//! errors, faults come from the harness.
//!
//! Run: `cargo run -p sim-replication --example single_node`

use std::collections::BTreeMap;

use replication::{
    AckLevel, Bytes, ClientOp, Cluster, Completion, GroupError, GroupSummary, NodeId, NodeSummary,
    OpId, Outcome, ReadLevel, ReadResult, ReplicationGroup, Tick, Trace,
};
use sim_core::{NetConfig, Payload, record};

/// One node sends no messages.
#[derive(Debug)]
enum NoMessage {}

impl Payload for NoMessage {
    fn label(&self) -> &'static str {
        match *self {}
    }
}

struct SingleNode {
    cluster: Cluster<NoMessage>,
    data: BTreeMap<Bytes, Bytes>,
    offset: u64,
}

impl ReplicationGroup for SingleNode {
    fn protocol(&self) -> &'static str {
        "single"
    }
    fn node_ids(&self) -> Vec<NodeId> {
        self.cluster.ids().to_vec()
    }
    fn leader(&self) -> Option<NodeId> {
        self.cluster.is_alive(0).then(|| self.cluster.id(0).clone())
    }
    /// Writes at `LEADER` and reads at `LOCAL` / `LEADER` complete at once.
    fn submit(&mut self, op: ClientOp) -> Result<OpId, GroupError> {
        match &op {
            ClientOp::Write { level, .. } if *level != AckLevel::Leader => {
                return Err(GroupError::UnsupportedAck {
                    protocol: "single",
                    level: *level,
                });
            }
            ClientOp::Read { level, .. } if *level == ReadLevel::Linearizable => {
                return Err(GroupError::UnsupportedRead {
                    protocol: "single",
                    level: *level,
                });
            }
            _ => {}
        }
        if let Some(node) = op.node() {
            self.cluster.index(node)?;
        }
        self.cluster.alive_index(&self.cluster.id(0).clone())?;
        let id = self.cluster.submitted(&op);
        let now = self.cluster.now();
        let node = self.cluster.id(0).clone();
        let outcome = match &op {
            ClientOp::Write { key, value, .. } => {
                self.offset += 1;
                record!(
                    self.cluster.trace,
                    now,
                    "write_applied",
                    offset = self.offset,
                    key = key
                );
                self.data.insert(key.clone(), value.clone());
                Outcome::Written {
                    offset: self.offset,
                    message: "applied locally".into(),
                }
            }
            ClientOp::Read { key, .. } => Outcome::Read(ReadResult {
                value: self.data.get(key).cloned(),
                node: node.clone(),
                offset: self.offset,
            }),
            _ => Outcome::refused_before_append("unknown operation"),
        };
        self.cluster.complete(id, op, now, Some(node), outcome);
        Ok(id)
    }
    fn take_completions(&mut self) -> Vec<Completion> {
        self.cluster.take_completions()
    }
    fn take_completion(&mut self, id: OpId) -> Option<Completion> {
        self.cluster.take_completion(id)
    }
    fn tick(&mut self) {
        self.cluster.advance();
    }
    fn run_until_idle(&mut self, _max_ticks: u64) -> Result<u64, GroupError> {
        Ok(0)
    }
    fn crash(&mut self, node: &NodeId, lose_unfsynced: bool) -> Result<(), GroupError> {
        self.cluster.crash(node, lose_unfsynced).map(drop)
    }
    fn restart(&mut self, node: &NodeId) -> Result<(), GroupError> {
        self.cluster.restart(node).map(drop)
    }
    fn isolate(&mut self, node: &NodeId) -> Result<(), GroupError> {
        self.cluster.isolate(node).map(drop)
    }
    fn heal(&mut self, node: &NodeId) -> Result<(), GroupError> {
        self.cluster.heal(node).map(drop)
    }
    fn fsync(&mut self, node: &NodeId) -> Result<(), GroupError> {
        self.cluster.alive_index(node).map(drop)
    }
    fn failover(&mut self, _candidate: Option<&NodeId>) -> Result<NodeId, GroupError> {
        Err(GroupError::not_permitted(
            self.cluster.id(0),
            "a single node has no one to fail over to",
        ))
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
    fn summary(&self) -> GroupSummary {
        GroupSummary {
            protocol: "single",
            tick: self.cluster.now(),
            leader: self.leader(),
            nodes: vec![NodeSummary {
                id: self.cluster.id(0).clone(),
                alive: self.cluster.is_alive(0),
                role: "leader",
                applied_offset: self.offset,
                data: self.data.clone(),
            }],
        }
    }
}

fn main() -> Result<(), GroupError> {
    let cluster = Cluster::new(vec![NodeId::new("solo")], NetConfig::default(), 0)?;
    let mut group = SingleNode {
        cluster,
        data: BTreeMap::new(),
        offset: 0,
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
    group.crash(&NodeId::new("solo"), false)?;
    println!(
        "write while down: {}",
        group
            .client_write(Bytes::new(), Bytes::new(), AckLevel::Leader)
            .unwrap_err()
    );
    print!("{}", group.trace().to_text());
    Ok(())
}
