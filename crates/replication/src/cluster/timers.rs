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
    /// The hold ended since the last tick: a timer that came due while
    /// held is overdue until the next tick fires it.
    let_go: bool,
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

    /// The tick passed (or a hold began): every choice is spent.
    #[inline]
    pub(crate) fn spent(&mut self) {
        self.chosen.clear();
        self.let_go = false;
    }

    /// The hold ended: every timer runs by itself from the next tick on.
    pub(crate) fn let_go(&mut self) {
        self.chosen.clear();
        self.let_go = true;
    }

    /// True from the end of a hold to the next tick.
    pub(crate) fn just_let_go(&self) -> bool {
        self.let_go
    }
}
