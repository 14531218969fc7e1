//! [`Output`]: what a node's step asks its group to do.
//!
//! Every protocol's node is a pure state machine — `step` (a message
//! arrived) and `tick` (time passed) — that never sees the network, the
//! clock or the trace. What it wants done comes back as data, in the style
//! of etcd-io/raft's `Ready` and stateright's `Out`: messages to send, and
//! transitions worth recording, which the group renders into the trace in
//! the protocol's own event vocabulary.

/// One thing a node's step asks for. `M` is the protocol's message type,
/// `E` its event type; node positions are indices into the group's node
/// list ([`Cluster::ids`](crate::Cluster::ids)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Output<M, E> {
    /// Send `msg` to the node at position `to`.
    Send {
        /// The receiver's position.
        to: usize,
        /// The message.
        msg: M,
    },
    /// Record `E` (a state transition) in the trace.
    Event(E),
}
