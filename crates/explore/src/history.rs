//! The client history of one run, as the explorer recorded it.

use replication::{Bytes, OutcomeStatus, Tick};

/// What an operation asked for.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum OpKind {
    /// A write of `value` to `key`.
    Write {
        /// The key.
        key: Bytes,
        /// The value.
        value: Bytes,
    },
    /// A read of `key`.
    Read {
        /// The key.
        key: Bytes,
    },
}

/// One client operation of a run.
///
/// `call` and `ret` are the explorer's own logical clock: one step per
/// submission and one per completion *observed*, so an operation submitted
/// after another's completion was observed is ordered after it even when
/// both fall on the same tick. A completion is observed right after the
/// step or tick that produced it, so `ret` is never earlier than the real
/// completion: intervals can only widen, which makes the checks permissive,
/// never wrong.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct HistoryOp {
    /// The client (the final reads use client number `clients`).
    pub client: u8,
    /// What it asked.
    pub kind: OpKind,
    /// Logical call time.
    pub call: u64,
    /// Logical return time; `None` while in flight.
    pub ret: Option<u64>,
    /// The tick it was submitted at.
    pub call_tick: Tick,
    /// The tick it completed at.
    pub ret_tick: Option<Tick>,
    /// How it ended; `None` while in flight.
    pub status: Option<OutcomeStatus>,
    /// For a served read: the value (`None` = absent).
    pub read_value: Option<Option<Bytes>>,
    /// The protocol's words for a failed or unknown outcome.
    pub reason: String,
    /// The row's levels claim it (false for an operation at another level,
    /// which a debugger may make): *durable* and *linearizable* judge only
    /// claimed operations, and an unclaimed write is an operation whose
    /// effect is unknown.
    pub claimed: bool,
}

impl HistoryOp {
    /// The key touched.
    pub fn key(&self) -> &Bytes {
        match &self.kind {
            OpKind::Write { key, .. } | OpKind::Read { key } => key,
        }
    }

    /// A one-line description, e.g. `c1 write k0=v12 [3..7] done`.
    pub fn describe(&self) -> String {
        let what = match &self.kind {
            OpKind::Write { key, value } => format!("write {}={}", text(key), text(value)),
            OpKind::Read { key } => match &self.read_value {
                Some(Some(v)) => format!("read {} -> {}", text(key), text(v)),
                Some(None) => format!("read {} -> (absent)", text(key)),
                None => format!("read {}", text(key)),
            },
        };
        let end = match self.ret_tick {
            Some(t) => t.to_string(),
            None => "…".into(),
        };
        let status = self.status.map_or("in flight", |s| s.name());
        let mut line = format!(
            "c{} {what} @{}..{end} {status}",
            self.client, self.call_tick
        );
        if !self.reason.is_empty() {
            line.push_str(&format!(" ({})", self.reason));
        }
        line
    }
}

/// Bytes shown as text.
pub fn text(bytes: &Bytes) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
