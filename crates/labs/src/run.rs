//! One experiment run.

use sim_core::Trace;

use crate::observed::Observed;
use crate::protocol::Protocol;

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
