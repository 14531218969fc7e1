//! One ISR replica as a pure state machine: [`IsrNode`].
//!
//! A node never sees the network, the clock, the trace or the controller.
//! Its entry points are [`IsrNode::step`] (a message arrived) and the calls
//! through which the in-process controller and the client reach it
//! ([`IsrNode::learn_leader`], [`IsrNode::apply_high_watermark`],
//! [`IsrNode::append_local`], [`IsrNode::catch_up`],
//! [`IsrNode::become_leader`], …); everything it wants done comes back as
//! [`Output`]s: messages to send to a position and [`NodeEvent`]s to record.
//! The follower's half (append and snapshot handling, fencing) lives in
//! `follower.rs`, the leader's (its own append path and fan-out, catch-up,
//! fetch handling, the stale-leader resend) in `leader.rs`.
//!
//! # Driving a node without the group
//!
//! A downstream model checker builds the replicas itself, delivers each
//! [`Output::Send`](replication::Output::Send) to the node at `to` by
//! calling its `step` with the sender's position, and plays the controller
//! with [`Controller`](crate::controller::Controller) (or by hand):
//!
//! ```
//! use proto_isr::node::{IsrMessage, IsrNode, NodeEvent, Output};
//! use proto_isr::AckLevel;
//!
//! // Three replicas, position 0 leads epoch 1; retention of 8 entries.
//! let mut nodes: Vec<IsrNode> = (0..3).map(|me| IsrNode::new(me, 3, 0, 8)).collect();
//! let mut out: Vec<Output> = Vec::new();
//! let offset = nodes[0].append_local("k".into(), "v".into(), AckLevel::Leader, |_| false, &mut out);
//! assert_eq!(offset, 1);
//!
//! // Deliver every message the leader sent (a FIFO network, nothing lost).
//! let mut queue: Vec<(usize, usize, IsrMessage)> = Vec::new();
//! for o in out.drain(..) {
//!     if let Output::Send { to, msg } = o {
//!         queue.push((0, to, msg));
//!     }
//! }
//! for (from, to, msg) in queue {
//!     nodes[to].step(from, msg, &mut out);
//! }
//! assert!(out.iter().any(|o| matches!(o, Output::Event(NodeEvent::EntriesAppended { first: 1, last: 1, .. }))));
//! // Both followers now hold offset 1, confirmed in epoch 1.
//! assert!(nodes[1..].iter().all(|n| n.confirmed_log_end(1) == Some(1)));
//! ```

pub use crate::log::{LogEntry, ReplicaLog};
pub use crate::message::{AppendKind, IsrMessage};
pub use crate::output::{NodeEvent, Output, RejectReason, TruncationReason};
use crate::probe::CatchUpMode;

/// One replica: its log (with the leader epoch of every entry and the high
/// watermark it has applied), the leader and leader epoch it knows, how far
/// its log is confirmed against that leader, and its durable marker.
#[derive(Debug, Clone)]
pub struct IsrNode {
    /// This replica's position.
    pub(crate) me: usize,
    /// How many replicas the partition has (positions `0..replicas`).
    pub(crate) replicas: usize,
    /// Entries a leader retains for incremental catch-up.
    pub(crate) retention: usize,
    /// The leader epoch this replica knows (from the controller).
    pub(crate) known_epoch: u64,
    /// The leader this replica knows (from the controller).
    pub(crate) known_leader: usize,
    pub(crate) log: ReplicaLog,
    /// Epoch in which the log was last confirmed against the leader.
    pub(crate) matched_epoch: u64,
    /// Offset through which the log is confirmed identical to the leader
    /// of `matched_epoch` (only meaningful when that epoch is current).
    pub(crate) matched_end: u64,
    pub(crate) catch_up_mode: CatchUpMode,
    /// Log length at the last fsync (an O(1) "durable through" marker).
    pub(crate) durable_offset: u64,
    /// Leader packets refused as fenced (stale epoch or non-leader source).
    pub(crate) fenced_packets: u64,
    /// Restarted after a crash and not (yet) given the leadership back by the
    /// controller: it leads nothing, whatever it knew before (a Kafka
    /// broker holds no leadership across a restart until LeaderAndIsr).
    pub(crate) awaiting_controller: bool,
    /// A planted bug switched on ([`crate::planted`]).
    pub(crate) planted: Option<&'static str>,
    /// The chapter's rules ([`crate::decisions`]).
    pub(crate) decide: crate::decisions::Decisions,
}

impl IsrNode {
    /// Replica `me` of `replicas`, empty, knowing `leader` as the leader of
    /// epoch 1; `retention` entries are kept for incremental catch-up when
    /// it leads.
    #[must_use]
    pub fn new(me: usize, replicas: usize, leader: usize, retention: usize) -> Self {
        IsrNode {
            me,
            replicas,
            retention,
            known_epoch: 1,
            known_leader: leader,
            log: ReplicaLog::default(),
            matched_epoch: 1,
            matched_end: 0,
            catch_up_mode: CatchUpMode::Never,
            durable_offset: 0,
            fenced_packets: 0,
            awaiting_controller: false,
            planted: None,
            decide: crate::decisions::REFERENCE,
        }
    }

    /// This replica's position.
    #[must_use]
    pub fn me(&self) -> usize {
        self.me
    }

    /// True when this replica believes it leads (a displaced leader that
    /// has not heard of the election still does; one restarted after a
    /// crash does not until the controller tells it).
    #[must_use]
    pub fn is_leader(&self) -> bool {
        self.known_leader == self.me && !self.awaiting_controller
    }

    /// True when it restarted after a crash and the controller has not
    /// told it the leader since (it then leads nothing).
    #[must_use]
    pub fn awaiting_controller(&self) -> bool {
        self.awaiting_controller
    }

    /// The leader this replica knows.
    #[must_use]
    pub fn leader(&self) -> usize {
        self.known_leader
    }

    /// The leader epoch this replica knows.
    #[must_use]
    pub fn leader_epoch(&self) -> u64 {
        self.known_epoch
    }

    /// The log, its data views and its applied high watermark.
    #[must_use]
    pub fn log(&self) -> &ReplicaLog {
        &self.log
    }

    /// The log end offset (0 when empty).
    #[must_use]
    pub fn log_end_offset(&self) -> u64 {
        self.log.end()
    }

    /// The high watermark this replica knows and has applied.
    #[must_use]
    pub fn high_watermark(&self) -> u64 {
        self.log.applied_hw
    }

    /// Log length at the last fsync.
    #[must_use]
    pub fn durable_offset(&self) -> u64 {
        self.durable_offset
    }

    /// How this replica last got its log from a leader.
    #[must_use]
    pub fn catch_up_mode(&self) -> CatchUpMode {
        self.catch_up_mode
    }

    /// Leader packets this replica refused as fenced so far.
    #[must_use]
    pub fn fenced_packets(&self) -> u64 {
        self.fenced_packets
    }

    /// The offset through which this replica's log is confirmed to hold the
    /// leader's log of `leader_epoch` — what the leader of that epoch knows
    /// of this replica's log end (Kafka: the follower's log end offset in
    /// the leader's replica state); `None` when it was not confirmed in that
    /// epoch. For the leader itself, its own appends.
    #[must_use]
    pub fn confirmed_log_end(&self, leader_epoch: u64) -> Option<u64> {
        (self.matched_epoch == leader_epoch).then_some(self.matched_end)
    }

    /// A message from the replica at position `from` arrived.
    pub fn step(&mut self, from: usize, msg: IsrMessage, out: &mut Vec<Output>) {
        match msg {
            IsrMessage::Append {
                kind,
                leader_epoch,
                source,
                prev_offset,
                prev_epoch,
                entries,
                leader_log_end,
                high_watermark,
            } => {
                let append = crate::message::Append {
                    kind,
                    leader_epoch,
                    source,
                    prev_offset,
                    prev_epoch,
                    entries: &entries,
                    leader_log_end,
                    high_watermark,
                };
                self.on_append(from, &append, out);
            }
            IsrMessage::Snapshot {
                leader_epoch,
                source,
                log,
                high_watermark,
            } => self.on_snapshot(from, leader_epoch, source, &log, high_watermark, out),
            IsrMessage::Fetch {
                leader_epoch,
                log_end,
            } => self.on_fetch(from, leader_epoch, log_end, out),
        }
    }

    /// The controller's LeaderAndIsr: `leader` leads `leader_epoch`.
    /// Records [`NodeEvent::LeaderLearned`] when that is news.
    pub fn learn_leader(&mut self, leader: usize, leader_epoch: u64, out: &mut Vec<Output>) {
        self.awaiting_controller = false;
        if self.known_epoch == leader_epoch && self.known_leader == leader {
            return;
        }
        self.known_epoch = leader_epoch;
        self.known_leader = leader;
        out.push(Output::Event(NodeEvent::LeaderLearned {
            leader,
            leader_epoch,
        }));
    }

    /// Applies entries up to `high_watermark` (never backwards, never past
    /// the log end) into `committed_data`.
    pub fn apply_high_watermark(&mut self, high_watermark: u64) {
        self.log.apply_through(high_watermark);
    }

    /// Marks the log durable through its end; returns that offset.
    pub fn fsync(&mut self) -> u64 {
        self.durable_offset = self.log.end();
        self.durable_offset
    }

    /// A crash: nothing is confirmed against any leader any more, and the
    /// replica leads nothing until the controller tells it again; with
    /// `lose_unfsynced`, the log is truncated to its last fsync
    /// ([`TruncationReason::PowerLoss`]).
    pub fn crash(&mut self, lose_unfsynced: bool, out: &mut Vec<Output>) {
        self.matched_epoch = 0;
        self.matched_end = 0;
        // Leadership is in memory: after the restart only the controller
        // can give it back (without this, a leader restarted while cut off
        // appended in its old epoch at offsets that already held other
        // entries of that epoch — explorer seed 30514).
        self.awaiting_controller = true;
        if lose_unfsynced {
            let durable = self.durable_offset;
            self.truncate(durable, TruncationReason::PowerLoss, out);
        }
    }

    /// Truncates the log above `end`, lowering the durable marker with it;
    /// records [`NodeEvent::LogTruncated`] when something was dropped.
    pub(crate) fn truncate(&mut self, end: u64, reason: TruncationReason, out: &mut Vec<Output>) {
        if self.log.truncate_above(end) {
            self.durable_offset = self.durable_offset.min(end);
            out.push(Output::Event(NodeEvent::LogTruncated {
                above: end,
                reason,
            }));
        }
    }

    /// The retained window of this replica's log: `(first, last)` offsets,
    /// `first > last` when the log is empty.
    #[must_use]
    pub fn retained_range(&self) -> (u64, u64) {
        let end = self.log.end();
        let first = end.saturating_sub(self.retention as u64) + 1;
        (first, end)
    }
}

#[cfg(test)]
#[path = "node_tests.rs"]
mod tests;
