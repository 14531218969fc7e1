//! `cargo xtask lab`: staged labs. `start` writes a student's crate,
//! `grade` grades one (in its own binary, which serves this command line
//! on the student's protocol), `stages` lists a lab's stages, and
//! `calibrate` runs the grader's controls: the laboratory's own rules pass
//! every stage, the untouched skeleton fails stage 1, and each classic
//! mistake fails its stage with a counterexample.

use std::fmt::Write as _;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use grader::{Lab, Outcome, Stage, StageReport, Student};

use crate::output::{self, Failure};

/// `cargo xtask lab`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: LabCommand,
}

/// A lab, by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LabArg {
    /// The ISR chapter's rules (5 stages).
    Isr,
    /// Raft's rules (4 stages).
    Raft,
}

impl LabArg {
    fn lab(self) -> Lab {
        match self {
            LabArg::Isr => Lab::Isr,
            LabArg::Raft => Lab::Raft,
        }
    }
}

#[derive(clap::Subcommand)]
enum LabCommand {
    /// Write a student's crate for LAB into DIR (a new directory).
    Start {
        /// The lab.
        #[arg(value_enum)]
        lab: LabArg,
        /// Where (created; must not exist, or be empty).
        dir: PathBuf,
    },
    /// Grade a student's crate in DIR — or, run from a lab crate's own
    /// binary, that crate: every stage in order, stopping at the first
    /// that fails, or one stage.
    Grade {
        /// The student's crate (omitted inside a lab crate's binary).
        dir: Option<PathBuf>,
        /// Only this stage.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(1..=9))]
        stage: Option<u8>,
    },
    /// List a lab's stages: what each builds, where to read, what it grades.
    Stages {
        /// The lab.
        #[arg(value_enum)]
        lab: LabArg,
    },
    /// The grader's controls: the reference passes every stage, the
    /// untouched skeleton fails stage 1, each classic mistake fails its
    /// stage with a counterexample (optimized, unwinding build).
    Calibrate {
        /// Only this lab.
        #[arg(long, value_enum)]
        lab: Option<LabArg>,
    },
}

/// `lab`.
pub fn command(args: Args) -> Result<ExitCode, Failure> {
    match args.command {
        LabCommand::Start { lab, dir } => start(lab.lab(), &dir),
        LabCommand::Grade {
            dir: Some(dir),
            stage,
        } => grade_crate(&dir, stage),
        LabCommand::Grade { dir: None, stage } => match grader::installed() {
            Some(student) => grade_here(student, stage),
            None => Err(Failure::Failed(
                "`lab grade` needs the lab crate's directory (`cargo xtask lab grade DIR`), \
                 or runs inside a lab crate (`cargo run --release -- lab grade`)"
                    .into(),
            )),
        },
        LabCommand::Stages { lab } => {
            output::print(&stages_text(lab.lab()))?;
            Ok(ExitCode::SUCCESS)
        }
        LabCommand::Calibrate { lab } => {
            if let Some(code) = crate::optimized::reexec_in("lab calibrate", &[], true)? {
                return Ok(code);
            }
            calibrate(lab.map(LabArg::lab))
        }
    }
}

/// The laboratory's checkout (this crate's parent).
fn workspace() -> PathBuf {
    let xtask = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    xtask.parent().map_or(xtask.clone(), Path::to_path_buf)
}

fn start(lab: Lab, dir: &Path) -> Result<ExitCode, Failure> {
    let dir = std::path::absolute(dir)
        .map_err(|e| Failure::Failed(format!("cannot resolve {}: {e}", dir.display())))?;
    let written = grader::start(lab, &dir, &workspace()).map_err(Failure::Failed)?;
    let mut out = format!(
        "wrote the {} lab's crate in {} ({} files)\n",
        lab.name(),
        dir.display(),
        written.len()
    );
    let _ = writeln!(
        out,
        "next: write stage 1 in {}/src/lib.rs, then\n  cargo xtask lab grade {} --stage 1\n\
         or, in that directory: cargo run --release -- lab grade --stage 1",
        dir.display(),
        dir.display()
    );
    output::print(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// Grades the crate in `dir` by running its own binary.
fn grade_crate(dir: &Path, stage: Option<u8>) -> Result<ExitCode, Failure> {
    if !dir.join("Cargo.toml").is_file() {
        return Err(Failure::Failed(format!(
            "{} has no Cargo.toml: make a lab crate with `cargo xtask lab start isr|raft DIR`",
            dir.display()
        )));
    }
    let mut args = vec!["run", "--release", "--quiet", "--", "lab", "grade"];
    let n = stage.map(|n| n.to_string());
    if let Some(n) = &n {
        args.extend(["--stage", n.as_str()]);
    }
    output::note(&format!(
        "lab grade: cargo {} (in {})",
        args.join(" "),
        dir.display()
    ));
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(&args)
        .current_dir(dir)
        .env_remove("CARGO_TARGET_DIR")
        .status()
        .map_err(|e| Failure::Failed(format!("cannot run cargo: {e}")))?;
    Ok(match status.code() {
        Some(0) => ExitCode::SUCCESS,
        Some(2) => ExitCode::from(2),
        _ => ExitCode::FAILURE,
    })
}

/// Grades the installed student: one stage, or every stage in order up
/// to the first that fails.
fn grade_here(student: Student, stage: Option<u8>) -> Result<ExitCode, Failure> {
    let lab = student.lab();
    let stages = lab.stages();
    let chosen: Vec<&Stage> = match stage {
        Some(n) => vec![stages.iter().find(|s| s.number == n).ok_or_else(|| {
            Failure::Failed(format!(
                "the {} lab has stages 1 to {}",
                lab.name(),
                stages.len()
            ))
        })?],
        None => stages.iter().collect(),
    };
    let terminal = std::io::stderr().is_terminal();
    let mut all_passed = true;
    for s in chosen {
        output::print(&stage_header(lab, s))?;
        let report = grader::grade_with(student, s, &|name| {
            if terminal {
                output::note(&format!("  ..    {name}"));
            }
        });
        output::print(&report.render())?;
        if !report.passed() {
            all_passed = false;
            if stage.is_none() {
                output::print(&format!(
                    "stopped at stage {}: fix it, then `lab grade` again\n",
                    s.number
                ))?;
            }
            break;
        }
    }
    Ok(if all_passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn stage_header(lab: Lab, s: &Stage) -> String {
    format!(
        "{} lab, stage {}: {} ({})\n  you write: {}\n",
        lab.name(),
        s.number,
        s.title,
        s.reading,
        s.functions.join(", ")
    )
}

fn stages_text(lab: Lab) -> String {
    let mut out = String::new();
    for s in lab.stages() {
        out.push_str(&stage_header(lab, &s));
        for check in &s.checks {
            let _ = writeln!(out, "    - {}", check.name());
        }
    }
    out
}

/// One control's line: what was expected, what happened.
fn control(out: &mut String, lab: Lab, name: &str, expected: &str, got: &str, right: bool) {
    let _ = writeln!(
        out,
        "{:<5} {:<26} {:<28} {} {}",
        lab.name(),
        name,
        expected,
        if right { "ok  " } else { "WRONG" },
        got
    );
}

/// The stage a report failed, summarised: how many checks failed, the
/// runs (scenario files, the explorer, the model checker) that show it
/// with a counterexample, and the first failure's first line.
fn failure_words(report: &StageReport) -> (String, bool) {
    let failed: Vec<&str> = report
        .checks
        .iter()
        .filter(|(_, o)| matches!(o, Outcome::Failed(_)))
        .map(|(name, _)| name.as_str())
        .collect();
    let runs: Vec<&str> = ["scenario", "explorer", "model checker"]
        .into_iter()
        .filter(|kind| failed.iter().any(|n| n.starts_with(kind)))
        .collect();
    let first = report
        .first_failure()
        .map(|(_, why)| why.lines().next().unwrap_or("").to_owned())
        .unwrap_or_default();
    (
        format!(
            "failed {} of {} checks ({}); first: {first}",
            failed.len(),
            report.checks.len(),
            if runs.is_empty() {
                "unit checks only".to_owned()
            } else {
                format!("shown by: {}", runs.join(", "))
            }
        ),
        !runs.is_empty(),
    )
}

fn calibrate(only: Option<Lab>) -> Result<ExitCode, Failure> {
    let mut out = String::new();
    let mut wrong = 0;
    for lab in Lab::ALL
        .into_iter()
        .filter(|l| only.is_none_or(|o| o == *l))
    {
        let stages = lab.stages();
        let reference = match lab {
            Lab::Isr => Student::Isr(&proto_isr::decisions::Reference),
            Lab::Raft => Student::Raft(&proto_raft::decisions::Reference),
        };
        for s in &stages {
            let report = grader::grade(reference, s);
            let right = report.passed();
            wrong += usize::from(!right);
            let got = if right {
                "passed".to_owned()
            } else {
                failure_words(&report).0
            };
            control(
                &mut out,
                lab,
                "reference",
                &format!("passes stage {}", s.number),
                &got,
                right,
            );
            if !right {
                out.push_str(&report.render());
            }
        }
        let skeleton = grader::skeleton_student(lab);
        let report = grader::grade(skeleton, &stages[0]);
        let explained = report
            .first_failure()
            .is_some_and(|(_, why)| why.starts_with("not written yet"));
        let right = !report.passed() && explained;
        wrong += usize::from(!right);
        let got = report
            .first_failure()
            .map_or("passed".to_owned(), |(_, why)| why.to_owned());
        control(
            &mut out,
            lab,
            "untouched skeleton",
            "fails stage 1, clearly",
            &got,
            right,
        );
        for mistake in grader::mistakes::ALL.iter().filter(|m| m.lab() == lab) {
            let Some(s) = stages.iter().find(|s| s.number == mistake.stage) else {
                continue;
            };
            let report = grader::grade(mistake.student(), s);
            let (words, by_run) = failure_words(&report);
            let right = !report.passed() && by_run;
            wrong += usize::from(!right);
            control(
                &mut out,
                lab,
                mistake.name,
                &format!("fails stage {} by a run", mistake.stage),
                if report.passed() { "passed" } else { &words },
                right,
            );
        }
    }
    let _ = writeln!(
        out,
        "{}",
        if wrong == 0 {
            "every control as expected".to_owned()
        } else {
            format!("{wrong} control(s) not as expected")
        }
    );
    output::print(&out)?;
    Ok(if wrong == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
