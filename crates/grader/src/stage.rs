//! A lab's stage and the checks that grade it.

use explore::Property;
use explore::model::{Bounds, StateView};
use replication::{AckLevel, ReadLevel};

use crate::lab::Student;

/// One stage of a lab: what to build, where the chapter explains it, and
/// the checks that grade it.
pub struct Stage {
    /// 1-based.
    pub number: u8,
    /// What the stage builds (`the log and acknowledgement`).
    pub title: &'static str,
    /// The chapter or paper section that explains it.
    pub reading: &'static str,
    /// The decision functions the student writes in this stage.
    pub functions: &'static [&'static str],
    /// The checks, in the order they run (cheapest first).
    pub checks: Vec<Check>,
}

/// A unit check: calls the student's functions directly; `Err` says what
/// was answered and what the chapter asks for.
pub type UnitFn = Box<dyn Fn(Student) -> Result<(), String> + Send + Sync>;

/// One check of a stage.
pub enum Check {
    /// A unit check of the stage's functions.
    Unit {
        /// What it checks, as a sentence.
        name: &'static str,
        /// The check.
        run: UnitFn,
    },
    /// A scenario file run on the student's protocol: every directive's
    /// output must be the one the file expects.
    Scenario {
        /// The file's name (as `lab start` writes it under `scenarios/`).
        file: &'static str,
        /// Its text.
        text: &'static str,
    },
    /// The explorer's random sweep of one row.
    Sweep {
        /// The row's ack level.
        ack: AckLevel,
        /// The row's read level.
        read: ReadLevel,
        /// Schedules from seed 0.
        schedules: u64,
        /// What the row must show.
        expect: Expect,
    },
    /// The model checker on one row.
    Model {
        /// The row's ack level.
        ack: AckLevel,
        /// The row's read level.
        read: ReadLevel,
        /// Its bounds.
        bounds: Bounds,
        /// What the row must show.
        expect: Expect,
    },
}

/// What a row must show.
#[derive(Debug, Clone, Copy)]
pub enum Expect {
    /// Every property holds.
    AllHold,
    /// This property is violated — a hazard the chapter teaches (a
    /// `LEADER` acknowledgement loses a write when the leader crashes):
    /// a protocol that never shows it does not follow the chapter.
    Violated(Property, &'static str),
}

impl Check {
    /// The check's one-line name.
    #[must_use]
    pub fn name(&self) -> String {
        match self {
            Check::Unit { name, .. } => (*name).to_owned(),
            Check::Scenario { file, .. } => format!("scenario {file}"),
            Check::Sweep {
                ack,
                read,
                schedules,
                expect,
            } => format!(
                "explorer at {}/{}, {schedules} schedules: {}",
                ack.name(),
                read.name(),
                expect.words()
            ),
            Check::Model {
                ack,
                read,
                bounds,
                expect,
            } => format!(
                "model checker at {}/{}, every path of {} steps ({} faults, {} writes, {} reads): {}",
                ack.name(),
                read.name(),
                bounds.depth,
                bounds.faults,
                bounds.writes,
                bounds.reads,
                expect.words()
            ),
        }
    }
}

impl Expect {
    fn words(self) -> String {
        match self {
            Expect::AllHold => "every property holds".to_owned(),
            Expect::Violated(p, _) => format!("{} is violated, as the chapter teaches", p.name()),
        }
    }
}

/// A model-checker bound for grading: breadth-first, deduplicated, both
/// cores.
#[must_use]
pub const fn bounds(depth: u16, faults: u8, writes: u8, reads: u8, max_states: u64) -> Bounds {
    Bounds {
        depth,
        faults,
        writes,
        reads,
        pinned_reads: false,
        max_states,
        jobs: 2,
        dedup: true,
        view: StateView::Complete,
    }
}

/// The row a lab grades at every stage, by sweep and by model checker.
pub(crate) struct Row {
    pub(crate) ack: AckLevel,
    pub(crate) read: ReadLevel,
    pub(crate) schedules: u64,
    pub(crate) bounds: Bounds,
}

impl Stage {
    /// Stage `number` with `checks`, then `row`'s sweep and model check
    /// (every property holds).
    pub(crate) fn new(
        number: u8,
        title: &'static str,
        reading: &'static str,
        functions: &'static [&'static str],
        mut checks: Vec<Check>,
        row: &Row,
    ) -> Stage {
        checks.push(Check::Sweep {
            ack: row.ack,
            read: row.read,
            schedules: row.schedules,
            expect: Expect::AllHold,
        });
        checks.push(Check::Model {
            ack: row.ack,
            read: row.read,
            bounds: row.bounds,
            expect: Expect::AllHold,
        });
        Stage {
            number,
            title,
            reading,
            functions,
            checks,
        }
    }
}

/// `Ok` when `call` answered `want`; else what it answered and why the
/// chapter or paper asks for `want` (a unit check's verdict).
pub(crate) fn expect<T: PartialEq + std::fmt::Debug>(
    call: &str,
    got: T,
    want: T,
    why: &str,
) -> Result<(), String> {
    if got == want {
        Ok(())
    } else {
        Err(format!("{call} answered {got:?}, expected {want:?}: {why}"))
    }
}
