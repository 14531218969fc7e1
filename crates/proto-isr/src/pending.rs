//! A write in flight and the pure decision of when it completes.
//!
//! The group appends a write, keeps a [`PendingWrite`] for it, and after
//! every tick hands it the [`WriteFacts`] of that moment; [`PendingWrite::decide`]
//! answers whether it is acknowledged, not acknowledged (its outcome is then
//! *unknown*: the entry is in a log and may yet be committed or lost), or
//! still waiting. Nothing here touches the simulator or the trace.

use replication::{AckLevel, ClientOp, NodeId, OpId, Tick};

/// Who appended the write, and so what it waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WriteWait {
    /// An `AllIsr` write appended by the controller's leader: it waits until
    /// every current ISR member holds the offset and HW covers it.
    AllIsr,
    /// A write appended by a displaced leader that still believes it leads
    /// its old epoch: no replica of that epoch will confirm it, so it waits
    /// only until the bound passes or the node learns of the new epoch.
    StaleLeader,
}

/// A write appended and not yet answered.
#[derive(Debug, Clone)]
pub(crate) struct PendingWrite {
    pub(crate) id: OpId,
    /// The submitted operation, for its completion; `None` for the write
    /// of a blocking `client_write`, whose outcome goes straight back to
    /// that call.
    pub(crate) op: Option<ClientOp>,
    /// Its acknowledgement level.
    pub(crate) level: AckLevel,
    pub(crate) submitted: Tick,
    pub(crate) wait: WriteWait,
    /// Index of the replica that appended it.
    pub(crate) writer: usize,
    /// The leader epoch it was appended in.
    pub(crate) epoch: u64,
    /// Its offset.
    pub(crate) offset: u64,
}

/// What the group knows when it judges one pending write.
#[derive(Debug)]
pub(crate) struct WriteFacts<'a> {
    pub(crate) now: Tick,
    pub(crate) ack_timeout: u64,
    /// The replica that appended the write.
    pub(crate) writer: &'a NodeId,
    pub(crate) writer_alive: bool,
    /// The leader epoch the writer currently knows.
    pub(crate) writer_epoch: u64,
    /// The controller's leader and leader epoch.
    pub(crate) leader: &'a NodeId,
    pub(crate) leader_epoch: u64,
    pub(crate) isr_len: usize,
    pub(crate) min_insync: usize,
    /// Every current ISR member holds the offset in the current epoch.
    pub(crate) isr_holds: bool,
    pub(crate) high_watermark: u64,
    /// Replicas other than the writer that confirmed the offset in the
    /// write's epoch, plus the writer itself.
    pub(crate) confirmed: usize,
    pub(crate) replicas: usize,
    /// The chapter's rules ([`crate::decisions`]).
    pub(crate) decide: crate::decisions::Decisions,
}

/// How a pending write ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Every current ISR member holds it and HW covers it.
    Acknowledged,
    /// Appended but not acknowledged: the client cannot know whether it
    /// takes effect.
    NotAcknowledged {
        /// The `isr_write_refused` reason word.
        reason: &'static str,
        /// Why, for the client.
        message: String,
        /// False when the writer crashed and nobody answered the client.
        answered: bool,
    },
}

impl PendingWrite {
    /// Ticks waited since submission.
    fn waited(&self, now: Tick) -> u64 {
        now.saturating_sub(self.submitted)
    }

    /// The write's fate given `facts`, or `None` while it still waits.
    /// Every branch is bounded by `ack_timeout` ticks after submission.
    pub(crate) fn decide(&self, facts: &WriteFacts<'_>) -> Option<Verdict> {
        let offset = self.offset;
        if !facts.writer_alive {
            return Some(Verdict::NotAcknowledged {
                reason: "writer_crashed",
                message: replication::message![
                    facts.writer,
                    " crashed before offset ",
                    offset,
                    " was acknowledged"
                ],
                answered: false,
            });
        }
        match self.wait {
            WriteWait::AllIsr => self.decide_all_isr(facts),
            WriteWait::StaleLeader => self.decide_stale(facts),
        }
    }

    fn decide_all_isr(&self, facts: &WriteFacts<'_>) -> Option<Verdict> {
        let offset = self.offset;
        if facts.leader_epoch != self.epoch {
            return Some(Verdict::NotAcknowledged {
                reason: "leader_changed",
                message: replication::message![
                    "leadership moved to ",
                    facts.leader,
                    " in leader epoch ",
                    facts.leader_epoch,
                    " before offset ",
                    offset,
                    " (appended in epoch ",
                    self.epoch,
                    ") was acknowledged"
                ],
                answered: true,
            });
        }
        let (size, min) = (facts.isr_len, facts.min_insync);
        if !facts.decide.admits(size, min) {
            return Some(Verdict::NotAcknowledged {
                reason: "isr_below_min_insync",
                message: replication::message![
                    "ISR shrank to ",
                    size,
                    ", below min.insync.replicas ",
                    min,
                    ", while waiting for offset ",
                    offset
                ],
                answered: true,
            });
        }
        if facts
            .decide
            .acknowledged(self.level, offset, facts.high_watermark, facts.isr_holds)
        {
            return Some(Verdict::Acknowledged);
        }
        let waited = self.waited(facts.now);
        if waited >= facts.ack_timeout {
            return Some(Verdict::NotAcknowledged {
                reason: "ack_timeout",
                message: replication::message![
                    "ack timeout after ",
                    waited,
                    " ticks: HW ",
                    facts.high_watermark,
                    " has not reached offset ",
                    offset
                ],
                answered: true,
            });
        }
        None
    }

    fn decide_stale(&self, facts: &WriteFacts<'_>) -> Option<Verdict> {
        if self.waited(facts.now) < facts.ack_timeout && facts.writer_epoch == self.epoch {
            return None;
        }
        Some(Verdict::NotAcknowledged {
            reason: "stale_leader",
            message: replication::message![
                "not acknowledged by the ISR of leader epoch ",
                self.epoch,
                " (",
                facts.confirmed,
                " of ",
                facts.replicas,
                " replicas confirmed offset ",
                self.offset,
                "); the controller's epoch is ",
                facts.leader_epoch
            ],
            answered: true,
        })
    }
}
