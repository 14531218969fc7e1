//! The ISR column of the experiment matrix, asserted cell by cell.

use labs::{Observed, ReadOutcome, isr_lab};

#[test]
fn isr_runs_show_the_spec_outcomes() {
    let runs = isr_lab::runs().expect("isr runs succeed");
    let cells: Vec<(u8, &str, String)> = runs
        .iter()
        .map(|r| (r.experiment, r.variant, r.cell()))
        .collect();
    for (e, v, c) in &cells {
        println!("{e} {v}: {c}");
    }
    let order: Vec<(u8, &str)> = runs.iter().map(|r| (r.experiment, r.variant)).collect();
    assert_eq!(
        order,
        vec![
            (1, "leader"),
            (1, "all_isr"),
            (2, "leader"),
            (2, "all_isr"),
            (3, "default"),
            (4, "default"),
            (4, "min_insync_3"),
            (5, "default"),
            (6, "default"),
            (7, "default"),
        ]
    );
    for run in &runs {
        assert!(
            !run.trace.is_empty(),
            "run {} {} has a trace",
            run.experiment,
            run.variant
        );
        match (&run.observed, run.variant) {
            (Observed::Normal(o), "leader") => {
                assert!(o.acked);
                assert_eq!(o.follower_at_ack, None);
                assert_eq!(o.follower_after.as_deref(), Some(&b"v"[..]));
            }
            (Observed::Normal(o), _) => {
                assert!(o.acked);
                assert_eq!(o.follower_at_ack.as_deref(), Some(&b"v"[..]));
                assert!(o.leader_offset >= o.ack_offset.unwrap_or(u64::MAX));
            }
            (Observed::CrashAfterAck(o), "leader") => assert!(o.acked && !o.survived),
            (Observed::CrashAfterAck(o), _) => assert!(o.acked && o.survived),
            (Observed::Minority(o), _) => {
                assert!(!o.old_write_acked);
                assert!(o.new_write_acked);
                assert!(o.fenced_messages > 0);
                assert!(o.converged);
                assert_eq!(o.old_leader_role_after, "follower");
                assert_eq!(o.minority_value.as_deref(), Some(&b"majority"[..]));
                assert_eq!(o.majority_value.as_deref(), Some(&b"majority"[..]));
            }
            (Observed::Slow(o), "default") => {
                assert!(o.write_available && o.slow_replica_stale);
                assert_eq!(o.membership, "removed from ISR");
            }
            (Observed::Slow(o), _) => {
                assert!(!o.write_available && o.slow_replica_stale);
                assert!(o.membership.starts_with("removed from ISR"));
            }
            (Observed::Reconnect(o), _) => {
                assert_eq!(o.inside_window, "incremental");
                assert_eq!(o.outside_window, "full");
            }
            (Observed::Reads(o), _) => {
                assert_eq!(o.local, ReadOutcome::Stale);
                assert_eq!(o.leader, ReadOutcome::Fresh);
                assert_eq!(o.linearizable, ReadOutcome::Blocked);
            }
            (Observed::SplitBrain(o), _) => {
                assert_eq!(o.old_local.as_deref(), Some(&b"before"[..]));
                assert_eq!(o.current.as_deref(), Some(&b"after"[..]));
                assert_eq!(o.guard, "lease fenced");
            }
        }
    }
}
