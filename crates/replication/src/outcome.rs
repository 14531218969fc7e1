//! What a write or a read returns.

use bytes::Bytes;
use sim_core::NodeId;

/// The three cases a history checker distinguishes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OutcomeStatus {
    /// Acknowledged write, or read served.
    Done,
    /// Definitely not applied.
    Failed,
    /// May or may not take effect.
    Unknown,
}

impl OutcomeStatus {
    /// `done`, `failed` or `unknown`, as in the trace.
    pub fn name(self) -> &'static str {
        match self {
            OutcomeStatus::Done => "done",
            OutcomeStatus::Failed => "failed",
            OutcomeStatus::Unknown => "unknown",
        }
    }
}

/// The answer to a write of a *supported* level.
///
/// A write not acknowledged (timeout, ISR below min.insync, synchronous
/// standby unreachable) is still `Ok(WriteResult { accepted: false, .. })`
/// with a message saying why, and its [`status`](Self::status) keeps the
/// two cases apart: *failed* (certainly not applied: refused before it was
/// appended) or *unknown* (appended, and may yet take effect — the
/// protocol's probe shows where).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteResult {
    /// True when the requested acknowledgement boundary was reached.
    pub accepted: bool,
    /// Done (accepted), failed or unknown.
    pub status: OutcomeStatus,
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
            status: OutcomeStatus::Done,
            offset: Some(offset),
            message: message.into(),
        }
    }

    /// A refused write: *failed* (certainly not applied) when nothing was
    /// appended, else *unknown*; `offset` is where it was appended, if it
    /// was.
    pub fn refused(offset: Option<u64>, message: impl Into<String>) -> Self {
        WriteResult {
            accepted: false,
            status: if offset.is_some() {
                OutcomeStatus::Unknown
            } else {
                OutcomeStatus::Failed
            },
            offset,
            message: message.into(),
        }
    }

    /// A write whose outcome is unknown: not acknowledged, and it may yet
    /// take effect (appended at `offset`, when known).
    pub fn unknown(offset: Option<u64>, message: impl Into<String>) -> Self {
        WriteResult {
            accepted: false,
            status: OutcomeStatus::Unknown,
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
