//! The shared harness: every fault written once, its state derived so the
//! order faults were made in never matters.

use replication::{Cluster, GroupError, StateHasher};
use sim_core::{NetConfig, NodeId, Payload};

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Ping;

impl Payload for Ping {
    fn label(&self) -> &'static str {
        "ping"
    }
}

fn three() -> (Cluster<Ping>, [NodeId; 3]) {
    let ids = [NodeId::new("a"), NodeId::new("b"), NodeId::new("c")];
    let cluster = Cluster::new(ids.to_vec(), NetConfig::default(), 1).expect("cluster");
    (cluster, ids)
}

#[test]
fn healing_one_isolated_node_leaves_another_isolated() {
    let (mut c, [a, b, _]) = three();
    c.isolate(&a).unwrap();
    c.isolate(&b).unwrap();
    c.heal(&a).unwrap();
    assert!(!c.can_send(0, 1), "b is still isolated");
    assert!(!c.can_send(1, 2));
    assert!(c.linked(0, 2));
}

#[test]
fn heal_restores_the_one_way_cuts_touching_the_node_only() {
    let (mut c, [a, b, cc]) = three();
    c.cut_link(&a, &b).unwrap();
    c.cut_link(&b, &cc).unwrap();
    assert!(!c.can_send(0, 1) && c.can_send(1, 0));
    c.heal(&a).unwrap();
    assert!(c.can_send(0, 1));
    assert!(!c.can_send(1, 2), "a cut not touching a stays");
    c.restore_link(&b, &cc).unwrap();
    assert!(c.linked(1, 2));
}

#[test]
fn a_crash_loses_everything_in_flight_to_and_from_the_node() {
    let (mut c, [_, b, _]) = three();
    c.send(0, 1, Ping);
    c.send(1, 2, Ping);
    c.send(0, 2, Ping);
    c.crash(&b, true).unwrap();
    c.advance();
    let delivered: Vec<(usize, usize)> =
        std::iter::from_fn(|| c.next_delivery().map(|d| (d.from, d.to))).collect();
    assert_eq!(delivered, vec![(0, 2)]);
    let text = c.trace.to_text();
    assert!(
        text.contains("node_crashed node=b lose_unfsynced=true"),
        "{text}"
    );
    assert_eq!(text.matches("reason=\"node_crashed\"").count(), 2, "{text}");
}

#[test]
fn a_message_reaching_a_down_node_is_dropped_as_receiver_down() {
    let (mut c, [_, b, _]) = three();
    c.crash(&b, false).unwrap();
    c.send(0, 1, Ping);
    c.advance();
    assert!(c.next_delivery().is_none());
    assert!(c.trace.to_text().contains("reason=\"receiver_down\""));
}

#[test]
fn fault_errors_name_the_node_and_change_nothing() {
    let (mut c, [a, _, _]) = three();
    let ghost = NodeId::new("ghost");
    let before = c.trace.len();
    assert_eq!(
        c.isolate(&ghost),
        Err(GroupError::UnknownNode(ghost.clone()))
    );
    assert_eq!(
        c.cut_link(&a, &ghost),
        Err(GroupError::UnknownNode(ghost.clone()))
    );
    assert_eq!(c.restart(&a), Err(GroupError::AlreadyRunning(a.clone())));
    c.crash(&a, false).unwrap();
    assert_eq!(c.crash(&a, false), Err(GroupError::NodeDown(a.clone())));
    assert_eq!(c.trace.len(), before + 1, "only the one crash was recorded");
    assert!(c.linked(1, 2));
}

#[test]
fn heal_all_clears_every_isolation_and_cut() {
    let (mut c, [a, b, cc]) = three();
    c.isolate(&a).unwrap();
    c.partition(&b, &cc).unwrap();
    c.heal_all();
    assert!((0..3).all(|x| (0..3).all(|y| c.can_send(x, y))));
    let kinds: Vec<&str> = c.trace.events().map(|e| e.kind).collect();
    assert_eq!(
        kinds,
        ["node_isolated", "link_cut", "link_cut", "all_healed"]
    );
}

/// A network that fills up is a message storm: the harness reports it, so
/// every protocol's invariant check (which calls `check_network` first)
/// names it instead of running out of memory.
#[test]
fn a_full_network_is_reported_as_a_message_storm() {
    let ids = vec![NodeId::new("a"), NodeId::new("b")];
    let mut c: Cluster<Ping> =
        Cluster::new(ids, NetConfig::default().with_capacity(3), 1).expect("cluster");
    for _ in 0..3 {
        c.send(0, 1, Ping);
    }
    assert_eq!(c.check_network(), Ok(()), "at capacity, not beyond");
    c.send(0, 1, Ping);
    let storm = c.check_network().expect_err("one send beyond capacity");
    assert!(storm.contains("message storm: 1 sends dropped"), "{storm}");
    assert!(storm.contains("3 messages"), "{storm}");
}

#[test]
fn a_cluster_naming_a_node_twice_is_a_config_error() {
    let ids = vec![NodeId::new("a"), NodeId::new("b"), NodeId::new("a")];
    let err = Cluster::<Ping>::new(ids, NetConfig::default(), 1).expect_err("a is named twice");
    assert!(err.to_string().contains("a is named twice"), "{err}");
}

/// Two clusters where `c` receives the same messages, sent from `a` and
/// from `b` in either order at one tick.
fn sent_in_either_order() -> [Cluster<Ping>; 2] {
    [[0, 1], [1, 0]].map(|order| {
        let (mut c, _) = three();
        for from in order {
            c.send(from, 2, Ping);
        }
        c
    })
}

fn hashed(c: &Cluster<Ping>, mut h: StateHasher, text: bool) -> (u64, bool) {
    use std::hash::Hasher;
    if text {
        c.hash_harness_text(&mut h);
    } else {
        c.hash_harness(&mut h);
    }
    (h.finish(), h.hashed_in_delivery_order())
}

#[test]
fn the_ordered_hash_tells_apart_what_one_tick_delivers_in_another_order() {
    for text in [false, true] {
        let [one, other] = sent_in_either_order();
        // The canonical hash names what is in flight: the same.
        let plain = |c| hashed(c, StateHasher::default(), text);
        assert_eq!(plain(&one), plain(&other));
        assert!(!plain(&one).1);
        // In delivery order: `c` hears `a` first in one, `b` in the other.
        let ordered = |c| hashed(c, StateHasher::in_delivery_order(), text);
        assert_ne!(ordered(&one).0, ordered(&other).0);
        assert!(ordered(&one).1, "the harness says it hashed the order");
        let [same, _] = sent_in_either_order();
        assert_eq!(ordered(&one), ordered(&same));
    }
}

#[test]
fn the_harness_hash_names_the_next_op_id_and_every_completion_waiting() {
    use replication::{AckLevel, ClientOp, Outcome};
    let hash = |c: &Cluster<Ping>| hashed(c, StateHasher::default(), false).0;
    let (mut c, _) = three();
    let empty = hash(&c);
    let op = ClientOp::write("k", "v", AckLevel::Leader);
    let id = c.submitted(&op);
    let submitted = hash(&c);
    assert_ne!(submitted, empty, "the next id moved");
    let written = |offset| Outcome::Written {
        offset,
        message: "ok".into(),
    };
    c.complete(id, op.clone(), 0, None, written(1));
    let waiting = hash(&c);
    assert_ne!(waiting, submitted, "a completion waits");
    let (mut other, _) = three();
    let id = other.submitted(&op);
    other.complete(id, op, 0, None, written(2));
    assert_ne!(hash(&other), waiting, "another completion waits");
    c.take_completions();
    assert_eq!(hash(&c), submitted, "taken: as before it completed");
}
