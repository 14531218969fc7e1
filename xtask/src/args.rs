//! The closed sets of values the command line accepts, as clap
//! [`ValueEnum`]s so `--help` lists them and anything else is a usage error.

use clap::ValueEnum;
use labs::Protocol;

/// A protocol, by its registered name (`labs::registry()`): the CLI name
/// is the registration's, so a new protocol's name is accepted once it is
/// registered.
pub type ProtocolArg = Protocol;

/// Parses a protocol name into the built-in [`Protocol`]; `--help` lists
/// every registered name with its summary.
pub fn protocol_parser() -> impl clap::builder::TypedValueParser<Value = Protocol> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    let values = labs::registry()
        .protocols()
        .iter()
        .map(|p| PossibleValue::new(p.name()).help(p.registration().summary()))
        .collect::<Vec<_>>();
    PossibleValuesParser::new(values)
        .map(|name: String| labs::protocol(&name).expect("clap accepts only registered names"))
}

/// An experiment, by number (titles as in `labs::matrix::EXPERIMENTS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExperimentArg {
    /// normal replication
    #[value(name = "1")]
    Normal,
    /// crash leader right after ack
    #[value(name = "2")]
    CrashAfterAck,
    /// old leader in a minority
    #[value(name = "3")]
    Minority,
    /// one slow replica
    #[value(name = "4")]
    SlowReplica,
    /// reconnect inside / outside retention
    #[value(name = "5")]
    Reconnect,
    /// read levels LOCAL / LEADER / LINEARIZABLE
    #[value(name = "6")]
    ReadLevels,
    /// split-brain read and authority guard
    #[value(name = "7")]
    SplitBrain,
}

impl ExperimentArg {
    /// The experiment number, 1–7.
    pub fn number(self) -> u8 {
        match self {
            ExperimentArg::Normal => 1,
            ExperimentArg::CrashAfterAck => 2,
            ExperimentArg::Minority => 3,
            ExperimentArg::SlowReplica => 4,
            ExperimentArg::Reconnect => 5,
            ExperimentArg::ReadLevels => 6,
            ExperimentArg::SplitBrain => 7,
        }
    }
}

/// A run's variant: an ack level, or an experiment-4 setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum VariantArg {
    /// the experiment's only or usual setting
    Default,
    /// acknowledged by the leader alone
    Leader,
    /// acknowledged by a synchronous standby too (wal)
    Quorum,
    /// acknowledged by every in-sync replica (isr)
    #[value(name = "all_isr")]
    AllIsr,
    /// experiment 4 with the slow standby synchronous (wal)
    #[value(name = "sync_standby")]
    SyncStandby,
    /// experiment 4 with min.insync.replicas = 3 (isr)
    #[value(name = "min_insync_3")]
    MinInsync3,
    /// experiment 2 with every LEADER write followed by WAIT 1 (async)
    #[value(name = "wait_1")]
    Wait1,
    /// experiment 3 with min-replicas-to-write 1 (async)
    #[value(name = "min_replicas_1")]
    MinReplicas1,
    /// experiment 2 with unclean.leader.election.enable (isr)
    #[value(name = "unclean_election")]
    UncleanElection,
    /// experiment 2 on Kafka's fetch protocol, truncation to the own HW (isr)
    #[value(name = "fetch_hw")]
    FetchHw,
    /// experiment 2 on Kafka's fetch protocol, KIP-101 truncation (isr)
    #[value(name = "fetch_kip101")]
    FetchKip101,
    /// experiment 3 with PreVote and CheckQuorum (raft)
    #[value(name = "prevote")]
    PreVote,
    /// experiment 7 with CheckQuorum (raft)
    #[value(name = "check_quorum")]
    CheckQuorum,
    /// experiment 1 with a 2-tick recovery_min_apply_delay, synchronous_commit = on (wal)
    #[value(name = "apply_delay")]
    ApplyDelay,
    /// experiment 1 with a 2-tick recovery_min_apply_delay, synchronous_commit = remote_apply (wal)
    #[value(name = "remote_apply")]
    RemoteApply,
    /// experiment 2 with synchronous_commit = remote_write and a power loss on the synchronous standby (wal)
    #[value(name = "remote_write")]
    RemoteWrite,
    /// experiment 4 with synchronous_standby_names = FIRST 1 (standby-1, standby-2) (wal)
    #[value(name = "first_1")]
    First1,
    /// experiment 4 with synchronous_standby_names = ANY 1 (standby-1, standby-2) (wal)
    #[value(name = "any_1")]
    Any1,
}

impl VariantArg {
    /// The variant name, as in `labs::Run::variant`.
    pub fn name(self) -> &'static str {
        match self {
            VariantArg::Default => "default",
            VariantArg::Leader => "leader",
            VariantArg::Quorum => "quorum",
            VariantArg::AllIsr => "all_isr",
            VariantArg::SyncStandby => "sync_standby",
            VariantArg::MinInsync3 => "min_insync_3",
            VariantArg::Wait1 => "wait_1",
            VariantArg::MinReplicas1 => "min_replicas_1",
            VariantArg::UncleanElection => "unclean_election",
            VariantArg::FetchHw => "fetch_hw",
            VariantArg::FetchKip101 => "fetch_kip101",
            VariantArg::PreVote => "prevote",
            VariantArg::CheckQuorum => "check_quorum",
            VariantArg::ApplyDelay => "apply_delay",
            VariantArg::RemoteApply => "remote_apply",
            VariantArg::RemoteWrite => "remote_write",
            VariantArg::First1 => "first_1",
            VariantArg::Any1 => "any_1",
        }
    }
}

/// How `matrix` prints to stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MatrixFormat {
    /// plain-text tables, wrapped to 100 columns
    Text,
    /// the Markdown of docs/matrix.md
    Markdown,
    /// {"runs": [...], "read_matrix": {...}}
    Json,
}

/// How `trace` prints a run's trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TraceFormat {
    /// one event per line, `#seq @tick kind fields`
    Text,
    /// one JSON object per line
    Jsonl,
}

/// On or off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Switch {
    On,
    Off,
}

/// A `bench` workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Workload {
    /// every experiment run once (46 runs)
    Matrix,
    /// N LEADER writes to the async primary
    WritesAsync,
    /// N QUORUM writes, standby-1 synchronous
    WritesWal,
    /// N ALL_ISR writes
    WritesIsr,
    /// five nodes, seed 7, N QUORUM writes after the first election
    WritesRaft,
    /// N QUORUM writes, standby-1 synchronous, C kept in flight
    PipelinedWal,
    /// N ALL_ISR writes, C kept in flight
    PipelinedIsr,
    /// as writes-raft, C kept in flight
    PipelinedRaft,
    /// N checked explorer schedules of isr all_isr/linearizable, all cores
    ExploreIsr,
    /// the model checker on raft quorum/linearizable (3 nodes), at most N x 750 distinct states and 1.5 million (by default every path of 6 steps), all cores
    CheckRaft,
    /// lincheck on a 10,000-operation history (5 clients, 10 keys)
    Lincheck,
    /// lincheck on a Jepsen-shaped compare-and-set register history
    LincheckHard,
    /// lincheck on 10 keys: one expensive, one refuted
    LincheckPartitions,
    /// lincheck on Porcupine's 108 test histories, per file (only with --only and DIR: its test_data)
    LincheckPorcupine,
}

impl Workload {
    /// The name on the command line and in the report.
    pub fn name(self) -> &'static str {
        match self {
            Workload::Matrix => "matrix",
            Workload::WritesAsync => "writes-async",
            Workload::WritesWal => "writes-wal",
            Workload::WritesIsr => "writes-isr",
            Workload::WritesRaft => "writes-raft",
            Workload::PipelinedWal => "pipelined-wal",
            Workload::PipelinedIsr => "pipelined-isr",
            Workload::PipelinedRaft => "pipelined-raft",
            Workload::ExploreIsr => "explore-isr",
            Workload::CheckRaft => "check-raft",
            Workload::Lincheck => "lincheck",
            Workload::LincheckHard => "lincheck-hard",
            Workload::LincheckPartitions => "lincheck-partitions",
            Workload::LincheckPorcupine => "lincheck-porcupine",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value_name<T: ValueEnum>(value: &T) -> String {
        value
            .to_possible_value()
            .expect("no value is hidden")
            .get_name()
            .to_owned()
    }

    #[test]
    fn protocol_values_are_the_registered_names() {
        use clap::builder::TypedValueParser;
        let names: Vec<String> = protocol_parser()
            .possible_values()
            .expect("the names are listed")
            .map(|v| v.get_name().to_owned())
            .collect();
        assert_eq!(names, labs::registry().names());
        let cmd = clap::Command::new("t");
        for p in labs::BUILTIN {
            let parsed = protocol_parser()
                .parse_ref(&cmd, None, std::ffi::OsStr::new(p.name()))
                .expect("a registered name parses");
            assert_eq!(parsed, p);
        }
        assert!(
            protocol_parser()
                .parse_ref(&cmd, None, std::ffi::OsStr::new("kafka"))
                .is_err()
        );
    }

    #[test]
    fn experiment_values_are_the_labs_experiments_with_their_titles() {
        let values: Vec<(String, String)> = ExperimentArg::value_variants()
            .iter()
            .map(|e| {
                let value = e.to_possible_value().expect("no value is hidden");
                assert_eq!(value.get_name(), e.number().to_string());
                (
                    value.get_name().to_owned(),
                    value.get_help().map(|h| h.to_string()).unwrap_or_default(),
                )
            })
            .collect();
        let labs: Vec<(String, String)> = labs::matrix::EXPERIMENTS
            .iter()
            .map(|(n, title)| (n.to_string(), (*title).to_owned()))
            .collect();
        assert_eq!(values, labs);
    }

    #[test]
    fn variant_values_are_every_labs_variant() {
        let mut labs: Vec<&str> = labs::BUILTIN
            .iter()
            .flat_map(|p| labs::run_specs(*p).into_iter().map(|s| s.variant))
            .collect();
        labs.sort_unstable();
        labs.dedup();
        let mut names: Vec<String> = VariantArg::value_variants()
            .iter()
            .map(value_name)
            .collect();
        names.sort_unstable();
        assert_eq!(names, labs);
        for arg in VariantArg::value_variants() {
            assert_eq!(value_name(arg), arg.name());
        }
    }

    #[test]
    fn workload_values_are_their_report_names() {
        for arg in Workload::value_variants() {
            assert_eq!(value_name(arg), arg.name());
        }
    }
}

/// An acknowledgement level, as the verdict table names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AckArg {
    /// The leader / primary alone
    Leader,
    /// A protocol-defined quorum (Raft majority; WAL synchronous standbys)
    Quorum,
    /// Every current in-sync replica (Kafka acks=all)
    #[value(name = "all_isr")]
    AllIsr,
}

/// A read level, as the verdict table names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReadArg {
    /// A node's local state
    Local,
    /// The current leader's local state
    Leader,
    /// Only a value no later acknowledged write can contradict
    Linearizable,
}

impl AckArg {
    /// The level as the verdict table names it (`all_isr`).
    pub fn name(self) -> &'static str {
        match self {
            AckArg::Leader => "leader",
            AckArg::Quorum => "quorum",
            AckArg::AllIsr => "all_isr",
        }
    }
}

impl ReadArg {
    /// The level as the verdict table names it (`linearizable`).
    pub fn name(self) -> &'static str {
        match self {
            ReadArg::Local => "local",
            ReadArg::Leader => "leader",
            ReadArg::Linearizable => "linearizable",
        }
    }
}
