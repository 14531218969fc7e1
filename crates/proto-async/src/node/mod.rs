//! [`AsyncNode`]: one Redis-shaped node as a pure state machine.
//!
//! A node never touches the network, the clock or the trace. It is told
//! what happened — a message arrived ([`AsyncNode::step`]), a tick ended
//! ([`AsyncNode::tick`]), a client wrote ([`AsyncNode::write`]), the
//! sentinel reconfigured it, it crashed — and answers with [`Output`]s:
//! messages to send (`Output::Send { to, msg }`) and transitions to record
//! (`Output::Event(AsyncEvent)`). Nodes are named by their position in the
//! group (`0..nodes`). What a node may know of the others — who is up,
//! which links carry messages, as a Redis master knows which replica
//! connections are open — is asked of a [`Peers`] the caller passes in.
//! The primary's half (client writes, the output buffers streamed every
//! tick, `PSYNC`, `REPLCONF ACK`, heartbeats, the buffers flushed on heal)
//! lives in `primary.rs`, the replica's (fencing, applying the stream and
//! sync replies, asking to resynchronise, the sentinel's reconfiguration)
//! in `replica.rs`.
//!
//! # Driving a node without the group
//!
//! A downstream model checker owns the nodes, the queue of messages and
//! the fault state; it hands each message to its receiver and collects the
//! outputs:
//!
//! ```
//! use proto_async::node::{AllUp, AsyncNode, NodeSettings, Output};
//! use proto_async::{AckLevel, Bytes};
//!
//! let settings = NodeSettings::default();
//! let mut primary = AsyncNode::primary(0, 2, settings);
//! let mut replica = AsyncNode::replica(1, 2, 0, settings);
//! let mut out = Vec::new();
//!
//! // A client write is applied at once; it is streamed when the tick ends.
//! let offset = primary
//!     .write(0, Bytes::from("k"), Bytes::from("v"), AckLevel::Leader, &AllUp, &mut out)
//!     .unwrap();
//! assert_eq!(offset, 1);
//! out.clear();
//! primary.tick(&AllUp, &mut out);
//! let stream = out.iter().find_map(|o| match o {
//!     Output::Send { to: 1, msg } => Some(msg.clone()),
//!     _ => None,
//! });
//!
//! // The replica applies it.
//! out.clear();
//! replica.step(1, 0, stream.expect("streamed to the replica"), &mut out);
//! assert_eq!(replica.offset(), 1);
//! assert_eq!(replica.get(b"k"), Some(&Bytes::from("v")));
//! ```
//!
//! What the caller does, as [`AsyncPrimaryGroup`](crate::AsyncPrimaryGroup)
//! does it:
//!
//! - every tick: [`tick`](AsyncNode::tick) every node that is up (before
//!   the clock moves on), deliver what is due with
//!   [`step`](AsyncNode::step) (never to a node that is down), and hand
//!   each replica's [`heartbeat`](AsyncNode::heartbeat) to the primary it
//!   names ([`on_heartbeat`](AsyncNode::on_heartbeat)) when the link
//!   carries it;
//! - a crash: [`crash`](AsyncNode::crash) the node and tell every other
//!   ([`peer_crashed`](AsyncNode::peer_crashed)); drop what is in flight to
//!   or from it;
//! - a restart or heal of node `x`: on heal, every primary that is up
//!   [`flush_buffered`](AsyncNode::flush_buffered)s first; then every node
//!   that is up hears [`reconnected(x, …)`](AsyncNode::reconnected) (the
//!   group skips replicas a flush served, see
//!   [`continues_stream_of`](AsyncNode::continues_stream_of));
//! - the sentinel's orders: [`become_primary`](AsyncNode::become_primary),
//!   [`follow`](AsyncNode::follow), [`demote`](AsyncNode::demote), then
//!   [`request_resync`](AsyncNode::request_resync) at each node told.

mod peers;
mod primary;
mod replica;

#[cfg(test)]
mod psync_tests;
#[cfg(test)]
mod step_tests;

use std::collections::BTreeMap;
use std::sync::Arc;

use bytes::Bytes;
use sim_core::Tick;

use crate::backlog::Backlog;
pub use crate::config::NodeSettings;
pub use crate::message::{
    AsyncMsg, Entry, FullSync, PartialSync, Psync, ReplConfAck, ReplicationId, replication_id_for,
};
pub use crate::output::{AsyncEvent, Heartbeat, Output, WriteRefused};
pub use crate::role::{CatchUpMode, Role};
pub use peers::{AllUp, Peers};

/// The fsynced image of a node: what a power loss rolls it back to.
#[derive(Debug, Clone)]
struct DurableImage {
    replication_id: ReplicationId,
    offset: u64,
    data: BTreeMap<Bytes, Bytes>,
}

/// One node: its role, its history (replication id, offset, data), its
/// durable image, and — while it is a primary — the backlog, the
/// per-replica output buffers and what it heard from each replica.
#[derive(Debug, Clone)]
pub struct AsyncNode {
    me: usize,
    settings: NodeSettings,
    role: Role,
    /// The primary a replica is configured to follow (`REPLICAOF`).
    following: Option<usize>,
    /// The generation this node believes current.
    generation: u64,
    /// The history the node's data set belongs to.
    replication_id: ReplicationId,
    offset: u64,
    data: BTreeMap<Bytes, Bytes>,
    catch_up_mode: CatchUpMode,
    /// A `PSYNC` is outstanding; do not ask again until answered.
    resync_pending: bool,
    durable: DurableImage,
    /// Primary: the recent history for partial resynchronisation.
    backlog: Backlog,
    /// Per node: entries written since the last tick, not yet handed to the
    /// network (that replica's output buffer).
    output: Vec<Vec<Arc<Entry>>>,
    /// Per node: the first offset held in its output buffer because the
    /// link was cut when it was streamed.
    buffered: Vec<Option<u64>>,
    /// Set when a power loss rolled a primary back: on restart it must
    /// start a new history so no replica splices onto forgotten entries.
    lost_history: bool,
    /// Primary: per replica, the highest offset of the current history it
    /// acknowledged (`REPLCONF ACK`); what `WAIT` counts.
    replica_acks: Vec<Option<u64>>,
    /// Primary: per replica, the last tick it was heard from (`PSYNC`,
    /// `REPLCONF ACK`, heartbeat); what `min-replicas-to-write` counts.
    last_heard: Vec<Option<Tick>>,
}

impl AsyncNode {
    fn new(
        me: usize,
        nodes: usize,
        role: Role,
        following: Option<usize>,
        settings: NodeSettings,
    ) -> Self {
        let replication_id = replication_id_for(1);
        AsyncNode {
            me,
            settings,
            role,
            following,
            generation: 1,
            replication_id: Arc::clone(&replication_id),
            offset: 0,
            data: BTreeMap::new(),
            catch_up_mode: CatchUpMode::Never,
            resync_pending: false,
            durable: DurableImage {
                replication_id,
                offset: 0,
                data: BTreeMap::new(),
            },
            backlog: Backlog::new(settings.backlog_size),
            output: vec![Vec::new(); nodes],
            buffered: vec![None; nodes],
            lost_history: false,
            replica_acks: vec![None; nodes],
            last_heard: vec![None; nodes],
        }
    }

    /// Node `me` of `nodes`, the primary of generation 1 (`repl-1`), empty
    /// and fsynced at offset 0, having heard from every replica at tick 0.
    #[must_use]
    pub fn primary(me: usize, nodes: usize, settings: NodeSettings) -> Self {
        let mut node = AsyncNode::new(me, nodes, Role::Primary, None, settings);
        for (peer, heard) in node.last_heard.iter_mut().enumerate() {
            if peer != me {
                *heard = Some(0);
            }
        }
        node
    }

    /// Node `me` of `nodes`, a replica of `primary` in generation 1, empty
    /// and fsynced at offset 0.
    #[must_use]
    pub fn replica(me: usize, nodes: usize, primary: usize, settings: NodeSettings) -> Self {
        AsyncNode::new(me, nodes, Role::Replica, Some(primary), settings)
    }

    /// A message from node `from` arrived at tick `now`. Anything from a
    /// primary this replica does not follow, or of another generation, is
    /// rejected before it touches state; a gap or a foreign history makes
    /// a replica ask to resynchronise.
    pub fn step(&mut self, now: Tick, from: usize, msg: AsyncMsg, out: &mut Vec<Output>) {
        match msg {
            AsyncMsg::Stream(entries) => self.on_stream(from, &entries, out),
            AsyncMsg::Psync(m) => self.on_psync(now, from, &m, out),
            AsyncMsg::PartialSync(m) => self.on_partial(from, *m, out),
            AsyncMsg::FullSync(m) => self.on_full(from, *m, out),
            AsyncMsg::ReplConfAck(m) => self.on_ack(now, from, &m, out),
        }
    }

    /// The tick ends (called before the clock moves on): every non-empty
    /// output buffer goes on the wire as one `replication_stream` message;
    /// a buffer whose link is cut is kept, as a start offset, for
    /// [`AsyncNode::flush_buffered`].
    pub fn tick(&mut self, peers: &impl Peers, out: &mut Vec<Output>) {
        self.stream_output(peers, out);
    }

    /// The node crashed. What was queued for the network is lost, and so is
    /// an outstanding `PSYNC`. `crash` keeps the data set (a restart with
    /// persistence); with `lose_unfsynced` the node rolls back to its last
    /// [`fsync`](AsyncNode::fsync) (a primary's backlog is trimmed to that
    /// point, and a primary that lost writes must start a new history) and
    /// reports it as [`AsyncEvent::PowerLossRestored`].
    pub fn crash(&mut self, lose_unfsynced: bool, out: &mut Vec<Output>) {
        self.output.iter_mut().for_each(Vec::clear);
        self.buffered.iter_mut().for_each(|b| *b = None);
        self.resync_pending = false;
        if !lose_unfsynced {
            return;
        }
        let before = self.offset;
        let image = self.durable.clone();
        let lost = image.offset < self.offset || image.replication_id != self.replication_id;
        self.restore(image);
        if self.role == Role::Primary && lost {
            self.lost_history = true;
        }
        out.push(Output::Event(AsyncEvent::PowerLossRestored {
            offset: before,
            restored_offset: self.offset,
        }));
    }

    /// Node `peer` crashed: what this node queued or kept for it is lost.
    pub fn peer_crashed(&mut self, peer: usize) {
        self.output[peer].clear();
        self.buffered[peer] = None;
    }

    /// Power loss: back to `image`; a primary's backlog loses what the image
    /// does not hold.
    fn restore(&mut self, image: DurableImage) {
        if image.replication_id != self.replication_id {
            self.backlog.clear();
        }
        self.forget_replicas();
        self.replication_id = image.replication_id;
        self.offset = image.offset;
        self.data = image.data;
        self.backlog.truncate_after(self.offset);
    }

    /// Stores the current state as the durable image.
    pub fn fsync(&mut self, out: &mut Vec<Output>) {
        self.durable = DurableImage {
            replication_id: Arc::clone(&self.replication_id),
            offset: self.offset,
            data: self.data.clone(),
        };
        out.push(Output::Event(AsyncEvent::Fsync {
            offset: self.offset,
        }));
    }

    /// Forgets what replicas acknowledged and when they were heard from (a
    /// new history, or no longer primary).
    fn forget_replicas(&mut self) {
        self.replica_acks.iter_mut().for_each(|a| *a = None);
        self.last_heard.iter_mut().for_each(|h| *h = None);
    }

    /// This node's position.
    #[must_use]
    pub fn id(&self) -> usize {
        self.me
    }

    /// What the node believes it is.
    #[must_use]
    pub fn role(&self) -> Role {
        self.role
    }

    /// True while the node believes it is primary (an old primary cut off
    /// from the sentinel still does).
    #[must_use]
    pub fn is_primary(&self) -> bool {
        self.role == Role::Primary
    }

    /// The primary a replica follows.
    #[must_use]
    pub fn following(&self) -> Option<usize> {
        self.following
    }

    /// True when this node is `node` or a replica following it.
    #[must_use]
    pub fn is_or_follows(&self, node: usize) -> bool {
        self.me == node || self.following == Some(node)
    }

    /// The generation the node believes current.
    #[must_use]
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The history its data set belongs to.
    #[must_use]
    pub fn replication_id(&self) -> &ReplicationId {
        &self.replication_id
    }

    /// Its offset in that history.
    #[must_use]
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Its key/value data set.
    #[must_use]
    pub fn data(&self) -> &BTreeMap<Bytes, Bytes> {
        &self.data
    }

    /// The value of `key` in its data set.
    #[must_use]
    pub fn get(&self, key: &[u8]) -> Option<&Bytes> {
        self.data.get(key)
    }

    /// How it most recently received data.
    #[must_use]
    pub fn catch_up_mode(&self) -> CatchUpMode {
        self.catch_up_mode
    }

    /// The offset of its last fsync.
    #[must_use]
    pub fn durable_offset(&self) -> u64 {
        self.durable.offset
    }

    /// A `PSYNC` is outstanding.
    #[must_use]
    pub fn resync_pending(&self) -> bool {
        self.resync_pending
    }

    /// Offsets in its backlog, oldest first.
    #[must_use]
    pub fn backlog_offsets(&self) -> Vec<u64> {
        self.backlog.offsets()
    }

    /// True when some output buffer holds entries not yet on the wire.
    #[must_use]
    pub fn has_unsent_output(&self) -> bool {
        self.output.iter().any(|queue| !queue.is_empty())
    }

    /// True when a power loss rolled this primary back past writes it had
    /// applied: it must not continue its old history.
    #[must_use]
    pub fn lost_history(&self) -> bool {
        self.lost_history
    }
}
