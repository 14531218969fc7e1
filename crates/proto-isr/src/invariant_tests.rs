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
