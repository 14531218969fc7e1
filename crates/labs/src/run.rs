//! One experiment run: its observation and trace.

use replication::StateLog;
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
    /// The `variant=` of the scenario part it ran: `default`, an ack level
    /// in snake case (`leader`, `quorum`, `all_isr`), or a setting
    /// (`sync_standby`, `min_insync_3`, `prevote`, …).
    pub variant: &'static str,
    /// What was observed.
    pub observed: Observed,
    /// The trace of the run: the part's group, from its start to the end
    /// of the part.
    pub trace: Trace,
    /// Every node's state line over the run, tick by tick (empty for a
    /// protocol that does not record them).
    pub states: StateLog,
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
            states: StateLog::new(),
        }
    }

    /// The run with its recorded state lines.
    #[must_use]
    pub fn with_states(mut self, states: StateLog) -> Run {
        self.states = states;
        self
    }

    /// The matrix cell text.
    pub fn cell(&self) -> String {
        self.observed.cell()
    }
}
