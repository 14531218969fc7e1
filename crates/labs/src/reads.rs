//! Classifying what an attempted read returned.

use std::fmt;

use bytes::Bytes;
use replication::{GroupError, ReadResult};

/// The read-matrix answer for one level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadOutcome {
    /// Served, but not the latest acknowledged value.
    Stale,
    /// Served the latest value.
    Fresh,
    /// Supported, refused by the protocol's authority guard.
    Blocked,
    /// The protocol has no such level.
    Unsupported,
}

impl ReadOutcome {
    /// Classifies the answer to a read whose latest written value is
    /// `expected`. Any other error is passed through: it is not an answer
    /// the matrix knows how to show.
    pub fn classify(
        answer: &Result<ReadResult, GroupError>,
        expected: &Bytes,
    ) -> Result<ReadOutcome, GroupError> {
        match answer {
            Ok(read) if read.value.as_ref() == Some(expected) => Ok(ReadOutcome::Fresh),
            Ok(_) => Ok(ReadOutcome::Stale),
            Err(GroupError::ReadBlocked { .. }) => Ok(ReadOutcome::Blocked),
            Err(GroupError::UnsupportedRead { .. }) => Ok(ReadOutcome::Unsupported),
            Err(other) => Err(other.clone()),
        }
    }

    /// `stale`, `fresh`, `blocked` or `unsupported`.
    pub fn name(self) -> &'static str {
        match self {
            ReadOutcome::Stale => "stale",
            ReadOutcome::Fresh => "fresh",
            ReadOutcome::Blocked => "blocked",
            ReadOutcome::Unsupported => "unsupported",
        }
    }
}

impl fmt::Display for ReadOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What an authority guard did when tried: `unsupported`, the guard name of
/// a blocked read (`lease fenced`, …), or `served <value>` when the read was
/// (wrongly) answered.
pub fn guard_outcome(answer: &Result<ReadResult, GroupError>) -> String {
    match answer {
        Ok(read) => format!("served {}", show(read.value.as_ref())),
        Err(GroupError::UnsupportedRead { .. }) => "unsupported".to_owned(),
        Err(GroupError::ReadBlocked { guard, .. }) => (*guard).to_owned(),
        Err(other) => format!("error: {other}"),
    }
}

/// A byte value for a cell: its UTF-8 text, or `none`.
pub fn show(value: Option<&Bytes>) -> String {
    match value {
        Some(bytes) => String::from_utf8_lossy(bytes).into_owned(),
        None => "none".to_owned(),
    }
}
