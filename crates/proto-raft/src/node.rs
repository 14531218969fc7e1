//! One Raft server as a pure state machine (Figure 2).
//!
//! A [`RaftNode`] never touches the network, the clock or the trace: its
//! entry points are [`RaftNode::step`] (a message arrived) and
//! [`RaftNode::tick`] (time passed), and everything it wants done comes back
//! as [`Output`]s for the group to send and record. Role-specific handling is
//! split into `step_follower` / `step_candidate` / `step_leader` as in
//! etcd-io/raft; the follower's half (votes, AppendEntries, apply) lives in
//! `follower.rs`, the leader's in `leader.rs`, PreVote in `prevote.rs`,
//! CheckQuorum and leadership transfer in `transfer.rs`, snapshots and log
//! compaction in `snapshot.rs`.

use std::collections::BTreeMap;

use bytes::Bytes;
use sim_core::{Rng, Tick};

use crate::message::Snapshot;
use crate::message::{LogEntry, Message};
pub(crate) use crate::output::{NodeEvent, Output};
pub use crate::role::Role;

/// Timing settings a node needs, and the optional mechanisms it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Timing {
    pub(crate) election_timeout: (u64, u64),
    pub(crate) heartbeat: u64,
    pub(crate) pre_vote: bool,
    pub(crate) check_quorum: bool,
    pub(crate) snapshot_threshold: Option<u64>,
    /// The most entries one AppendEntries carries.
    pub(crate) max_append_entries: u64,
    /// A planted bug switched on ([`crate::planted`]).
    pub(crate) planted: Option<&'static str>,
    /// The rules this node decides by ([`crate::decisions`]).
    pub(crate) decisions: crate::decisions::Decisions,
}

impl Timing {
    /// Textbook Raft: no PreVote, no CheckQuorum, no compaction.
    #[cfg(test)]
    pub(crate) fn textbook(election_timeout: (u64, u64), heartbeat: u64) -> Self {
        Timing {
            election_timeout,
            heartbeat,
            pre_vote: false,
            check_quorum: false,
            snapshot_threshold: None,
            max_append_entries: 64,
            planted: None,
            decisions: crate::decisions::REFERENCE,
        }
    }
}

/// One server: persistent state (`current_term`, `voted_for`, `log`), the
/// volatile state every server keeps, and the leader's volatile state.
#[derive(Debug, Clone, Hash)]
pub(crate) struct RaftNode {
    pub(crate) me: usize,
    pub(crate) cluster: usize,
    pub(crate) timing: Timing,
    pub(crate) alive: bool,
    // Persistent on all servers (kept across crash).
    pub(crate) current_term: u64,
    pub(crate) voted_for: Option<usize>,
    /// `log[k]` is the entry at index `snapshot.index + k`; `log[0]` is a
    /// sentinel standing for the snapshot's last entry (its term, no
    /// command), index 0 of term 0 before any compaction.
    pub(crate) log: Vec<LogEntry>,
    /// The last snapshot (index 0, empty, before any compaction).
    pub(crate) snapshot: Snapshot,
    // Volatile on all servers.
    pub(crate) role: Role,
    pub(crate) leader_hint: Option<usize>,
    pub(crate) commit_index: u64,
    pub(crate) last_applied: u64,
    pub(crate) data: BTreeMap<Bytes, Bytes>,
    pub(crate) election_deadline: Tick,
    /// Last tick this node heard from the leader of its term (PreVote's
    /// "a leader is alive" test).
    pub(crate) last_leader_contact: Option<Tick>,
    pub(crate) votes: Vec<bool>,
    // Volatile on leaders.
    pub(crate) next_index: Vec<u64>,
    pub(crate) match_index: Vec<u64>,
    pub(crate) last_sent: Vec<Tick>,
    pub(crate) read_round: u64,
    pub(crate) read_acked: Vec<u64>,
    /// Entries proposed since the last [`RaftNode::flush_proposals`].
    pub(crate) unsent_proposals: bool,
    pub(crate) scratch: Vec<u64>,
    /// CheckQuorum: peers heard from since the last check, and when the
    /// next check is due.
    pub(crate) recent_active: Vec<bool>,
    pub(crate) quorum_check_at: Tick,
    /// Leadership transfer in progress: the target, when it is abandoned,
    /// and whether TimeoutNow has gone out.
    pub(crate) transfer: Option<crate::transfer::Transfer>,
    /// The first entry this node held as committed and then truncated,
    /// `(index, commit index then)`: Figure 3's state machine safety
    /// broken where the node itself sees it (a planted bug gets here, the
    /// reference never). Kept across crashes — an observation, not
    /// protocol state — for the invariant checker to report in every
    /// build.
    pub(crate) truncated_committed: Option<(u64, u64)>,
}

/// Position of the alive leader with the highest term (a deposed leader in
/// a minority may still believe it leads a lower term).
pub(crate) fn highest_term_leader(nodes: &[RaftNode]) -> Option<usize> {
    nodes
        .iter()
        .filter(|n| n.leads())
        .max_by_key(|n| (n.current_term, std::cmp::Reverse(n.me)))
        .map(|n| n.me)
}

impl RaftNode {
    /// True while this node is alive and believes it leads — what every
    /// proposal, the group's choice of a leader and a transfer ask (a
    /// deposed leader in a minority still does).
    #[must_use]
    pub(crate) fn leads(&self) -> bool {
        self.alive && self.role == Role::Leader
    }

    /// A fresh follower at term 0 with an empty log.
    pub(crate) fn new(me: usize, cluster: usize, timing: Timing, now: Tick, rng: &mut Rng) -> Self {
        let mut node = RaftNode {
            me,
            cluster,
            timing,
            alive: true,
            current_term: 0,
            voted_for: None,
            log: vec![LogEntry::sentinel(0)],
            snapshot: Snapshot::default(),
            role: Role::Follower,
            leader_hint: None,
            commit_index: 0,
            last_applied: 0,
            data: BTreeMap::new(),
            election_deadline: 0,
            last_leader_contact: None,
            votes: vec![false; cluster],
            next_index: vec![1; cluster],
            match_index: vec![0; cluster],
            last_sent: vec![0; cluster],
            read_round: 0,
            read_acked: vec![0; cluster],
            unsent_proposals: false,
            scratch: Vec::with_capacity(cluster),
            recent_active: vec![false; cluster],
            quorum_check_at: 0,
            transfer: None,
            truncated_committed: None,
        };
        node.reset_election_deadline(now, rng);
        node
    }

    /// Index of the last log entry (the snapshot's index when only the
    /// sentinel exists).
    pub(crate) fn last_index(&self) -> u64 {
        self.snapshot.index + (self.log.len() - 1) as u64
    }

    /// Term of the last log entry.
    pub(crate) fn last_term(&self) -> u64 {
        self.log.last().map_or(0, |e| e.term)
    }

    /// Position in `log` of `index`, if the log holds it (the snapshot's
    /// index maps to the sentinel).
    fn position(&self, index: u64) -> Option<usize> {
        let k = index.checked_sub(self.snapshot.index)? as usize;
        (k < self.log.len()).then_some(k)
    }

    /// Term of the entry at `index`, if the log holds it (the snapshot's
    /// own index included; compacted indices below it are `None`).
    pub(crate) fn term_at(&self, index: u64) -> Option<u64> {
        self.position(index).map(|k| self.log[k].term)
    }

    /// The entry at `index`, if the log holds it past the snapshot.
    pub(crate) fn entry(&self, index: u64) -> Option<&LogEntry> {
        if index <= self.snapshot.index {
            return None;
        }
        self.position(index).map(|k| &self.log[k])
    }

    /// Entries `from..=to` (both past the snapshot and within the log).
    pub(crate) fn entries(&self, from: u64, to: u64) -> Vec<LogEntry> {
        match (self.position(from), self.position(to)) {
            (Some(a), Some(b)) if a >= 1 && a <= b => self.log[a..=b].to_vec(),
            _ => Vec::new(),
        }
    }

    /// Deletes the entries from `index` on (never the snapshot).
    pub(crate) fn truncate_from(&mut self, index: u64) {
        if let Some(k) = self.position(index) {
            debug_assert!(k >= 1, "the snapshot is never truncated");
            self.log.truncate(k.max(1));
        }
    }

    /// Votes needed to win / replicas needed to commit.
    pub(crate) fn majority(&self) -> usize {
        self.cluster / 2 + 1
    }

    /// True when the entry at `commit_index` is of the current term, i.e.
    /// this leader has committed something in its own term.
    pub(crate) fn has_current_term_commit(&self) -> bool {
        self.term_at(self.commit_index) == Some(self.current_term)
    }

    pub(crate) fn reset_election_deadline(&mut self, now: Tick, rng: &mut Rng) {
        let (lo, hi) = self.timing.election_timeout;
        self.election_deadline = now.saturating_add(rng.range_inclusive(lo, hi));
    }

    /// Time passed: followers and candidates start an election when their
    /// deadline is reached; a leader heartbeats every idle follower.
    #[cfg(test)]
    pub(crate) fn tick(&mut self, now: Tick, rng: &mut Rng) -> Vec<Output> {
        let mut out = Vec::new();
        self.tick_into(now, rng, &mut out);
        out
    }

    /// [`RaftNode::tick`] appending its outputs to `out`.
    pub(crate) fn tick_into(&mut self, now: Tick, rng: &mut Rng, out: &mut Vec<Output>) {
        match self.role {
            Role::Leader => {
                self.check_transfer(now, out);
                if self.check_quorum_due(now, rng, out) {
                    return;
                }
                self.heartbeat_idle_peers(now, out);
            }
            Role::Follower | Role::PreCandidate | Role::Candidate => {
                if now >= self.election_deadline {
                    if self.timing.pre_vote {
                        self.start_pre_vote(now, rng, out);
                    } else {
                        self.start_election(now, rng, out);
                    }
                }
            }
        }
    }

    /// A message from node `from` arrived.
    #[cfg(test)]
    pub(crate) fn step(
        &mut self,
        now: Tick,
        from: usize,
        msg: Message,
        rng: &mut Rng,
    ) -> Vec<Output> {
        let mut out = Vec::new();
        self.step_into(now, from, msg, rng, &mut out);
        out
    }

    /// [`RaftNode::step`] appending its outputs to `out`.
    pub(crate) fn step_into(
        &mut self,
        now: Tick,
        from: usize,
        msg: Message,
        rng: &mut Rng,
        out: &mut Vec<Output>,
    ) {
        // PreVote traffic never makes anyone adopt a term: a request is
        // judged as is, a grant counted by a pre-candidate (`prevote.rs`).
        match msg {
            Message::PreVote {
                term,
                last_log_index,
                last_log_term,
            } => {
                self.handle_pre_vote(now, from, term, last_log_index, last_log_term, out);
                return;
            }
            Message::PreVoteResponse {
                term,
                granted: true,
            } => {
                self.on_pre_vote_granted(now, from, term, rng, out);
                return;
            }
            _ => {}
        }
        let term = msg.term();
        if term > self.current_term {
            // Figure 2, all servers: adopt the higher term, step down, clear the vote.
            out.push(Output::Event(NodeEvent::TermAdopted {
                from,
                previous: self.current_term,
                term,
                was: self.role,
            }));
            let was = self.role;
            self.become_follower(term, None);
            if was != Role::Follower {
                self.reset_election_deadline(now, rng);
            }
        } else if term < self.current_term {
            self.reject_stale(from, msg, out);
            return;
        }
        match self.role {
            Role::Follower => self.step_follower(now, from, msg, rng, out),
            Role::PreCandidate => self.step_pre_candidate(now, from, msg, rng, out),
            Role::Candidate => self.step_candidate(now, from, msg, rng, out),
            Role::Leader => self.step_leader(now, from, msg, out),
        }
    }

    /// A message from an older term: requests get a refusal carrying our
    /// term (which makes the sender step down); replies are ignored.
    fn reject_stale(&mut self, from: usize, msg: Message, out: &mut Vec<Output>) {
        out.push(Output::Event(NodeEvent::StaleTermRejected {
            from,
            msg: sim_core::Payload::label(&msg),
            msg_term: msg.term(),
            term: self.current_term,
        }));
        let term = self.current_term;
        match msg {
            Message::RequestVote { .. } => out.push(Output::Send {
                to: from,
                msg: Message::RequestVoteResponse {
                    term,
                    granted: false,
                },
            }),
            Message::AppendEntries { read_round, .. }
            | Message::InstallSnapshot { read_round, .. } => out.push(Output::Send {
                to: from,
                msg: Message::AppendEntriesResponse {
                    term,
                    success: false,
                    match_index: 0,
                    conflict_index: 0,
                    read_round,
                },
            }),
            Message::RequestVoteResponse { .. }
            | Message::AppendEntriesResponse { .. }
            | Message::PreVote { .. }
            | Message::PreVoteResponse { .. }
            | Message::TimeoutNow { .. } => {}
        }
    }

    pub(crate) fn step_follower(
        &mut self,
        now: Tick,
        from: usize,
        msg: Message,
        rng: &mut Rng,
        out: &mut Vec<Output>,
    ) {
        match msg {
            Message::RequestVote {
                last_log_index,
                last_log_term,
                ..
            } => {
                self.handle_vote_request(now, from, last_log_index, last_log_term, rng, out);
            }
            Message::AppendEntries { .. } => self.handle_append(now, from, msg, rng, out),
            Message::InstallSnapshot { .. } => {
                self.handle_install_snapshot(now, from, msg, rng, out);
            }
            Message::TimeoutNow { .. } => self.handle_timeout_now(now, from, rng, out),
            // Replies from a role we no longer hold in this term.
            Message::RequestVoteResponse { .. }
            | Message::AppendEntriesResponse { .. }
            | Message::PreVote { .. }
            | Message::PreVoteResponse { .. } => {}
        }
    }

    fn step_candidate(
        &mut self,
        now: Tick,
        from: usize,
        msg: Message,
        rng: &mut Rng,
        out: &mut Vec<Output>,
    ) {
        match msg {
            Message::RequestVote {
                last_log_index,
                last_log_term,
                ..
            } => {
                self.handle_vote_request(now, from, last_log_index, last_log_term, rng, out);
            }
            Message::RequestVoteResponse { granted, .. } => {
                if granted {
                    self.votes[from] = true;
                    let votes = self.votes.iter().filter(|v| **v).count();
                    if self.timing.decisions.wins_election(votes, self.cluster) {
                        self.become_leader(now, out);
                    }
                }
            }
            Message::AppendEntries { .. } | Message::InstallSnapshot { .. } => {
                // Another server won this term (§5.2): return to follower.
                out.push(Output::Event(NodeEvent::LeaderDiscovered {
                    leader: from,
                    term: self.current_term,
                }));
                let term = self.current_term;
                self.become_follower(term, self.voted_for);
                self.step_follower(now, from, msg, rng, out);
            }
            Message::AppendEntriesResponse { .. }
            | Message::PreVote { .. }
            | Message::PreVoteResponse { .. }
            | Message::TimeoutNow { .. } => {}
        }
    }

    pub(crate) fn become_follower(&mut self, term: u64, voted_for: Option<usize>) {
        self.current_term = term;
        self.voted_for = voted_for;
        self.role = Role::Follower;
        self.leader_hint = None;
        self.last_leader_contact = None;
        self.unsent_proposals = false;
        self.transfer = None;
    }

    pub(crate) fn start_election(&mut self, now: Tick, rng: &mut Rng, out: &mut Vec<Output>) {
        self.current_term += 1;
        self.role = Role::Candidate;
        self.voted_for = Some(self.me);
        self.leader_hint = None;
        self.votes.iter_mut().for_each(|v| *v = false);
        self.votes[self.me] = true;
        self.reset_election_deadline(now, rng);
        out.push(Output::Event(NodeEvent::ElectionStarted {
            term: self.current_term,
        }));
        let msg = Message::RequestVote {
            term: self.current_term,
            last_log_index: self.last_index(),
            last_log_term: self.last_term(),
        };
        for peer in (0..self.cluster).filter(|p| *p != self.me) {
            out.push(Output::Send {
                to: peer,
                msg: msg.clone(),
            });
        }
    }

    /// A crash: keep term, vote, log and snapshot (Raft persists them
    /// before it answers); lose every volatile field. The state machine
    /// restarts from the snapshot (empty without one).
    pub(crate) fn crash(&mut self) {
        self.alive = false;
        self.role = Role::Follower;
        self.leader_hint = None;
        self.last_leader_contact = None;
        self.commit_index = self.snapshot.index;
        self.last_applied = self.snapshot.index;
        self.data = self.snapshot.data.clone();
        self.votes.iter_mut().for_each(|v| *v = false);
        self.read_acked.iter_mut().for_each(|r| *r = 0);
        self.unsent_proposals = false;
        self.transfer = None;
    }

    /// Back up as a follower with a fresh election deadline.
    pub(crate) fn restart(&mut self, now: Tick, rng: &mut Rng) {
        self.alive = true;
        self.role = Role::Follower;
        self.reset_election_deadline(now, rng);
    }
}

#[cfg(test)]
#[path = "node_tests.rs"]
mod tests;
