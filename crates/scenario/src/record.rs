//! What a directive labelled `as=NAME` leaves behind: its answer as a
//! value rather than a line, so a run's observation (the matrix cell) is
//! computed from the same answers the file prints.

use std::collections::BTreeMap;

use bytes::Bytes;
use replication::{AckLevel, GroupError, NodeId, ReadResult, StateLog, WriteResult};
use sim_core::Trace;

/// One labelled answer.
#[derive(Debug, Clone)]
pub enum Record {
    /// A blocking `write`: the value written, its level and the answer.
    Write {
        /// The value the write carried.
        value: Bytes,
        /// The level it was made at.
        level: AckLevel,
        /// What the group answered.
        result: Result<WriteResult, GroupError>,
    },
    /// A blocking `read` or a `lease-read`: the answer.
    Read(Result<ReadResult, GroupError>),
    /// A `failover`: the leader before it and the answer.
    Failover {
        /// The leader before the failover (or the last one seen).
        old: Option<NodeId>,
        /// The new leader, or why there is none.
        new: Result<NodeId, GroupError>,
    },
    /// A `probe`: the node's role, applied offset and catch-up mode.
    Node {
        /// The node.
        id: NodeId,
        /// Its role in the protocol's words.
        role: String,
        /// Its applied offset / LSN / index.
        offset: u64,
        /// How it last caught up ([`ScenarioGroup::catch_up`]).
        ///
        /// [`ScenarioGroup::catch_up`]: replication::ScenarioGroup::catch_up
        catch_up: String,
    },
    /// `fenced`: a count.
    Count(u64),
    /// `converged`: yes or no.
    Flag(bool),
    /// `gate`: the explanation.
    Text(String),
}

/// The records of one part of a scenario, by label.
pub type Records = BTreeMap<String, Record>;

/// One protocol's run of one part of a scenario (from a `config` to the
/// next): the part's variant, what its labelled directives answered, and
/// the group's trace when the part ended.
#[derive(Debug, Clone)]
pub struct PartRun {
    /// `variant=` of the part's `config`, if it has one.
    pub variant: Option<String>,
    /// The labelled answers.
    pub records: Records,
    /// The group's whole trace at the end of the part, or why its `config`
    /// could not build one.
    pub trace: Result<Trace, String>,
    /// Every node's state lines over the part (see [`StateLog`]), when the
    /// group records them (every built-in protocol does).
    pub states: Option<StateLog>,
}
