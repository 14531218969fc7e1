//! A held network (`SimNet::hold`): nothing sent is delivered until a
//! chooser releases it; a stream releases each link in order, a datagram
//! network in any order, and drops or duplicates on request.

use sim_core::{NetConfig, NodeId, Payload, Rng, SimNet, Trace, Transport};

#[derive(Debug, Clone, PartialEq)]
struct Msg(u64);

impl Payload for Msg {
    fn label(&self) -> &'static str {
        "msg"
    }
    fn duplicate(&self) -> Option<Self> {
        Some(self.clone())
    }
}

fn held_net(transport: Transport) -> (SimNet<Msg>, Rng, Trace, NodeId, NodeId) {
    let mut net = SimNet::new(NetConfig::default().with_transport(transport)).expect("valid");
    let (a, b) = (NodeId::new("a"), NodeId::new("b"));
    net.register([&a, &b]);
    net.hold(true);
    (net, Rng::new(1), Trace::new(), a, b)
}

fn delivered(net: &mut SimNet<Msg>, trace: &mut Trace) -> Vec<u64> {
    net.advance();
    let mut out = Vec::new();
    while let Some(env) = net.next_delivery(trace) {
        out.push(env.msg.0);
    }
    out
}

#[test]
fn a_held_stream_delivers_only_what_is_released_and_each_link_in_order() {
    let (mut net, mut rng, mut trace, a, b) = held_net(Transport::Stream);
    let first = net.send(&a, &b, Msg(1), &mut rng, &mut trace);
    let second = net.send(&a, &b, Msg(2), &mut rng, &mut trace);
    net.send(&b, &a, Msg(3), &mut rng, &mut trace);
    assert!(delivered(&mut net, &mut trace).is_empty(), "nothing is due");
    let deliverable: Vec<bool> = net.held().iter().map(|h| h.deliverable).collect();
    assert_eq!(
        deliverable,
        [true, false, true],
        "the second a→b waits for the first"
    );
    assert!(net.release(second).is_err(), "not first on its stream");
    assert!(
        net.duplicate_held(first, &mut trace).is_err(),
        "a stream never duplicates"
    );
    net.release(first).expect("first on its link");
    assert_eq!(delivered(&mut net, &mut trace), [1]);
    assert_eq!(net.in_flight(), 2);
    net.drop_held(second, &mut trace).expect("held");
    net.hold(false);
    assert_eq!(
        delivered(&mut net, &mut trace),
        [3],
        "unheld: due at the next tick"
    );
    assert_eq!(net.in_flight(), 0);
}

#[test]
fn a_held_datagram_network_delivers_in_any_order_and_duplicates_on_request() {
    let (mut net, mut rng, mut trace, a, b) = held_net(Transport::Datagram);
    let first = net.send(&a, &b, Msg(1), &mut rng, &mut trace);
    let second = net.send(&a, &b, Msg(2), &mut rng, &mut trace);
    assert!(net.held().iter().all(|h| h.deliverable));
    net.release(second).expect("any order");
    assert_eq!(delivered(&mut net, &mut trace), [2]);
    net.duplicate_held(first, &mut trace).expect("held");
    assert_eq!(net.held().len(), 2);
    net.release(first).expect("one copy");
    net.release(first).expect("the other");
    assert_eq!(delivered(&mut net, &mut trace), [1, 1]);
    assert!(net.release(99).is_err(), "an unknown message is an error");
}

#[test]
fn holding_a_busy_network_holds_what_was_already_scheduled() {
    let mut net: SimNet<Msg> = SimNet::new(NetConfig::default().with_delay(3)).expect("valid");
    let (mut rng, mut trace) = (Rng::new(1), Trace::new());
    let (a, b) = (NodeId::new("a"), NodeId::new("b"));
    net.send(&a, &b, Msg(7), &mut rng, &mut trace);
    net.hold(true);
    assert_eq!(net.held().len(), 1);
    for _ in 0..5 {
        assert!(delivered(&mut net, &mut trace).is_empty(), "held, not due");
    }
}

#[test]
fn in_delivery_order_lists_the_scheduled_by_due_tick_and_send_order_then_the_held() {
    let (mut net, mut rng, mut trace, a, b) = held_net(Transport::Datagram);
    let first = net.send(&a, &b, Msg(1), &mut rng, &mut trace);
    net.send(&b, &a, Msg(2), &mut rng, &mut trace);
    let third = net.send(&a, &b, Msg(3), &mut rng, &mut trace);
    net.release(third).expect("held");
    net.release(first).expect("held");
    let listed: Vec<(Option<u64>, u64, usize)> = net
        .in_delivery_order()
        .into_iter()
        .map(|(due, e)| (due, e.msg.0, e.src))
        .collect();
    // Released: due next tick, in the order they were released (the
    // order the network hands them over); then the one still held.
    assert_eq!(listed, [(Some(1), 3, 0), (Some(1), 1, 0), (None, 2, 1)]);
    assert_eq!(delivered(&mut net, &mut trace), [3, 1]);
    // Let go: the held one is due at the next tick.
    net.hold(false);
    let due: Vec<Option<u64>> = net.in_delivery_order().iter().map(|(d, _)| *d).collect();
    assert_eq!(due, [Some(2)]);
}
