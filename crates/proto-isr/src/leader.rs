//! The leader's half of [`IsrNode`]: its own append path and the fan-out to
//! followers, a follower's catch-up (incremental from the retained window,
//! or a full snapshot), a follower's fetch, a clean or unclean election
//! taking effect, and the displaced leader's resend on reconnect.

use std::sync::Arc;

use bytes::Bytes;
use replication::AckLevel;

use crate::log::{LogEntry, ReplicaLog};
use crate::message::{AppendKind, IsrMessage};
use crate::node::IsrNode;
use crate::output::{NodeEvent, Output, TruncationReason};
use crate::probe::CatchUpMode;

impl IsrNode {
    /// A produce request: appends `key = value` at the next offset in the
    /// leader epoch this replica knows (a displaced leader that has not
    /// heard of the election appends in its old epoch), records
    /// [`NodeEvent::LeaderAppended`], then streams the entry to every peer
    /// for which `is_slow` is false and records
    /// [`NodeEvent::ReplicationDelayed`] for the others. The packet carries
    /// the high watermark this replica knows. Returns the new offset.
    pub fn append_local(
        &mut self,
        key: Bytes,
        value: Bytes,
        acks: AckLevel,
        is_slow: impl Fn(usize) -> bool,
        out: &mut Vec<Output>,
    ) -> u64 {
        debug_assert!(
            self.is_leader(),
            "only a replica that believes it leads appends"
        );
        let epoch = self.known_epoch;
        let prev_offset = self.log.end();
        let prev_epoch = self.log.epoch_at(prev_offset);
        let offset = prev_offset + 1;
        let entry = Arc::new(LogEntry {
            offset,
            epoch,
            key,
            value,
        });
        self.log.push(entry.clone());
        // A leader's own appends are confirmed in its epoch; one that lost
        // its confirmation in a crash regains it only by an election.
        if self.matched_epoch == epoch {
            self.matched_end = offset;
        }
        out.push(Output::Event(NodeEvent::LeaderAppended {
            entry: Arc::clone(&entry),
            acks,
        }));
        let high_watermark = self.log.applied_hw;
        let shared: Arc<[Arc<LogEntry>]> = Arc::from([entry]);
        for to in (0..self.replicas).filter(|&j| j != self.me) {
            if is_slow(to) {
                out.push(Output::Event(NodeEvent::ReplicationDelayed {
                    follower: to,
                    offset,
                }));
                continue;
            }
            out.push(Output::Send {
                to,
                msg: IsrMessage::Append {
                    kind: AppendKind::Live,
                    leader_epoch: epoch,
                    source: self.me,
                    prev_offset,
                    prev_epoch,
                    entries: Arc::clone(&shared),
                    leader_log_end: offset,
                    high_watermark,
                },
            });
        }
        offset
    }

    /// Starts catching `follower` (whose log is `follower_log`: in this
    /// chapter mode the leader sees follower positions directly) up from
    /// this replica's log: incremental from the end of their shared prefix
    /// (found by entry epochs, as KIP-101's leader-epoch lookup does) when
    /// that is level or inside the retained window, otherwise a full
    /// snapshot. Records [`NodeEvent::CatchUpStarted`] and sends it.
    pub fn catch_up(&self, follower: usize, follower_log: &ReplicaLog, out: &mut Vec<Output>) {
        let shared = follower_log.shared_prefix_with(&self.log);
        let (first, end) = self.retained_range();
        let high_watermark = self.log.applied_hw;
        let incremental = shared == end || shared + 1 >= first;
        let msg = if incremental {
            IsrMessage::Append {
                kind: AppendKind::CatchUp,
                leader_epoch: self.known_epoch,
                source: self.me,
                prev_offset: shared,
                prev_epoch: self.log.epoch_at(shared),
                entries: Arc::from(&self.log.entries[shared as usize..]),
                leader_log_end: end,
                high_watermark,
            }
        } else {
            IsrMessage::Snapshot {
                leader_epoch: self.known_epoch,
                source: self.me,
                log: Arc::from(self.log.entries.as_slice()),
                high_watermark,
            }
        };
        out.push(Output::Event(NodeEvent::CatchUpStarted {
            follower,
            mode: if incremental {
                CatchUpMode::Incremental
            } else {
                CatchUpMode::Full
            },
            from_offset: shared + 1,
            leader_log_end: end,
            retained_first: first,
        }));
        out.push(Output::Send { to: follower, msg });
    }

    /// A follower's fetch: served when this replica leads the epoch it
    /// names; the group then starts that follower's catch-up
    /// ([`IsrNode::catch_up`]) if the controller still lets it.
    pub(crate) fn on_fetch(&self, from: usize, epoch: u64, log_end: u64, out: &mut Vec<Output>) {
        let served = self.is_leader() && epoch == self.known_epoch;
        out.push(Output::Event(NodeEvent::FetchReceived {
            follower: from,
            log_end,
            served,
        }));
    }

    /// Elected leader of `leader_epoch` with high watermark
    /// `high_watermark`: the log is truncated to it (a clean election keeps
    /// only the committed prefix; after an unclean one it is the log end
    /// already), this replica knows itself as leader, its log is confirmed
    /// through its end, and the high watermark is applied.
    pub fn become_leader(&mut self, leader_epoch: u64, high_watermark: u64, out: &mut Vec<Output>) {
        self.truncate(high_watermark, TruncationReason::CleanElection, out);
        // Electing a replica means the controller reached it.
        self.known_epoch = leader_epoch;
        self.known_leader = self.me;
        self.awaiting_controller = false;
        self.matched_epoch = leader_epoch;
        self.matched_end = self.log.end();
        self.log.apply_through(high_watermark);
    }

    /// A displaced leader reconnecting before it hears of the election:
    /// when it still believes it leads, it retransmits its uncommitted
    /// suffix (above the high watermark it knows) in its old epoch to every
    /// peer, which fence it. Records [`NodeEvent::StaleLeaderResent`].
    pub fn resend_as_stale_leader(&self, out: &mut Vec<Output>) {
        let from = self.log.applied_hw;
        if !self.is_leader() || from >= self.log.end() {
            return;
        }
        let epoch = self.known_epoch;
        let msg = IsrMessage::Append {
            kind: AppendKind::Live,
            leader_epoch: epoch,
            source: self.me,
            prev_offset: from,
            prev_epoch: self.log.epoch_at(from),
            entries: Arc::from(&self.log.entries[from as usize..]),
            leader_log_end: self.log.end(),
            high_watermark: from,
        };
        out.push(Output::Event(NodeEvent::StaleLeaderResent {
            leader_epoch: epoch,
            from_offset: from + 1,
            log_end: self.log.end(),
        }));
        for to in (0..self.replicas).filter(|&j| j != self.me) {
            out.push(Output::Send {
                to,
                msg: msg.clone(),
            });
        }
    }
}

#[cfg(test)]
#[path = "leader_tests.rs"]
mod tests;
