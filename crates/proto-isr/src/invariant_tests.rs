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
