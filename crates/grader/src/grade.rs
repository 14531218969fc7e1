//! Grading a stage: its checks run against a student's protocol, each
//! passed or failed — a failure with what was expected, the minimal
//! counterexample, and the commands that replay, draw and open it.

use std::fmt::Write as _;

use explore::model::ModelVerdict;
use explore::{Configuration, Property, Status, SweepOptions, Verdict};
use replication::{AckLevel, ReadLevel, Registry};

use crate::lab::Student;
use crate::registration::stage_setting;
use crate::stage::{Check, Expect, Stage};
use crate::unfinished::explain;

/// How one check ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// It passed.
    Passed,
    /// It failed: why, in lines (the counterexample, the commands).
    Failed(String),
    /// Not run, and why (a unit check failed first).
    Skipped(&'static str),
}

/// A graded stage.
#[derive(Debug, Clone)]
pub struct StageReport {
    /// The stage's number.
    pub stage: u8,
    /// Its title.
    pub title: &'static str,
    /// Each check's name and outcome, in order.
    pub checks: Vec<(String, Outcome)>,
}

impl StageReport {
    /// True when every check passed.
    #[must_use]
    pub fn passed(&self) -> bool {
        self.checks.iter().all(|(_, o)| *o == Outcome::Passed)
    }

    /// The first failure's explanation, if any.
    #[must_use]
    pub fn first_failure(&self) -> Option<(&str, &str)> {
        self.checks.iter().find_map(|(name, o)| match o {
            Outcome::Failed(why) => Some((name.as_str(), why.as_str())),
            _ => None,
        })
    }

    /// The report as the terminal shows it.
    #[must_use]
    pub fn render(&self) -> String {
        let mut out = String::new();
        for (name, outcome) in &self.checks {
            match outcome {
                Outcome::Passed => {
                    let _ = writeln!(out, "  ok    {name}");
                }
                Outcome::Failed(why) => {
                    let _ = writeln!(out, "  FAIL  {name}");
                    for line in why.lines() {
                        let _ = writeln!(out, "          {line}");
                    }
                }
                Outcome::Skipped(why) => {
                    let _ = writeln!(out, "  skip  {name} ({why})");
                }
            }
        }
        let passed = self
            .checks
            .iter()
            .filter(|(_, o)| *o == Outcome::Passed)
            .count();
        let _ = writeln!(
            out,
            "stage {}: {} — {passed} of {} checks passed",
            self.stage,
            if self.passed() { "PASSED" } else { "FAILED" },
            self.checks.len()
        );
        out
    }
}

/// Grades stage `stage` of `student`'s lab: unit checks first, then the
/// scenario files and the explorer's and model checker's rows — skipped
/// only when a unit check met a function not written yet (a `todo!()`
/// fails every run the same way); a wrong answer still gets its
/// counterexample.
pub fn grade(student: Student, stage: &Stage) -> StageReport {
    grade_with(student, stage, &|_| {})
}

/// [`grade`], calling `progress` with each check's name before it runs.
pub fn grade_with(student: Student, stage: &Stage, progress: &dyn Fn(&str)) -> StageReport {
    let registry = crate::install::registry(student);
    let configs = labs::explore_configs_in(&registry);
    let mut checks = Vec::new();
    let mut unfinished = false;
    for check in &stage.checks {
        let name = check.name();
        if unfinished && !matches!(check, Check::Unit { .. }) {
            checks.push((name, Outcome::Skipped("a function is not written yet")));
            continue;
        }
        progress(&name);
        let outcome = match check {
            Check::Unit { run, .. } => match explore::catch_panic(|| run(student)) {
                Ok(Ok(())) => Outcome::Passed,
                Ok(Err(why)) => Outcome::Failed(why),
                Err(panic) => {
                    unfinished = true;
                    Outcome::Failed(explain(&panic))
                }
            },
            Check::Scenario { file, text } => scenario(&registry, file, text),
            Check::Sweep {
                ack,
                read,
                schedules,
                expect,
            } => row(&configs, student, *ack, *read, stage.number)
                .map_or_else(Outcome::Failed, |config| sweep(config, *schedules, *expect)),
            Check::Model {
                ack,
                read,
                bounds,
                expect,
            } => row(&configs, student, *ack, *read, stage.number).map_or_else(
                Outcome::Failed,
                |config| match explore::model::check(config, bounds, &|_, _| {}) {
                    Ok(verdict) => model(&verdict, *expect),
                    Err(e) => Outcome::Failed(format!("the model checker could not run: {e}")),
                },
            ),
        };
        checks.push((name, outcome));
    }
    StageReport {
        stage: stage.number,
        title: stage.title,
        checks,
    }
}

/// The explorer configuration of a stage's row.
fn row(
    configs: &[Configuration],
    student: Student,
    ack: AckLevel,
    read: ReadLevel,
    stage: u8,
) -> Result<&Configuration, String> {
    let key = format!(
        "{}.{}.{}.{}",
        student.lab().name(),
        ack.snake(),
        explore::read_snake(read),
        stage_setting(stage)
    );
    configs
        .iter()
        .find(|c| c.key() == key)
        .ok_or_else(|| format!("no row {key} (a grader bug)"))
}

/// A scenario file run on the student's protocol.
fn scenario(registry: &Registry, file: &str, text: &str) -> Outcome {
    let parsed = match scenario::parse(file, text, registry) {
        Ok(parsed) => parsed,
        Err(e) => return Outcome::Failed(format!("the file does not parse: {e}")),
    };
    let ran = explore::catch_panic(|| {
        let outputs = scenario::run_protocols(&parsed, registry.protocols(), registry);
        scenario::differences(&parsed, &outputs)
    });
    match ran {
        Err(panic) => Outcome::Failed(explain(&panic)),
        Ok(differences) if differences.is_empty() => Outcome::Passed,
        Ok(differences) => {
            let mut why = format!(
                "{} of its outputs differ (- expected, + your protocol); the first:\n",
                differences.len()
            );
            why.push_str(differences[0].to_string().trim_end());
            let _ = write!(why, "\nrun it: {} run scenarios/{file}", explore::command());
            Outcome::Failed(why)
        }
    }
}

/// The commands that replay, draw and open a counterexample.
fn commands(replay: &str, debuggable: bool) -> String {
    let command = explore::command();
    let mut out = format!(
        "replay:  {command} explore --replay {replay}\ndiagram: {command} explore --replay {replay} --diagram counterexample.svg"
    );
    if debuggable {
        let _ = write!(out, "\ndebug:   {command} debug --replay {replay}");
    }
    out
}

/// A reason in a student's words: a `todo!()` the run reached (the
/// explorer's "the protocol panicked at FILE:LINE: not yet implemented…")
/// named as such.
fn reason(text: &str) -> String {
    match text.split_once("panicked at ") {
        Some((_, panic)) if panic.contains("not yet implemented") => explain(panic),
        _ => text.to_owned(),
    }
}

/// The explorer's sweep of one row, judged against `expect`.
fn sweep(config: &Configuration, schedules: u64, expect: Expect) -> Outcome {
    let options = SweepOptions {
        schedules,
        jobs: 2,
        ..SweepOptions::default()
    };
    let verdicts: Vec<Verdict> = match explore::sweep(config, &options) {
        Ok(v) => v,
        Err(e) => return Outcome::Failed(format!("the explorer could not run: {e}")),
    };
    let violated = |v: &Verdict| v.status == Status::Violated;
    match expect {
        Expect::AllHold => match verdicts.iter().find(|v| violated(v)) {
            None => Outcome::Passed,
            Some(v) => {
                let mut why = format!(
                    "{} violated in {} of {} schedules",
                    v.property.name(),
                    v.violations,
                    v.schedules
                );
                if let Some(cx) = &v.counterexample {
                    let _ = write!(
                        why,
                        "; the shortest of those shrunk, {} steps:\n{}\n{}",
                        cx.steps,
                        reason(&cx.reason),
                        commands(&cx.replay.to_string(), false)
                    );
                }
                Outcome::Failed(why)
            }
        },
        Expect::Violated(property, lesson) => {
            if verdicts
                .iter()
                .any(|v| v.property == property && violated(v))
            {
                Outcome::Passed
            } else {
                Outcome::Failed(format!(
                    "{} held over {schedules} schedules, but {lesson}",
                    property.name()
                ))
            }
        }
    }
}

/// The model checker's verdict of one row, judged against `expect`.
fn model(verdict: &ModelVerdict, expect: Expect) -> Outcome {
    let status = |p: Property| {
        verdict
            .properties
            .iter()
            .find(|(q, _, _)| *q == p)
            .map(|(_, s, f)| (*s, f.as_ref()))
    };
    match expect {
        Expect::AllHold => {
            match verdict
                .properties
                .iter()
                .find(|(_, s, _)| *s == Status::Violated)
            {
                None => Outcome::Passed,
                Some((p, _, finding)) => {
                    let mut why = format!("{} violated", p.name());
                    if let Some(f) = finding {
                        let steps: Vec<String> = f.path.iter().map(ToString::to_string).collect();
                        let path = if steps.is_empty() {
                            " at the start, before any step".to_owned()
                        } else {
                            format!(
                                " by a shortest path of {} steps: {}",
                                steps.len(),
                                steps.join("; ")
                            )
                        };
                        let _ = write!(
                            why,
                            "{path}\n{}\n{}",
                            reason(&f.reason),
                            commands(&f.replay.to_string(), true)
                        );
                    }
                    Outcome::Failed(why)
                }
            }
        }
        Expect::Violated(property, lesson) => match status(property) {
            Some((Status::Violated, _)) => Outcome::Passed,
            _ => Outcome::Failed(format!(
                "{} held in {} ({}), but {lesson}",
                property.name(),
                verdict.bound_text(),
                judged_words(property)
            )),
        },
    }
}

/// What a property means, for a failure that says it held.
fn judged_words(property: Property) -> &'static str {
    match property {
        Property::Durable => "every acknowledged write survived",
        Property::Linearizable => "every history was linearizable",
        Property::Invariants => "every invariant held",
        Property::Recovers => "the group always recovered",
        Property::Available => "writes and reads always completed",
    }
}

#[cfg(test)]
mod tests {
    use super::reason;

    #[test]
    fn a_todo_a_run_reached_reads_as_not_written_yet_and_other_reasons_stay() {
        assert_eq!(
            reason("the protocol panicked at src/lib.rs:61: not yet implemented: stage 2: commits"),
            "not written yet: the `todo!()` at src/lib.rs:61 panicked"
        );
        let other = "the protocol panicked at src/lib.rs:9: index out of bounds";
        assert_eq!(reason(other), other);
        assert_eq!(reason("k0=v1 is lost"), "k0=v1 is lost");
    }
}
