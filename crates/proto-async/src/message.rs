//! Wire messages between primary and replicas.

use std::collections::BTreeMap;
use std::sync::Arc;

use bytes::Bytes;
use sim_core::Payload;

/// A replication id such as `repl-2`: names one history of writes.
pub type ReplicationId = Arc<str>;

/// The replication id of `generation` (`repl-<generation>`).
#[must_use]
pub fn replication_id_for(generation: u64) -> ReplicationId {
    Arc::from(format!("repl-{generation}"))
}

/// One write of the primary's history, as kept in the backlog and streamed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Generation of the primary that produced it.
    pub generation: u64,
    /// Replication id of the history it belongs to.
    pub replication_id: ReplicationId,
    /// Its position in that history (from 1).
    pub offset: u64,
    /// The key written.
    pub key: Bytes,
    /// The value written.
    pub value: Bytes,
}

/// `PSYNC <replication id> <next offset>`: a replica asks its primary to
/// resynchronise it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Psync {
    /// The generation the replica believes current.
    pub generation: u64,
    /// The replication id of the data set the replica holds.
    pub replication_id: ReplicationId,
    /// The first offset the replica is missing.
    pub next_offset: u64,
}

/// `+CONTINUE`: the backlog entries a replica is missing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartialSync {
    /// The primary's generation.
    pub generation: u64,
    /// The primary's replication id.
    pub replication_id: ReplicationId,
    /// The primary's offset when it answered.
    pub offset: u64,
    /// The entries after the replica's offset, in order.
    pub entries: Vec<Arc<Entry>>,
}

/// `+FULLRESYNC`: the primary's whole data set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FullSync {
    /// The primary's generation.
    pub generation: u64,
    /// The primary's replication id.
    pub replication_id: ReplicationId,
    /// The offset the snapshot is taken at.
    pub offset: u64,
    /// The primary's whole map at that offset.
    pub data: BTreeMap<Bytes, Bytes>,
}

/// `REPLCONF ACK <offset>`: a replica tells its primary how far it has
/// applied the primary's history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplConfAck {
    /// The generation the replica believes current.
    pub generation: u64,
    /// The replication id of the data set the replica holds.
    pub replication_id: ReplicationId,
    /// The replica's offset in that history.
    pub offset: u64,
}

/// Messages of the asynchronous replication protocol.
///
/// Kept small (streamed entries are shared with the backlog, the rarer sync
/// messages are boxed) so the network queue stays cheap.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AsyncMsg {
    /// Primary → replica: the entries streamed since the last tick, in
    /// offset order (the replication stream; never empty).
    Stream(Vec<Arc<Entry>>),
    /// Replica → primary: `PSYNC`.
    Psync(Box<Psync>),
    /// Primary → replica: `+CONTINUE` with the missing entries.
    PartialSync(Box<PartialSync>),
    /// Primary → replica: `+FULLRESYNC` with the whole data set.
    FullSync(Box<FullSync>),
    /// Replica → primary: `REPLCONF ACK` (sent only when a setting reads
    /// acknowledgements: `WAIT` or `min-replicas-to-write`).
    ReplConfAck(Box<ReplConfAck>),
}

impl AsyncMsg {
    /// The generation the message was sent under.
    #[must_use]
    pub fn generation(&self) -> u64 {
        match self {
            AsyncMsg::Stream(entries) => entries.first().map_or(0, |e| e.generation),
            AsyncMsg::Psync(m) => m.generation,
            AsyncMsg::PartialSync(m) => m.generation,
            AsyncMsg::FullSync(m) => m.generation,
            AsyncMsg::ReplConfAck(m) => m.generation,
        }
    }
}

impl Payload for AsyncMsg {
    fn label(&self) -> &'static str {
        match self {
            AsyncMsg::Stream(_) => "replication_stream",
            AsyncMsg::Psync(_) => "psync",
            AsyncMsg::PartialSync(_) => "partial_sync",
            AsyncMsg::FullSync(_) => "full_sync",
            AsyncMsg::ReplConfAck(_) => "replconf_ack",
        }
    }
}
