//! The async experiments show what SPEC §8 says they must.

use bytes::Bytes;
use labs::{Observed, ReadOutcome, async_lab};

fn b(s: &str) -> Option<Bytes> {
    Some(Bytes::copy_from_slice(s.as_bytes()))
}

#[test]
fn every_async_run_is_listed_in_experiment_order_with_default_variant() {
    let runs = async_lab::runs().unwrap();
    let order: Vec<(u8, &str)> = runs.iter().map(|r| (r.experiment, r.variant)).collect();
    assert_eq!(order, (1..=7).map(|e| (e, "default")).collect::<Vec<_>>());
    for run in &runs {
        assert!(
            !run.trace.is_empty(),
            "experiment {} left a trace",
            run.experiment
        );
        println!("{} {}", run.experiment, run.cell());
    }
}

#[test]
fn exp1_follower_is_empty_at_ack_and_has_the_write_after() {
    let Observed::Normal(o) = async_lab::exp1_normal().unwrap().observed else {
        panic!("wrong observation")
    };
    assert!(o.acked);
    assert_eq!(o.ack_offset, Some(1));
    assert_eq!(o.follower_at_ack, None);
    assert_eq!(o.follower_after, b("v"));
    assert_eq!((o.leader_offset, o.follower_offset), (1, 1));
}

#[test]
fn exp2_acked_write_is_lost_after_promoting_a_replica() {
    let Observed::CrashAfterAck(o) = async_lab::exp2_crash_after_ack().unwrap().observed else {
        panic!("wrong observation")
    };
    assert!(o.acked);
    assert_eq!(o.value_before, b("v"));
    assert_eq!(o.old_leader.as_str(), "primary");
    assert_eq!(o.new_leader.as_str(), "replica-1");
    assert_eq!(o.value_after, None);
    assert!(!o.survived);
}

#[test]
fn exp3_both_sides_ack_and_the_old_side_write_is_gone_after_heal() {
    let Observed::Minority(o) = async_lab::exp3_minority().unwrap().observed else {
        panic!("wrong observation")
    };
    assert!(o.old_write_acked);
    assert!(o.new_write_acked);
    assert!(
        o.fenced_messages > 0,
        "the old primary's buffered stream is fenced"
    );
    assert!(o.converged);
    assert_eq!(o.old_leader_role_after, "replica");
    assert_eq!(o.minority_value, b("majority"));
    assert_eq!(o.majority_value, b("majority"));
}

#[test]
fn exp4_write_is_available_and_the_isolated_replica_is_stale() {
    let Observed::Slow(o) = async_lab::exp4_slow_replica().unwrap().observed else {
        panic!("wrong observation")
    };
    assert!(o.write_available);
    assert!(o.slow_replica_stale);
    assert_eq!(
        o.membership,
        "replica replica-1 is not a voter: acked at offset 1 while it was at offset 0"
    );
}

#[test]
fn exp5_reconnect_is_incremental_inside_the_backlog_and_full_outside() {
    let Observed::Reconnect(o) = async_lab::exp5_reconnect().unwrap().observed else {
        panic!("wrong observation")
    };
    assert_eq!(
        (o.inside_window.as_str(), o.outside_window.as_str()),
        ("incremental", "full")
    );
}

#[test]
fn exp6_reads_are_stale_fresh_unsupported() {
    let Observed::Reads(o) = async_lab::exp6_read_levels().unwrap().observed else {
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
    let Observed::SplitBrain(o) = async_lab::exp7_split_brain().unwrap().observed else {
        panic!("wrong observation")
    };
    assert_eq!(o.old_local, b("before"));
    assert_eq!(o.current, b("after"));
    assert_eq!(o.guard, "unsupported");
}

#[test]
fn async_runs_are_deterministic() {
    let a = async_lab::runs().unwrap();
    let b = async_lab::runs().unwrap();
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x.trace.to_text(), y.trace.to_text());
        assert_eq!(x.observed, y.observed);
    }
}
