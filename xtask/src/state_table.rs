//! The node state lines of a run ([`StateLog`]) as terminal tables: every
//! node at one tick (`trace --at T`), or a row per node and tick at which
//! its line changed (`trace --state`), one column per field so lines
//! compare down the table; a changed value is marked `*`.

use replication::{NodeState, StateLog};
use sim_core::{NodeId, Tick};

use crate::table::{Column, Table};

/// The table width.
const WIDTH: usize = 100;

/// Every field label of `log`, in order of first appearance.
fn labels(log: &StateLog) -> Vec<&'static str> {
    let mut labels: Vec<&'static str> = Vec::new();
    for change in log.changes() {
        for f in &change.state.fields {
            if !labels.contains(&f.label) {
                labels.push(f.label);
            }
        }
    }
    labels
}

/// The cells of `state` under `labels`, each changed one (when `before`
/// is given) marked `*`.
fn cells(state: &NodeState, before: Option<&NodeState>, labels: &[&str]) -> Vec<String> {
    let changed = |now: &str, then: Option<&str>| match before {
        Some(_) if then != Some(now) => format!("{now}*"),
        _ => now.to_owned(),
    };
    let mut row = vec![changed(
        &state.shown_role(),
        before.map(NodeState::shown_role).as_deref(),
    )];
    for label in labels {
        row.push(match state.field(label) {
            Some(value) => changed(value, before.and_then(|b| b.field(label))),
            None if before.is_some_and(|b| b.field(label).is_some()) => "-*".to_owned(),
            None => String::new(),
        });
    }
    row
}

fn columns(first: &[&str], labels: &[&'static str]) -> Vec<Column> {
    first
        .iter()
        .map(|h| Column::new(*h))
        .chain(std::iter::once(Column::new("role")))
        .chain(labels.iter().map(|l| Column::new(*l)))
        .collect()
}

fn wanted(node: &NodeId, only: &[NodeId]) -> bool {
    only.is_empty() || only.contains(node)
}

/// Every node's line at `tick` (only those of `only`, when given).
pub fn at(log: &StateLog, tick: Tick, only: &[NodeId]) -> String {
    let labels = labels(log);
    let mut table = Table::new(columns(&["node"], &labels));
    for state in log.at(tick).iter().filter(|s| wanted(&s.node, only)) {
        let mut row = vec![state.node.to_string()];
        row.extend(cells(state, None, &labels));
        table.push(row);
    }
    table.render(WIDTH)
}

/// A row per node (of `only`, when given) and tick at which its line
/// changed, the changed values marked `*` (the first rows show every node
/// as recording started).
pub fn per_tick(log: &StateLog, only: &[NodeId]) -> String {
    let labels = labels(log);
    let mut table = Table::new(columns(&["tick", "node"], &labels));
    let mut before: Vec<NodeState> = Vec::new();
    for (tick, row) in log.per_tick() {
        let mut first = true;
        for r in &row {
            let state = &r.state;
            let old = before.iter().find(|b| b.node == state.node);
            if r.changes.is_empty() || !wanted(&state.node, only) {
                continue;
            }
            let mut cells_of = vec![
                if first {
                    tick.to_string()
                } else {
                    String::new()
                },
                state.node.to_string(),
            ];
            first = false;
            cells_of.extend(cells(state, old, &labels));
            table.push(cells_of);
        }
        before = row.into_iter().map(|r| r.state).collect();
    }
    table.render(WIDTH)
}
