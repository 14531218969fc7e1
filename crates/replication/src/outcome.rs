//! What a write or a read returns.

use bytes::Bytes;
use sim_core::NodeId;

/// The answer to a write of a *supported* level.
///
/// A refused write (timeout, ISR below min.insync, synchronous standby
/// unreachable) is still `Ok(WriteResult { accepted: false, .. })` with a
/// message saying why; it may have appended locally, as the real system
/// would, and the protocol's probe shows that.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteResult {
    /// True when the requested acknowledgement boundary was reached.
    pub accepted: bool,
    /// The offset / LSN / index the write was given, if it was appended.
    pub offset: Option<u64>,
    /// Human-readable reason, in the protocol's own vocabulary.
    pub message: String,
}

impl WriteResult {
    /// An accepted write at `offset`.
    pub fn accepted(offset: u64, message: impl Into<String>) -> Self {
        WriteResult {
            accepted: true,
            offset: Some(offset),
            message: message.into(),
        }
    }

    /// A refused write; `offset` is where it was appended, if it was.
    pub fn refused(offset: Option<u64>, message: impl Into<String>) -> Self {
        WriteResult {
            accepted: false,
            offset,
            message: message.into(),
        }
    }
}

/// The answer to a read that was served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadResult {
    /// The value, or `None` when the key is absent on the serving node.
    pub value: Option<Bytes>,
    /// The node that served the read.
    pub node: NodeId,
    /// The serving node's applied offset when it answered.
    pub offset: u64,
}
