//! What the caller says around the picture.

use std::collections::BTreeSet;

/// What to say around the picture.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct DiagramOptions {
    /// The title line (e.g. experiment, protocol and variant); a generic
    /// one when `None`.
    pub title: Option<String>,
    /// Client operations (the `op` ids of `client_op_submitted`) the caller
    /// found violating — e.g. the operation a linearizability checker could
    /// not place. They are drawn in the bad tone with a `◆` mark, on the
    /// clients band and on the lane of the node that served them, and the
    /// legend explains the mark. In a trace of several runs
    /// (`run_started`), an id marks that op in every run.
    pub violating: BTreeSet<u64>,
    /// What changed in each node's protocol state, by tick (e.g. from a
    /// run's state lines): drawn as small teal notes on the node's lane in
    /// that tick.
    pub state_notes: Vec<StateNote>,
}

/// A change of a node's protocol state to note on its lane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateNote {
    /// The tick it changed at.
    pub tick: u64,
    /// The node, as the trace names it (its lane).
    pub node: String,
    /// The note, compact: `HW 2 · ISR {2,3}`.
    pub text: String,
    /// Its tooltip: e.g. the node's whole state line.
    pub title: String,
}

impl DiagramOptions {
    /// Options with `title`.
    pub fn titled(title: impl Into<String>) -> DiagramOptions {
        DiagramOptions {
            title: Some(title.into()),
            ..DiagramOptions::default()
        }
    }

    /// These options with the client operations `ops` marked violating
    /// (added to any already marked).
    pub fn with_violating(mut self, ops: impl IntoIterator<Item = u64>) -> DiagramOptions {
        self.violating.extend(ops);
        self
    }

    /// These options with `notes` added to the state notes.
    pub fn with_state_notes(
        mut self,
        notes: impl IntoIterator<Item = StateNote>,
    ) -> DiagramOptions {
        self.state_notes.extend(notes);
        self
    }
}
