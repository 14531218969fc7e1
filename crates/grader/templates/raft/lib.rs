//! Your Raft rules: the paper's decisions, one function each.
//!
//! The group, its messages, the timers, the log's bookkeeping, the trace
//! and every tool of the laboratory are given (they are `proto-raft`'s);
//! you write the rules the Raft paper (Ongaro and Ousterhout, 2014) and
//! Ongaro's thesis teach, stage by stage. Each function says what it must
//! answer and which section explains it. Grade a stage with
//! `cargo run --release -- lab grade --stage N`; stages after the one
//! graded run the laboratory's own rules.
//!
//! Remove a `todo!()` only when you write the function: the grader names
//! every `todo!()` it meets.

#![allow(unused_variables)] // Until every function is written.

use proto_raft::decisions::RaftDecisions;

/// Your implementation of Raft's rules.
pub struct Student;

impl RaftDecisions for Student {
    fn name(&self) -> &'static str {
        "student"
    }

    // Stage 1: leader election (§5.2, §5.4.1).

    /// Whether a follower grants its vote. `free` is true when it has not
    /// voted in this term, or voted for this very candidate;
    /// `candidate_last` and `own_last` are `(last_log_term,
    /// last_log_index)`. The election restriction: vote only for a log at
    /// least as up to date as yours — compare last terms first, then
    /// lengths.
    fn grants_vote(&self, free: bool, candidate_last: (u64, u64), own_last: (u64, u64)) -> bool {
        todo!("stage 1: grants_vote")
    }

    /// Whether a candidate holding `votes` votes (its own counted) of a
    /// `cluster` of voters has won: two candidates must never both win a
    /// term.
    fn wins_election(&self, votes: usize, cluster: usize) -> bool {
        todo!("stage 1: wins_election")
    }

    // Stage 2: log replication and the commit rule (§5.3, §5.4.2).

    /// The AppendEntries consistency check: whether entries that follow
    /// index `prev_index` of term `prev_term` continue this follower's
    /// log, which holds an entry of term `own_term_at_prev` at
    /// `prev_index` (`None` when the log does not reach it; index 0 is
    /// held by every log, with term 0). When it does not, the follower
    /// appends nothing and the leader backs up.
    fn continues_log(
        &self,
        prev_index: u64,
        prev_term: u64,
        own_term_at_prev: Option<u64>,
    ) -> bool {
        todo!("stage 2: continues_log")
    }

    /// Whether a leader of term `current_term` commits an entry of term
    /// `entry_term` because a majority holds it. Read Figure 8 before you
    /// answer.
    fn commits(&self, entry_term: u64, current_term: u64) -> bool {
        todo!("stage 2: commits")
    }

    // Stage 3: read-index reads (thesis §6.4).

    /// Whether a leader's read-index round is confirmed: `acks` nodes of
    /// `cluster` (the leader itself counted) answered it in the current
    /// term. Only then may the leader serve a read at its commit index.
    fn read_confirmed(&self, acks: usize, cluster: usize) -> bool {
        todo!("stage 3: read_confirmed")
    }

    // Stage 4: PreVote (thesis §9.6).

    /// Whether a node grants a pre-vote, which changes no term and no
    /// vote. `term_above_own`: the term the pre-candidate would campaign
    /// in is above this node's; `candidate_last`, `own_last` as in
    /// `grants_vote`; `leader_alive`: this node leads, or heard from a
    /// leader of its term within the lowest election timeout.
    fn grants_pre_vote(
        &self,
        term_above_own: bool,
        candidate_last: (u64, u64),
        own_last: (u64, u64),
        leader_alive: bool,
    ) -> bool {
        todo!("stage 4: grants_pre_vote")
    }
}
