//! Checking a whole history: validate, partition, search the parts side by
//! side.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::time::Instant;

use crate::explain::Explanation;
use crate::history::{self, HistoryError, Operation};
use crate::model::Model;
use crate::options::CheckOptions;
use crate::result::{CheckResult, Limit, PartitionOutcome, PartitionReport, SearchStats, Verdict};
use crate::search::{Outcome, Progress, Search};

/// Steps one partition searches before the next one gets its turn.
///
/// Small enough that a partition refuted in a few thousand steps is found
/// within milliseconds even next to one that would take millions; large
/// enough that switching costs nothing measurable. Every partition of the
/// explorer's histories finishes within its first slice.
pub const SLICE_STEPS: u64 = 4_096;

/// A history's operations by partition key, in key order.
type Partitions<'a, I, O> = BTreeMap<Option<Cow<'a, str>>, Vec<&'a Operation<I, O>>>;

/// One partition while the check runs.
enum Part<'h, M: Model> {
    /// Not started: its search is built on its first turn, and dropped as
    /// soon as it ends, so finished partitions hold no memory.
    Waiting,
    Searching(Box<Search<'h, M>>),
    Done(Box<PartitionReport>, Option<Box<Explanation>>),
}

/// Checks whether `history` is linearizable with respect to `model`.
///
/// The history is validated first (unique ids, no return before its call,
/// no answer without a return). Operations with an unknown answer that
/// the model calls read-only ([`Model::is_read_only`]) are dropped; the
/// rest are split by [`Model::partition_key`].
///
/// Partitions are searched side by side, in rounds: each round gives every
/// unfinished partition, in key order, [`SLICE_STEPS`] more steps. The
/// check stops after the first round in which a partition is refuted —
/// a cheap violation is found next to an expensive partition that would
/// never finish — and reports the first partition in key order refuted in
/// that round; the partitions still searching are reported
/// [`PartitionOutcome::Stopped`]. Which partition is reported, and every
/// figure of the result, depend only on the history and the options
/// (unless [`CheckOptions::max_time`] is set).
///
/// A partition that runs out of budget makes the verdict
/// [`Verdict::Unknown`] unless another partition is refuted.
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
        if op.is_unknown() && model.is_read_only(&op.input, op.output.as_ref()) {
            continue;
        }
        partitions
            .entry(model.partition_key(&op.input))
            .or_default()
            .push(op);
    }
    let partitions: Vec<_> = partitions.into_iter().collect();
    let deadline = options.max_time.map(|limit| (Instant::now(), limit));
    let mut parts: Vec<Part<'_, M>> = partitions.iter().map(|_| Part::Waiting).collect();

    let mut round = 0u64;
    loop {
        round += 1;
        let until = round.saturating_mul(SLICE_STEPS);
        let mut refuted = false;
        let mut searching = false;
        for (part, (key, ops)) in parts.iter_mut().zip(&partitions) {
            let timed_out = deadline.is_some_and(|(start, limit)| start.elapsed() >= limit);
            if matches!(part, Part::Waiting) {
                *part = if timed_out {
                    done(
                        key,
                        ops.len(),
                        None,
                        Outcome::OutOfBudget(Limit::Time),
                        options,
                    )
                } else {
                    let search = Search::new(model, ops, options.max_steps, options.max_memory);
                    Part::Searching(Box::new(search))
                };
            }
            let Part::Searching(search) = part else {
                continue;
            };
            let outcome = if timed_out {
                Outcome::OutOfBudget(Limit::Time)
            } else {
                match search.run(until) {
                    Progress::Paused => {
                        searching = true;
                        continue;
                    }
                    Progress::Done(outcome) => outcome,
                }
            };
            refuted |= matches!(outcome, Outcome::Violation(_));
            *part = done(key, ops.len(), Some(search), outcome, options);
        }
        if refuted || !searching {
            break;
        }
    }
    Ok(verdict(parts, &partitions))
}

/// The finished form of a partition.
fn done<'h, M: Model>(
    key: &Option<Cow<'_, str>>,
    ops: usize,
    search: Option<&Search<'h, M>>,
    outcome: Outcome,
    options: &CheckOptions,
) -> Part<'h, M> {
    let stats = search.map_or(SearchStats::default(), |s| s.stats());
    let partition = key.as_deref().map(str::to_string);
    let (outcome, witness, explanation) = match outcome {
        Outcome::Linearizable(order) => {
            let witness = options.witness.then(|| {
                let ops = search.map_or(&[][..], |s| s.ops());
                order.iter().map(|&op| ops[op].id).collect()
            });
            (PartitionOutcome::Linearizable, witness, None)
        }
        Outcome::Violation(mut explanation) => {
            explanation.partition = partition.clone();
            (PartitionOutcome::Violated, None, Some(explanation))
        }
        Outcome::OutOfBudget(limit) => (PartitionOutcome::OutOfBudget(limit), None, None),
    };
    let report = PartitionReport {
        partition,
        ops,
        outcome,
        stats,
        witness,
    };
    Part::Done(Box::new(report), explanation)
}

/// The verdict and reports once the rounds are over.
fn verdict<M: Model, T>(
    parts: Vec<Part<'_, M>>,
    partitions: &[(Option<Cow<'_, str>>, Vec<T>)],
) -> CheckResult {
    let mut violation = None;
    let mut unknown = None;
    let mut reports = Vec::with_capacity(parts.len());
    for (part, (key, ops)) in parts.into_iter().zip(partitions) {
        let report = match part {
            Part::Done(report, explanation) => {
                if let Some(explanation) = explanation {
                    violation.get_or_insert(*explanation);
                }
                if let PartitionOutcome::OutOfBudget(limit) = report.outcome {
                    unknown.get_or_insert(Verdict::Unknown {
                        partition: report.partition.clone(),
                        steps: report.stats.steps,
                        limit,
                    });
                }
                *report
            }
            Part::Searching(search) => PartitionReport {
                partition: key.as_deref().map(str::to_string),
                ops: ops.len(),
                outcome: PartitionOutcome::Stopped,
                stats: search.stats(),
                witness: None,
            },
            Part::Waiting => PartitionReport {
                partition: key.as_deref().map(str::to_string),
                ops: ops.len(),
                outcome: PartitionOutcome::Stopped,
                stats: SearchStats::default(),
                witness: None,
            },
        };
        reports.push(report);
    }
    let verdict = match (violation, unknown) {
        (Some(explanation), _) => Verdict::Violation(explanation),
        (None, Some(unknown)) => unknown,
        (None, None) => Verdict::Linearizable,
    };
    CheckResult {
        verdict,
        partitions: reports,
    }
}
