//! The steerable run's fingerprint sees every field of every replica (in
//! both modes) and the harness: changing any one of them changes it. The
//! destructurings name every field, so a field added to [`IsrNode`] or to
//! the fetch mode's `Replica` does not compile here until this test
//! covers it.

use replication::{
    ReplicationGroup, StateHasher, Steer, fingerprint_without_messages, state_fingerprint,
};

use crate::fetch::replica::Replica;
use crate::fetch::{FetchGroup, Rung};
use crate::node::IsrNode;
use crate::{IsrConfig, IsrGroup, IsrMode};

/// A named change to one replica.
type Change = (&'static str, fn(&mut IsrNode));

fn write(g: &mut dyn ReplicationGroup) {
    let _ = g.client_write(
        replication::Bytes::from_static(b"k"),
        replication::Bytes::from_static(b"v"),
        replication::AckLevel::AllIsr,
    );
}

#[test]
fn changing_any_field_of_a_chapter_replica_changes_the_fingerprint() {
    let mut base = IsrGroup::new(IsrConfig::default()).expect("valid");
    write(&mut base);
    let before = state_fingerprint(&base as &dyn Steer);
    let IsrNode {
        me: _,
        replicas: _,
        retention: _,
        known_epoch: _,
        known_leader: _,
        log: _,
        matched_epoch: _,
        matched_end: _,
        catch_up_mode: _,
        durable_offset: _,
        fenced_packets: _,
        awaiting_controller: _,
        planted: _,
        decide: _,
    } = &base.nodes[1];
    let changes: Vec<Change> = vec![
        ("me", |n| n.me += 7),
        ("replicas", |n| n.replicas += 1),
        ("retention", |n| n.retention += 1),
        ("known_epoch", |n| n.known_epoch += 1),
        ("known_leader", |n| n.known_leader += 1),
        ("log.applied_hw", |n| n.log.applied_hw += 1),
        ("log.entries", |n| {
            let e = n.log.entries[0].clone();
            n.log.entries.push(e);
        }),
        ("matched_epoch", |n| n.matched_epoch += 1),
        ("matched_end", |n| n.matched_end += 1),
        ("catch_up_mode", |n| {
            n.catch_up_mode = crate::CatchUpMode::Full
        }),
        ("durable_offset", |n| n.durable_offset += 1),
        ("fenced_packets", |n| n.fenced_packets += 1),
        ("awaiting_controller", |n| {
            n.awaiting_controller = !n.awaiting_controller
        }),
        ("planted", |n| n.planted = Some("x")),
    ];
    for (field, change) in changes {
        let mut g = base.clone();
        change(&mut g.nodes[1]);
        assert_ne!(
            state_fingerprint(&g as &dyn Steer),
            before,
            "changing {field} must change the fingerprint"
        );
    }
    let mut ticked = base.clone();
    ticked.tick();
    assert_ne!(state_fingerprint(&ticked as &dyn Steer), before, "the tick");
}

#[test]
fn changing_any_field_of_a_fetch_replica_changes_the_fingerprint() {
    let config = IsrConfig::default().with_mode(IsrMode::Fetch(Rung::Elr));
    let mut base = FetchGroup::new(config).expect("valid");
    write(&mut base);
    let before = state_fingerprint(&base as &dyn Steer);
    let fields = Replica::field_changes();
    assert_eq!(fields.len(), 14, "one change per field");
    for (field, change) in fields {
        let mut g = base.clone();
        change(&mut g.replicas[0]);
        assert_ne!(
            state_fingerprint(&g as &dyn Steer),
            before,
            "changing {field} must change the fingerprint"
        );
    }
    let mut g = base.clone();
    g.controller.register(2);
    assert_ne!(
        state_fingerprint(&g as &dyn Steer),
        before,
        "the controller"
    );
}

#[test]
fn a_text_harness_leaves_out_only_the_messages_in_flight_when_told() {
    use std::fmt::Write as _;
    use std::hash::Hasher as _;
    let mut base = IsrGroup::new(IsrConfig::default()).expect("valid");
    Steer::hold(&mut base, true).expect("held");
    write(&mut base);
    let held = Steer::held(&base);
    assert!(!held.is_empty(), "the write's fetches are held");
    // The whole state is still its text, hashed as written.
    let mut text = StateHasher::default();
    base.write_state(&mut text).expect("written");
    text.write_char('\u{1}').expect("written");
    base.write_harness(&mut text).expect("written");
    assert_eq!(state_fingerprint(&base as &dyn Steer), text.finish());
    // A message dropped: another state, the same view.
    let view = fingerprint_without_messages(&base as &dyn Steer);
    let mut dropped = base.clone();
    Steer::drop_held(&mut dropped, held[0].id).expect("held");
    assert_ne!(
        state_fingerprint(&dropped as &dyn Steer),
        state_fingerprint(&base as &dyn Steer)
    );
    assert_eq!(fingerprint_without_messages(&dropped as &dyn Steer), view);
    // A replica's field is in the view.
    let mut moved = base.clone();
    moved.nodes[1].known_epoch += 1;
    assert_ne!(fingerprint_without_messages(&moved as &dyn Steer), view);
}
