//! Unit tests of the group's sending rule: nothing goes on the wire to a
//! node that is down (or unknown), whatever other node is alive.

use replication::ReplicationGroup;
use sim_core::NodeId;

use crate::config::AsyncConfig;
use crate::group::AsyncPrimaryGroup;
use crate::message::AsyncMsg;

#[test]
fn a_message_to_a_crashed_node_is_never_put_on_the_wire() {
    let mut g = AsyncPrimaryGroup::new(AsyncConfig::default()).expect("valid config");
    let replica = NodeId::new("replica-1");
    g.crash(&replica, false).expect("replica-1 is up");
    assert_eq!(g.net.in_flight(), 0);
    g.send(0, &replica, AsyncMsg::Stream(Vec::new()));
    assert_eq!(g.net.in_flight(), 0, "replica-1 is down");
    g.send(0, &NodeId::new("nobody"), AsyncMsg::Stream(Vec::new()));
    assert_eq!(g.net.in_flight(), 0, "no such node");
    g.send(0, &NodeId::new("replica-2"), AsyncMsg::Stream(Vec::new()));
    assert_eq!(g.net.in_flight(), 1, "replica-2 is up");
}
