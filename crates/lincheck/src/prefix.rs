//! The deepest point a search reached, kept for the explanation.

use crate::explain::{Explanation, OpSummary, PrefixStep};
use crate::history::Operation;
use crate::model::Model;
use crate::states::{StateId, States};

/// One level of the search stack, as the record needs it: the operation
/// linearized there and the state it was linearized from.
pub(crate) trait Level {
    /// The operation placed at this level.
    fn op(&self) -> usize;
    /// The state before it.
    fn state_before(&self) -> StateId;
}

/// The longest linearizable prefix the search has found, and the
/// operation that could not be placed after it.
///
/// Copying the whole stack at every new record would be quadratic; instead
/// `shared` tracks how much of the stack still equals the record, and only
/// the rest is copied. Each pushed level is copied at most once. States
/// are ids into the search's [`States`], so a copy is two integers.
pub(crate) struct LongestPrefix {
    /// (operation, state after it) for each step of the record.
    steps: Vec<(usize, StateId)>,
    /// The operation that could not be placed after the record.
    blocked: Option<usize>,
    /// Length of the common prefix of the stack and `steps`.
    shared: usize,
}

impl LongestPrefix {
    pub(crate) fn new() -> Self {
        LongestPrefix {
            steps: Vec::new(),
            blocked: None,
            shared: 0,
        }
    }

    /// The search is stuck on `blocked` with `stack` linearized and
    /// `state` reached; keep it if it is deeper than the record.
    pub(crate) fn offer<L: Level>(&mut self, stack: &[L], state: StateId, blocked: usize) {
        if self.blocked.is_some() && stack.len() <= self.steps.len() {
            return;
        }
        self.steps.truncate(self.shared);
        for i in self.shared..stack.len() {
            let after = stack.get(i + 1).map_or(state, Level::state_before);
            self.steps.push((stack[i].op(), after));
        }
        self.shared = stack.len();
        self.blocked = Some(blocked);
    }

    /// The stack shrank to `len` levels.
    pub(crate) fn popped_to(&mut self, len: usize) {
        self.shared = self.shared.min(len);
    }

    /// The bytes the record holds.
    pub(crate) fn memory_bytes(&self) -> u64 {
        (self.steps.len() * std::mem::size_of::<(usize, StateId)>()) as u64
    }

    /// The record in words. `blocked_now` stands in for the blocked
    /// operation if none was recorded (never: `offer` runs before a search
    /// can fail).
    pub(crate) fn explain<M: Model>(
        &self,
        model: &M,
        ops: &[&Operation<M::Input, M::Output>],
        states: &States<M::State>,
        partition: Option<&str>,
        blocked_now: usize,
    ) -> Explanation {
        let summary = |op: usize| {
            let o = ops[op];
            OpSummary {
                id: o.id,
                client: o.client,
                call: o.call,
                ret: o.ret,
                description: model.describe_operation(&o.input, o.output.as_ref()),
            }
        };
        // State 0 is the initial state.
        let state = self.steps.last().map_or(0, |&(_, s)| s);
        Explanation {
            partition: partition.map(str::to_string),
            partition_ops: ops.len(),
            initial_state: model.describe_state(states.get(0)),
            prefix: self
                .steps
                .iter()
                .map(|&(op, after)| PrefixStep {
                    op: summary(op),
                    state_after: model.describe_state(states.get(after)),
                })
                .collect(),
            state: model.describe_state(states.get(state)),
            unplaceable: summary(self.blocked.unwrap_or(blocked_now)),
        }
    }
}
