//! Errors raised by the simulation core.

/// Everything that can go wrong when driving the simulator.
///
/// Every variant names the setting, node or bound at fault.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SimError {
    /// The clock only moves forward by a positive step.
    #[error("clock step must be positive, got 0")]
    ZeroStep,
    /// `run_until_idle` exhausted its tick budget with work still pending.
    #[error("not idle after {max_ticks} ticks ({pending} events still pending)")]
    NotIdle {
        /// The budget that was exceeded.
        max_ticks: u64,
        /// Events still queued when the budget ran out.
        pending: usize,
    },
    /// A network or simulation setting is out of range.
    #[error("invalid setting `{setting}`: {reason}")]
    Config {
        /// The name of the offending setting, e.g. `max_delay`.
        setting: &'static str,
        /// Why the value was refused.
        reason: String,
    },
    /// A trace line could not be parsed back.
    #[error("malformed trace line {line}: {reason}")]
    TraceParse {
        /// 1-based line number in the input.
        line: usize,
        /// What was wrong with it.
        reason: String,
    },
}
