//! Operations in flight: what a client submits and how it completes.
//!
//! A client [`submit`](crate::ReplicationGroup::submit)s a [`ClientOp`] and
//! gets an [`OpId`] at once; no time passes. As the simulation ticks, the
//! protocol re-evaluates every operation still in flight and completes each
//! within its bound with a [`Completion`]: the op, its submit and completion
//! ticks, and an [`Outcome`] that a history checker can use:
//!
//! | outcome | meaning |
//! |---|---|
//! | *done* ([`Outcome::Written`], [`Outcome::Read`]) | acknowledged write / read served with its value |
//! | *failed* ([`Outcome::Failed`]) | definitely not applied: refused before anything was appended, read blocked |
//! | *unknown* ([`Outcome::Unknown`]) | may or may not take effect: not acknowledged after it was appended (timeout, ISR shrank, the node crashed or lost leadership) |
//!
//! A read has no effect, so a read that cannot be answered is *failed*,
//! never *unknown*.

use std::fmt::{self, Write as _};

use bytes::Bytes;
use sim_core::{NodeId, Tick};

use crate::error::GroupError;
use crate::level::{AckLevel, ReadLevel};
pub use crate::outcome::OutcomeStatus;
use crate::outcome::{ReadResult, WriteResult};

/// The id a group gives a submitted operation: 1, 2, … in submission order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct OpId(pub u64);

impl fmt::Display for OpId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "op-{}", self.0)
    }
}

/// A client operation: a write or a read, optionally sent to a named node.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ClientOp {
    /// Write `key = value`, acknowledged at `level`.
    Write {
        /// The key.
        key: Bytes,
        /// The value.
        value: Bytes,
        /// The acknowledgement the client waits for.
        level: AckLevel,
        /// The node the client sends it to; `None` = the current leader.
        /// A protocol that cannot take writes at a named node answers
        /// [`GroupError::NotPermitted`] or serves it as it documents.
        node: Option<NodeId>,
    },
    /// Read `key` at `level`.
    Read {
        /// The key.
        key: Bytes,
        /// The authority the read consults.
        level: ReadLevel,
        /// The node the client asks (as `client_read`'s `node`).
        node: Option<NodeId>,
    },
}

impl ClientOp {
    /// A write of `key = value` at `level`, sent to the leader.
    #[must_use]
    pub fn write(key: impl Into<Bytes>, value: impl Into<Bytes>, level: AckLevel) -> ClientOp {
        ClientOp::Write {
            key: key.into(),
            value: value.into(),
            level,
            node: None,
        }
    }

    /// A read of `key` at `level`, at the protocol's default node.
    #[must_use]
    pub fn read(key: impl Into<Bytes>, level: ReadLevel) -> ClientOp {
        ClientOp::Read {
            key: key.into(),
            level,
            node: None,
        }
    }

    /// The same operation sent to `node`.
    #[must_use]
    pub fn at(mut self, target: &NodeId) -> ClientOp {
        match &mut self {
            ClientOp::Write { node, .. } | ClientOp::Read { node, .. } => {
                *node = Some(target.clone())
            }
        }
        self
    }

    /// The key the operation touches.
    pub fn key(&self) -> &Bytes {
        match self {
            ClientOp::Write { key, .. } | ClientOp::Read { key, .. } => key,
        }
    }

    /// The node the operation was sent to, if named.
    pub fn node(&self) -> Option<&NodeId> {
        match self {
            ClientOp::Write { node, .. } | ClientOp::Read { node, .. } => node.as_ref(),
        }
    }

    /// `write` or `read`.
    pub fn kind(&self) -> &'static str {
        match self {
            ClientOp::Write { .. } => "write",
            ClientOp::Read { .. } => "read",
        }
    }

    /// The level's SCREAMING_SNAKE name (`QUORUM`, `LINEARIZABLE`).
    pub fn level_name(&self) -> &'static str {
        match self {
            ClientOp::Write { level, .. } => level.name(),
            ClientOp::Read { level, .. } => level.name(),
        }
    }
}

/// How an operation ended.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome {
    /// *Done*: the write was acknowledged at its level.
    Written {
        /// The offset / LSN / index it was given.
        offset: u64,
        /// The protocol's words for the acknowledgement.
        message: String,
    },
    /// *Done*: the read was served.
    Read(ReadResult),
    /// *Failed*: definitely not applied.
    Failed {
        /// Why, in the protocol's words.
        message: String,
        /// The error the blocking API answers with (e.g.
        /// [`GroupError::ReadBlocked`]); `None` when it answers with a
        /// refused [`WriteResult`].
        error: Option<GroupError>,
    },
    /// *Unknown*: it may or may not take effect.
    Unknown {
        /// Where it was appended, if it was.
        offset: Option<u64>,
        /// Why it was not acknowledged.
        message: String,
    },
}

impl Outcome {
    /// Done, failed or unknown.
    pub fn status(&self) -> OutcomeStatus {
        match self {
            Outcome::Written { .. } | Outcome::Read(_) => OutcomeStatus::Done,
            Outcome::Failed { .. } => OutcomeStatus::Failed,
            Outcome::Unknown { .. } => OutcomeStatus::Unknown,
        }
    }

    /// A refused write that appended nothing.
    pub fn refused_before_append(message: impl Into<String>) -> Outcome {
        Outcome::Failed {
            message: message.into(),
            error: None,
        }
    }

    /// An operation the blocking API answers with `error`.
    pub fn failed_with(error: GroupError) -> Outcome {
        // Sized once: an error's text is a sentence naming a node or a
        // level, and growing a string from empty reallocates it 3-4 times.
        let mut message = String::with_capacity(160);
        let _ = write!(message, "{error}");
        Outcome::Failed {
            message,
            error: Some(error),
        }
    }

    /// A write appended at `offset` (if known) and not acknowledged.
    pub fn unknown(offset: Option<u64>, message: impl Into<String>) -> Outcome {
        Outcome::Unknown {
            offset,
            message: message.into(),
        }
    }

    /// The answer of the blocking [`client_write`](crate::ReplicationGroup::client_write).
    pub fn into_write_result(self) -> Result<WriteResult, GroupError> {
        match self {
            Outcome::Written { offset, message } => Ok(WriteResult::accepted(offset, message)),
            Outcome::Failed {
                error: Some(err), ..
            } => Err(err),
            Outcome::Failed { message, .. } => Ok(WriteResult::refused(None, message)),
            Outcome::Unknown { offset, message } => Ok(WriteResult::unknown(offset, message)),
            Outcome::Read(read) => Err(GroupError::NotPermitted {
                node: read.node,
                reason: "a write completed as a read (a protocol bug)".into(),
            }),
        }
    }

    /// The answer of the blocking [`client_read`](crate::ReplicationGroup::client_read).
    pub fn into_read_result(self, level: ReadLevel) -> Result<ReadResult, GroupError> {
        match self {
            Outcome::Read(read) => Ok(read),
            Outcome::Failed {
                error: Some(err), ..
            } => Err(err),
            Outcome::Failed { message, .. } | Outcome::Unknown { message, .. } => Err(
                GroupError::NoLeader(format!("{level} read not served: {message}")),
            ),
            Outcome::Written { offset, .. } => Err(GroupError::NoLeader(format!(
                "a read completed as a write at offset {offset} (a protocol bug)"
            ))),
        }
    }
}

/// A completed operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    /// Its id.
    pub id: OpId,
    /// What was submitted.
    pub op: ClientOp,
    /// The tick it was submitted at.
    pub submitted: Tick,
    /// The tick it completed at.
    pub completed: Tick,
    /// The node that answered (acknowledged, served, or refused), if any.
    pub node: Option<NodeId>,
    /// How it ended.
    pub outcome: Outcome,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_outcome_s_message_is_its_error_s_text() {
        for error in [
            GroupError::ReadBlocked {
                level: ReadLevel::Linearizable,
                node: NodeId::new("node-1"),
                guard: "above high watermark",
                reason: "leader log end 4 is above HW 3".to_owned(),
            },
            GroupError::NoLeader("no replica is in sync".to_owned()),
        ] {
            let text = error.to_string();
            match Outcome::failed_with(error) {
                Outcome::Failed { message, .. } => assert_eq!(message, text),
                other => panic!("{other:?}"),
            }
        }
    }
}
