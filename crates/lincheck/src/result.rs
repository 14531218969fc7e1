//! The verdict on a history, and what each partition's search did.

use std::fmt;

use crate::explain::Explanation;

/// The budget a search ran out of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Limit {
    /// [`CheckOptions::max_steps`](crate::CheckOptions::max_steps).
    Steps,
    /// [`CheckOptions::max_memory`](crate::CheckOptions::max_memory), or a
    /// size the search cannot represent.
    Memory,
    /// [`CheckOptions::max_time`](crate::CheckOptions::max_time).
    Time,
}

/// The verdict on a history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Every partition has an order that respects real time and the model.
    Linearizable,
    /// A partition has no such order; the explanation says where the
    /// search got stuck. Partitions are searched in interleaved slices and
    /// the check stops at the first slice round that refutes one; if that
    /// round refutes several, the first in key order is reported.
    Violation(Explanation),
    /// No violation was found, but a partition ran out of budget (the
    /// first such partition in key order is named).
    Unknown {
        /// The partition that ran out (`None` if the model does not
        /// partition).
        partition: Option<String>,
        /// Steps spent on it.
        steps: u64,
        /// The budget it ran out of.
        limit: Limit,
    },
}

/// How one partition's search ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PartitionOutcome {
    /// An order was found.
    Linearizable,
    /// No order exists.
    Violated,
    /// The search ran out of this budget.
    OutOfBudget(Limit),
    /// The search was stopped unfinished because another partition was
    /// refuted.
    Stopped,
}

/// What a search did: the figures Porcupine and Knossos users look at.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct SearchStats {
    /// Model steps: attempts to linearize one operation in one state.
    pub steps: u64,
    /// Configurations (set of linearized operations, state) reached again
    /// by another order and pruned.
    pub cache_hits: u64,
    /// Distinct configurations visited — the size of the cache.
    pub configurations: u64,
    /// Distinct model states met.
    pub model_states: u64,
    /// The bytes the search held when it stopped, as the checker counts
    /// them (cache, model states, stack; not what states own on the
    /// heap). The cache only grows, so this is about the search's peak.
    pub memory_bytes: u64,
}

impl SearchStats {
    /// These figures and `other`'s, summed. Memory adds up too:
    /// partitions are searched side by side.
    pub fn plus(self, other: SearchStats) -> SearchStats {
        SearchStats {
            steps: self.steps + other.steps,
            cache_hits: self.cache_hits + other.cache_hits,
            configurations: self.configurations + other.configurations,
            model_states: self.model_states + other.model_states,
            memory_bytes: self.memory_bytes + other.memory_bytes,
        }
    }
}

/// One partition of a checked history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionReport {
    /// Its key (`None` if the model does not partition).
    pub partition: Option<String>,
    /// Operations searched (after dropping read-only operations with an
    /// unknown answer).
    pub ops: usize,
    /// How its search ended.
    pub outcome: PartitionOutcome,
    /// What its search did.
    pub stats: SearchStats,
    /// With [`CheckOptions::witness`](crate::CheckOptions::witness), for a
    /// linearizable partition: the ids of its operations in a
    /// linearization order. Operations that never returned and are left
    /// out never took effect.
    pub witness: Option<Vec<u64>>,
}

/// The verdict on a history and the report of every partition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckResult {
    /// The verdict.
    pub verdict: Verdict,
    /// Every partition, in key order.
    pub partitions: Vec<PartitionReport>,
}

impl CheckResult {
    /// Whether the history was proved linearizable.
    pub fn is_linearizable(&self) -> bool {
        matches!(self.verdict, Verdict::Linearizable)
    }

    /// The explanation, if a violation was found.
    pub fn violation(&self) -> Option<&Explanation> {
        match &self.verdict {
            Verdict::Violation(explanation) => Some(explanation),
            _ => None,
        }
    }

    /// The report of partition `key`.
    pub fn partition(&self, key: Option<&str>) -> Option<&PartitionReport> {
        self.partitions
            .iter()
            .find(|p| p.partition.as_deref() == key)
    }

    /// Every partition's figures, summed.
    pub fn stats(&self) -> SearchStats {
        self.partitions
            .iter()
            .fold(SearchStats::default(), |sum, p| sum.plus(p.stats))
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Linearizable => write!(f, "linearizable"),
            Verdict::Violation(explanation) => write!(f, "{explanation}"),
            Verdict::Unknown {
                partition,
                steps,
                limit,
            } => {
                let which = match partition {
                    Some(key) => format!("partition {key:?} "),
                    None => String::new(),
                };
                match limit {
                    Limit::Steps => write!(
                        f,
                        "unknown: {which}exhausted the budget after {steps} steps"
                    ),
                    Limit::Memory => write!(
                        f,
                        "unknown: {which}exhausted the memory budget after {steps} steps"
                    ),
                    Limit::Time => write!(
                        f,
                        "unknown: {which}was still searching when the time budget ran out, \
                         after {steps} steps"
                    ),
                }
            }
        }
    }
}

impl fmt::Display for CheckResult {
    /// The verdict, as [`Verdict`] displays it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.verdict.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_verdict_names_the_partition_and_the_budget() {
        let unknown = |partition: Option<&str>, limit| Verdict::Unknown {
            partition: partition.map(str::to_string),
            steps: 7,
            limit,
        };
        assert_eq!(
            unknown(Some("k"), Limit::Steps).to_string(),
            "unknown: partition \"k\" exhausted the budget after 7 steps"
        );
        assert_eq!(
            unknown(None, Limit::Steps).to_string(),
            "unknown: exhausted the budget after 7 steps"
        );
        assert_eq!(
            unknown(None, Limit::Memory).to_string(),
            "unknown: exhausted the memory budget after 7 steps"
        );
        assert!(
            unknown(Some("k"), Limit::Time)
                .to_string()
                .contains("time budget")
        );
    }
}
