//! Unit tests of the group's sending rule: nothing goes on the wire to a
//! node that is down, whatever other node is up.

use replication::ReplicationGroup;
use sim_core::NodeId;

use crate::config::AsyncConfig;
use crate::group::AsyncPrimaryGroup;
use crate::message::AsyncMsg;
use crate::node::Output;

#[test]
fn a_message_to_a_crashed_node_is_never_put_on_the_wire() {
    let mut g = AsyncPrimaryGroup::new(AsyncConfig::default()).expect("valid config");
    let replica = NodeId::new("replica-1");
    g.crash(&replica, false).expect("replica-1 is up");
    assert_eq!(g.cluster.in_flight(), 0);
    let r1 = g.cluster.index(&replica).expect("a node of the group");
    let r2 = g
        .cluster
        .index(&NodeId::new("replica-2"))
        .expect("a node of the group");
    let send = |to| Output::Send {
        to,
        msg: AsyncMsg::Stream(Vec::new()),
    };
    g.dispatch(0, &mut vec![send(r1)]);
    assert_eq!(g.cluster.in_flight(), 0, "replica-1 is down");
    g.dispatch(0, &mut vec![send(r2)]);
    assert_eq!(g.cluster.in_flight(), 1, "replica-2 is up");
}
