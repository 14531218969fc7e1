//! One experiment run: its observation and trace, and its state lines on
//! demand.

use std::sync::{Arc, OnceLock};

use replication::StateLog;
use sim_core::Trace;

use crate::observed::Observed;
use crate::protocol::Protocol;

/// How a run's state lines are recorded when first asked for: the run
/// again, recording them.
type Replay = Arc<dyn Fn() -> StateLog + Send + Sync>;

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
    states: States,
}

/// A run's state lines: recorded, or recorded on first ask by a replay.
#[derive(Clone, Default)]
struct States {
    log: OnceLock<StateLog>,
    replay: Option<Replay>,
}

impl std::fmt::Debug for States {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.log.get() {
            Some(log) => log.fmt(f),
            None => f.write_str("(recorded when asked for)"),
        }
    }
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
            states: States::default(),
        }
    }

    /// The run with its recorded state lines.
    #[must_use]
    pub fn with_states(mut self, states: StateLog) -> Run {
        self.states = States {
            log: OnceLock::from(states),
            replay: None,
        };
        self
    }

    /// The run whose state lines `replay` records when first asked for
    /// (running the same part again with the same seed, recording them:
    /// the matrix does not pay for lines nobody reads).
    #[must_use]
    pub(crate) fn with_states_replayed(
        mut self,
        replay: impl Fn() -> StateLog + Send + Sync + 'static,
    ) -> Run {
        self.states = States {
            log: OnceLock::new(),
            replay: Some(Arc::new(replay)),
        };
        self
    }

    /// Every node's state line over the run, tick by tick (empty for a
    /// protocol that does not record them). An experiment run records
    /// them on first call, by running its part again with recording on
    /// (the same seed makes the same run).
    pub fn states(&self) -> &StateLog {
        self.states.log.get_or_init(|| {
            self.states
                .replay
                .as_ref()
                .map_or_else(StateLog::new, |replay| replay())
        })
    }

    /// The matrix cell text.
    pub fn cell(&self) -> String {
        self.observed.cell()
    }
}
