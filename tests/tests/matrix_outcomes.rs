//! Every outcome of SPEC §8's table, asserted on the runs `cargo xtask
//! matrix` shows.

mod common;

use common::{ASYNC, ISR, RAFT, WAL};
use common::{b, observed, run, runs};
use labs::{Protocol, ReadOutcome};

fn normal(p: Protocol, v: &str) -> &'static labs::NormalReplication {
    observed(1, p, v)
        .as_normal()
        .unwrap_or_else(|| panic!("{p}: another experiment observed"))
}

fn crash(p: Protocol, v: &str) -> &'static labs::CrashAfterAck {
    observed(2, p, v)
        .as_crash_after_ack()
        .unwrap_or_else(|| panic!("{p}: another experiment observed"))
}

fn minority(p: Protocol) -> &'static labs::MinorityLeader {
    observed(3, p, "default")
        .as_minority()
        .unwrap_or_else(|| panic!("{p}: another experiment observed"))
}

fn slow(p: Protocol, v: &str) -> &'static labs::SlowReplica {
    observed(4, p, v)
        .as_slow()
        .unwrap_or_else(|| panic!("{p}: another experiment observed"))
}

fn reconnect(p: Protocol) -> &'static labs::Reconnect {
    observed(5, p, "default")
        .as_reconnect()
        .unwrap_or_else(|| panic!("{p}: another experiment observed"))
}

fn reads(p: Protocol) -> labs::ReadLevels {
    *observed(6, p, "default")
        .as_reads()
        .unwrap_or_else(|| panic!("{p}: another experiment observed"))
}

fn split(p: Protocol) -> &'static labs::SplitBrainRead {
    observed(7, p, "default")
        .as_split_brain()
        .unwrap_or_else(|| panic!("{p}: another experiment observed"))
}

#[test]
fn the_matrix_has_every_experiment_protocol_and_variant() {
    let mut keys: Vec<String> = runs()
        .iter()
        .map(|r| format!("{}:{}:{}", r.experiment, r.protocol, r.variant))
        .collect();
    keys.sort();
    let mut expected: Vec<String> = [
        "1:async:default",
        "1:wal:leader",
        "1:wal:quorum",
        "1:wal:apply_delay",
        "1:wal:remote_apply",
        "1:isr:leader",
        "1:isr:all_isr",
        "1:raft:default",
        "2:async:default",
        "2:async:wait_1",
        "2:wal:leader",
        "2:wal:quorum",
        "2:wal:remote_write",
        "2:isr:leader",
        "2:isr:all_isr",
        "2:isr:fetch_hw",
        "2:isr:fetch_kip101",
        "2:isr:unclean_election",
        "2:raft:default",
        "3:async:default",
        "3:async:min_replicas_1",
        "3:wal:default",
        "3:isr:default",
        "3:raft:default",
        "3:raft:prevote",
        "4:async:default",
        "4:wal:default",
        "4:wal:sync_standby",
        "4:wal:first_1",
        "4:wal:any_1",
        "4:isr:default",
        "4:isr:min_insync_3",
        "4:raft:default",
        "5:async:default",
        "5:wal:default",
        "5:isr:default",
        "5:raft:default",
        "6:async:default",
        "6:wal:default",
        "6:isr:default",
        "6:raft:default",
        "7:async:default",
        "7:wal:default",
        "7:isr:default",
        "7:raft:default",
        "7:raft:check_quorum",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    expected.sort();
    assert_eq!(keys, expected);
    for r in runs() {
        assert!(
            !r.trace.is_empty(),
            "exp{} {} {} left no trace",
            r.experiment,
            r.protocol,
            r.variant
        );
    }
}

#[test]
fn exp1_async_and_wal_leader_follower_is_empty_at_ack_and_has_it_after() {
    for (p, v) in [(ASYNC, "default"), (WAL, "leader")] {
        let o = normal(p, v);
        assert!(o.acked, "{p}");
        assert_eq!(o.follower_at_ack, None, "{p}");
        assert!(o.follower_after.is_some(), "{p}");
        assert_eq!(o.leader_offset, o.follower_offset, "{p}");
    }
}

#[test]
fn exp1_wal_quorum_sync_standby_has_flushed_it_at_ack() {
    let o = normal(WAL, "quorum");
    assert!(o.acked);
    assert!(o.follower_at_ack.is_some());
    assert_eq!(o.follower_at_ack, o.follower_after);
}

#[test]
fn exp1_wal_with_a_replay_delay_only_remote_apply_shows_the_write_at_the_synchronous_standby_at_ack()
 {
    let on = normal(WAL, "apply_delay");
    assert!(on.acked);
    assert_eq!(on.follower_at_ack, None, "flushed, not yet replayed");
    assert_eq!(on.follower_after, b("v"));
    let apply = normal(WAL, "remote_apply");
    assert!(apply.acked);
    assert_eq!(apply.follower_at_ack, b("v"));
}

#[test]
fn exp2_wal_remote_write_loses_the_ack_when_the_standby_loses_power_before_failover() {
    let o = crash(WAL, "remote_write");
    assert!(o.acked);
    assert_eq!(o.new_leader.as_str(), "standby-1");
    assert!(!o.survived);
    assert_eq!(o.value_after, None);
}

#[test]
fn exp4_wal_first_1_and_any_1_stay_available_through_the_other_listed_standby() {
    for variant in ["first_1", "any_1"] {
        let o = slow(WAL, variant);
        assert!(o.write_available, "{variant}");
        assert!(o.slow_replica_stale, "{variant}");
        assert!(
            o.membership.contains("confirmed by [standby-2]"),
            "{variant}: {}",
            o.membership
        );
    }
}

#[test]
fn exp1_isr_leader_has_a_follower_gap_and_all_isr_has_every_member() {
    let leader = normal(ISR, "leader");
    assert!(leader.acked);
    assert_eq!(leader.follower_at_ack, None);
    assert!(leader.follower_after.is_some());
    let all = normal(ISR, "all_isr");
    assert!(all.acked);
    assert!(all.follower_at_ack.is_some());
    assert!(all.follower_offset >= all.ack_offset.expect("offset"));
}

#[test]
fn exp1_raft_quorum_acks_at_offset_2_and_converges_with_equal_commit_offsets() {
    let o = normal(RAFT, "default");
    assert!(o.acked);
    assert_eq!(o.ack_offset, Some(2));
    assert!(o.follower_after.is_some());
    assert_eq!(o.leader_offset, o.follower_offset);
}

#[test]
fn exp2_weak_levels_lose_the_acked_write_and_strong_levels_keep_it() {
    for (p, v, survives) in [
        (ASYNC, "default", false),
        (WAL, "leader", false),
        (WAL, "quorum", true),
        (ISR, "leader", false),
        (ISR, "all_isr", true),
        (ISR, "unclean_election", false),
        (ISR, "fetch_hw", false),
        (ISR, "fetch_kip101", true),
        (RAFT, "default", true),
    ] {
        let o = crash(p, v);
        assert!(o.acked, "{p} {v}");
        assert!(o.value_before.is_some(), "{p} {v}");
        assert_ne!(o.old_leader, o.new_leader, "{p} {v}");
        assert_eq!(o.survived, survives, "{p} {v}: {o:?}");
        assert_eq!(o.survived, o.value_after == o.value_before, "{p} {v}");
    }
}

/// Redis `WAIT 1`: the ack waits for a replica's `REPLCONF ACK`, and the
/// failover here promotes such a replica, so the write survives (the
/// explorer's `wait_1` row shows it is still not durable).
#[test]
fn exp2_async_wait_1_acks_after_a_replica_acknowledged_and_the_promoted_replica_has_it() {
    let o = crash(ASYNC, "wait_1");
    assert!(o.acked);
    assert!(o.survived, "{o:?}");
    let trace = &run(2, ASYNC, "wait_1").trace;
    assert!(trace.of_kind("async_ack_received").count() >= 1);
    assert_eq!(trace.of_kind("async_wait_returned").count(), 1);
}

/// Kafka `unclean.leader.election.enable`: the out-of-sync replica is
/// elected when no ISR member is alive; the acknowledged ALL_ISR write is
/// gone.
#[test]
fn exp2_isr_unclean_election_elects_the_out_of_sync_replica_and_loses_the_all_isr_write() {
    let o = crash(ISR, "unclean_election");
    assert!(o.acked);
    assert_eq!(o.new_leader, sim_core::NodeId::new("node-3"));
    assert!(!o.survived);
    let trace = &run(2, ISR, "unclean_election").trace;
    assert_eq!(trace.of_kind("isr_unclean_election").count(), 1);
}

/// The Kafka ladder in the matrix: on the fetch protocol's `hw` rung the
/// brokers that become followers after the crash truncate to their own HW
/// (one round behind the leader's) and the ALL_ISR write is gone; from
/// KIP-101 on they truncate by leader epoch and keep it.
#[test]
fn exp2_isr_fetch_hw_truncates_the_acked_write_away_and_kip101_keeps_it() {
    let trace = &run(2, ISR, "fetch_hw").trace;
    assert!(
        trace
            .of_kind("isr_log_truncated")
            .any(|e| e.str_field("reason") == Some("high watermark")),
        "a follower truncated to its HW"
    );
    let trace = &run(2, ISR, "fetch_kip101").trace;
    assert_eq!(trace.of_kind("isr_log_truncated").count(), 0);
}

/// Redis `min-replicas-to-write 1`: once `min-replicas-max-lag` passes,
/// the cut-off old primary refuses its write before applying it.
#[test]
fn exp3_async_min_replicas_1_old_primary_refuses_its_write_once_the_lag_passes() {
    let o = observed(3, ASYNC, "min_replicas_1")
        .as_minority()
        .expect("experiment 3 observes a minority leader");
    assert!(!o.old_write_acked, "{o:?}");
    assert!(o.new_write_acked);
    assert!(o.converged);
    assert_eq!(o.minority_value, b("majority"));
    let trace = &run(3, ASYNC, "min_replicas_1").trace;
    let refused = trace
        .of_kind("async_write_refused")
        .next()
        .expect("the old primary refused");
    assert_eq!(
        refused.field("reason"),
        Some(sim_core::Value::Str("min_replicas_to_write".into()))
    );
}

#[test]
fn exp3_async_both_sides_ack_and_converge_to_the_new_primary() {
    let o = minority(ASYNC);
    assert!(o.old_write_acked && o.new_write_acked);
    assert!(o.converged);
    assert_eq!(o.minority_value, b("majority"));
    assert_eq!(o.majority_value, b("majority"));
}

#[test]
fn exp3_wal_and_isr_fence_old_lineage_messages_and_converge() {
    for p in [WAL, ISR] {
        let o = minority(p);
        assert!(o.new_write_acked, "{p}");
        assert!(o.fenced_messages >= 1, "{p}: {o:?}");
        assert!(o.converged, "{p}");
        assert_eq!(o.minority_value, b("majority"), "{p}");
        assert_eq!(o.majority_value, b("majority"), "{p}");
    }
}

#[test]
fn exp3_raft_old_leader_cannot_commit_and_becomes_follower_after_heal() {
    let o = minority(RAFT);
    assert!(!o.old_write_acked);
    assert!(o.new_write_acked);
    assert!(o.converged);
    assert_eq!(o.old_leader_role_after, "follower");
    assert_eq!(o.minority_value, b("majority"));
    assert_eq!(o.majority_value, b("majority"));
}

#[test]
fn exp3_raft_prevote_old_leader_steps_down_and_rejoins_without_raising_its_term() {
    let o = observed(3, RAFT, "prevote")
        .as_minority()
        .expect("experiment 3 observes a minority leader");
    assert!(!o.old_write_acked);
    assert!(o.new_write_acked);
    assert!(o.converged);
    assert_eq!(o.old_leader_role_after, "follower");
    assert_eq!(o.majority_value, b("majority"));
    assert_eq!(o.minority_value, b("majority"));
    // Its term never moved while it was cut off: nothing of an old term
    // reached a node after heal, so nothing had to be fenced.
    assert_eq!(o.fenced_messages, 0);
    let trace = &run(3, RAFT, "prevote").trace;
    let (at, step_down) = trace
        .events()
        .enumerate()
        .find(|(_, e)| e.kind == "raft_leader_stepped_down")
        .expect("the isolated old leader stepped down by itself");
    let (old, term) = (
        step_down.field("node").expect("node"),
        step_down.field("term").expect("term"),
    );
    let mine = |kind: &'static str| {
        let old = old.clone();
        trace
            .since(at)
            .filter(move |e| e.kind == kind && e.field("node") == Some(old.clone()))
    };
    let pre_votes: Vec<_> = mine("raft_pre_vote_started").collect();
    assert!(pre_votes.len() >= 2, "it campaigned while cut off");
    assert!(
        pre_votes
            .iter()
            .all(|e| e.field("term") == Some(term.clone())),
        "always from the term it led"
    );
    assert_eq!(
        mine("raft_election_started").count(),
        0,
        "never a real election"
    );
}

#[test]
fn exp7_raft_check_quorum_old_leader_has_stepped_down_before_the_read() {
    let o = observed(7, RAFT, "check_quorum")
        .as_split_brain()
        .expect("experiment 7 observes a split-brain read");
    assert_eq!(o.old_local, b("before"));
    assert_eq!(o.current, b("after"));
    assert_eq!(o.guard, "not leader");
    assert_eq!(
        run(7, RAFT, "check_quorum")
            .trace
            .count("raft_leader_stepped_down"),
        1
    );
}

#[test]
fn exp4_a_slow_replica_leaves_writes_available_and_is_stale() {
    for p in [ASYNC, WAL, ISR, RAFT] {
        let o = slow(p, "default");
        assert!(o.write_available, "{p}");
        assert!(o.slow_replica_stale, "{p}");
        assert!(!o.membership.is_empty(), "{p}");
    }
    assert!(slow(ISR, "default").membership.contains("removed from ISR"));
}

#[test]
fn exp4_strong_variants_refuse_the_write() {
    assert!(!slow(WAL, "sync_standby").write_available);
    assert!(!slow(ISR, "min_insync_3").write_available);
}

#[test]
fn exp5_catch_up_modes_inside_and_outside_the_window() {
    // Redis calls its incremental resync "partial" (PSYNC).
    for (p, inside) in [
        (ASYNC, "partial"),
        (WAL, "incremental"),
        (ISR, "incremental"),
    ] {
        let o = reconnect(p);
        assert_eq!(
            (o.inside_window.as_str(), o.outside_window.as_str()),
            (inside, "full"),
            "{p}"
        );
    }
    // RAFT with snapshots: entries still in the leader's log are replayed;
    // compacted ones arrive as InstallSnapshot.
    let o = reconnect(RAFT);
    assert_eq!(
        (o.inside_window.as_str(), o.outside_window.as_str()),
        ("log replay", "snapshot")
    );
}

#[test]
fn exp6_read_level_matrix() {
    use ReadOutcome::*;
    let row = |p| {
        let r = reads(p);
        (r.local, r.leader, r.linearizable)
    };
    assert_eq!(row(ASYNC), (Stale, Fresh, Unsupported));
    assert_eq!(row(WAL), (Stale, Fresh, Unsupported));
    assert_eq!(row(ISR), (Stale, Fresh, Blocked));
    assert_eq!(row(RAFT), (Stale, Fresh, Fresh));
}

#[test]
fn exp7_old_side_reads_before_and_the_guard_fails_closed_on_the_old_leader() {
    for (p, guard) in [
        (ASYNC, "unsupported"),
        (WAL, "unsupported"),
        (ISR, "lease fenced"),
        (RAFT, "read-index fenced (no quorum)"),
    ] {
        let o = split(p);
        assert_eq!(o.old_local, b("before"), "{p}");
        assert_eq!(o.current, b("after"), "{p}");
        assert_eq!(o.guard, guard, "{p}");
    }
}

#[test]
fn every_cell_is_derived_from_its_observation() {
    for r in runs() {
        assert_eq!(r.cell(), r.observed.cell());
        assert_eq!(run(r.experiment, r.protocol, r.variant).cell(), r.cell());
    }
}

fn events_with(p: Protocol, experiment: u8, kind: &str) -> Vec<sim_core::Event> {
    run(experiment, p, "default")
        .trace
        .of_kind(kind)
        .map(|e| e.to_owned())
        .collect()
}

#[test]
fn exp3_wal_promotion_moves_to_timeline_2_and_fences_old_timeline_records() {
    let promoted = events_with(WAL, 3, "wal_promoted");
    assert_eq!(promoted.len(), 1);
    assert_eq!(
        promoted[0].field("timeline"),
        Some(&sim_core::Value::UInt(2))
    );
    let fenced = events_with(WAL, 3, "wal_fenced");
    assert!(
        fenced
            .iter()
            .any(|e| e.field("reason") == Some(&"stale_timeline".into())
                && e.field("msg") == Some(&"wal_record".into()))
    );
}

#[test]
fn exp3_isr_election_bumps_both_epochs_and_rejects_old_epoch_appends() {
    let elected = events_with(ISR, 3, "isr_controller_elected");
    assert_eq!(elected.len(), 1);
    assert_eq!(
        elected[0].field("leader_epoch"),
        Some(&sim_core::Value::UInt(2))
    );
    assert_eq!(
        elected[0].field("controller_epoch"),
        Some(&sim_core::Value::UInt(2))
    );
    let rejected = events_with(ISR, 3, "isr_append_rejected");
    assert!(
        rejected
            .iter()
            .any(|e| e.field("reason") == Some(&"stale_leader_epoch".into()))
    );
}

#[test]
fn exp3_raft_new_leader_is_elected_in_a_higher_term() {
    let terms: Vec<u64> = events_with(RAFT, 3, "raft_leader_elected")
        .iter()
        .filter_map(|e| match e.field("term") {
            Some(sim_core::Value::UInt(t)) => Some(*t),
            _ => None,
        })
        .collect();
    assert!(terms.len() >= 2, "{terms:?}");
    assert!(terms.windows(2).all(|w| w[0] < w[1]), "{terms:?}");
}

#[test]
fn exp1_first_write_lands_at_offset_1_except_raft_whose_no_op_takes_index_1() {
    for (p, v) in [
        (ASYNC, "default"),
        (WAL, "leader"),
        (WAL, "quorum"),
        (ISR, "leader"),
        (ISR, "all_isr"),
    ] {
        let o = normal(p, v);
        assert_eq!(o.ack_offset, Some(1), "{p} {v}");
        assert_eq!((o.leader_offset, o.follower_offset), (1, 1), "{p} {v}");
        assert_eq!(o.follower_after, b("v"), "{p} {v}");
    }
}

#[test]
fn exp2_lost_writes_read_as_absent_and_survivors_read_the_value() {
    for (p, v) in [(ASYNC, "default"), (WAL, "leader"), (ISR, "leader")] {
        assert_eq!(crash(p, v).value_after, None, "{p} {v}");
    }
    for (p, v) in [(WAL, "quorum"), (ISR, "all_isr"), (RAFT, "default")] {
        assert_eq!(crash(p, v).value_after, b("v"), "{p} {v}");
    }
}

#[test]
fn exp3_old_leader_ends_in_its_protocols_follower_role() {
    assert_eq!(minority(ASYNC).old_leader_role_after, "replica");
    assert_eq!(minority(WAL).old_leader_role_after, "standby");
    assert_eq!(minority(ISR).old_leader_role_after, "follower");
    assert!(
        minority(WAL).old_write_acked,
        "an isolated PostgreSQL primary still commits locally"
    );
    assert!(
        !minority(ISR).old_write_acked,
        "ALL_ISR cannot be met by an isolated leader"
    );
}

#[test]
fn exp4_membership_says_why_the_slow_replica_does_or_does_not_gate_the_write() {
    assert!(slow(ASYNC, "default").membership.contains("is not a voter"));
    assert!(
        slow(WAL, "default")
            .membership
            .contains("does not gate commit")
    );
    assert!(
        slow(WAL, "sync_standby")
            .membership
            .contains("gates QUORUM commit")
    );
    assert_eq!(slow(ISR, "default").membership, "removed from ISR");
    assert!(
        slow(ISR, "min_insync_3")
            .membership
            .starts_with("removed from ISR")
    );
    assert!(
        slow(RAFT, "default")
            .membership
            .starts_with("fixed voter; majority unaffected")
    );
}

/// During the partition each side's leader holds only its own write: the
/// old side its dirty write where it took one (async, wal, isr append it;
/// raft never commits it, so the old leader's state machine still reads
/// `base`), the new side `majority`.
#[test]
fn exp3_each_side_of_the_partition_reads_its_own_write() {
    for (p, old_side) in [
        (ASYNC, "minority"),
        (WAL, "minority"),
        (ISR, "minority"),
        (RAFT, "base"),
    ] {
        let o = minority(p);
        assert_ne!(o.old_leader, o.new_leader, "{p}");
        assert_eq!(o.old_side_value, b(old_side), "{p}");
        assert_eq!(o.new_side_value, b("majority"), "{p}");
    }
}
