//! Node state lines: one compact, comparable line of protocol state per
//! node (role, term / epoch, log end, HW or commit index, ISR /
//! synchronous set, durable offset, catch-up mode), and the [`StateLog`]
//! of how they changed tick by tick.
//!
//! A group built by a scenario records its lines after every tick and
//! after every directive (see [`ScenarioGroup::record_states`]); the log
//! lives beside the trace, not in it, so traces and their snapshots do not
//! change, and a group that does not record pays one branch per tick.
//!
//! [`ScenarioGroup::record_states`]: crate::ScenarioGroup::record_states

use std::fmt;

use sim_core::{NodeId, Tick};

/// One labelled value of a state line: `HW 2`, `ISR {node-2,node-3}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateField {
    /// The short label (`term`, `epoch`, `LEO`, `HW`, `commit`, `ISR`,
    /// `durable`, `catch-up`, …), the protocol's own word.
    pub label: &'static str,
    /// Its value as shown.
    pub value: String,
}

impl StateField {
    /// A field `label value`.
    pub fn new(label: &'static str, value: impl fmt::Display) -> StateField {
        StateField {
            label,
            value: value.to_string(),
        }
    }

    /// A set field: `{a,b}` from the names of `nodes`, in their order.
    pub fn set<'a>(label: &'static str, nodes: impl IntoIterator<Item = &'a NodeId>) -> StateField {
        let names: Vec<&str> = nodes.into_iter().map(NodeId::as_str).collect();
        StateField {
            label,
            value: format!("{{{}}}", names.join(",")),
        }
    }
}

impl fmt::Display for StateField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.label, self.value)
    }
}

/// One node's state line: its role, then its fields in the protocol's
/// order. Two lines compare equal when nothing shown changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeState {
    /// The node.
    pub node: NodeId,
    /// False while crashed.
    pub alive: bool,
    /// Its role in the protocol's words (`leader`, `follower`, `primary`,
    /// …); what it believes, so a cut-off old leader still says `leader`.
    pub role: String,
    /// The fields, in the protocol's order.
    pub fields: Vec<StateField>,
}

impl NodeState {
    /// The line of `node` in `role`, up when `alive`, with no fields yet.
    pub fn new(node: NodeId, alive: bool, role: impl Into<String>) -> NodeState {
        NodeState {
            node,
            alive,
            role: role.into(),
            fields: Vec::new(),
        }
    }

    /// The line with `label value` appended.
    #[must_use]
    pub fn with(mut self, label: &'static str, value: impl fmt::Display) -> NodeState {
        self.fields.push(StateField::new(label, value));
        self
    }

    /// The line with `field` appended.
    #[must_use]
    pub fn with_field(mut self, field: StateField) -> NodeState {
        self.fields.push(field);
        self
    }

    /// The value of the field labelled `label`.
    pub fn field(&self, label: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|f| f.label == label)
            .map(|f| f.value.as_str())
    }

    /// The role as shown: `down (leader)` while crashed.
    pub fn shown_role(&self) -> String {
        if self.alive {
            self.role.clone()
        } else {
            format!("down ({})", self.role)
        }
    }

    /// The line without the node name: `leader  epoch 2  LEO 3  HW 2 …`.
    pub fn line(&self) -> String {
        let mut parts = vec![self.shown_role()];
        parts.extend(self.fields.iter().map(StateField::to_string));
        parts.join("  ")
    }

    /// What changed from `before` to this line, compactly: the role when
    /// it changed, then each field whose value changed (`HW 2`, `ISR
    /// {node-1,node-3}`); empty when nothing did.
    pub fn changes_since(&self, before: Option<&NodeState>) -> Vec<String> {
        let Some(before) = before else {
            return std::iter::once(self.shown_role())
                .chain(self.fields.iter().map(StateField::to_string))
                .collect();
        };
        let mut out = Vec::new();
        if before.shown_role() != self.shown_role() {
            out.push(self.shown_role());
        }
        for f in &self.fields {
            if before.fields.iter().find(|b| b.label == f.label) != Some(f) {
                out.push(f.to_string());
            }
        }
        for b in &before.fields {
            if !self.fields.iter().any(|f| f.label == b.label) {
                out.push(format!("{} -", b.label));
            }
        }
        out
    }
}

impl fmt::Display for NodeState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}  {}", self.node, self.line())
    }
}

/// One node's line changing at a tick.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateChange {
    /// The tick it changed at.
    pub tick: Tick,
    /// The new line.
    pub state: NodeState,
}

/// A node's line at the end of a tick, with what changed in it during
/// the tick ([`NodeState::changes_since`]; empty when nothing did).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateRow {
    /// The line.
    pub state: NodeState,
    /// What changed.
    pub changes: Vec<String>,
}

/// Every node's state line over a run: the lines when recording started,
/// then each change with its tick, in order. The state at tick `t` is the
/// last line of each node at or before `t` (a directive run at `t` after
/// the tick's messages counts at `t`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StateLog {
    changes: Vec<StateChange>,
    current: Vec<NodeState>,
}

impl StateLog {
    /// An empty log.
    pub fn new() -> StateLog {
        StateLog::default()
    }

    /// Notes `states` (one per node, in node order) at `tick`: each line
    /// that differs from the node's last one is a change.
    pub fn note(&mut self, tick: Tick, states: Vec<NodeState>) {
        for state in states {
            match self.current.iter_mut().find(|s| s.node == state.node) {
                Some(last) if *last == state => {}
                Some(last) => {
                    *last = state.clone();
                    self.changes.push(StateChange { tick, state });
                }
                None => {
                    self.current.push(state.clone());
                    self.changes.push(StateChange { tick, state });
                }
            }
        }
    }

    /// Every change, in order.
    pub fn changes(&self) -> &[StateChange] {
        &self.changes
    }

    /// True when nothing was noted.
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// The nodes, in the order they were first noted.
    pub fn nodes(&self) -> Vec<NodeId> {
        self.current.iter().map(|s| s.node.clone()).collect()
    }

    /// Every node's line at `tick` (nodes first noted later are left out).
    pub fn at(&self, tick: Tick) -> Vec<NodeState> {
        let mut out: Vec<NodeState> = Vec::new();
        for c in self.changes.iter().take_while(|c| c.tick <= tick) {
            match out.iter_mut().find(|s| s.node == c.state.node) {
                Some(s) => *s = c.state.clone(),
                None => out.push(c.state.clone()),
            }
        }
        out
    }

    /// The ticks at which some line changed, ascending, each once.
    pub fn ticks(&self) -> Vec<Tick> {
        let mut ticks: Vec<Tick> = self.changes.iter().map(|c| c.tick).collect();
        ticks.dedup();
        ticks
    }

    /// Every node's line at the end of each tick some line changed at,
    /// with what changed: one entry per such tick. Several changes of one
    /// node within a tick collapse into one, compared with its line before
    /// the tick.
    pub fn per_tick(&self) -> Vec<(Tick, Vec<StateRow>)> {
        let mut out = Vec::new();
        let mut before: Vec<NodeState> = Vec::new();
        for tick in self.ticks() {
            let now = self.at(tick);
            let row = now
                .iter()
                .map(|s| {
                    let old = before.iter().find(|b| b.node == s.node);
                    StateRow {
                        state: s.clone(),
                        changes: s.changes_since(old),
                    }
                })
                .collect();
            out.push((tick, row));
            before = now;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(node: &str, hw: u64) -> NodeState {
        NodeState::new(NodeId::new(node), true, "leader")
            .with("LEO", 3)
            .with("HW", hw)
    }

    #[test]
    fn a_log_records_only_lines_that_changed_and_answers_the_state_at_a_tick() {
        let mut log = StateLog::new();
        log.note(0, vec![line("a", 0), line("b", 0)]);
        log.note(1, vec![line("a", 0), line("b", 0)]);
        log.note(2, vec![line("a", 2), line("b", 0)]);
        assert_eq!(log.changes().len(), 3);
        assert_eq!(log.ticks(), vec![0, 2]);
        assert_eq!(log.at(1)[0].field("HW"), Some("0"));
        assert_eq!(log.at(2)[0].field("HW"), Some("2"));
        assert_eq!(log.at(2)[1].field("HW"), Some("0"));
        let rows = log.per_tick();
        assert_eq!(rows[1].0, 2);
        assert_eq!(rows[1].1[0].changes, vec!["HW 2".to_owned()]);
        assert!(rows[1].1[1].changes.is_empty());
    }

    #[test]
    fn a_line_shows_a_crashed_node_as_down_and_its_changes_compactly() {
        let mut down = line("a", 2);
        down.alive = false;
        assert_eq!(down.line(), "down (leader)  LEO 3  HW 2");
        assert_eq!(
            down.changes_since(Some(&line("a", 1))),
            vec!["down (leader)".to_owned(), "HW 2".to_owned()]
        );
        let set = StateField::set("ISR", &[NodeId::new("n1"), NodeId::new("n3")]);
        assert_eq!(set.to_string(), "ISR {n1,n3}");
    }
}
