//! Snapshots and log compaction (§7): each node compacts its own log once
//! it has applied [`RaftConfig::snapshot_threshold`](crate::RaftConfig)
//! entries past its last snapshot; a leader whose follower needs compacted
//! entries sends InstallSnapshot instead of AppendEntries.
//!
//! Mirrors etcd: the snapshot is the applied state machine plus the index
//! and term of its last entry, the log keeps a sentinel of that term at its
//! first position, and the follower acknowledges with an AppendEntries
//! reply (`MsgAppResp`). Simplifies: one chunk per snapshot, taken
//! synchronously when the threshold is crossed.

use sim_core::{Rng, Tick};

use crate::message::{LogEntry, Message, Snapshot};
use crate::node::RaftNode;
use crate::output::{NodeEvent, Output};

impl RaftNode {
    /// After applying: compacts the log through `last_applied` once it is
    /// `snapshot_threshold` entries past the last snapshot.
    pub(crate) fn maybe_compact(&mut self, out: &mut Vec<Output>) {
        let Some(threshold) = self.timing.snapshot_threshold else {
            return;
        };
        let index = self.last_applied;
        if index < self.snapshot.index.saturating_add(threshold) {
            return;
        }
        debug_assert!(
            index <= self.commit_index,
            "only a committed prefix is compacted"
        );
        let term = self
            .term_at(index)
            .expect("an applied entry is in the log or the snapshot");
        self.drop_log_through(index, term);
        self.snapshot = Snapshot {
            index,
            term,
            data: self.data.clone(),
        };
        out.push(Output::Event(NodeEvent::SnapshotTaken { index, term }));
    }

    /// Drops the log entries through `index` (held in the log, at or past
    /// the current snapshot); the entry at `index` becomes the sentinel of
    /// `term`.
    fn drop_log_through(&mut self, index: u64, term: u64) {
        let drop = (index - self.snapshot.index) as usize;
        self.log.drain(..drop);
        self.log[0] = LogEntry::sentinel(term);
    }

    /// Leader: InstallSnapshot for `peer`, whose `next_index` moves past
    /// the snapshot.
    pub(crate) fn snapshot_for(&mut self, now: Tick, peer: usize) -> Message {
        self.next_index[peer] = self.snapshot.index + 1;
        self.last_sent[peer] = now;
        Message::InstallSnapshot {
            term: self.current_term,
            last_included_index: self.snapshot.index,
            last_included_term: self.snapshot.term,
            data: self.snapshot.data.clone(),
            read_round: self.read_round,
        }
    }

    /// Follower (§7, receiver implementation): a snapshot older than our
    /// commit index is acknowledged and ignored; otherwise keep the log
    /// after it when our entry at its index has its term, else discard the
    /// whole log, and reset the state machine to it.
    pub(crate) fn handle_install_snapshot(
        &mut self,
        now: Tick,
        from: usize,
        msg: Message,
        rng: &mut Rng,
        out: &mut Vec<Output>,
    ) {
        let Message::InstallSnapshot {
            last_included_index: index,
            last_included_term: term,
            data,
            read_round,
            ..
        } = msg
        else {
            return;
        };
        self.heard_from_leader(now, from, rng);
        let installed = index > self.commit_index;
        if installed {
            let kept = self.term_at(index) == Some(term);
            if kept {
                self.drop_log_through(index, term);
            } else {
                self.log = vec![LogEntry::sentinel(term)];
            }
            self.snapshot = Snapshot {
                index,
                term,
                data: data.clone(),
            };
            self.data = data;
            self.commit_index = index;
            self.last_applied = index;
            out.push(Output::Event(NodeEvent::SnapshotInstalled {
                leader: from,
                index,
                term,
                kept_log_suffix: kept,
            }));
        }
        out.push(Output::Send {
            to: from,
            msg: Message::AppendEntriesResponse {
                term: self.current_term,
                success: true,
                match_index: if installed { index } else { self.commit_index },
                conflict_index: 0,
                read_round,
            },
        });
    }
}
