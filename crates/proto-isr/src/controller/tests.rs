//! The controller's decisions from facts alone: no group, no nodes.

use super::*;
use crate::config::IsrConfig;

/// A follower that is alive, linked, not slow, with `log_end` confirmed
/// in the current epoch.
fn caught(log_end: u64) -> ReplicaFacts {
    ReplicaFacts::new(true, false, false, true, log_end, Some(log_end))
}

fn controller(config: IsrConfig) -> Controller {
    Controller::new(&config).expect("valid config")
}

fn three() -> Controller {
    controller(IsrConfig::default())
}

#[test]
fn a_follower_not_caught_up_for_the_lag_timeout_leaves_the_isr_and_rejoins_once_caught_up() {
    let mut c = three();
    let mut out = Vec::new();
    // node-2 holds nothing of the leader's 1 entry.
    let behind = [caught(1), caught(0), caught(1)];
    for now in 1..3 {
        assert!(c.refresh(now, &behind, &mut out));
        assert!(c.in_isr(1), "still inside the lag timeout at tick {now}");
    }
    out.clear();
    c.refresh(3, &behind, &mut out);
    assert!(!c.in_isr(1));
    assert!(matches!(
        &out[0],
        ControllerEvent::MemberRemoved { replica: 1, reason: ShrinkReason::Lag, lag_ticks: 3, log_end: 0, leader_log_end: 1, isr }
            if isr == &vec![0, 2]
    ));
    out.clear();
    c.refresh(4, &[caught(1), caught(1), caught(1)], &mut out);
    assert!(c.in_isr(1));
    assert!(matches!(
        &out[0],
        ControllerEvent::MemberAdded {
            replica: 1,
            log_end: 1,
            leader_epoch: 1,
            ..
        }
    ));
}

#[test]
fn a_follower_level_with_the_leader_but_not_confirmed_in_this_epoch_is_not_caught_up() {
    let mut c = three();
    c.in_isr[1] = false;
    let mut out = Vec::new();
    let unconfirmed = ReplicaFacts::new(true, false, false, true, 1, None);
    c.refresh(1, &[caught(1), unconfirmed, caught(1)], &mut out);
    assert!(!c.in_isr(1), "log end alone never counts");
    let cut_off = ReplicaFacts::new(true, false, false, false, 1, Some(1));
    c.refresh(2, &[caught(1), cut_off, caught(1)], &mut out);
    assert!(
        !c.in_isr(1),
        "a replica cut off from the leader cannot rejoin"
    );
    assert!(
        out.iter()
            .all(|e| !matches!(e, ControllerEvent::MemberAdded { .. }))
    );
}

#[test]
fn high_watermark_is_the_minimum_confirmed_end_of_alive_isr_members_and_never_moves_back() {
    let mut c = three();
    let mut out = Vec::new();
    c.refresh(1, &[caught(3), caught(2), caught(3)], &mut out);
    assert_eq!(c.high_watermark(), 2);
    assert_eq!(
        out,
        vec![ControllerEvent::HighWatermarkAdvanced { from: 0, to: 2 }]
    );
    assert_eq!(
        c.replica_high_watermark(0, &[caught(3), caught(2), caught(3)]),
        Some(2)
    );
    let down = ReplicaFacts::new(false, false, false, true, 3, None);
    assert_eq!(
        c.replica_high_watermark(2, &[caught(3), caught(2), down]),
        None
    );
    out.clear();
    c.refresh(2, &[caught(3), caught(1), caught(3)], &mut out);
    assert_eq!(c.high_watermark(), 2, "HW never moves back");
    assert!(out.is_empty());
}

#[test]
fn nothing_is_decided_while_the_leader_is_down() {
    let mut c = three();
    let mut out = Vec::new();
    let down = ReplicaFacts::new(false, false, false, true, 1, Some(1));
    let before = c.clone();
    assert!(!c.refresh(5, &[down, caught(0), caught(0)], &mut out));
    assert_eq!(c, before);
    assert!(out.is_empty());
}

#[test]
fn the_lease_is_renewed_only_while_min_insync_members_are_reachable() {
    let mut c = three();
    let slow = ReplicaFacts::new(true, false, true, true, 0, Some(0));
    let cut = ReplicaFacts::new(true, false, false, false, 0, Some(0));
    assert!(!c.maybe_renew_lease(10, &[caught(0), slow, cut]));
    assert_eq!(c.lease_expiry(), 4, "only the leader is reachable");
    assert!(c.maybe_renew_lease(10, &[caught(0), caught(0), cut]));
    assert_eq!(c.lease_expiry(), 14);
    assert_eq!(
        c.linearizable_read(14, 0),
        Err(ReadRefusal::LeaseExpired {
            expiry: 14,
            now: 14
        })
    );
}

#[test]
fn linearizable_guards_are_checked_high_watermark_first_then_isr_then_lease() {
    let mut c = three();
    assert_eq!(
        c.linearizable_read(0, 1).map_err(|r| r.guard()),
        Err("above high watermark")
    );
    c.in_isr[1] = false;
    c.in_isr[2] = false;
    assert_eq!(
        c.linearizable_read(0, 0),
        Err(ReadRefusal::IsrBelowMinInsync { size: 1, min: 2 })
    );
    assert_eq!(c.lease_read(0, 1), Err(ReadRefusal::NotLeader));
    assert_eq!(c.lease_read(0, 0), Ok(()));
}

#[test]
fn only_a_live_isr_member_is_elected_cleanly_and_the_displaced_leader_leaves() {
    let mut c = three();
    let facts = [caught(2), caught(2), caught(2)];
    assert_eq!(
        c.check_election(0, &facts),
        Err(ElectionRefusal::AlreadyLeader)
    );
    c.in_isr[2] = false;
    assert_eq!(
        c.check_election(2, &facts),
        Err(ElectionRefusal::NotInIsr {
            unclean_enabled: false
        })
    );
    assert_eq!(
        c.check_election(1, &facts),
        Ok(ElectionReason::ControllerElect)
    );
    c.high_watermark = 2;
    let e = c.elect(7, 1, ElectionReason::ControllerElect, &facts);
    assert_eq!(
        (e.leader, e.previous, e.leader_epoch, e.controller_epoch),
        (1, 0, 2, 2)
    );
    assert_eq!(e.high_watermark, 2);
    assert!(matches!(
        &e.displaced,
        Some(ControllerEvent::MemberRemoved { replica: 0, reason: ShrinkReason::DisplacedLeader, leader_log_end: 2, isr, .. })
            if isr == &vec![1]
    ));
    assert_eq!(e.isr, vec![1]);
    assert_eq!(c.lease_expiry(), 11);
    assert_eq!(c.failover_candidate(&facts), None, "no other ISR member");
}

#[test]
fn an_unclean_election_needs_the_setting_and_no_live_isr_member_and_resets_hw() {
    let mut c = controller(IsrConfig::default().with_unclean_leader_election(true));
    c.high_watermark = 5;
    c.in_isr = vec![true, false, false];
    let down = ReplicaFacts::new(false, false, false, false, 5, None);
    let behind = ReplicaFacts::new(true, false, false, false, 3, None);
    let facts = [down, behind, behind];
    assert!(c.unclean_permitted(&facts));
    assert_eq!(c.check_election(1, &facts), Ok(ElectionReason::Unclean));
    assert_eq!(c.failover_candidate(&facts), Some(1));
    let e = c.elect(9, 1, ElectionReason::Unclean, &facts);
    assert_eq!(
        e.unclean,
        Some(UncleanElection {
            log_end: 3,
            high_watermark_before: 5,
            offsets_lost: 2
        })
    );
    assert_eq!((c.high_watermark(), c.unclean_epoch()), (3, 2));
    assert_eq!(e.isr, vec![1]);
    assert_eq!(e.displaced, None, "the crashed leader had left the ISR");
}

#[test]
fn a_restarted_leader_is_reelected_only_while_it_holds_the_high_watermark() {
    let mut c = three();
    c.high_watermark = 3;
    assert_eq!(
        c.on_replica_restarted(1, &[caught(3); 3]),
        RestartDecision::Resync
    );
    assert_eq!(
        c.on_replica_restarted(0, &[caught(3); 3]),
        RestartDecision::Reelect
    );
    assert_eq!(
        c.on_replica_restarted(0, &[caught(2); 3]),
        RestartDecision::LeaderUnavailable {
            log_end: 2,
            high_watermark: 3
        }
    );
}

#[test]
fn a_crashed_member_leaves_the_isr_once() {
    let mut c = three();
    let facts = [caught(4), caught(4), caught(2)];
    assert!(matches!(
        c.on_replica_crashed(2, &facts),
        Some(ControllerEvent::MemberRemoved {
            replica: 2,
            reason: ShrinkReason::Crashed,
            log_end: 2,
            leader_log_end: 4,
            ..
        })
    ));
    assert_eq!(c.on_replica_crashed(2, &facts), None);
    assert!(c.should_resync(1, &facts));
    assert!(!c.should_resync(0, &facts), "never the leader itself");
}
