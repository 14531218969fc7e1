//! The WAL experiments show what SPEC §8 says they must.

use bytes::Bytes;
use labs::{Observed, ReadOutcome, wal_lab};
use replication::AckLevel;

fn b(s: &str) -> Option<Bytes> {
    Some(Bytes::copy_from_slice(s.as_bytes()))
}

#[test]
fn every_wal_run_is_listed_in_experiment_then_variant_order() {
    let runs = wal_lab::runs().unwrap();
    let order: Vec<(u8, &str)> = runs.iter().map(|r| (r.experiment, r.variant)).collect();
    assert_eq!(
        order,
        [
            (1, "leader"),
            (1, "quorum"),
            (2, "leader"),
            (2, "quorum"),
            (3, "default"),
            (4, "default"),
            (4, "sync_standby"),
            (5, "default"),
            (6, "default"),
            (7, "default"),
        ]
    );
    for run in &runs {
        assert!(
            !run.trace.is_empty(),
            "experiment {} left a trace",
            run.experiment
        );
        println!("{} {:12} {}", run.experiment, run.variant, run.cell());
    }
}

#[test]
fn exp1_leader_standby_is_empty_at_ack_and_has_the_write_after() {
    let Observed::Normal(o) = wal_lab::exp1_normal(AckLevel::Leader).unwrap().observed else {
        panic!("wrong observation")
    };
    assert!(o.acked);
    assert_eq!(o.ack_offset, Some(1));
    assert_eq!(o.follower_at_ack, None);
    assert_eq!(o.follower_after, b("v"));
    assert_eq!((o.leader_offset, o.follower_offset), (1, 1));
}

#[test]
fn exp1_quorum_synchronous_standby_has_flushed_the_write_at_ack() {
    let Observed::Normal(o) = wal_lab::exp1_normal(AckLevel::Quorum).unwrap().observed else {
        panic!("wrong observation")
    };
    assert!(o.acked);
    assert_eq!(o.follower_at_ack, b("v"));
    assert_eq!(o.follower_after, b("v"));
    assert_eq!((o.leader_offset, o.follower_offset), (1, 1));
}

#[test]
fn exp2_leader_ack_is_lost_and_quorum_ack_survives_promotion() {
    let Observed::CrashAfterAck(o) = wal_lab::exp2_crash_after_ack(AckLevel::Leader)
        .unwrap()
        .observed
    else {
        panic!("wrong observation")
    };
    assert!(o.acked);
    assert_eq!(o.value_before, b("v"));
    assert_eq!(
        (o.old_leader.as_str(), o.new_leader.as_str()),
        ("primary", "standby-1")
    );
    assert_eq!(o.value_after, None);
    assert!(!o.survived);
    let Observed::CrashAfterAck(o) = wal_lab::exp2_crash_after_ack(AckLevel::Quorum)
        .unwrap()
        .observed
    else {
        panic!("wrong observation")
    };
    assert!(o.acked);
    assert_eq!(o.new_leader.as_str(), "standby-1");
    assert_eq!(o.value_after, b("v"));
    assert!(o.survived);
}

#[test]
fn exp3_old_timeline_records_are_fenced_and_everyone_converges_to_the_new_branch() {
    let run = wal_lab::exp3_minority().unwrap();
    let Observed::Minority(o) = &run.observed else {
        panic!("wrong observation")
    };
    assert!(
        o.old_write_acked,
        "an isolated old primary still accepts LEADER writes"
    );
    assert!(o.new_write_acked);
    assert!(o.fenced_messages > 0);
    assert!(
        run.trace
            .to_text()
            .contains("wal_fenced node=standby-2 src=primary msg=\"wal_record\"")
    );
    assert!(o.converged);
    assert_eq!(o.old_leader_role_after, "standby");
    assert_eq!(o.minority_value, b("majority"));
    assert_eq!(o.majority_value, b("majority"));
}

#[test]
fn exp4_async_standby_does_not_gate_and_sync_standby_refuses_quorum() {
    let Observed::Slow(o) = wal_lab::exp4_slow_replica(false).unwrap().observed else {
        panic!("wrong observation")
    };
    assert!(o.write_available);
    assert!(o.slow_replica_stale);
    assert_eq!(
        o.membership,
        "async standby standby-2 does not gate commit: acked LSN 1 while it was at LSN 0"
    );
    let Observed::Slow(o) = wal_lab::exp4_slow_replica(true).unwrap().observed else {
        panic!("wrong observation")
    };
    assert!(!o.write_available);
    assert!(o.slow_replica_stale);
    assert_eq!(
        o.membership,
        "synchronous standby standby-1 gates QUORUM commit: refused LSN 1 while it was at LSN 0"
    );
}

#[test]
fn exp5_reconnect_is_incremental_inside_retention_and_full_outside() {
    let Observed::Reconnect(o) = wal_lab::exp5_reconnect().unwrap().observed else {
        panic!("wrong observation")
    };
    assert_eq!(
        (o.inside_window.as_str(), o.outside_window.as_str()),
        ("incremental", "full")
    );
}

#[test]
fn exp6_reads_are_stale_fresh_unsupported() {
    let Observed::Reads(o) = wal_lab::exp6_read_levels().unwrap().observed else {
        panic!("wrong observation")
    };
    assert_eq!(
        (o.local, o.leader, o.linearizable),
        (
            ReadOutcome::Stale,
            ReadOutcome::Fresh,
            ReadOutcome::Unsupported
        )
    );
}

#[test]
fn exp7_old_primary_serves_before_and_has_no_guard() {
    let Observed::SplitBrain(o) = wal_lab::exp7_split_brain().unwrap().observed else {
        panic!("wrong observation")
    };
    assert_eq!(o.old_local, b("before"));
    assert_eq!(o.current, b("after"));
    assert_eq!(o.guard, "unsupported");
}

#[test]
fn wal_runs_are_deterministic() {
    let a = wal_lab::runs().unwrap();
    let b = wal_lab::runs().unwrap();
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x.trace.to_text(), y.trace.to_text());
        assert_eq!(x.observed, y.observed);
    }
}
