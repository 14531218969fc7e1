//! What two states must share to count as one in a search: everything
//! that decides the next steps (the exhaustive search), or that without
//! the messages in flight (TLC's `VIEW`), a coarser view that reaches
//! deeper but may merge away a state only its messages lead out of.

use std::fmt;
use std::str::FromStr;

/// Which parts of a state deduplicate it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StateView {
    /// Every part that decides the next steps, up to time
    /// ([`replication::timeless_fingerprint`]): two states are one only
    /// when every path from one is a path from the other, so a clean
    /// search proves the property for every path within the bounds.
    #[default]
    Complete,
    /// The nodes, the harness (faults, timers, client operations waiting)
    /// and the client history, the messages in flight left out
    /// ([`replication::fingerprint_without_messages`]): the first path to
    /// reach a view stands for every later one, whatever they left in
    /// flight. Every violation found is a real path of the real code; a
    /// clean search proves nothing beyond the paths it took.
    Nodes,
}

impl StateView {
    /// The name `--view` takes.
    pub fn name(self) -> &'static str {
        match self {
            StateView::Complete => "complete",
            StateView::Nodes => "nodes",
        }
    }

    /// The fingerprint of `group`'s state in this view.
    pub(crate) fn fingerprint(self, group: &dyn replication::Steer) -> u64 {
        match self {
            StateView::Complete => replication::timeless_fingerprint(group),
            StateView::Nodes => replication::fingerprint_without_messages(group),
        }
    }
}

impl fmt::Display for StateView {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for StateView {
    type Err = String;

    fn from_str(s: &str) -> Result<StateView, String> {
        match s {
            "complete" => Ok(StateView::Complete),
            "nodes" => Ok(StateView::Nodes),
            other => Err(format!(
                "unknown view `{other}`: complete (every part of a state) or nodes (the messages in flight left out)"
            )),
        }
    }
}
