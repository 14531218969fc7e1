//! The chain's messages.

use bytes::Bytes;
use sim_core::Payload;

/// One write, numbered by the head.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Position in the chain's history, from 1.
    pub seq: u64,
    /// The key.
    pub key: Bytes,
    /// The value.
    pub value: Bytes,
}

/// What nodes send each other.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChainMsg {
    /// A predecessor's entries after `after` (an empty one asks the
    /// successor where it is); `full` replaces the successor's whole state.
    Forward {
        /// The chain configuration's epoch.
        epoch: u64,
        /// The last seq the sender believes its successor holds.
        after: u64,
        /// Entries `after + 1 ..`.
        entries: Vec<Entry>,
        /// A state transfer to a rejoining node.
        full: bool,
    },
    /// A successor's answer: it holds everything through `seq`, and
    /// everything through `committed` is at the tail (the paper's ack,
    /// flowing back up the chain).
    Have {
        /// The chain configuration's epoch.
        epoch: u64,
        /// The sender's last seq.
        seq: u64,
        /// The sender's commit point.
        committed: u64,
    },
}

impl ChainMsg {
    /// The epoch the message was sent in.
    pub fn epoch(&self) -> u64 {
        match self {
            ChainMsg::Forward { epoch, .. } | ChainMsg::Have { epoch, .. } => *epoch,
        }
    }
}

impl Payload for ChainMsg {
    fn label(&self) -> &'static str {
        match self {
            ChainMsg::Forward { full: true, .. } => "state_transfer",
            ChainMsg::Forward { .. } => "forward",
            ChainMsg::Have { .. } => "have",
        }
    }
}
