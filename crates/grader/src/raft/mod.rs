//! The Raft lab: Raft's rules ([`proto_raft::decisions`]) rebuilt in four
//! stages — elections, log replication and the commit rule, read-index
//! reads, PreVote.

mod staged;
mod units;

use proto_raft::decisions::RaftDecisions;
use proto_raft::{RaftGroup, RaftRegistration};
use replication::{AckLevel, Protocol, ReadLevel, Registration};

use crate::registration::{LabRegistration, staged_name, with_stage};
use crate::stage::{Check, Row, Stage, bounds};
use staged::Staged;

/// The lab's stages.
pub(crate) const STAGES: u8 = 4;

/// The row graded at every stage.
const ROWS: &[(AckLevel, ReadLevel)] = &[(AckLevel::Quorum, ReadLevel::Linearizable)];

/// The PreVote stage runs with PreVote on.
fn extra(stage: u8) -> &'static [(&'static str, &'static str)] {
    if stage >= 4 {
        &[("pre_vote", "true")]
    } else {
        &[]
    }
}

/// The Raft protocol deciding by `student`'s rules, staged by each
/// group's `stage` setting.
pub(crate) fn protocol(student: &'static dyn RaftDecisions) -> Protocol {
    let staged: Vec<&'static Staged> = (1..=STAGES)
        .map(|stage| {
            &*Box::leak(Box::new(Staged {
                student,
                stage,
                name: staged_name(stage),
            }))
        })
        .collect();
    let registration = LabRegistration {
        inner: &RaftRegistration,
        settings: with_stage(RaftRegistration.settings()),
        stages: STAGES,
        rows: ROWS,
        extra,
        build: Box::new(move |settings, stage| {
            let decisions: &'static dyn RaftDecisions = staged[usize::from(stage) - 1];
            let config = RaftRegistration::config(settings)?.with_decisions(decisions);
            Ok(Box::new(RaftGroup::new(config)?))
        }),
        refused: &[("planted", "a lab's bugs are the student's own")],
    };
    Protocol::new(Box::leak(Box::new(registration)))
}

/// The row every stage grades, by 2,000 swarm schedules and by the model
/// checker (Raft's branching is wider than ISR's: every path of 4 steps,
/// 1 fault, 1 write, 1 read).
const ROW: Row = Row {
    ack: AckLevel::Quorum,
    read: ReadLevel::Linearizable,
    schedules: 2000,
    bounds: bounds(4, 1, 1, 1, 150_000),
};

/// The stages, in order.
pub(crate) fn stages() -> Vec<Stage> {
    let scenario = |file: &'static str, text: &'static str| Check::Scenario { file, text };
    let mut out = Vec::new();
    let mut stage = |number, title, reading, functions, checks: Vec<Check>| {
        out.push(Stage::new(number, title, reading, functions, checks, &ROW));
    };
    let mut one = units::stage1();
    one.push(scenario(
        "raft-1-elections.txt",
        include_str!("../../scenarios/raft/raft-1-elections.txt"),
    ));
    stage(
        1,
        "leader election",
        "Raft §5.2, §5.4.1",
        &["grants_vote", "wins_election"],
        one,
    );
    let mut two = units::stage2();
    two.push(scenario(
        "raft-2-replication.txt",
        include_str!("../../scenarios/raft/raft-2-replication.txt"),
    ));
    stage(
        2,
        "log replication and the commit rule (Figure 8)",
        "Raft §5.3, §5.4.2",
        &["continues_log", "commits"],
        two,
    );
    let mut three = units::stage3();
    three.push(scenario(
        "raft-3-read-index.txt",
        include_str!("../../scenarios/raft/raft-3-read-index.txt"),
    ));
    stage(
        3,
        "read-index reads",
        "Raft thesis §6.4",
        &["read_confirmed"],
        three,
    );
    let mut four = units::stage4();
    four.push(scenario(
        "raft-4-prevote.txt",
        include_str!("../../scenarios/raft/raft-4-prevote.txt"),
    ));
    stage(4, "PreVote", "Raft thesis §9.6", &["grants_pre_vote"], four);
    out
}
