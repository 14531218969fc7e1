//! Helpers shared by the step-function unit tests.

use bytes::Bytes;

use crate::message::{Command, LogEntry, Message};
use crate::node::{Output, Timing};

/// Textbook timing: election timeout 8–14 ticks, heartbeat every 2.
pub(crate) fn timing() -> Timing {
    Timing::textbook((8, 14), 2)
}

/// An entry of `term` setting `k` to `value`.
pub(crate) fn set_entry(term: u64, value: &'static str) -> LogEntry {
    LogEntry {
        term,
        command: Command::Set {
            key: Bytes::from_static(b"k"),
            value: Bytes::from_static(value.as_bytes()),
        },
    }
}

/// The messages among `out`, with their destinations.
pub(crate) fn sent(out: &[Output]) -> Vec<(usize, Message)> {
    out.iter()
        .filter_map(|o| match o {
            Output::Send { to, msg } => Some((*to, msg.clone())),
            Output::Event(_) => None,
        })
        .collect()
}

/// A term-2 follower's successful AppendEntries response up to
/// `match_index`.
pub(crate) fn success(match_index: u64) -> Message {
    Message::AppendEntriesResponse {
        term: 2,
        success: true,
        match_index,
        conflict_index: 0,
        read_round: 0,
    }
}
