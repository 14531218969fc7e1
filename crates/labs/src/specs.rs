//! The runs the experiment files hold, and how to compute a single one.

use std::fmt;
use std::sync::OnceLock;

use replication::GroupError;

use crate::experiments::{self, Part};
use crate::protocol::{BUILTIN, Protocol};
use crate::run::Run;

/// One experiment × protocol × variant that can be run on its own, without
/// computing the protocol's other runs: a part of an experiment's
/// scenario file (see [`crate::experiments`]).
#[derive(Debug, Clone, Copy)]
pub struct RunSpec {
    /// The protocol it drives.
    pub protocol: Protocol,
    /// Experiment number, 1–7.
    pub experiment: u8,
    /// The variant name, as in [`Run::variant`].
    pub variant: &'static str,
    part: Part,
}

impl RunSpec {
    /// Runs this experiment (a fresh group, the part's fixed seed, like
    /// every run).
    pub fn run(&self) -> Result<Run, GroupError> {
        self.part.run()
    }
}

/// Every run of `protocol` as a [`RunSpec`], in the order of
/// [`protocol_runs`](crate::protocol_runs): experiment order, then variant
/// order (the order of the parts in the experiment's file). Nothing is run.
/// Any registered protocol has runs: those of the parts that name it in
/// `protocols=` or name no protocols.
pub fn run_specs(protocol: Protocol) -> Vec<RunSpec> {
    static SPECS: OnceLock<Vec<Vec<RunSpec>>> = OnceLock::new();
    let specs = |p: Protocol| -> Vec<RunSpec> {
        experiments::parts(p)
            .into_iter()
            .map(|part| RunSpec {
                protocol: p,
                experiment: part.experiment,
                variant: part.variant,
                part,
            })
            .collect()
    };
    match BUILTIN.iter().position(|p| *p == protocol) {
        Some(column) => {
            SPECS.get_or_init(|| BUILTIN.into_iter().map(specs).collect())[column].clone()
        }
        None => specs(protocol),
    }
}

/// The variants experiment `experiment` has for `protocol`, in run order
/// (empty when there is no such experiment).
pub fn variants(protocol: Protocol, experiment: u8) -> Vec<&'static str> {
    run_specs(protocol)
        .iter()
        .filter(|spec| spec.experiment == experiment)
        .map(|spec| spec.variant)
        .collect()
}

/// Runs one experiment × protocol × variant and nothing else; with
/// `variant = None`, the experiment's first variant (its only one for most).
pub fn run_one(
    protocol: Protocol,
    experiment: u8,
    variant: Option<&str>,
) -> Result<Run, RunOneError> {
    let specs = run_specs(protocol);
    let spec = specs
        .iter()
        .filter(|spec| spec.experiment == experiment)
        .find(|spec| variant.is_none_or(|v| v == spec.variant))
        .ok_or_else(|| RunOneError::NoSuchRun {
            protocol,
            experiment,
            variant: variant.map(str::to_owned),
            available: variants(protocol, experiment),
        })?;
    spec.run().map_err(RunOneError::Failed)
}

/// Why [`run_one`] returned no run.
#[derive(Debug)]
pub enum RunOneError {
    /// The protocol has no such experiment, or the experiment no such variant.
    NoSuchRun {
        /// The protocol asked for.
        protocol: Protocol,
        /// The experiment asked for.
        experiment: u8,
        /// The variant asked for, if one was.
        variant: Option<String>,
        /// The variants the experiment has for this protocol (empty when
        /// the experiment does not exist).
        available: Vec<&'static str>,
    },
    /// The run itself failed.
    Failed(GroupError),
}

impl fmt::Display for RunOneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunOneError::NoSuchRun {
                protocol,
                experiment,
                variant,
                available,
            } => {
                if available.is_empty() {
                    write!(f, "{protocol} has no experiment {experiment}")
                } else {
                    write!(
                        f,
                        "experiment {experiment} of {protocol} has no variant {:?}; available: {}",
                        variant.as_deref().unwrap_or(""),
                        available.join(", ")
                    )
                }
            }
            RunOneError::Failed(e) => write!(f, "experiment failed: {e}"),
        }
    }
}

impl std::error::Error for RunOneError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RunOneError::NoSuchRun { .. } => None,
            RunOneError::Failed(e) => Some(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(name: &str) -> Protocol {
        crate::protocol(name).expect("a built-in protocol")
    }

    #[test]
    fn run_specs_list_the_runs_of_protocol_runs_in_the_same_order() {
        for protocol in BUILTIN {
            let runs = crate::protocol_runs(protocol).expect("every experiment runs");
            let listed: Vec<(u8, &str)> = runs.iter().map(|r| (r.experiment, r.variant)).collect();
            let specs: Vec<(u8, &str)> = run_specs(protocol)
                .iter()
                .map(|s| (s.experiment, s.variant))
                .collect();
            assert_eq!(listed, specs, "{protocol}");
            assert!(run_specs(protocol).iter().all(|s| s.protocol == protocol));
        }
    }

    #[test]
    fn run_one_gives_the_same_run_as_the_whole_column() {
        let all = crate::protocol_runs(p("wal")).expect("every experiment runs");
        let whole = all
            .iter()
            .find(|r| r.experiment == 4 && r.variant == "sync_standby")
            .expect("wal has experiment 4 sync_standby");
        let one = run_one(p("wal"), 4, Some("sync_standby")).expect("runs");
        assert_eq!(one.variant, "sync_standby");
        assert_eq!(one.cell(), whole.cell());
        assert_eq!(one.trace.to_jsonl(), whole.trace.to_jsonl());
    }

    #[test]
    fn a_runs_state_lines_asked_for_later_are_those_the_interpreter_records_for_its_part() {
        // The matrix records no state lines while it runs; `states()`
        // records them then, by running the part again. They must be the
        // lines the scenario interpreter records running the whole file.
        for protocol in BUILTIN {
            let registry = crate::protocol::registry_with(protocol);
            for file in crate::experiments::FILES {
                let s = scenario::parse(file.path, file.text, &registry).expect("parses");
                let (_, parts) = scenario::run_parts(&s, protocol, &registry);
                for part in parts {
                    let Some(variant) = part.variant.as_deref() else {
                        continue;
                    };
                    let run = run_one(protocol, file.number, Some(variant)).expect("runs");
                    let recorded = part.states.expect("the interpreter records them");
                    assert!(!recorded.is_empty(), "{protocol} {} {variant}", file.number);
                    assert_eq!(
                        run.states(),
                        &recorded,
                        "{protocol} {} {variant}",
                        file.number
                    );
                }
            }
        }
    }

    #[test]
    fn run_one_without_a_variant_runs_the_first() {
        let run = run_one(p("isr"), 1, None).expect("runs");
        assert_eq!((run.experiment, run.variant), (1, "leader"));
    }

    #[test]
    fn run_one_of_an_unknown_variant_names_the_available_ones() {
        let err = run_one(p("isr"), 1, Some("quorum")).expect_err("isr has no quorum");
        let message = err.to_string();
        assert!(message.contains("leader, all_isr"), "{message}");
        let err = run_one(p("raft"), 8, None).expect_err("no experiment 8");
        assert_eq!(err.to_string(), "raft has no experiment 8");
    }
}
