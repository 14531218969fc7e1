//! Unit tests of the PSYNC boundaries: a level replica gets a partial
//! resynchronisation with no entries, a replica ahead of the primary gets a
//! full one, and a power loss that lost nothing keeps the backlog.

use bytes::Bytes;
use sim_core::NodeId;

use crate::message::{AsyncMsg, replication_id_for};
use crate::node::{DurableImage, Node, Outcome};
use crate::role::{Role, SyncMode};

fn primary_with(writes: u64) -> Node {
    let mut p = Node::new(
        NodeId::new("p"),
        Role::Primary,
        None,
        replication_id_for(1),
        4,
    );
    for i in 1..=writes {
        p.apply_write(Bytes::from("k"), Bytes::from(format!("v{i}")));
    }
    p
}

/// The primary's answer to a replica of the same history at `offset`.
fn psync_from(p: &mut Node, offset: u64) -> (Outcome, Option<AsyncMsg>) {
    let mut r = Node::new(
        NodeId::new("r"),
        Role::Replica,
        Some(NodeId::new("p")),
        replication_id_for(1),
        4,
    );
    r.offset = offset;
    let (_, psync) = r.psync().expect("a replica can PSYNC");
    let step = p.on_message(&r.id, psync);
    (step.outcome, step.reply)
}

#[test]
fn level_replica_gets_a_partial_resync_with_no_entries() {
    let mut p = primary_with(3);
    let (outcome, reply) = psync_from(&mut p, 3);
    assert_eq!(
        outcome,
        Outcome::Served {
            mode: SyncMode::Partial,
            next_offset: 4
        }
    );
    match reply {
        Some(AsyncMsg::PartialSync(m)) => assert!(m.entries.is_empty()),
        other => panic!("expected a partial resync, got {other:?}"),
    }
}

#[test]
fn level_replica_of_a_primary_with_an_empty_backlog_gets_a_partial_resync() {
    let mut p = primary_with(0);
    let (outcome, _) = psync_from(&mut p, 0);
    assert_eq!(
        outcome,
        Outcome::Served {
            mode: SyncMode::Partial,
            next_offset: 1
        }
    );
}

#[test]
fn replica_ahead_of_the_primary_gets_a_full_resync() {
    let mut p = primary_with(3);
    let (outcome, reply) = psync_from(&mut p, 4);
    assert_eq!(
        outcome,
        Outcome::Served {
            mode: SyncMode::Full,
            next_offset: 5
        }
    );
    assert!(matches!(reply, Some(AsyncMsg::FullSync(ref m)) if m.offset == 3));
}

#[test]
fn power_loss_that_lost_nothing_keeps_the_backlog_for_a_partial_resync() {
    let mut p = primary_with(3);
    let image = DurableImage {
        replication_id: p.replication_id.clone(),
        offset: p.offset,
        data: p.data.clone(),
    };
    p.restore(image);
    assert_eq!(p.backlog.offsets(), vec![1, 2, 3]);
    let (outcome, reply) = psync_from(&mut p, 1);
    assert_eq!(
        outcome,
        Outcome::Served {
            mode: SyncMode::Partial,
            next_offset: 2
        }
    );
    match reply {
        Some(AsyncMsg::PartialSync(m)) => assert_eq!(m.entries.len(), 2),
        other => panic!("expected a partial resync, got {other:?}"),
    }
}
