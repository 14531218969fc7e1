//! The leader's half of a [`RaftNode`]: election win, log replication with
//! `next_index` / `match_index`, the §5.4.2 commit rule, proposals and
//! read-index rounds.

use sim_core::Tick;

use crate::message::{Command, LogEntry, Message};
use crate::node::{NodeEvent, Output, RaftNode, Role};
use crate::planted;
use crate::role::CatchUpMode;

impl RaftNode {
    /// Won the election: reset the leader state, append a no-op of the new
    /// term and replicate it.
    pub(crate) fn become_leader(&mut self, now: Tick, out: &mut Vec<Output>) {
        self.role = Role::Leader;
        self.leader_hint = Some(self.me);
        let next = self.last_index() + 1;
        self.next_index.iter_mut().for_each(|n| *n = next);
        self.match_index.iter_mut().for_each(|m| *m = 0);
        self.read_acked.iter_mut().for_each(|r| *r = 0);
        self.unsent_proposals = false;
        self.transfer = None;
        self.reset_quorum_check(now);
        self.log.push(LogEntry {
            term: self.current_term,
            command: Command::Noop,
        });
        self.match_index[self.me] = self.last_index();
        out.push(Output::Event(NodeEvent::LeaderElected {
            term: self.current_term,
            noop_index: self.last_index(),
        }));
        self.broadcast_append(now, out);
    }

    pub(crate) fn step_leader(
        &mut self,
        now: Tick,
        from: usize,
        msg: Message,
        out: &mut Vec<Output>,
    ) {
        match msg {
            Message::RequestVote { .. } => {
                // Same term: we already voted for ourselves.
                out.push(Output::Event(NodeEvent::VoteCast {
                    candidate: from,
                    term: self.current_term,
                    granted: false,
                }));
                out.push(Output::Send {
                    to: from,
                    msg: Message::RequestVoteResponse {
                        term: self.current_term,
                        granted: false,
                    },
                });
            }
            Message::AppendEntriesResponse {
                success,
                match_index,
                conflict_index,
                read_round,
                ..
            } => {
                self.recent_active[from] = true;
                if read_round > self.read_acked[from] {
                    self.read_acked[from] = read_round;
                }
                if success {
                    self.on_append_success(now, from, match_index, out);
                } else {
                    self.on_append_reject(now, from, conflict_index, out);
                }
            }
            // Election safety makes a same-term AppendEntries, snapshot or
            // TimeoutNow impossible; late vote replies need nothing.
            Message::AppendEntries { .. }
            | Message::InstallSnapshot { .. }
            | Message::TimeoutNow { .. }
            | Message::RequestVoteResponse { .. }
            | Message::PreVote { .. }
            | Message::PreVoteResponse { .. } => {}
        }
    }

    fn on_append_success(
        &mut self,
        now: Tick,
        from: usize,
        match_index: u64,
        out: &mut Vec<Output>,
    ) {
        if match_index > self.match_index[from] {
            self.match_index[from] = match_index;
            self.maybe_commit(out);
        }
        if self.next_index[from] <= match_index {
            self.next_index[from] = match_index + 1;
        }
        if self.transfer.is_some_and(|t| t.target == from) && self.maybe_send_timeout_now(out) {
            return;
        }
        if self.next_index[from] <= self.last_index()
            && self.match_index[from] + 1 == self.next_index[from]
        {
            // Catch-up continues batch by batch.
            self.send_append(now, from, out);
        }
    }

    fn on_append_reject(
        &mut self,
        now: Tick,
        from: usize,
        conflict_index: u64,
        out: &mut Vec<Output>,
    ) {
        let retry = conflict_index.max(self.match_index[from] + 1).max(1);
        if retry >= self.next_index[from] {
            return; // a stale rejection: we already moved back further
        }
        self.next_index[from] = retry;
        let mode = if retry <= self.snapshot.index {
            CatchUpMode::Snapshot
        } else {
            CatchUpMode::LogReplay
        };
        out.push(Output::Event(NodeEvent::CatchUp {
            follower: from,
            from_index: retry,
            to_index: self.last_index(),
            mode,
        }));
        self.send_append(now, from, out);
    }

    /// §5.3 + §5.4.2: commit N when a majority has `match_index ≥ N` and
    /// `log[N].term == current_term`. O(nodes) per call.
    pub(crate) fn maybe_commit(&mut self, out: &mut Vec<Output>) {
        self.match_index[self.me] = self.last_index();
        self.scratch.clear();
        self.scratch.extend_from_slice(&self.match_index);
        self.scratch.sort_unstable_by(|a, b| b.cmp(a));
        let candidate = self.scratch[self.majority() - 1];
        let own_term = self
            .term_at(candidate)
            .is_some_and(|entry_term| self.timing.decisions.commits(entry_term, self.current_term))
            || planted::on(self.timing.planted, planted::COMMIT_OLD_TERM);
        if candidate > self.commit_index && own_term {
            self.advance_commit(candidate, out);
        }
    }

    /// Sends `peer` what it needs from its `next_index`: AppendEntries, or
    /// InstallSnapshot when that index is compacted (`raft_snapshot_sent`).
    pub(crate) fn send_append(&mut self, now: Tick, peer: usize, out: &mut Vec<Output>) {
        if self.next_index[peer] <= self.snapshot.index {
            out.push(Output::Event(NodeEvent::SnapshotSent {
                follower: peer,
                index: self.snapshot.index,
                term: self.snapshot.term,
            }));
            let msg = self.snapshot_for(now, peer);
            out.push(Output::Send { to: peer, msg });
        } else {
            let msg = self.append_for(now, peer);
            out.push(Output::Send { to: peer, msg });
        }
    }

    /// AppendEntries for `peer` carrying the entries from its `next_index`
    /// (at most `max_append_entries`; never below the snapshot, see
    /// [`RaftNode::send_append`]); `next_index` moves past them
    /// optimistically.
    pub(crate) fn append_for(&mut self, now: Tick, peer: usize) -> Message {
        let next = self.next_index[peer].clamp(self.snapshot.index + 1, self.last_index() + 1);
        let prev = next - 1;
        let end = self.last_index().min(prev + self.timing.max_append_entries);
        let entries = self.entries(next, end);
        self.next_index[peer] = end + 1;
        self.last_sent[peer] = now;
        Message::AppendEntries {
            term: self.current_term,
            prev_log_index: prev,
            prev_log_term: self
                .term_at(prev)
                .expect("prev is the snapshot index or a live entry"),
            entries,
            leader_commit: self.commit_index,
            read_round: self.read_round,
        }
    }

    pub(crate) fn broadcast_append(&mut self, now: Tick, out: &mut Vec<Output>) {
        for peer in 0..self.cluster {
            if peer != self.me {
                self.send_append(now, peer, out);
            }
        }
    }

    /// Heartbeat (an AppendEntries from `next_index`) to every follower that
    /// has heard nothing for `heartbeat` ticks.
    pub(crate) fn heartbeat_idle_peers(&mut self, now: Tick, out: &mut Vec<Output>) {
        for peer in 0..self.cluster {
            if peer != self.me && now >= self.last_sent[peer].saturating_add(self.timing.heartbeat)
            {
                self.send_append(now, peer, out);
            }
        }
    }

    /// Appends `command` in the current term. It is not sent yet: every
    /// entry proposed before the next [`RaftNode::flush_proposals`] leaves
    /// in one AppendEntries per follower (etcd's `Ready` batch), so
    /// proposals submitted back to back share a round. Returns the new
    /// entry's index, or `None` when not leader.
    pub(crate) fn propose(&mut self, command: Command) -> Option<u64> {
        if !self.leads() {
            return None;
        }
        self.log.push(LogEntry {
            term: self.current_term,
            command,
        });
        let index = self.last_index();
        self.match_index[self.me] = index;
        self.unsent_proposals = true;
        Some(index)
    }

    /// Sends what was proposed since the last flush: an AppendEntries from
    /// `next_index` to every follower that has not been sent the log end yet
    /// (a read-index round in between may already have carried them).
    pub(crate) fn flush_proposals(&mut self, now: Tick, out: &mut Vec<Output>) {
        // Only `propose` sets the flag, and stepping down or crashing
        // clears it: a node holding it leads.
        if !std::mem::take(&mut self.unsent_proposals) {
            return;
        }
        for peer in 0..self.cluster {
            if peer != self.me && self.next_index[peer] <= self.last_index() {
                self.send_append(now, peer, out);
            }
        }
    }

    /// Starts a read-index round (§6.4): a new round number, sent to every
    /// follower on an AppendEntries; confirmed once a majority echoes it.
    pub(crate) fn start_read_round(&mut self, now: Tick, out: &mut Vec<Output>) -> u64 {
        self.read_round += 1;
        self.broadcast_append(now, out);
        self.read_round
    }

    /// True when a majority (counting this leader) answered round `round`
    /// in the current term, as
    /// [`RaftDecisions::read_confirmed`](crate::decisions::RaftDecisions::read_confirmed)
    /// judges the count.
    pub(crate) fn read_round_confirmed(&self, round: u64) -> bool {
        if planted::on(self.timing.planted, planted::READ_WITHOUT_QUORUM) {
            return true;
        }
        let acks = (0..self.cluster)
            .filter(|p| *p == self.me || self.read_acked[*p] >= round)
            .count();
        self.timing.decisions.read_confirmed(acks, self.cluster)
    }
}
