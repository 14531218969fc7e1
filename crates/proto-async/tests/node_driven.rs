//! Driving `proto_async::node::AsyncNode`s without the group, as a
//! downstream model checker would: its own message queue, its own fault
//! state, its own sentinel.

use proto_async::node::{AsyncEvent, AsyncMsg, AsyncNode, NodeSettings, Output, Peers};
use proto_async::{AckLevel, Bytes, CatchUpMode, Role};

/// Three nodes, a FIFO queue of `(from, to, msg)`, and which nodes are up.
struct Harness {
    nodes: Vec<AsyncNode>,
    queue: Vec<(usize, usize, AsyncMsg)>,
    up: Up,
    events: Vec<(usize, AsyncEvent)>,
}

/// Which nodes are up; every link between two nodes up is open.
struct Up(Vec<bool>);

impl Peers for Up {
    fn is_up(&self, node: usize) -> bool {
        self.0[node]
    }
    fn can_send(&self, from: usize, to: usize) -> bool {
        self.0[from] && self.0[to]
    }
}

impl Harness {
    fn new() -> Self {
        let settings = NodeSettings::default();
        Harness {
            nodes: vec![
                AsyncNode::primary(0, 3, settings),
                AsyncNode::replica(1, 3, 0, settings),
                AsyncNode::replica(2, 3, 0, settings),
            ],
            queue: Vec::new(),
            up: Up(vec![true; 3]),
            events: Vec::new(),
        }
    }

    fn carry_out(&mut self, from: usize, out: Vec<Output>) {
        for o in out {
            match o {
                Output::Send { to, msg } => self.queue.push((from, to, msg)),
                Output::Event(e) => self.events.push((from, e)),
            }
        }
    }

    fn write(&mut self, at: usize, value: &str) -> u64 {
        let mut out = Vec::new();
        let offset = self.nodes[at]
            .write(
                0,
                Bytes::from("k"),
                Bytes::from(value.to_owned()),
                AckLevel::Leader,
                &self.up,
                &mut out,
            )
            .expect("a primary accepts the write");
        self.carry_out(at, out);
        offset
    }

    /// Ends the tick at every node up, then delivers everything queued to
    /// the nodes up (dropping the rest), until the queue is empty.
    fn settle(&mut self) {
        for i in 0..self.nodes.len() {
            if self.up.0[i] {
                let mut out = Vec::new();
                self.nodes[i].tick(&self.up, &mut out);
                self.carry_out(i, out);
            }
        }
        while !self.queue.is_empty() {
            for (from, to, msg) in std::mem::take(&mut self.queue) {
                if self.up.0[to] {
                    let mut out = Vec::new();
                    self.nodes[to].step(1, from, msg, &mut out);
                    self.carry_out(to, out);
                }
            }
        }
    }
}

#[test]
fn a_write_streams_to_every_replica_and_a_promotion_full_syncs_the_others() {
    let mut h = Harness::new();
    assert_eq!(h.write(0, "v1"), 1);
    h.settle();
    assert!(h.nodes.iter().all(|n| n.offset() == 1));
    assert_eq!(h.nodes[1].catch_up_mode(), CatchUpMode::Streaming);

    // The primary dies holding an acknowledged write nobody received.
    h.write(0, "lost");
    h.up.0[0] = false;
    let mut out = Vec::new();
    h.nodes[0].crash(false, &mut out);
    for node in &mut h.nodes {
        node.peer_crashed(0);
    }

    // Our own sentinel: promote node 1 in generation 2, point node 2 at it.
    h.nodes[1].become_primary(2);
    let mut out = Vec::new();
    h.nodes[2].follow(1, 2, &mut out);
    h.nodes[2].request_resync("reconfigured", &h.up, &mut out);
    h.carry_out(2, out);
    h.settle();

    let (p, r) = (&h.nodes[1], &h.nodes[2]);
    assert_eq!((p.role(), p.generation()), (Role::Primary, 2));
    assert_eq!(r.following(), Some(1));
    assert_eq!(r.replication_id(), p.replication_id());
    assert_eq!(r.catch_up_mode(), CatchUpMode::Full);
    assert_eq!(
        r.get(b"k"),
        Some(&Bytes::from("v1")),
        "the lost write is gone"
    );
    assert!(h.events.iter().any(|(at, e)| *at == 1
        && matches!(
            e,
            AsyncEvent::ResyncServed {
                replica: 2,
                mode: CatchUpMode::Full,
                ..
            }
        )));
}
