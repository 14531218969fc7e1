//! Which nodes' timers may fire at the next tick: every node's as time
//! passes in a free run; while a steered run holds the network, only the
//! nodes whose timer a chooser made due (DSLabs and stateright treat a
//! timer as an event the search chooses, as it chooses a delivery).

/// The nodes whose timers a chooser made due since the last tick, while
/// held.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub(crate) struct ChosenTimers {
    /// Positions, in the order chosen (a node once).
    chosen: Vec<usize>,
}

impl ChosenTimers {
    /// Lets node `i`'s timers fire at the next tick.
    pub(crate) fn choose(&mut self, i: usize) {
        if !self.chosen.contains(&i) {
            self.chosen.push(i);
        }
    }

    /// True when node `i`'s timer was chosen since the last tick.
    #[inline]
    pub(crate) fn is_chosen(&self, i: usize) -> bool {
        self.chosen.contains(&i)
    }

    /// The tick passed: every choice is spent.
    #[inline]
    pub(crate) fn spent(&mut self) {
        self.chosen.clear();
    }
}
