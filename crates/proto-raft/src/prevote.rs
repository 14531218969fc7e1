//! PreVote (Ongaro's thesis §9.6), as etcd-io/raft's `PreVote`: a node
//! whose election deadline passes becomes a *pre-candidate* and asks
//! whether it could win in `current_term + 1` **without raising its term**.
//! A voter grants when the asker's log is at least as up to date as its own
//! and it has not heard from a leader within the lowest election timeout.
//! Only a majority of grants starts a real election; so a node that was
//! cut off (and timed out again and again) rejoins with its old term and
//! does not depose a healthy leader.

use sim_core::{Rng, Tick};

use crate::message::Message;
use crate::node::RaftNode;
use crate::output::{NodeEvent, Output};
use crate::role::Role;

impl RaftNode {
    /// Deadline passed with PreVote on: ask every peer, term unchanged.
    pub(crate) fn start_pre_vote(&mut self, now: Tick, rng: &mut Rng, out: &mut Vec<Output>) {
        self.role = Role::PreCandidate;
        self.leader_hint = None;
        self.last_leader_contact = None;
        self.votes.iter_mut().for_each(|v| *v = false);
        self.votes[self.me] = true;
        self.reset_election_deadline(now, rng);
        let term = self.current_term + 1;
        out.push(Output::Event(NodeEvent::PreVoteStarted {
            term: self.current_term,
            campaign_term: term,
        }));
        let msg = Message::PreVote {
            term,
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

    /// True while this node has reason to believe a leader of its term is
    /// alive: it leads, or heard from the leader within the lowest election
    /// timeout.
    fn leader_alive(&self, now: Tick) -> bool {
        self.role == Role::Leader
            || self
                .last_leader_contact
                .is_some_and(|at| now < at.saturating_add(self.timing.election_timeout.0))
    }

    /// A PreVote request: grant when the asked term is above ours, the
    /// asker's log is at least as up to date, and no leader is known alive.
    /// Nothing here changes our term, vote or deadline.
    pub(crate) fn handle_pre_vote(
        &mut self,
        now: Tick,
        from: usize,
        term: u64,
        last_log_index: u64,
        last_log_term: u64,
        out: &mut Vec<Output>,
    ) {
        let term_above_own = term > self.current_term;
        let candidate_last = (last_log_term, last_log_index);
        let own_last = (self.last_term(), self.last_index());
        let leader_alive = self.leader_alive(now);
        // The first rule that refuses is the reason the trace gives.
        let refusal = if !term_above_own {
            Some("stale term")
        } else if candidate_last < own_last {
            Some("log behind")
        } else if leader_alive {
            Some("leader alive")
        } else {
            None
        };
        let granted = self.timing.decisions.grants_pre_vote(
            term_above_own,
            candidate_last,
            own_last,
            leader_alive,
        );
        // The word never contradicts the decision: a grant says "granted"
        // even where a rule refuses, and a refusal no rule explains says
        // so. (With the reference rules the two always agree.)
        let reason = match (granted, refusal) {
            (true, _) => "granted",
            (false, Some(rule)) => rule,
            (false, None) => "refused by the rules",
        };
        out.push(Output::Event(NodeEvent::PreVoteCast {
            candidate: from,
            term,
            granted,
            reason,
        }));
        out.push(Output::Send {
            to: from,
            msg: Message::PreVoteResponse {
                term: if granted { term } else { self.current_term },
                granted,
            },
        });
    }

    /// A pre-vote grant for the term we would campaign in: count it; a
    /// majority starts the real election. Late or foreign grants are
    /// ignored.
    pub(crate) fn on_pre_vote_granted(
        &mut self,
        now: Tick,
        from: usize,
        term: u64,
        rng: &mut Rng,
        out: &mut Vec<Output>,
    ) {
        if self.role != Role::PreCandidate || term != self.current_term + 1 {
            return;
        }
        self.votes[from] = true;
        let votes = self.votes.iter().filter(|v| **v).count();
        if self.timing.decisions.wins_election(votes, self.cluster) {
            self.start_election(now, rng, out);
        }
    }

    /// A pre-candidate's same-term traffic: a leader's AppendEntries or
    /// snapshot sends it back to follower; a candidate's RequestVote is
    /// answered as a follower would.
    pub(crate) fn step_pre_candidate(
        &mut self,
        now: Tick,
        from: usize,
        msg: Message,
        rng: &mut Rng,
        out: &mut Vec<Output>,
    ) {
        match msg {
            Message::AppendEntries { .. } | Message::InstallSnapshot { .. } => {
                out.push(Output::Event(NodeEvent::LeaderDiscovered {
                    leader: from,
                    term: self.current_term,
                }));
                let term = self.current_term;
                self.become_follower(term, self.voted_for);
                self.step_follower(now, from, msg, rng, out);
            }
            Message::RequestVote { .. } | Message::TimeoutNow { .. } => {
                let term = self.current_term;
                self.become_follower(term, self.voted_for);
                self.step_follower(now, from, msg, rng, out);
            }
            Message::RequestVoteResponse { .. }
            | Message::AppendEntriesResponse { .. }
            | Message::PreVote { .. }
            | Message::PreVoteResponse { .. } => {}
        }
    }
}
