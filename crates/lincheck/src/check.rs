//! Checking a whole history: validate, partition, search each part.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

use crate::explain::Explanation;
use crate::history::{self, HistoryError, Operation};
use crate::model::Model;
use crate::search::{self, PartitionVerdict};

/// Limits on the search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckOptions {
    /// The most model steps (attempts to linearize one operation) spent on
    /// one partition before giving up with [`CheckResult::Unknown`].
    /// Default: 10 million.
    pub max_steps: u64,
}

impl CheckOptions {
    /// The default step budget per partition.
    pub const DEFAULT_MAX_STEPS: u64 = 10_000_000;

    /// These options with a different step budget per partition.
    pub fn with_max_steps(self, max_steps: u64) -> Self {
        CheckOptions { max_steps }
    }
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            max_steps: Self::DEFAULT_MAX_STEPS,
        }
    }
}

/// The verdict on a history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckResult {
    /// Every partition has an order that respects real time and the model.
    Linearizable,
    /// A partition has no such order; the explanation says where the
    /// search got stuck. If several partitions are violated, the first in
    /// key order is reported.
    Violation(Explanation),
    /// No violation was found, but a partition exhausted the step budget
    /// (the first such partition in key order is named).
    Unknown {
        /// The partition that ran out (`None` if the model does not
        /// partition).
        partition: Option<String>,
        /// Steps spent on it.
        steps: u64,
    },
}

impl CheckResult {
    /// Whether the history was proved linearizable.
    pub fn is_linearizable(&self) -> bool {
        matches!(self, CheckResult::Linearizable)
    }

    /// The explanation, if a violation was found.
    pub fn violation(&self) -> Option<&Explanation> {
        match self {
            CheckResult::Violation(explanation) => Some(explanation),
            _ => None,
        }
    }
}

impl fmt::Display for CheckResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckResult::Linearizable => write!(f, "linearizable"),
            CheckResult::Violation(explanation) => write!(f, "{explanation}"),
            CheckResult::Unknown {
                partition: Some(key),
                steps,
            } => write!(
                f,
                "unknown: partition {key:?} exhausted the budget after {steps} steps"
            ),
            CheckResult::Unknown {
                partition: None,
                steps,
            } => write!(f, "unknown: exhausted the budget after {steps} steps"),
        }
    }
}

/// A history's operations by partition key, in key order.
type Partitions<'a, I, O> = BTreeMap<Option<Cow<'a, str>>, Vec<&'a Operation<I, O>>>;

/// Checks whether `history` is linearizable with respect to `model`.
///
/// The history is validated first (unique ids, no return before its call,
/// return tick and output known together). Operations with an unknown
/// outcome that the model calls read-only ([`Model::is_read_only`]) are
/// dropped; the rest are split by [`Model::partition_key`] and each
/// partition is searched on its own, in key order, within
/// [`CheckOptions::max_steps`]. The first violation found is returned; a
/// partition that runs out of budget makes the result
/// [`CheckResult::Unknown`] unless another partition is violated.
///
/// The order of `history` does not matter, only ticks do (ids break ties,
/// so the same operations always get the same explanation).
pub fn check<M: Model>(
    model: &M,
    history: &[Operation<M::Input, M::Output>],
    options: &CheckOptions,
) -> Result<CheckResult, HistoryError> {
    history::validate(history)?;

    let mut partitions: Partitions<'_, M::Input, M::Output> = BTreeMap::new();
    for op in history {
        if op.is_unknown() && model.is_read_only(&op.input) {
            continue;
        }
        partitions
            .entry(model.partition_key(&op.input))
            .or_default()
            .push(op);
    }

    let mut out_of_budget = None;
    for (key, ops) in &partitions {
        match search::check_partition(model, ops, key.as_deref(), options.max_steps) {
            PartitionVerdict::Linearizable => {}
            PartitionVerdict::Violation(explanation) => {
                return Ok(CheckResult::Violation(explanation));
            }
            PartitionVerdict::Unknown { steps } => {
                out_of_budget.get_or_insert(CheckResult::Unknown {
                    partition: key.as_deref().map(str::to_string),
                    steps,
                });
            }
        }
    }
    Ok(out_of_budget.unwrap_or(CheckResult::Linearizable))
}
