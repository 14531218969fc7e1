//! The follower's half of a [`RaftNode`]: voting, AppendEntries handling,
//! and applying committed entries.

use sim_core::{Rng, Tick};

use crate::message::{Command, LogEntry, Message};
use crate::node::RaftNode;
use crate::output::{NodeEvent, Output};
use crate::planted;
use crate::role::Role;

impl RaftNode {
    /// §5.2 + §5.4.1: one vote per term, only for a candidate whose log is
    /// at least as up to date as ours.
    pub(crate) fn handle_vote_request(
        &mut self,
        now: Tick,
        from: usize,
        last_log_index: u64,
        last_log_term: u64,
        rng: &mut Rng,
        out: &mut Vec<Output>,
    ) {
        let free = self.voted_for.is_none() || self.voted_for == Some(from);
        let candidate_last = (last_log_term, last_log_index);
        let own_last = (self.last_term(), self.last_index());
        let granted = (self
            .timing
            .decisions
            .grants_vote(free, candidate_last, own_last)
            || (free && planted::on(self.timing.planted, planted::VOTE_IGNORES_LOG)))
            && self.role == Role::Follower
            && !planted::on(self.timing.planted, planted::NEVER_GRANT_VOTES);
        if granted {
            self.voted_for = Some(from);
            self.reset_election_deadline(now, rng);
        }
        out.push(Output::Event(NodeEvent::VoteCast {
            candidate: from,
            term: self.current_term,
            granted,
        }));
        out.push(Output::Send {
            to: from,
            msg: Message::RequestVoteResponse {
                term: self.current_term,
                granted,
            },
        });
    }

    /// Traffic from the current leader (AppendEntries or InstallSnapshot):
    /// remember it, note when it was heard (PreVote and CheckQuorum read
    /// that), and push the election deadline back.
    pub(crate) fn heard_from_leader(&mut self, now: Tick, from: usize, rng: &mut Rng) {
        self.leader_hint = Some(from);
        self.last_leader_contact = Some(now);
        self.reset_election_deadline(now, rng);
    }

    /// §5.3: the prev index/term check, conflict hint, suffix deletion only
    /// on conflict, commit learned from `leader_commit`.
    pub(crate) fn handle_append(
        &mut self,
        now: Tick,
        from: usize,
        msg: Message,
        rng: &mut Rng,
        out: &mut Vec<Output>,
    ) {
        let Message::AppendEntries {
            mut prev_log_index,
            mut prev_log_term,
            mut entries,
            leader_commit,
            read_round,
            ..
        } = msg
        else {
            return;
        };
        self.heard_from_leader(now, from, rng);
        if prev_log_index < self.snapshot.index {
            // Entries through our snapshot are committed, so they match the
            // leader's (state machine safety): check from the snapshot on.
            let skip = (self.snapshot.index - prev_log_index) as usize;
            entries.drain(..skip.min(entries.len()));
            prev_log_index = self.snapshot.index;
            prev_log_term = self.snapshot.term;
        }
        let term = self.current_term;
        let reject = |conflict_index: u64| Message::AppendEntriesResponse {
            term,
            success: false,
            match_index: 0,
            conflict_index,
            read_round,
        };
        let own_term_at_prev = self.term_at(prev_log_index);
        if !self
            .timing
            .decisions
            .continues_log(prev_log_index, prev_log_term, own_term_at_prev)
        {
            let conflict_index = match own_term_at_prev {
                // Our log ends before prev_log_index: continue after its end.
                None => self.last_index() + 1,
                // First index of the conflicting term (never below commit).
                Some(t) => {
                    let mut first = prev_log_index;
                    while first > self.commit_index + 1 && self.term_at(first - 1) == Some(t) {
                        first -= 1;
                    }
                    first
                }
            };
            out.push(Output::Event(NodeEvent::AppendRejected {
                leader: from,
                prev_log_index,
                conflict_index,
            }));
            out.push(Output::Send {
                to: from,
                msg: reject(conflict_index),
            });
            return;
        }
        let count = entries.len() as u64;
        let mut truncated_from = None;
        let mut first_new = None;
        for (k, entry) in entries.into_iter().enumerate() {
            let index = prev_log_index + 1 + k as u64;
            match self.term_at(index) {
                Some(t) if t == entry.term => continue,
                Some(_) => {
                    if index <= self.commit_index {
                        // Committed entries are never truncated: the
                        // invariant checker reports it (a planted bug).
                        self.truncated_committed
                            .get_or_insert((index, self.commit_index));
                    }
                    self.truncate_from(index);
                    truncated_from = Some(index);
                }
                None => {}
            }
            first_new.get_or_insert(index);
            self.log.push(entry);
        }
        if planted::on(self.timing.planted, planted::TRUNCATE_ON_STALE_APPEND) {
            planted::truncate_after_append(self, prev_log_index, count, &mut truncated_from);
        }
        if let Some(first) = first_new {
            out.push(Output::Event(NodeEvent::EntriesAppended {
                leader: from,
                first,
                last: self.last_index(),
                truncated_from,
            }));
        }
        let match_index = prev_log_index + count;
        if leader_commit > self.commit_index {
            let target = leader_commit.min(match_index);
            self.advance_commit(target, out);
        }
        out.push(Output::Send {
            to: from,
            msg: Message::AppendEntriesResponse {
                term,
                success: true,
                match_index,
                conflict_index: 0,
                read_round,
            },
        });
    }

    /// Moves `commit_index` up to `target` (never down) and applies the new
    /// entries to the key/value map.
    pub(crate) fn advance_commit(&mut self, target: u64, out: &mut Vec<Output>) {
        if target <= self.commit_index {
            return;
        }
        debug_assert!(
            target <= self.last_index(),
            "commit index never passes the log end"
        );
        self.commit_index = target;
        while self.last_applied < self.commit_index {
            self.last_applied += 1;
            if let Some(LogEntry {
                command: Command::Set { key, value },
                ..
            }) = self.entry(self.last_applied)
            {
                self.data.insert(key.clone(), value.clone());
            }
        }
        out.push(Output::Event(NodeEvent::CommitAdvanced {
            term: self.current_term,
            commit_index: self.commit_index,
        }));
        self.maybe_compact(out);
    }
}
