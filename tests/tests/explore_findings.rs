//! The explorer finds, by itself, what each configuration guarantees and
//! what it does not (issue #13's pinned findings).

use explore::{Property, Status, SweepOptions, Verdict, sweep};

fn verdicts(key: &str, schedules: u64) -> Vec<Verdict> {
    let config = labs::explore_configs()
        .into_iter()
        .find(|c| c.key() == key)
        .unwrap_or_else(|| panic!("no configuration {key}"));
    let options = SweepOptions {
        schedules,
        jobs: 2,
        ..SweepOptions::default()
    };
    sweep(&config, &options).expect("the sweep runs")
}

fn status(verdicts: &[Verdict], property: Property) -> &Verdict {
    verdicts
        .iter()
        .find(|v| v.property == property)
        .expect("one verdict per property")
}

#[test]
fn async_leader_writes_are_not_durable_and_shrink_to_at_most_six_steps() {
    let v = verdicts("async.leader.leader.default", 200);
    let durable = status(&v, Property::Durable);
    assert_eq!(durable.status, Status::Violated, "{durable:?}");
    let cx = durable.counterexample.as_ref().expect("a counterexample");
    assert!(cx.steps <= 6, "{cx:?}");
}

#[test]
fn isr_leader_writes_are_not_durable() {
    let v = verdicts("isr.leader.linearizable.default", 200);
    assert_eq!(status(&v, Property::Durable).status, Status::Violated);
}

#[test]
fn isr_all_isr_with_min_insync_2_and_linearizable_reads_is_durable_and_linearizable() {
    let v = verdicts("isr.all_isr.linearizable.default", 300);
    for property in Property::ALL {
        let verdict = status(&v, property);
        assert_eq!(verdict.status, Status::Holds, "{verdict:?}");
    }
}

#[test]
fn raft_leader_reads_are_not_linearizable() {
    let v = verdicts("raft.quorum.leader.default", 300);
    let lin = status(&v, Property::Linearizable);
    assert_eq!(lin.status, Status::Violated, "{lin:?}");
}

#[test]
fn raft_quorum_with_linearizable_reads_is_durable_and_linearizable() {
    let v = verdicts("raft.quorum.linearizable.default", 300);
    for property in Property::ALL {
        let verdict = status(&v, property);
        assert_eq!(verdict.status, Status::Holds, "{verdict:?}");
    }
}

/// Regression from the shrunk schedule the explorer found (issue #16's
/// gap): fail over to the synchronous standby, write at QUORUM, fail over
/// again. The write used to be acknowledged on the promoted standby's own
/// flush and then lost.
#[test]
fn wal_quorum_on_a_promoted_synchronous_standby_is_not_acknowledged_then_lost() {
    let config = labs::explore_configs()
        .into_iter()
        .find(|c| c.key() == "wal.quorum.leader.sync_standby_1")
        .expect("configuration");
    let id: explore::ReplayId = "wal.quorum.leader.sync_standby_1-c3-s10-72.73.83"
        .parse()
        .expect("replay id");
    let (schedule, report) =
        explore::replay(&config, &id, explore::ScheduleShape::DEFAULT_STEPS).expect("replays");
    assert_eq!(schedule.steps.len(), 3);
    assert_eq!(report.check(Property::Durable), &explore::Check::Holds);
}
