//! One experiment run, and how to compute a single one.

use std::fmt;

use replication::{AckLevel, GroupError};
use sim_core::Trace;

use crate::observed::Observed;
use crate::protocol::Protocol;
use crate::{async_lab, isr_lab, raft_lab, wal_lab};

/// The result of one experiment × protocol × variant run: every observed
/// value and the run's whole trace.
#[derive(Debug, Clone)]
pub struct Run {
    /// Experiment number, 1–7.
    pub experiment: u8,
    /// The protocol driven.
    pub protocol: Protocol,
    /// `default`, an ack level in snake case (`leader`, `quorum`,
    /// `all_isr`), or an experiment-4 extra (`sync_standby`, `min_insync_3`).
    pub variant: &'static str,
    /// What was observed.
    pub observed: Observed,
    /// The trace of the run (for experiments that build several groups,
    /// their traces concatenated in the order they ran, see the protocol
    /// module's docs).
    pub trace: Trace,
}

impl Run {
    /// Builds a run; the experiment number comes from the observation.
    pub fn new(protocol: Protocol, variant: &'static str, observed: Observed, trace: Trace) -> Run {
        Run {
            experiment: observed.experiment(),
            protocol,
            variant,
            observed,
            trace,
        }
    }

    /// The matrix cell text.
    pub fn cell(&self) -> String {
        self.observed.cell()
    }
}

/// One experiment × protocol × variant that can be run on its own, without
/// computing the protocol's other runs.
#[derive(Debug, Clone, Copy)]
pub struct RunSpec {
    /// The protocol it drives.
    pub protocol: Protocol,
    /// Experiment number, 1–7.
    pub experiment: u8,
    /// The variant name, as in [`Run::variant`].
    pub variant: &'static str,
    run: fn() -> Result<Run, GroupError>,
}

impl RunSpec {
    const fn new(
        protocol: Protocol,
        experiment: u8,
        variant: &'static str,
        run: fn() -> Result<Run, GroupError>,
    ) -> RunSpec {
        RunSpec {
            protocol,
            experiment,
            variant,
            run,
        }
    }

    /// Runs this experiment (fresh groups, fixed seeds, like every run).
    pub fn run(&self) -> Result<Run, GroupError> {
        (self.run)()
    }
}

const ASYNC: [RunSpec; 9] = [
    RunSpec::new(Protocol::Async, 1, "default", async_lab::exp1_normal),
    RunSpec::new(
        Protocol::Async,
        2,
        "default",
        async_lab::exp2_crash_after_ack,
    ),
    RunSpec::new(Protocol::Async, 2, "wait_1", async_lab::exp2_wait_1),
    RunSpec::new(Protocol::Async, 3, "default", async_lab::exp3_minority),
    RunSpec::new(
        Protocol::Async,
        3,
        "min_replicas_1",
        async_lab::exp3_min_replicas_1,
    ),
    RunSpec::new(Protocol::Async, 4, "default", async_lab::exp4_slow_replica),
    RunSpec::new(Protocol::Async, 5, "default", async_lab::exp5_reconnect),
    RunSpec::new(Protocol::Async, 6, "default", async_lab::exp6_read_levels),
    RunSpec::new(Protocol::Async, 7, "default", async_lab::exp7_split_brain),
];

const WAL: [RunSpec; 15] = [
    RunSpec::new(Protocol::Wal, 1, "leader", || {
        wal_lab::exp1_normal(AckLevel::Leader)
    }),
    RunSpec::new(Protocol::Wal, 1, "quorum", || {
        wal_lab::exp1_normal(AckLevel::Quorum)
    }),
    RunSpec::new(Protocol::Wal, 1, "apply_delay", || {
        wal_lab::exp1_replay_delay(proto_wal::SynchronousCommit::On)
    }),
    RunSpec::new(Protocol::Wal, 1, "remote_apply", || {
        wal_lab::exp1_replay_delay(proto_wal::SynchronousCommit::RemoteApply)
    }),
    RunSpec::new(Protocol::Wal, 2, "leader", || {
        wal_lab::exp2_crash_after_ack(AckLevel::Leader)
    }),
    RunSpec::new(Protocol::Wal, 2, "quorum", || {
        wal_lab::exp2_crash_after_ack(AckLevel::Quorum)
    }),
    RunSpec::new(
        Protocol::Wal,
        2,
        "remote_write",
        wal_lab::exp2_remote_write_standby_power_loss,
    ),
    RunSpec::new(Protocol::Wal, 3, "default", wal_lab::exp3_minority),
    RunSpec::new(Protocol::Wal, 4, "default", || {
        wal_lab::exp4_slow_replica(false)
    }),
    RunSpec::new(Protocol::Wal, 4, "sync_standby", || {
        wal_lab::exp4_slow_replica(true)
    }),
    RunSpec::new(Protocol::Wal, 4, "first_1", || {
        wal_lab::exp4_slow_sync_candidate(wal_lab::SlowCandidate::First1)
    }),
    RunSpec::new(Protocol::Wal, 4, "any_1", || {
        wal_lab::exp4_slow_sync_candidate(wal_lab::SlowCandidate::Any1)
    }),
    RunSpec::new(Protocol::Wal, 5, "default", wal_lab::exp5_reconnect),
    RunSpec::new(Protocol::Wal, 6, "default", wal_lab::exp6_read_levels),
    RunSpec::new(Protocol::Wal, 7, "default", wal_lab::exp7_split_brain),
];

const ISR: [RunSpec; 11] = [
    RunSpec::new(Protocol::Isr, 1, "leader", || {
        isr_lab::exp1_normal(AckLevel::Leader)
    }),
    RunSpec::new(Protocol::Isr, 1, "all_isr", || {
        isr_lab::exp1_normal(AckLevel::AllIsr)
    }),
    RunSpec::new(Protocol::Isr, 2, "leader", || {
        isr_lab::exp2_crash_after_ack(AckLevel::Leader)
    }),
    RunSpec::new(Protocol::Isr, 2, "all_isr", || {
        isr_lab::exp2_crash_after_ack(AckLevel::AllIsr)
    }),
    RunSpec::new(
        Protocol::Isr,
        2,
        "unclean_election",
        isr_lab::exp2_unclean_election,
    ),
    RunSpec::new(Protocol::Isr, 3, "default", isr_lab::exp3_minority),
    RunSpec::new(Protocol::Isr, 4, "default", || {
        isr_lab::exp4_slow(proto_isr::IsrConfig::default().min_insync_replicas)
    }),
    RunSpec::new(Protocol::Isr, 4, "min_insync_3", || isr_lab::exp4_slow(3)),
    RunSpec::new(Protocol::Isr, 5, "default", isr_lab::exp5_reconnect),
    RunSpec::new(Protocol::Isr, 6, "default", isr_lab::exp6_read_levels),
    RunSpec::new(Protocol::Isr, 7, "default", isr_lab::exp7_split_brain),
];

const RAFT: [RunSpec; 9] = [
    RunSpec::new(Protocol::Raft, 1, "default", raft_lab::exp1_normal),
    RunSpec::new(Protocol::Raft, 2, "default", raft_lab::exp2_crash_after_ack),
    RunSpec::new(Protocol::Raft, 3, "default", || {
        raft_lab::exp3_minority_leader(raft_lab::RaftVariant::Default)
    }),
    RunSpec::new(Protocol::Raft, 3, "prevote", || {
        raft_lab::exp3_minority_leader(raft_lab::RaftVariant::PreVote)
    }),
    RunSpec::new(Protocol::Raft, 4, "default", raft_lab::exp4_slow_replica),
    RunSpec::new(Protocol::Raft, 5, "default", raft_lab::exp5_reconnect),
    RunSpec::new(Protocol::Raft, 6, "default", raft_lab::exp6_read_levels),
    RunSpec::new(Protocol::Raft, 7, "default", || {
        raft_lab::exp7_split_brain(raft_lab::RaftVariant::Default)
    }),
    RunSpec::new(Protocol::Raft, 7, "check_quorum", || {
        raft_lab::exp7_split_brain(raft_lab::RaftVariant::CheckQuorum)
    }),
];

/// Every run of `protocol` as a [`RunSpec`], in the order of
/// [`protocol_runs`](crate::protocol_runs): experiment order, then variant
/// order. Nothing is run.
pub fn run_specs(protocol: Protocol) -> &'static [RunSpec] {
    match protocol {
        Protocol::Async => &ASYNC,
        Protocol::Wal => &WAL,
        Protocol::Isr => &ISR,
        Protocol::Raft => &RAFT,
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
    let spec = run_specs(protocol)
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

    #[test]
    fn run_specs_list_the_runs_of_protocol_runs_in_the_same_order() {
        for protocol in Protocol::ALL {
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
        let all = crate::protocol_runs(Protocol::Wal).expect("every experiment runs");
        let whole = all
            .iter()
            .find(|r| r.experiment == 4 && r.variant == "sync_standby")
            .expect("wal has experiment 4 sync_standby");
        let one = run_one(Protocol::Wal, 4, Some("sync_standby")).expect("runs");
        assert_eq!(one.variant, "sync_standby");
        assert_eq!(one.cell(), whole.cell());
        assert_eq!(one.trace.to_jsonl(), whole.trace.to_jsonl());
    }

    #[test]
    fn run_one_without_a_variant_runs_the_first() {
        let run = run_one(Protocol::Isr, 1, None).expect("runs");
        assert_eq!((run.experiment, run.variant), (1, "leader"));
    }

    #[test]
    fn run_one_of_an_unknown_variant_names_the_available_ones() {
        let err = run_one(Protocol::Isr, 1, Some("quorum")).expect_err("isr has no quorum");
        let message = err.to_string();
        assert!(message.contains("leader, all_isr"), "{message}");
        let err = run_one(Protocol::Raft, 8, None).expect_err("no experiment 8");
        assert_eq!(err.to_string(), "raft has no experiment 8");
    }
}
