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
        .upsert(&Bytes::from_static(b"a"), &Bytes::from_static(b"1"));
    write(&mut g, b"b", b"2");
    let broken = g.check_invariants().expect_err("a stale committed value");
    assert!(broken.contains("committed_data"), "{broken}");
    g.nodes[1]
        .log
        .committed
        .upsert(&Bytes::from_static(b"a"), &Bytes::from_static(b"2"));
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

/// A group with two `AllIsr` writes committed (HW 2, keys `a` and `b`),
/// after a failover to `node-2` (leader epoch 2) when `failover` is set.
fn committed_group(failover: bool) -> IsrGroup {
    use bytes::Bytes;
    let mut g = IsrGroup::new(IsrConfig::default()).expect("valid config");
    if failover {
        g.controller_elect(&replication::NodeId::new("node-2"))
            .expect("node-2 is a live ISR member");
    }
    for k in [&b"a"[..], b"b"] {
        g.client_write(
            Bytes::from_static(k),
            Bytes::from_static(b"v"),
            replication::AckLevel::AllIsr,
        )
        .expect("write");
    }
    assert_eq!(g.controller.high_watermark(), 2);
    g
}

/// Each replica answers to its own position (its broker id).
#[test]
fn a_replica_answering_to_another_position_is_a_violation() {
    let mut g = committed_group(false);
    assert_eq!(g.check_invariants(), Ok(()));
    g.nodes[2].me = 0;
    let broken = g.check_invariants().expect_err("node-3 answers to 0");
    assert!(broken.contains("node-3: answers to position 0"), "{broken}");
}

/// Leader epochs come only from the controller: no replica knows one the
/// controller has not issued.
#[test]
fn a_replica_knowing_an_epoch_the_controller_never_issued_is_a_violation() {
    let mut g = committed_group(false);
    g.nodes[2].known_epoch = g.controller.leader_epoch() + 1;
    let broken = g.check_invariants().expect_err("an epoch from nowhere");
    assert!(broken.contains("node-3: knows leader epoch 2"), "{broken}");
}

/// The controller's available leader knows the current epoch and itself
/// as its leader (checked with no earlier passed check, so the per-replica
/// monotonicity is not what reports it).
#[test]
fn the_controllers_leader_answering_an_older_epoch_is_a_violation() {
    let mut g = committed_group(true);
    assert_eq!(g.controller.leader(), 1);
    g.nodes[1].known_epoch = 1;
    let broken = g
        .check_invariants()
        .expect_err("the leader's epoch is stale");
    assert!(
        broken.contains("the controller's leader of epoch 2 answers leader node-2 of epoch 1"),
        "{broken}"
    );
}

/// The leader's high watermark is the partition's: a leader that applied
/// less (its committed view consistent with what it applied) is caught.
#[test]
fn a_leader_whose_high_watermark_is_not_the_partitions_is_a_violation() {
    let mut g = committed_group(false);
    g.nodes[0].log.applied_hw = 1;
    g.nodes[0].log.committed.remove(&b"b"[..]);
    let broken = g.check_invariants().expect_err("the leader lags HW");
    assert!(
        broken.contains("node-1: the leader's high watermark 1 is not the partition's 2"),
        "{broken}"
    );
}

/// One leader per epoch: a follower that believes it leads the current
/// epoch is a second leader.
#[test]
fn a_second_replica_leading_the_current_epoch_is_a_violation() {
    let mut g = committed_group(false);
    g.nodes[2].known_leader = 2;
    let broken = g.check_invariants().expect_err("two leaders of epoch 1");
    assert!(
        broken.contains("node-3 and node-1 both lead epoch 1"),
        "{broken}"
    );
}

/// Between two passed checks: a new leader comes with a new epoch, and no
/// replica's known epoch goes back.
#[test]
fn a_leader_change_without_a_new_epoch_or_a_replica_epoch_going_back_is_a_violation() {
    let mut g = committed_group(true);
    assert_eq!(g.check_invariants(), Ok(()));
    g.controller.leader = 0;
    let broken = g.check_invariants().expect_err("same epoch, new leader");
    assert!(
        broken.contains("leader changed within leader epoch 2"),
        "{broken}"
    );
    g.controller.leader = 1;
    assert_eq!(g.check_invariants(), Ok(()));
    g.nodes[2].known_epoch = 1;
    let broken = g.check_invariants().expect_err("node-3's epoch went back");
    assert!(
        broken.contains("node-3: its leader epoch went back from 2 to 1"),
        "{broken}"
    );
}

/// Every election is the controller's decision: a leader epoch that moves
/// while the controller epoch stays is caught.
#[test]
fn a_new_leader_epoch_without_a_new_controller_epoch_is_a_violation() {
    let mut g = committed_group(true);
    assert_eq!(g.check_invariants(), Ok(()));
    let controller_epoch = g.controller.controller_epoch;
    g.controller.leader_epoch += 1;
    for n in &mut g.nodes {
        n.known_epoch = g.controller.leader_epoch;
    }
    let broken = g
        .check_invariants()
        .expect_err("an epoch no controller issued");
    assert!(
        broken.contains(&format!(
            "was issued without a new controller epoch (still {controller_epoch})"
        )),
        "{broken}"
    );
}

/// SPEC §6 invariant 5: a replica's `applied_hw` never goes back while its
/// log is not truncated; a power loss that truncates the log may lower it.
#[test]
fn applied_hw_going_back_is_a_violation_unless_the_log_was_truncated() {
    use replication::ReplicationGroup;
    let mut g = committed_group(false);
    assert_eq!(g.check_invariants(), Ok(()));
    g.nodes[2].log.applied_hw = 1;
    g.nodes[2].log.committed.remove(&b"b"[..]);
    let broken = g.check_invariants().expect_err("applied_hw went back");
    assert!(
        broken.contains("node-3: applied_hw went back from 2 to 1 without a truncation"),
        "{broken}"
    );
    let mut g = committed_group(false);
    assert_eq!(g.check_invariants(), Ok(()));
    ReplicationGroup::crash(&mut g, &replication::NodeId::new("node-3"), true)
        .expect("crash with power loss");
    assert_eq!(g.nodes[2].log.applied_hw, 0, "nothing was fsynced");
    assert_eq!(g.check_invariants(), Ok(()), "a truncation may lower it");
}

/// A leader that restarted without the committed prefix (a power loss
/// before any fsync) is out of the ISR and leads nothing: it awaits the
/// controller. Answering otherwise is a violation.
#[test]
fn a_leader_restarted_without_the_committed_prefix_that_does_not_await_the_controller_is_a_violation()
 {
    use replication::ReplicationGroup;
    let mut g = committed_group(false);
    let leader = replication::NodeId::new("node-1");
    ReplicationGroup::crash(&mut g, &leader, true).expect("crash with power loss");
    ReplicationGroup::restart(&mut g, &leader).expect("restart");
    assert!(!g.controller.in_isr(0), "out of the ISR: it lacks HW");
    assert!(g.nodes[0].awaiting_controller());
    assert_eq!(g.check_invariants(), Ok(()));
    g.nodes[0].awaiting_controller = false;
    let broken = g.check_invariants().expect_err("it would lead");
    assert!(
        broken.contains("node-1: the controller's leader is up but out of the ISR"),
        "{broken}"
    );
}

/// The available leader's own appends are confirmed in its epoch: one
/// whose confirmation lags its log end is caught.
#[test]
fn a_leader_not_confirmed_through_its_own_log_end_is_a_violation() {
    let mut g = committed_group(false);
    assert_eq!(g.check_invariants(), Ok(()));
    g.nodes[0].matched_end = 1;
    let broken = g
        .check_invariants()
        .expect_err("its own appends unconfirmed");
    assert!(
        broken.contains(
            "leader node-1 confirmed through Some(1) in its epoch 1, but its log ends at 2"
        ),
        "{broken}"
    );
}
