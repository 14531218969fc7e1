//! The two transports: datagrams (drop, duplicate, reorder) and streams
//! (FIFO per link, order-keeping stalls, connection resets).

use std::collections::BTreeSet;

use sim_core::{NetConfig, NodeId, Payload, Rng, SimError, SimNet, Trace, Transport};

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

/// A message type that never lets the network copy it.
#[derive(Debug)]
struct Unique(#[allow(dead_code)] u64);

impl Payload for Unique {
    fn label(&self) -> &'static str {
        "unique"
    }
}

fn ab() -> (NodeId, NodeId) {
    (NodeId::new("a"), NodeId::new("b"))
}

/// Sends one message a → b per tick for `n` ticks, then drains; returns
/// what arrived in order.
fn run<M: Payload>(
    config: NetConfig,
    n: u64,
    make: impl Fn(u64) -> M,
    seed: u64,
) -> (Vec<M>, Trace) {
    let (a, b) = ab();
    let mut net = SimNet::new(config).expect("valid");
    let (mut rng, mut trace) = (Rng::new(seed), Trace::new());
    let mut got = Vec::new();
    for i in 0..n + 40 {
        if i < n {
            net.send(&a, &b, make(i), &mut rng, &mut trace);
        }
        net.advance();
        while let Some(env) = net.next_delivery(&mut trace) {
            got.push(env.msg);
        }
    }
    (got, trace)
}

#[test]
fn a_stream_delivers_every_message_in_send_order_whatever_the_delays_and_stalls() {
    let config = NetConfig::default()
        .with_transport(Transport::Stream)
        .with_delay_range(1, 9)
        .with_stalls(0.2, 6);
    let (got, _) = run(config, 50, Msg, 3);
    let order: Vec<u64> = got.iter().map(|m| m.0).collect();
    assert_eq!(order, (0..50).collect::<Vec<_>>());
}

#[test]
fn datagrams_with_a_delay_range_can_arrive_out_of_order() {
    let config = NetConfig::default().with_delay_range(1, 9);
    let (got, _) = run(config, 50, Msg, 3);
    let order: Vec<u64> = got.iter().map(|m| m.0).collect();
    assert_eq!(order.len(), 50);
    assert!(order.windows(2).any(|w| w[0] > w[1]), "{order:?}");
}

#[test]
fn datagrams_are_duplicated_with_the_duplicate_rate_and_the_trace_says_so() {
    let config = NetConfig::default().with_duplicate_rate(0.3);
    let (got, trace) = run(config, 40, Msg, 5);
    let dups = trace.count("message_duplicated");
    assert!(dups > 0);
    assert_eq!(got.len(), 40 + dups);
    // A type that does not implement `duplicate` is never copied.
    let config = NetConfig::default().with_duplicate_rate(1.0);
    let (got, trace) = run(config, 10, Unique, 5);
    assert_eq!(got.len(), 10);
    assert_eq!(trace.count("message_duplicated"), 0);
}

#[test]
fn cutting_a_stream_link_resets_it_and_nothing_in_flight_arrives_after_it_is_restored() {
    let (a, b) = ab();
    let config = NetConfig::default()
        .with_transport(Transport::Stream)
        .with_delay(3);
    let mut net = SimNet::new(config).expect("valid");
    let (mut rng, mut trace) = (Rng::new(1), Trace::new());
    net.send(&a, &b, Msg(1), &mut rng, &mut trace);
    net.send(&b, &a, Msg(2), &mut rng, &mut trace);
    let cut = BTreeSet::from([(a.clone(), b.clone())]);
    let newly = net.set_cuts(cut, &mut trace);
    assert_eq!(newly, vec![(a.clone(), b.clone())]);
    net.set_cuts(BTreeSet::new(), &mut trace);
    let mut got = Vec::new();
    for _ in 0..5 {
        net.advance();
        while let Some(env) = net.next_delivery(&mut trace) {
            got.push(env.msg.0);
        }
    }
    assert_eq!(got, vec![2], "only the other direction's message arrives");
    let text = trace.to_text();
    assert!(text.contains("connection_reset src=a dst=b"), "{text}");
    assert!(text.contains("reason=\"connection_reset\""), "{text}");
}

#[test]
fn cutting_a_datagram_link_and_restoring_it_in_time_delivers_what_was_in_flight() {
    let (a, b) = ab();
    let mut net = SimNet::new(NetConfig::default().with_delay(3)).expect("valid");
    let (mut rng, mut trace) = (Rng::new(1), Trace::new());
    net.send(&a, &b, Msg(1), &mut rng, &mut trace);
    net.set_cuts(BTreeSet::from([(a.clone(), b.clone())]), &mut trace);
    net.set_cuts(BTreeSet::new(), &mut trace);
    let mut got = Vec::new();
    for _ in 0..5 {
        net.advance();
        while let Some(env) = net.next_delivery(&mut trace) {
            got.push(env.msg.0);
        }
    }
    assert_eq!(got, vec![1]);
}

#[test]
fn each_transport_refuses_the_faults_of_the_other_naming_the_setting() {
    let stream = NetConfig::default().with_transport(Transport::Stream);
    for (config, setting) in [
        (stream.clone().with_drop_rate(0.1), "drop_rate"),
        (stream.clone().with_duplicate_rate(0.1), "duplicate_rate"),
        (stream.with_reorder(0.1, 2), "reorder_rate"),
        (NetConfig::default().with_stalls(0.1, 2), "stall_rate"),
        (NetConfig::default().with_stalls(0.1, 0), "stall_ticks"),
    ] {
        match SimNet::<Msg>::new(config) {
            Err(SimError::Config { setting: s, .. }) => assert_eq!(s, setting),
            Err(other) => panic!("{setting}: {other}"),
            Ok(_) => panic!("{setting} accepted"),
        }
    }
}

#[test]
fn the_network_can_change_only_while_nothing_is_in_flight() {
    let (a, b) = ab();
    let mut net = SimNet::new(NetConfig::default()).expect("valid");
    let (mut rng, mut trace) = (Rng::new(1), Trace::new());
    let stream = NetConfig::default().with_transport(Transport::Stream);
    net.set_config(stream.clone()).expect("empty network");
    net.send(&a, &b, Msg(1), &mut rng, &mut trace);
    assert!(net.set_config(NetConfig::default()).is_err());
    assert_eq!(net.config(), &stream);
}

#[test]
fn a_full_network_drops_sends_and_counts_them() {
    let (a, b) = (NodeId::new("a"), NodeId::new("b"));
    let mut net: SimNet<Msg> = SimNet::new(NetConfig::default().with_capacity(2)).expect("valid");
    let mut rng = Rng::new(1);
    let mut trace = Trace::new();
    for i in 0..3 {
        net.send(&a, &b, Msg(i), &mut rng, &mut trace);
    }
    assert_eq!(net.in_flight(), 2);
    assert_eq!(net.overflowed(), 1);
    assert!(trace.to_jsonl().contains("network_full"));
    assert!(SimNet::<Msg>::new(NetConfig::default().with_capacity(0)).is_err());
}
