//! The `ReplicationGroup` contract, checked the same way on all four
//! protocols through the trait alone: seeded random calls — including
//! unknown nodes, crashed nodes, unsupported levels and tiny tick budgets —
//! never panic, and a call refused up front with an error leaves the group
//! exactly as it was.

use bytes::Bytes;
use replication::{AckLevel, GroupError, NodeId, ReadLevel, ReplicationGroup};
use sim_core::Rng;

fn groups(seed: u64) -> Vec<Box<dyn ReplicationGroup>> {
    vec![
        Box::new(
            proto_async::AsyncPrimaryGroup::new(
                proto_async::AsyncConfig::default().with_seed(seed),
            )
            .expect("valid"),
        ),
        Box::new(
            proto_wal::WalShippingGroup::new(
                proto_wal::WalConfig::default()
                    .with_synchronous_standbys([NodeId::new("standby-1")])
                    .with_seed(seed),
            )
            .expect("valid"),
        ),
        Box::new(
            proto_isr::IsrGroup::new(proto_isr::IsrConfig::default().with_seed(seed))
                .expect("valid"),
        ),
        Box::new(
            proto_raft::RaftGroup::new(proto_raft::RaftConfig::default().with_seed(seed))
                .expect("valid"),
        ),
    ]
}

/// Errors that answer a call before any time passes; such a call must leave
/// no trace in the group's state. (Bounded waits that run out — `NotIdle`,
/// a blocked read-index round, a refused election wait — legitimately let
/// time pass first.)
fn is_up_front(err: &GroupError) -> bool {
    matches!(
        err,
        GroupError::UnsupportedAck { .. }
            | GroupError::UnsupportedRead { .. }
            | GroupError::UnknownNode(_)
            | GroupError::NodeDown(_)
            | GroupError::AlreadyRunning(_)
            | GroupError::Config { .. }
            | GroupError::Malformed { .. }
    )
}

fn pick_node(rng: &mut Rng, ids: &[NodeId]) -> NodeId {
    let i = rng.range_inclusive(0, ids.len() as u64) as usize;
    ids.get(i).cloned().unwrap_or_else(|| NodeId::new("ghost"))
}

fn random_call(g: &mut dyn ReplicationGroup, rng: &mut Rng, step: u64) -> Result<(), GroupError> {
    let ids = g.node_ids();
    let node = pick_node(rng, &ids);
    match rng.range_inclusive(0, 9) {
        0 | 1 => {
            let level = AckLevel::ALL[rng.range_inclusive(0, 3) as usize];
            let key = Bytes::from(format!("k{}", step % 3));
            g.client_write(key, Bytes::from(format!("v{step}")), level)
                .map(|_| ())
        }
        2 => {
            let level = ReadLevel::ALL[rng.range_inclusive(0, 2) as usize];
            let at = rng.chance(0.5).then_some(&node);
            g.client_read(b"k0", level, at).map(|_| ())
        }
        3 => {
            g.tick();
            Ok(())
        }
        4 => g.run_until_idle(rng.range_inclusive(0, 30)).map(|_| ()),
        5 => g.crash(&node, rng.chance(0.5)),
        6 => g.restart(&node),
        7 => g.isolate(&node),
        8 => g.heal(&node),
        _ => {
            if rng.chance(0.5) {
                g.fsync(&node)
            } else {
                let candidate = rng.chance(0.5).then_some(&node);
                g.failover(candidate).map(|_| ())
            }
        }
    }
}

#[test]
fn random_calls_never_panic_and_up_front_errors_change_nothing() {
    for seed in 0..400 {
        for mut group in groups(seed) {
            let protocol = group.protocol();
            let mut rng = Rng::new(seed ^ 0xC0FFEE);
            for step in 0..40 {
                let before = group.summary();
                let trace_len = group.trace().len();
                if let Err(err) = random_call(group.as_mut(), &mut rng, step) {
                    if is_up_front(&err) {
                        assert_eq!(
                            group.summary(),
                            before,
                            "{protocol} seed {seed} step {step}: {err}"
                        );
                        assert!(
                            group
                                .trace()
                                .since(trace_len)
                                .all(|e| !e.kind.ends_with("_applied")),
                            "{protocol} seed {seed} step {step}: {err} applied something"
                        );
                    }
                    assert!(!err.to_string().is_empty());
                }
            }
        }
    }
}

#[test]
fn every_protocol_names_the_bad_node_and_level() {
    for mut group in groups(0) {
        let ghost = NodeId::new("ghost");
        let err = group.crash(&ghost, false).expect_err("unknown node");
        assert_eq!(err, GroupError::UnknownNode(ghost.clone()));
        assert!(err.to_string().contains("ghost"));
        let mut unsupported = 0;
        for level in AckLevel::ALL {
            if let Err(err @ GroupError::UnsupportedAck { .. }) =
                group.client_write(Bytes::from_static(b"k"), Bytes::from_static(b"v"), level)
            {
                assert!(err.to_string().contains(level.name()), "{err}");
                unsupported += 1;
            }
        }
        assert!(
            unsupported > 0,
            "{}: every protocol refuses at least one ack level, so the level-naming check ran",
            group.protocol()
        );
    }
}
