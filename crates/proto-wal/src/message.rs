//! Wire messages between primary and standbys.

use bytes::Bytes;
use sim_core::Payload;

/// What travels between nodes. Records travel as their encoded bytes; the
/// receiver decodes them, so a malformed frame is caught where it lands.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum WalMsg {
    /// One streamed record frame (primary → standby).
    Record {
        /// The encoded [`WalRecord`](crate::WalRecord).
        frame: Bytes,
    },
    /// Incremental catch-up: the retained records from the standby's next
    /// LSN to the primary's end (primary → standby).
    Batch {
        /// The sender's timeline.
        timeline: u64,
        /// Encoded records, in LSN order (possibly none when level).
        frames: Vec<Bytes>,
    },
    /// Full catch-up: a base backup replacing the standby's WAL and data.
    BaseBackup {
        /// The sender's timeline, adopted by the receiver.
        timeline: u64,
        /// The sender's whole WAL.
        wal: Bytes,
        /// The sender's last LSN.
        lsn: u64,
    },
    /// A standby asks its primary to stream from `next_lsn`.
    StartReplication {
        /// The standby's timeline.
        timeline: u64,
        /// The first LSN the standby lacks.
        next_lsn: u64,
    },
    /// A standby reports how far it has flushed (standby → primary).
    FlushAck {
        /// The standby's timeline.
        timeline: u64,
        /// Its flushed LSN.
        flushed_lsn: u64,
    },
    /// A synchronous standby under `synchronous_commit = remote_write`
    /// reports how far it has received (written, not flushed) its WAL
    /// (standby → primary).
    WriteAck {
        /// The standby's timeline.
        timeline: u64,
        /// Its last received LSN.
        written_lsn: u64,
    },
    /// A synchronous standby under `synchronous_commit = remote_apply`
    /// reports how far it has replayed its WAL (standby → primary).
    ApplyAck {
        /// The standby's timeline.
        timeline: u64,
        /// Its last replayed LSN.
        applied_lsn: u64,
    },
    /// A primary announces its timeline and end of WAL (after promotion,
    /// and on reconnect).
    Keepalive {
        /// The sender's timeline.
        timeline: u64,
        /// The sender's last LSN.
        lsn: u64,
    },
}

impl Payload for WalMsg {
    fn label(&self) -> &'static str {
        match self {
            WalMsg::Record { .. } => "wal_record",
            WalMsg::Batch { .. } => "wal_batch",
            WalMsg::BaseBackup { .. } => "base_backup",
            WalMsg::StartReplication { .. } => "start_replication",
            WalMsg::FlushAck { .. } => "flush_ack",
            WalMsg::WriteAck { .. } => "write_ack",
            WalMsg::ApplyAck { .. } => "apply_ack",
            WalMsg::Keepalive { .. } => "keepalive",
        }
    }
}
