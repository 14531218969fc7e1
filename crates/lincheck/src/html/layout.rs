//! What a partition's picture shows, before any drawing: which
//! operations, in which lane and row, which tick columns, which marks.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use crate::history::Operation;
use crate::model::Model;
use crate::result::{CheckResult, Limit, PartitionOutcome};

/// The most operations one partition's picture draws; a larger partition
/// is drawn in a window of this many (in call order) around the operation
/// that could not be placed, or from its start.
pub const MAX_DRAWN_OPS: usize = 400;

/// How an operation ended, as the picture colours it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Returned with an answer.
    Answered,
    /// Returned, answer unknown.
    Unanswered,
    /// Never returned.
    Pending,
    /// Read-only with no answer: dropped before the search.
    Dropped,
}

/// One operation as drawn.
#[derive(Debug, Clone)]
pub(crate) struct DrawnOp {
    pub(crate) id: u64,
    pub(crate) client: u64,
    pub(crate) call_col: usize,
    /// `None`: never returned, the bar runs to the right edge.
    pub(crate) ret_col: Option<usize>,
    pub(crate) label: String,
    pub(crate) kind: Kind,
    /// The row, counted over every lane.
    pub(crate) row: usize,
    /// The operation that could not be placed.
    pub(crate) stuck: bool,
}

/// One client's lane: rows `first_row..first_row + rows`.
#[derive(Debug, Clone)]
pub(crate) struct Lane {
    pub(crate) client: u64,
    pub(crate) first_row: usize,
    pub(crate) rows: usize,
}

/// A linearization point: the `order`-th operation (1-based) of the
/// linearization, drawn in column `col`, `slot`-th of `of` points there.
#[derive(Debug, Clone)]
pub(crate) struct Point {
    pub(crate) op: usize,
    pub(crate) order: usize,
    pub(crate) col: usize,
    pub(crate) slot: usize,
    pub(crate) of: usize,
}

/// Everything one partition's picture needs.
#[derive(Debug, Clone)]
pub(crate) struct PartitionPicture {
    pub(crate) summary: String,
    pub(crate) violated: bool,
    pub(crate) window_note: Option<String>,
    pub(crate) explanation: Option<String>,
    /// Drawn operations, in call order.
    pub(crate) ops: Vec<DrawnOp>,
    /// The distinct ticks of the drawn operations, one column each.
    pub(crate) ticks: Vec<u64>,
    pub(crate) lanes: Vec<Lane>,
    pub(crate) rows: usize,
    pub(crate) points: Vec<Point>,
    /// The column of the return of the operation that could not be placed.
    pub(crate) stuck_col: Option<usize>,
    /// How wide a tick column is drawn, in pixels: wide enough for the
    /// label of a typical operation to fit its bar.
    pub(crate) col_width: usize,
}

type Op<M> = Operation<<M as Model>::Input, <M as Model>::Output>;

/// Every partition of `history`, in key order, laid out.
pub(crate) fn partitions<M: Model>(
    model: &M,
    history: &[Op<M>],
    result: Option<&CheckResult>,
) -> Vec<PartitionPicture> {
    let mut by_key: BTreeMap<Option<Cow<'_, str>>, Vec<&Op<M>>> = BTreeMap::new();
    for op in history {
        by_key
            .entry(model.partition_key(&op.input))
            .or_default()
            .push(op);
    }
    by_key
        .into_iter()
        .map(|(key, ops)| partition(model, key.as_deref(), ops, result))
        .collect()
}

fn partition<M: Model>(
    model: &M,
    key: Option<&str>,
    mut ops: Vec<&Op<M>>,
    result: Option<&CheckResult>,
) -> PartitionPicture {
    ops.sort_by_key(|op| (op.call, op.id));
    let report = result.and_then(|r| r.partition(key));
    let explanation = result
        .and_then(CheckResult::violation)
        .filter(|e| e.partition.as_deref() == key);
    let stuck_id = explanation.map(|e| e.unplaceable.id);
    // The linearization to mark: the violation's longest prefix, or the
    // witness.
    let order: Vec<u64> = match explanation {
        Some(e) => e.prefix.iter().map(|step| step.op.id).collect(),
        None => report.and_then(|r| r.witness.clone()).unwrap_or_default(),
    };

    // The window of operations drawn.
    let total = ops.len();
    let (start, end) = if total <= MAX_DRAWN_OPS {
        (0, total)
    } else {
        let centre = stuck_id
            .and_then(|id| ops.iter().position(|op| op.id == id))
            .unwrap_or(0);
        let end = (centre.saturating_sub(MAX_DRAWN_OPS * 3 / 4) + MAX_DRAWN_OPS).min(total);
        (end - MAX_DRAWN_OPS, end)
    };
    let window_note = (total > MAX_DRAWN_OPS).then(|| {
        let around = if stuck_id.is_some() {
            " around the operation that could not be placed"
        } else {
            ""
        };
        format!(
            "Showing operations {} to {} of {total}, in call order{around}.",
            start + 1,
            end
        )
    });
    let drawn = &ops[start..end];

    let mut ticks: Vec<u64> = drawn
        .iter()
        .flat_map(|op| [Some(op.call), op.ret])
        .flatten()
        .collect();
    ticks.sort_unstable();
    ticks.dedup();
    // The largest column whose tick is at or before `tick`.
    let col = |tick: u64| ticks.partition_point(|&t| t <= tick).saturating_sub(1);

    let mut drawn_ops: Vec<DrawnOp> = drawn
        .iter()
        .map(|op| DrawnOp {
            id: op.id,
            client: op.client,
            call_col: col(op.call),
            ret_col: op.ret.map(col),
            label: model.describe_operation(&op.input, op.output.as_ref()),
            kind: match (op.ret, &op.output) {
                _ if op.is_unknown() && model.is_read_only(&op.input, op.output.as_ref()) => {
                    Kind::Dropped
                }
                (Some(_), Some(_)) => Kind::Answered,
                (Some(_), None) => Kind::Unanswered,
                (None, _) => Kind::Pending,
            },
            row: 0,
            stuck: Some(op.id) == stuck_id,
        })
        .collect();
    let (lanes, rows) = assign_rows(&mut drawn_ops);

    // Linearization points over the whole order (an operation's point is
    // the latest of its call and the previous point, which its interval
    // contains since the order respects real time), drawn for the
    // operations in the window.
    let by_id: HashMap<u64, &Op<M>> = ops.iter().map(|op| (op.id, *op)).collect();
    let drawn_index: HashMap<u64, usize> = drawn_ops
        .iter()
        .enumerate()
        .map(|(i, op)| (op.id, i))
        .collect();
    let mut points = Vec::new();
    let mut at = 0u64;
    for (n, id) in order.iter().enumerate() {
        let Some(op) = by_id.get(id) else {
            continue;
        };
        at = at.max(op.call);
        if let Some(&i) = drawn_index.get(id) {
            let c = col(at).max(drawn_ops[i].call_col);
            points.push(Point {
                op: i,
                order: n + 1,
                col: c,
                slot: 0,
                of: 1,
            });
        }
    }
    spread(&mut points);

    let col_width = column_width(&drawn_ops);
    let summary = summary(key, total, result, report, explanation.is_some());
    PartitionPicture {
        summary,
        violated: explanation.is_some(),
        window_note,
        explanation: explanation.map(ToString::to_string),
        stuck_col: explanation
            .and_then(|e| e.unplaceable.ret)
            .filter(|_| drawn_ops.iter().any(|op| op.stuck))
            .map(col),
        col_width,
        ops: drawn_ops,
        ticks,
        lanes,
        rows,
        points,
    }
}

/// Pixels per label character (11 px monospace) and the label's margins.
const CHAR_WIDTH: usize = 7;
const LABEL_MARGIN: usize = 10;
/// The narrowest and widest tick columns.
const MIN_COL: usize = 48;
const MAX_COL: usize = 160;

/// The column width at which the median operation's label fits its bar.
fn column_width(ops: &[DrawnOp]) -> usize {
    let mut needs: Vec<usize> = ops
        .iter()
        .filter_map(|op| {
            // A history drawn unchecked may return before its call.
            let span = op.ret_col?.checked_sub(op.call_col)? + 1;
            let label = op.label.chars().count() * CHAR_WIDTH + LABEL_MARGIN;
            Some(label.div_ceil(span))
        })
        .collect();
    needs.sort_unstable();
    needs
        .get(needs.len() / 2)
        .copied()
        .unwrap_or(MIN_COL)
        .clamp(MIN_COL, MAX_COL)
}

/// Puts each operation in its client's lane, in the first row where it
/// overlaps nothing (a client's operations are usually sequential, but a
/// history may say otherwise); returns the lanes and the row count.
fn assign_rows(ops: &mut [DrawnOp]) -> (Vec<Lane>, usize) {
    let mut by_client: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
    for (i, op) in ops.iter().enumerate() {
        by_client.entry(op.client).or_default().push(i);
    }
    let mut lanes = Vec::new();
    let mut next_row = 0;
    for (client, members) in by_client {
        // The last column each row of this lane is busy up to.
        let mut busy: Vec<usize> = Vec::new();
        for i in members {
            let (from, to) = (ops[i].call_col, ops[i].ret_col.unwrap_or(usize::MAX));
            let row = match busy.iter().position(|&last| last < from) {
                Some(row) => row,
                None => {
                    busy.push(0);
                    busy.len() - 1
                }
            };
            busy[row] = to;
            ops[i].row = next_row + row;
        }
        lanes.push(Lane {
            client,
            first_row: next_row,
            rows: busy.len(),
        });
        next_row += busy.len();
    }
    (lanes, next_row)
}

/// Numbers the points that share a column, so they are drawn side by
/// side in order.
fn spread(points: &mut [Point]) {
    let mut per_col: BTreeMap<usize, usize> = BTreeMap::new();
    for p in points.iter_mut() {
        let seen = per_col.entry(p.col).or_default();
        p.slot = *seen;
        *seen += 1;
    }
    for p in points.iter_mut() {
        p.of = per_col.get(&p.col).copied().unwrap_or(1);
    }
}

/// `partition "k" — not linearizable — 3 operations; 12 steps, …`.
fn summary(
    key: Option<&str>,
    ops: usize,
    result: Option<&CheckResult>,
    report: Option<&crate::PartitionReport>,
    violated: bool,
) -> String {
    let name = match key {
        Some(key) => format!("partition {key:?}"),
        None => "the whole history".to_string(),
    };
    let Some(report) = report else {
        let status = if result.is_some() {
            " — not checked (no operation left to search)"
        } else {
            ""
        };
        return format!("{name}{status} — {ops} operations");
    };
    let status = match report.outcome {
        PartitionOutcome::Linearizable => "linearizable",
        PartitionOutcome::Violated if violated => "not linearizable",
        PartitionOutcome::Violated => "not linearizable (another partition is reported)",
        PartitionOutcome::OutOfBudget(Limit::Steps) => "unknown: step budget exhausted",
        PartitionOutcome::OutOfBudget(Limit::Memory) => "unknown: memory budget exhausted",
        PartitionOutcome::OutOfBudget(Limit::Time) => "unknown: time budget ran out",
        PartitionOutcome::Stopped => "not searched to the end (another partition was refuted)",
    };
    let s = report.stats;
    format!(
        "{name} — {status} — {ops} operations; {} steps, {} cache hits, {} configurations",
        s.steps, s.cache_hits, s.configurations
    )
}
