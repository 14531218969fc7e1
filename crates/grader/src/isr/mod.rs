//! The ISR lab: the chapter's rules ([`proto_isr::decisions`]) rebuilt
//! in five stages, following the chapter's learning objectives in order.

mod staged;
mod units;

use explore::Property;
use proto_isr::decisions::IsrDecisions;
use proto_isr::{IsrGroup, IsrRegistration};
use replication::{AckLevel, Protocol, ReadLevel, Registration};

use crate::registration::{LabRegistration, staged_name, with_stage};
use crate::stage::{Check, Expect, Row, Stage, bounds};
use staged::Staged;

/// The lab's stages.
pub(crate) const STAGES: u8 = 5;

/// The rows graded at every stage: the chapter's strong row, and `LEADER`
/// acknowledgement read at the leader (whose lost writes the chapter
/// teaches).
const ROWS: &[(AckLevel, ReadLevel)] = &[
    (AckLevel::AllIsr, ReadLevel::Linearizable),
    (AckLevel::Leader, ReadLevel::Leader),
];

/// The ISR protocol deciding by `student`'s rules, staged by each group's
/// `stage` setting.
pub(crate) fn protocol(student: &'static dyn IsrDecisions) -> Protocol {
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
        inner: &IsrRegistration,
        settings: with_stage(IsrRegistration.settings()),
        stages: STAGES,
        rows: ROWS,
        extra: |_| &[],
        build: Box::new(move |settings, stage| {
            let decisions: &'static dyn IsrDecisions = staged[usize::from(stage) - 1];
            let config = IsrRegistration::config(settings)?.with_decisions(decisions);
            Ok(Box::new(IsrGroup::new(config)?))
        }),
        refused: &[
            (
                "mode",
                "the lab rebuilds the chapter's data plane; `mode=fetch` runs Kafka's fetch protocol, which keeps its own rules",
            ),
            ("planted", "a lab's bugs are the student's own"),
        ],
    };
    Protocol::new(Box::leak(Box::new(registration)))
}

/// The row every stage grades: the chapter's strong row, by 2,000 swarm
/// schedules and by the model checker over every path of 5 steps (2
/// faults, 2 writes, 1 read), stopped at 150,000 distinct states.
const ROW: Row = Row {
    ack: AckLevel::AllIsr,
    read: ReadLevel::Linearizable,
    schedules: 2000,
    bounds: bounds(5, 2, 2, 1, 150_000),
};

/// The stages, in the chapter's order.
pub(crate) fn stages() -> Vec<Stage> {
    let scenario = |file: &'static str, text: &'static str| Check::Scenario { file, text };
    let mut out = Vec::new();
    let mut stage = |number, title, reading, functions, checks: Vec<Check>| {
        out.push(Stage::new(number, title, reading, functions, checks, &ROW));
    };
    let mut one = units::stage1();
    one.push(scenario(
        "isr-1-acknowledgement.txt",
        include_str!("../../scenarios/isr/isr-1-acknowledgement.txt"),
    ));
    one.push(Check::Model {
        ack: AckLevel::Leader,
        read: ReadLevel::Leader,
        bounds: bounds(2, 1, 1, 0, 10_000),
        expect: Expect::Violated(
            Property::Durable,
            "a LEADER write is acknowledged at append, so a leader crash right after loses it",
        ),
    });
    stage(
        1,
        "the log, and LEADER vs ALL_ISR acknowledgement",
        "chapter 10 §1–§2",
        &["acknowledged"],
        one,
    );
    let mut two = units::stage2();
    two.push(scenario(
        "isr-2-high-watermark.txt",
        include_str!("../../scenarios/isr/isr-2-high-watermark.txt"),
    ));
    stage(
        2,
        "the high watermark, and committed vs local data on reads",
        "chapter 10 §2, §6",
        &["high_watermark", "reads_committed"],
        two,
    );
    let mut three = units::stage3();
    three.push(scenario(
        "isr-3-shrink-and-rejoin.txt",
        include_str!("../../scenarios/isr/isr-3-shrink-and-rejoin.txt"),
    ));
    three.push(scenario(
        "isr-3-min-insync.txt",
        include_str!("../../scenarios/isr/isr-3-min-insync.txt"),
    ));
    stage(
        3,
        "ISR shrink on lag, rejoin after catch-up, min.insync.replicas admission",
        "chapter 10 §3–§4, §7, §9",
        &["caught_up", "lagging", "admits"],
        three,
    );
    let mut four = units::stage4();
    four.push(scenario(
        "isr-4-election-and-fencing.txt",
        include_str!("../../scenarios/isr/isr-4-election-and-fencing.txt"),
    ));
    stage(
        4,
        "controller election, leader-epoch fencing, clean-prefix truncation",
        "chapter 10 §5",
        &["electable", "accepts_packet", "continues_log"],
        four,
    );
    let mut five = units::stage5();
    five.push(scenario(
        "isr-5-lease-reads.txt",
        include_str!("../../scenarios/isr/isr-5-lease-reads.txt"),
    ));
    stage(
        5,
        "lease reads",
        "chapter 10 §6, §8",
        &["renews_lease", "lease_live"],
        five,
    );
    out
}
