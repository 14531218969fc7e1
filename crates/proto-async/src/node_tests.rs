//! Unit tests of the pure per-node step logic, without a simulator.

use std::sync::Arc;

use bytes::Bytes;
use sim_core::NodeId;

use crate::message::{AsyncMsg, Entry, replication_id_for};
use crate::node::{Node, Outcome};
use crate::role::{Role, SyncMode};

fn primary() -> Node {
    Node::new(
        NodeId::new("p"),
        Role::Primary,
        None,
        replication_id_for(1),
        2,
    )
}

fn replica() -> Node {
    Node::new(
        NodeId::new("r"),
        Role::Replica,
        Some(NodeId::new("p")),
        replication_id_for(1),
        2,
    )
}

fn entry(generation: u64, offset: u64) -> Arc<Entry> {
    Arc::new(Entry {
        generation,
        replication_id: replication_id_for(generation),
        offset,
        key: Bytes::from("k"),
        value: Bytes::from(format!("v{offset}")),
    })
}

#[test]
fn stream_applies_only_the_next_offset_and_skips_duplicates() {
    let mut r = replica();
    let p = NodeId::new("p");
    let step = r.on_message(&p, AsyncMsg::Stream(vec![entry(1, 1), entry(1, 2)]));
    assert_eq!(
        step.outcome,
        Outcome::StreamApplied {
            prev: 0,
            applied: 2,
            offset: 2
        }
    );
    assert_eq!(r.sync_mode, SyncMode::Streaming);
    let step = r.on_message(&p, AsyncMsg::Stream(vec![entry(1, 2)]));
    assert_eq!(step.outcome, Outcome::Duplicate { offset: 2 });
    let step = r.on_message(&p, AsyncMsg::Stream(vec![entry(1, 4)]));
    assert_eq!(
        step.outcome,
        Outcome::Gap {
            expected: 3,
            got: 4
        }
    );
    assert!(matches!(step.reply, Some(AsyncMsg::Psync(ref m)) if m.next_offset == 3));
    assert_eq!(r.offset, 2);
    // A second gap while the PSYNC is outstanding does not ask again.
    let step = r.on_message(&p, AsyncMsg::Stream(vec![entry(1, 5)]));
    assert!(step.reply.is_none());
}

#[test]
fn fencing_checks_source_then_generation_then_replication_id() {
    let mut r = replica();
    let other = NodeId::new("x");
    let p = NodeId::new("p");
    let reason = |step: crate::node::Step| match step.outcome {
        Outcome::Rejected { reason } => reason,
        other => panic!("not rejected: {other:?}"),
    };
    assert_eq!(
        reason(r.on_message(&other, AsyncMsg::Stream(vec![entry(1, 1)]))),
        "non_current_primary"
    );
    r.generation = 2;
    assert_eq!(
        reason(r.on_message(&p, AsyncMsg::Stream(vec![entry(1, 1)]))),
        "stale_generation"
    );
    assert_eq!(
        reason(r.on_message(&p, AsyncMsg::Stream(vec![entry(2, 1)]))),
        "stale_replication_id"
    );
    assert_eq!(
        (r.offset, r.data.len()),
        (0, 0),
        "nothing rejected was applied"
    );
}

#[test]
fn psync_is_partial_inside_the_backlog_and_full_outside() {
    let mut p = primary();
    for i in 0..3 {
        p.apply_write(Bytes::from("k"), Bytes::from(format!("v{i}")));
    }
    assert_eq!(p.backlog.offsets(), vec![2, 3]);
    let mut r = replica();
    r.offset = 1;
    let (_, psync) = r.psync().expect("a replica can PSYNC");
    let step = p.on_message(&r.id, psync);
    assert!(matches!(
        step.outcome,
        Outcome::Served {
            mode: SyncMode::Partial,
            next_offset: 2
        }
    ));
    r.offset = 0;
    let (_, psync) = r.psync().expect("a replica can PSYNC");
    let step = p.on_message(&r.id, psync);
    assert!(matches!(
        step.outcome,
        Outcome::Served {
            mode: SyncMode::Full,
            next_offset: 1
        }
    ));
    assert!(matches!(step.reply, Some(AsyncMsg::FullSync(ref m)) if m.offset == 3));
}

#[test]
fn a_replica_refuses_to_serve_psync() {
    let mut r = replica();
    let mut other = replica();
    let (_, psync) = other.psync().expect("a replica can PSYNC");
    let step = r.on_message(&other.id, psync);
    assert_eq!(
        step.outcome,
        Outcome::PsyncRefused {
            reason: "not_primary"
        }
    );
}
