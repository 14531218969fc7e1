//! The Raft column of the matrix shows what SPEC §8 says it must.

use labs::{Observed, ReadOutcome, raft_lab};

#[test]
fn raft_runs_cover_the_seven_experiments_in_order() {
    let runs = raft_lab::runs().expect("raft runs");
    let order: Vec<(u8, &str)> = runs.iter().map(|r| (r.experiment, r.variant)).collect();
    assert_eq!(order, (1..=7).map(|e| (e, "default")).collect::<Vec<_>>());
    for run in &runs {
        assert!(
            !run.trace.is_empty(),
            "experiment {} left no trace",
            run.experiment
        );
    }
}

#[test]
fn exp1_quorum_write_acks_at_index_2_before_followers_apply_then_converges() {
    let Observed::Normal(o) = raft_lab::exp1_normal().expect("run").observed else {
        panic!("wrong observation")
    };
    assert!(o.acked);
    assert_eq!(o.ack_offset, Some(2));
    assert_eq!(
        o.follower_at_ack, None,
        "follower learns the commit on the next AppendEntries"
    );
    assert_eq!(o.follower_after.as_deref(), Some(&b"v"[..]));
    assert_eq!(o.leader_offset, o.follower_offset);
}

#[test]
fn exp2_acknowledged_write_survives_leader_crash() {
    let Observed::CrashAfterAck(o) = raft_lab::exp2_crash_after_ack().expect("run").observed else {
        panic!("wrong observation")
    };
    assert!(o.acked && o.survived);
    assert_ne!(o.old_leader, o.new_leader);
    assert_eq!(o.value_before.as_deref(), Some(&b"v"[..]));
}

#[test]
fn exp3_minority_write_is_not_acked_and_is_overwritten_after_heal() {
    let run = raft_lab::exp3_minority_leader().expect("run");
    let Observed::Minority(o) = &run.observed else {
        panic!("wrong observation")
    };
    assert!(!o.old_write_acked);
    assert!(o.new_write_acked);
    assert!(o.converged);
    assert_eq!(o.old_leader_role_after, "follower");
    assert_eq!(o.minority_value.as_deref(), Some(&b"majority"[..]));
    assert_eq!(o.majority_value.as_deref(), Some(&b"majority"[..]));
    assert_eq!(
        o.fenced_messages,
        run.trace.count("raft_stale_term_rejected") as u64
    );
}

#[test]
fn exp4_write_available_with_one_follower_cut_off() {
    let Observed::Slow(o) = raft_lab::exp4_slow_replica().expect("run").observed else {
        panic!("wrong observation")
    };
    assert!(o.write_available && o.slow_replica_stale);
    assert!(
        o.membership.starts_with("fixed voter; majority unaffected"),
        "{}",
        o.membership
    );
}

#[test]
fn exp5_catch_up_is_log_replay_inside_and_outside() {
    let Observed::Reconnect(o) = raft_lab::exp5_reconnect().expect("run").observed else {
        panic!("wrong observation")
    };
    assert_eq!(
        (o.inside_window.as_str(), o.outside_window.as_str()),
        ("log replay", "log replay")
    );
}

#[test]
fn exp6_reads_are_stale_fresh_fresh() {
    let Observed::Reads(o) = raft_lab::exp6_read_levels().expect("run").observed else {
        panic!("wrong observation")
    };
    assert_eq!(
        (o.local, o.leader, o.linearizable),
        (ReadOutcome::Stale, ReadOutcome::Fresh, ReadOutcome::Fresh)
    );
}

#[test]
fn exp7_old_leader_read_index_is_fenced() {
    let Observed::SplitBrain(o) = raft_lab::exp7_split_brain().expect("run").observed else {
        panic!("wrong observation")
    };
    assert_eq!(o.old_local.as_deref(), Some(&b"before"[..]));
    assert_eq!(o.current.as_deref(), Some(&b"after"[..]));
    assert_eq!(o.guard, "read-index fenced (no quorum)");
}

#[test]
fn print_raft_cells() {
    for run in raft_lab::runs().expect("raft runs") {
        println!("{} {}: {}", run.experiment, run.variant, run.cell());
    }
}
