//! The harness's state recording, as
//! [`ReplicationGroup`](crate::ReplicationGroup)'s default `record_states` /
//! `note_states` / `state_log` reach it through a protocol's
//! [`recorder`](crate::ReplicationGroup::recorder) accessors — so a
//! protocol on the harness writes two one-line accessors, not the
//! recording logic.

use sim_core::Payload;

use crate::cluster::Cluster;
use crate::state::{NodeState, StateLog};

/// Where a group's state lines are recorded (the [`Cluster`] harness).
pub trait StateRecorder {
    /// Starts recording.
    fn start(&mut self);
    /// True while recording.
    fn recording(&self) -> bool;
    /// Notes every node's line now (ignored while not recording).
    fn note(&mut self, states: Vec<NodeState>);
    /// The lines recorded so far, while recording.
    fn log(&self) -> Option<&StateLog>;
}

impl<M: Payload> StateRecorder for Cluster<M> {
    fn start(&mut self) {
        self.record_states();
    }

    fn recording(&self) -> bool {
        self.records_states()
    }

    fn note(&mut self, states: Vec<NodeState>) {
        self.note_states(states);
    }

    fn log(&self) -> Option<&StateLog> {
        self.state_log()
    }
}
