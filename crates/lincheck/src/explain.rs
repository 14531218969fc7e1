//! Why a history is not linearizable, in words.

use std::fmt;

/// One operation as it appears in an explanation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpSummary {
    /// The operation's id in the history.
    pub id: u64,
    /// The client that issued it.
    pub client: u64,
    /// Its call tick.
    pub call: u64,
    /// Its return tick, `None` if the outcome is unknown.
    pub ret: Option<u64>,
    /// The model's one-line description, e.g. `get("k") -> "v1"`.
    pub description: String,
}

impl fmt::Display for OpSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ret = match self.ret {
            Some(ret) => ret.to_string(),
            None => "never returned".to_string(),
        };
        write!(
            f,
            "op {} (client {}, ticks {}..{}): {}",
            self.id, self.client, self.call, ret, self.description
        )
    }
}

/// One step of the longest linearizable prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrefixStep {
    /// The operation linearized at this step.
    pub op: OpSummary,
    /// The model's description of the state after it.
    pub state_after: String,
}

/// A counterexample to linearizability, for one partition.
///
/// The search found an order for [`prefix`](Explanation::prefix) but for no
/// longer prefix: every order it tried got stuck before
/// [`unplaceable`](Explanation::unplaceable) — the earliest-returning
/// operation not yet linearized, which must take effect before anything
/// called after its return — could be placed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Explanation {
    /// The partition (for [`KvModel`](crate::KvModel), the key), `None` if
    /// the model does not partition.
    pub partition: Option<String>,
    /// How many operations the partition has (after dropping read-only
    /// operations that never returned).
    pub partition_ops: usize,
    /// The model's description of the initial state.
    pub initial_state: String,
    /// The longest prefix the search could linearize, in linearization
    /// order.
    pub prefix: Vec<PrefixStep>,
    /// The state reached after the prefix.
    pub state: String,
    /// The operation that no order could place next.
    pub unplaceable: OpSummary,
}

impl fmt::Display for Explanation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.partition {
            Some(key) => writeln!(f, "not linearizable: partition {key:?}")?,
            None => writeln!(f, "not linearizable")?,
        }
        writeln!(
            f,
            "longest linearizable prefix: {} of {} operations, from initial state {}",
            self.prefix.len(),
            self.partition_ops,
            self.initial_state
        )?;
        for (n, step) in self.prefix.iter().enumerate() {
            writeln!(f, "  {:>3}. {}  => {}", n + 1, step.op, step.state_after)?;
        }
        writeln!(f, "state reached: {}", self.state)?;
        writeln!(f, "cannot place next: {}", self.unplaceable)?;
        match self.unplaceable.ret {
            Some(ret) => write!(
                f,
                "  it returned at tick {ret}, so it must take effect before anything called \
                 after tick {ret},\n  but no order of the operations still pending lets it \
                 take effect here"
            ),
            None => write!(f, "  no order lets it take effect here"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_explanation_reads_as_prefix_state_and_blocked_operation() {
        let op = |id, call, ret, description: &str| OpSummary {
            id,
            client: id,
            call,
            ret,
            description: description.to_string(),
        };
        let explanation = Explanation {
            partition: Some("k".into()),
            partition_ops: 2,
            initial_state: "absent".into(),
            prefix: vec![PrefixStep {
                op: op(1, 0, Some(2), "put(\"k\", \"v1\") -> ok"),
                state_after: "\"v1\"".into(),
            }],
            state: "\"v1\"".into(),
            unplaceable: op(2, 3, Some(4), "get(\"k\") -> absent"),
        };
        assert_eq!(
            explanation.to_string(),
            "not linearizable: partition \"k\"\n\
             longest linearizable prefix: 1 of 2 operations, from initial state absent\n\
             \x20   1. op 1 (client 1, ticks 0..2): put(\"k\", \"v1\") -> ok  => \"v1\"\n\
             state reached: \"v1\"\n\
             cannot place next: op 2 (client 2, ticks 3..4): get(\"k\") -> absent\n\
             \x20 it returned at tick 4, so it must take effect before anything called \
             after tick 4,\n\
             \x20 but no order of the operations still pending lets it take effect here"
        );
    }
}
