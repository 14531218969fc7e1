//! Logical time.

use crate::error::SimError;

/// A logical instant. Tick 0 is the start of every simulation.
pub type Tick = u64;

/// Integer logical time that moves only when asked, by a positive step.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SimClock {
    now: Tick,
}

impl SimClock {
    /// A clock at tick 0.
    pub fn new() -> Self {
        SimClock { now: 0 }
    }

    /// The current tick.
    pub fn now(&self) -> Tick {
        self.now
    }

    /// Moves the clock forward by `step` ticks and returns the new time.
    ///
    /// A zero step is an error rather than a silent no-op: a caller asking
    /// time to pass and seeing none pass has a bug.
    pub fn advance(&mut self, step: u64) -> Result<Tick, SimError> {
        if step == 0 {
            return Err(SimError::ZeroStep);
        }
        self.now = self.now.saturating_add(step);
        Ok(self.now)
    }
}
