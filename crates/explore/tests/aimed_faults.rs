//! The aimed faults of a strike ([`explore::FaultKind::Strike`]) on a real
//! Raft group: awaiting the next leader, striking it before its first
//! AppendEntries of the term arrived, awaiting its next commit, and the
//! rolling partition's heal.

use explore::{Configuration, NodeRef, RunOptions, RunReport, Step};
use replication::{AckLevel, NetConfig, ReadLevel, ReplicationGroup};

fn raft() -> Configuration {
    Configuration::new(
        "raft",
        AckLevel::Quorum,
        ReadLevel::Linearizable,
        "default",
        |build: &explore::Build| {
            proto_raft::RaftGroup::new(proto_raft::RaftConfig::default().with_seed(build.seed))
                .map(|g| Box::new(g) as Box<dyn ReplicationGroup>)
        },
    )
}

/// Runs `steps` on a 3-node Raft group over a 1-tick network, trace on.
fn run(steps: Vec<Step>) -> RunReport {
    let config = raft();
    let mut schedule = explore::schedule_of(&config, 1, 3);
    schedule.profile.nodes = 3;
    schedule.profile.drawn_nodes = None;
    schedule.profile.knobs = Vec::new();
    (
        schedule.profile.clients,
        schedule.profile.stale,
        schedule.profile.keys,
    ) = (2, 0, 1);
    schedule.profile.net = NetConfig::default()
        .with_delay_range(1, 1)
        .with_capacity(2_000);
    schedule.steps = steps;
    explore::run_schedule(&config, &schedule, RunOptions::REPLAY).expect("runs")
}

/// The node a log line acted on: `ok (node-2)` or `ok (node-2 leads)`.
fn acted_on(line: &str) -> &str {
    let start = line.rfind("ok (").expect("the step acted") + 4;
    line[start..]
        .trim_end_matches(')')
        .trim_end_matches(" leads")
}

/// The tick a log line's step started at (`  1 @14   …`).
fn started_at(line: &str) -> u64 {
    let at = line.split('@').nth(1).expect("a tick");
    at.split_whitespace()
        .next()
        .and_then(|t| t.parse().ok())
        .expect("a number")
}

fn trace_lines(report: &RunReport) -> Vec<String> {
    report
        .group
        .trace()
        .events()
        .map(|e| e.to_string())
        .collect()
}

#[test]
fn a_strike_isolates_the_leader_just_elected_before_its_first_append_entries_arrive() {
    let report = run(vec![
        Step::AwaitLeader(40),
        Step::Isolate(NodeRef::Leader),
        Step::Wait(5),
    ]);
    assert!(report.log[0].contains("leads"), "{:?}", report.log);
    let leader = acted_on(&report.log[0]).to_string();
    assert_eq!(acted_on(&report.log[1]), leader, "{:?}", report.log);
    let trace = trace_lines(&report);
    let isolated = trace
        .iter()
        .position(|l| l.contains("node_isolated") && l.contains(&format!("node={leader}")))
        .expect("isolated");
    let from_leader =
        |l: &String| l.contains(&format!("src={leader} ")) && l.contains("msg=\"append_entries\"");
    assert!(
        !trace[..isolated]
            .iter()
            .any(|l| l.contains("message_delivered") && from_leader(l)),
        "no AppendEntries of the new leader arrived before it was isolated: {trace:#?}"
    );
    assert!(
        trace[isolated..]
            .iter()
            .any(|l| l.contains("partition_at_delivery") && from_leader(l)),
        "its first AppendEntries, in flight, were lost: {trace:#?}"
    );
}

#[test]
fn await_leader_returns_at_the_election_and_stops_at_its_bound() {
    let report = run(vec![
        Step::AwaitLeader(40),
        Step::AwaitLeader(5),
        Step::Wait(1),
    ]);
    // The first election takes one election timeout (8–14 ticks) and a
    // vote: the step returns then, not after its 40 ticks.
    assert!(report.log[0].contains("leads"), "{:?}", report.log);
    let elected = started_at(&report.log[1]);
    assert!((8..=20).contains(&elected), "{:?}", report.log);
    // No new leader: the second await lets exactly its 5 ticks pass.
    assert_eq!(started_at(&report.log[2]), elected + 5, "{:?}", report.log);
}

#[test]
fn await_applied_returns_once_the_leader_applied_a_write() {
    let report = run(vec![
        Step::Wait(30),
        Step::Write {
            client: 0,
            key: 0,
            value: 1,
        },
        Step::AwaitApplied(40),
        Step::Wait(1),
    ]);
    assert!(report.log[1].contains("submitted"), "{:?}", report.log);
    assert!(report.log[2].contains("ok (node-"), "{:?}", report.log);
    let leader = acted_on(&report.log[2]).to_string();
    // Sent at the next tick, acknowledged a tick later: a few ticks.
    let waited = started_at(&report.log[3]) - started_at(&report.log[2]);
    assert!((1..=4).contains(&waited), "{:?}", report.log);
    let trace = trace_lines(&report);
    let committed = trace
        .iter()
        .find(|l| l.contains("raft_write_committed"))
        .expect("committed");
    assert!(committed.contains(&format!("node={leader}")), "{committed}");
}

#[test]
fn a_rolling_partition_heals_the_longest_isolated_node_only_when_a_majority_is_cut_off() {
    let report = run(vec![
        Step::Wait(30),
        Step::Isolate(NodeRef::At(0)),
        Step::Heal(NodeRef::OverMinority),
        Step::Isolate(NodeRef::At(1)),
        Step::Heal(NodeRef::OverMinority),
        Step::Heal(NodeRef::OverMinority),
    ]);
    assert!(
        report.log[2].contains("skipped (a majority is connected)"),
        "{:?}",
        report.log
    );
    // Two of three cut off: the one isolated first comes back.
    assert_eq!(
        acted_on(&report.log[4]),
        acted_on(&report.log[1]),
        "{:?}",
        report.log
    );
    assert!(
        report.log[5].contains("skipped (a majority is connected)"),
        "{:?}",
        report.log
    );
}

/// Figure 8's log gap, built by three strikes of a rolling partition on a
/// group that sends one entry per AppendEntries: the first leader is
/// struck at once (its no-op of term 1 reaches nobody), so is the second
/// (its no-op of a later term too); the first comes back, leads again,
/// and is struck after 4 ticks — when its follower has acknowledged the
/// old term-1 entry but not yet the no-op of the new term. Textbook Raft
/// must not count that acknowledgement as a commit (§5.4.2): the old
/// leader that comes back next overwrites the entry, and every property
/// holds. (With `planted=raft_commit_old_term` the same schedule violates
/// the invariants: `docs/planted.md`.)
#[test]
fn the_figure_8_log_gap_built_by_strikes_keeps_every_property() {
    let config = Configuration::new(
        "raft",
        AckLevel::Quorum,
        ReadLevel::Linearizable,
        "default",
        |build: &explore::Build| {
            let config = proto_raft::RaftConfig::default()
                .with_seed(build.seed)
                .with_max_append_entries(1);
            proto_raft::RaftGroup::new(config).map(|g| Box::new(g) as Box<dyn ReplicationGroup>)
        },
    );
    let mut schedule = explore::schedule_of(&config, 0, 3);
    schedule.profile.nodes = 3;
    schedule.profile.drawn_nodes = None;
    schedule.profile.knobs = Vec::new();
    (
        schedule.profile.clients,
        schedule.profile.stale,
        schedule.profile.keys,
    ) = (2, 0, 1);
    schedule.profile.net = NetConfig::default()
        .with_delay_range(1, 1)
        .with_capacity(2_000);
    schedule.steps = vec![
        Step::AwaitLeader(40),
        Step::Isolate(NodeRef::Leader),
        Step::AwaitLeader(40),
        Step::Isolate(NodeRef::Leader),
        Step::Heal(NodeRef::OverMinority),
        Step::AwaitLeader(40),
        Step::Wait(4),
        Step::Isolate(NodeRef::Leader),
        Step::Heal(NodeRef::OverMinority),
        Step::Wait(40),
    ];
    let report = explore::run_schedule(&config, &schedule, RunOptions::REPLAY).expect("runs");
    let first = acted_on(&report.log[1]).to_string();
    assert_eq!(acted_on(&report.log[4]), first, "{:?}", report.log);
    assert_eq!(acted_on(&report.log[5]), first, "{:?}", report.log);
    assert_eq!(acted_on(&report.log[7]), first, "{:?}", report.log);
    let trace = trace_lines(&report);
    let struck = trace
        .iter()
        .rposition(|l| l.contains("node_isolated") && l.contains(&format!("node={first}")))
        .expect("struck again");
    // Before the third strike its follower holds the old entry 1 …
    assert!(
        trace[..struck]
            .iter()
            .any(|l| l.contains("raft_entries_appended")
                && l.contains(&format!("leader={first} first=1 last=1"))),
        "{trace:#?}"
    );
    // … and the leader has not counted it as committed.
    assert!(
        !trace[..struck]
            .iter()
            .any(|l| l.contains("raft_commit_advanced") && l.contains(&format!("node={first}"))),
        "{trace:#?}"
    );
    for property in explore::Property::ALL {
        assert_eq!(
            report.check(property),
            &explore::Check::Holds,
            "{property}: {:?}",
            report.log
        );
    }
}
