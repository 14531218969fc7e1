//! [`Peers`]: what a node may know about the others.

/// What a node may know about the others: which are up and which one-way
/// links carry messages. The group answers from its fault state; a model
/// checker from its own.
pub trait Peers {
    /// True while the node at position `node` is up.
    fn is_up(&self, node: usize) -> bool;
    /// True when messages from `from` to `to` are delivered.
    fn can_send(&self, from: usize, to: usize) -> bool;
}

/// Every node up, every link open.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AllUp;

impl Peers for AllUp {
    fn is_up(&self, _node: usize) -> bool {
        true
    }
    fn can_send(&self, _from: usize, _to: usize) -> bool {
        true
    }
}
