//! The per-tick invariant check must report a violation planted in the
//! group's state (else a seed sweep relying on it would check nothing).

use replication::ReplicationGroup;

use crate::{IsrConfig, IsrGroup};

#[test]
fn per_tick_invariant_check_reports_a_planted_violation() {
    let mut g = IsrGroup::new(IsrConfig::default()).expect("valid config");
    g.set_invariant_checks(true);
    g.tick();
    assert_eq!(g.invariant_violation(), None, "a fresh group is consistent");
    // Plant: HW above the leader's log end.
    g.controller.high_watermark = 5;
    g.tick();
    let violation = g
        .invariant_violation()
        .expect("the per-tick check reports the planted violation");
    assert!(
        violation.contains("HW 5 above leader log end 0"),
        "{violation}"
    );
}

#[test]
fn planted_violation_goes_unreported_when_per_tick_checks_are_off() {
    let mut g = IsrGroup::new(IsrConfig::default()).expect("valid config");
    g.controller.high_watermark = 5;
    g.tick();
    assert_eq!(g.invariant_violation(), None);
    assert!(g.check_invariants().is_err());
}

/// The check passes at once when nothing it reads changed since it last
/// passed; a change to any of those inputs is checked in full again, and a
/// failed check is never remembered as passed.
#[test]
fn a_check_after_a_passed_one_still_sees_every_changed_input() {
    let mut g = IsrGroup::new(IsrConfig::default()).expect("valid config");
    for i in 0..3u8 {
        g.client_write(
            bytes::Bytes::from(vec![b'k', i]),
            bytes::Bytes::from_static(b"v"),
            replication::AckLevel::AllIsr,
        )
        .expect("write");
    }
    assert_eq!(g.check_invariants(), Ok(()));
    assert_eq!(g.check_invariants(), Ok(()), "unchanged: still passes");
    let end = g.nodes[1].log_end_offset();
    g.nodes[1].matched_end = end + 5;
    let broken = g
        .check_invariants()
        .expect_err("a confirmation past the log");
    assert!(broken.contains("confirmed end"), "{broken}");
    assert!(
        g.check_invariants().is_err(),
        "a failed check is not cached"
    );
    g.nodes[1].matched_end = end;
    assert_eq!(g.check_invariants(), Ok(()));
    g.nodes[2].log.applied_hw = g.controller.high_watermark() + 1;
    assert!(g.check_invariants().is_err(), "applied HW above HW");
}

/// Between two checks the leader epoch and the controller epoch never go
/// back, nor does HW outside an unclean election.
#[test]
fn epochs_and_hw_going_back_between_two_checks_are_violations() {
    let mut g = IsrGroup::new(IsrConfig::default()).expect("valid config");
    g.client_write(
        bytes::Bytes::from_static(b"k"),
        bytes::Bytes::from_static(b"v"),
        replication::AckLevel::AllIsr,
    )
    .expect("write");
    assert_eq!(g.check_invariants(), Ok(()));
    let epoch = g.controller.leader_epoch();
    g.controller.leader_epoch = epoch - 1;
    let broken = g.check_invariants().expect_err("the epoch went back");
    assert!(broken.contains("leader epoch went back"), "{broken}");
    g.controller.leader_epoch = epoch;
    assert_eq!(g.check_invariants(), Ok(()));
    let hw = g.controller.high_watermark();
    g.controller.high_watermark = hw - 1;
    let broken = g.check_invariants().expect_err("HW went back");
    assert!(broken.contains("HW went back"), "{broken}");
    g.controller.unclean_epoch = g.controller.leader_epoch();
    if let Err(other) = g.check_invariants() {
        assert!(
            !other.contains("went back"),
            "an unclean election may move HW back: {other}"
        );
    }
}

/// The committed-state check carries what it verified forward over newly
/// applied entries: a replica whose committed view is wrong after further
/// writes is still caught, as is one whose log was rewritten under the
/// same committed view (a new version is checked from the start).
#[test]
fn committed_state_is_checked_after_every_new_applied_entry_and_after_a_rewrite() {
    use bytes::Bytes;
    let mut g = IsrGroup::new(IsrConfig::default()).expect("valid config");
    let write = |g: &mut IsrGroup, k: &'static [u8], v: &'static [u8]| {
        g.client_write(
            Bytes::from_static(k),
            Bytes::from_static(v),
            replication::AckLevel::AllIsr,
        )
        .expect("write");
    };
    write(&mut g, b"a", b"1");
    assert_eq!(g.check_invariants(), Ok(()));
    write(&mut g, b"a", b"2");
    write(&mut g, b"b", b"1");
    assert_eq!(g.check_invariants(), Ok(()), "carried forward: still right");
    // A committed view that kept an overwritten value, then one more
    // applied entry (the check's inputs change with `applied_hw`).
    g.nodes[1]
        .log
        .committed
        .insert(Bytes::from_static(b"a"), Bytes::from_static(b"1"));
    write(&mut g, b"b", b"2");
    let broken = g.check_invariants().expect_err("a stale committed value");
    assert!(broken.contains("committed_data"), "{broken}");
    g.nodes[1]
        .log
        .committed
        .insert(Bytes::from_static(b"a"), Bytes::from_static(b"2"));
    write(&mut g, b"b", b"3");
    assert_eq!(g.check_invariants(), Ok(()), "repaired: checked afresh");
    // The same committed view over a rewritten first entry: the version
    // changes, so the prefix is folded again and the mismatch is seen.
    let rewritten = std::sync::Arc::new(crate::log::LogEntry {
        key: Bytes::from_static(b"c"),
        ..(*g.nodes[0].log.entries[0]).clone()
    });
    for node in &mut g.nodes {
        node.log.entries[0] = rewritten.clone();
        node.log.version += 1;
    }
    let broken = g.check_invariants().expect_err("a rewritten prefix");
    assert!(broken.contains("committed_data"), "{broken}");
}
