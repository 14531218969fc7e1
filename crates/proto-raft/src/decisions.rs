//! Raft's decisions, as one trait: every rule the Raft chapter teaches —
//! who gets a vote, who wins an election, whether AppendEntries continues
//! a log, what a leader may commit, when a read index is confirmed, who
//! gets a pre-vote — answered by one small pure function each, and nothing
//! else. The nodes call them at their decision points; [`Reference`] is
//! this crate's own answer to each (the code the group runs by default).
//!
//! The Raft lab swaps in a student's implementation
//! ([`RaftConfig::with_decisions`](crate::RaftConfig::with_decisions)):
//! the same group, the same explorer, checker and scenario files, judging
//! the student's rules. What the nodes do around a decision — the
//! messages, the trace, the conflict hint, which entry is the commit
//! candidate — stays this crate's; the planted bugs ([`crate::planted`])
//! stay switches next to the calls.
//!
//! ```
//! use proto_raft::decisions::{RaftDecisions, Reference};
//!
//! // §5.4.1: a vote only for a log at least as up to date as ours,
//! // compared as (last term, last index).
//! assert!(Reference.grants_vote(true, (3, 5), (3, 5)));
//! assert!(!Reference.grants_vote(true, (2, 9), (3, 1)));
//! // §5.2: three votes of five win.
//! assert!(Reference.wins_election(3, 5) && !Reference.wins_election(2, 5));
//! // §5.4.2, Figure 8: a leader of term 4 commits by counting replicas
//! // only an entry of term 4.
//! assert!(Reference.commits(4, 4) && !Reference.commits(2, 4));
//! ```

/// The rules of Raft, one function each, grouped by the lab's stages.
/// Each is pure: it sees only its arguments.
pub trait RaftDecisions: Sync + 'static {
    // Stage 1: elections.

    /// A short name (`reference`, `student`): configurations are compared
    /// and printed by it.
    fn name(&self) -> &'static str;

    /// Whether a follower grants its vote to a candidate of its current
    /// term (the term check, and stepping down for a higher term, happen
    /// before; a candidate or leader never grants, whatever this answers).
    /// `free` is true when it has cast no vote this term or cast
    /// it for this candidate; `candidate_last` and `own_last` are
    /// `(last_log_term, last_log_index)` of the candidate's log and of its
    /// own. §5.2: at most one vote per term, first come first served;
    /// §5.4.1: only for a log at least as up to date as its own (the later
    /// last term wins; with equal last terms, the longer log).
    fn grants_vote(&self, free: bool, candidate_last: (u64, u64), own_last: (u64, u64)) -> bool;

    /// Whether a candidate holding `votes` votes (its own included) in a
    /// group of `cluster` voters has won the election and becomes leader.
    /// §5.2: a majority of the voters. A pre-candidate counting pre-votes
    /// asks the same question (thesis §9.6).
    fn wins_election(&self, votes: usize, cluster: usize) -> bool;

    // Stage 2: log replication and the commit rule.

    /// The AppendEntries consistency check (§5.3): whether entries that
    /// follow index `prev_index` of term `prev_term` continue this
    /// follower's log, which holds an entry of term `own_term_at_prev` at
    /// `prev_index` (`None` when its log does not reach `prev_index`).
    /// When it does not, the follower appends nothing and answers with a
    /// conflict hint. Index 0 is held by every log with term 0, and a
    /// compacted follower's snapshot index with the snapshot's term (an
    /// older `prev_index` is moved up to it before the check): both are
    /// asked like any entry.
    fn continues_log(&self, prev_index: u64, prev_term: u64, own_term_at_prev: Option<u64>)
    -> bool;

    /// Whether a leader of term `current_term` commits, because a majority
    /// holds it, the entry of term `entry_term` (the highest index a
    /// majority's `match_index` reaches). §5.4.2 and Figure 8: only an
    /// entry of the leader's own term is committed by counting replicas;
    /// an older term's entry is committed only indirectly, by a later
    /// entry of the current term.
    fn commits(&self, entry_term: u64, current_term: u64) -> bool;

    // Stage 3: read-index reads.

    /// Whether a leader's read-index round is confirmed: `acks` nodes (the
    /// leader itself counted) of `cluster` echoed the round in the current
    /// term. §6.4: a read index is served only once a majority has
    /// confirmed that this node still leads.
    fn read_confirmed(&self, acks: usize, cluster: usize) -> bool;

    // Stage 4: PreVote.

    /// Whether a node grants a pre-vote (thesis §9.6). `term_above_own` is
    /// true when the term the pre-candidate would campaign in is above the
    /// voter's; `candidate_last` and `own_last` are `(last_log_term,
    /// last_log_index)` as in [`RaftDecisions::grants_vote`];
    /// `leader_alive` is true when the voter leads or heard from a leader
    /// of its term within the lowest election timeout. Granted only for a
    /// higher term, a log at least as up to date, and no leader known
    /// alive; a pre-vote changes no term and no vote.
    fn grants_pre_vote(
        &self,
        term_above_own: bool,
        candidate_last: (u64, u64),
        own_last: (u64, u64),
        leader_alive: bool,
    ) -> bool;
}

/// This crate's own rules: what the Raft paper teaches, and what the group
/// runs unless told otherwise.
#[derive(Debug, Clone, Copy, Default)]
pub struct Reference;

impl RaftDecisions for Reference {
    fn name(&self) -> &'static str {
        "reference"
    }

    fn grants_vote(&self, free: bool, candidate_last: (u64, u64), own_last: (u64, u64)) -> bool {
        free && candidate_last >= own_last
    }

    fn wins_election(&self, votes: usize, cluster: usize) -> bool {
        votes >= majority(cluster)
    }

    fn continues_log(
        &self,
        _prev_index: u64,
        prev_term: u64,
        own_term_at_prev: Option<u64>,
    ) -> bool {
        own_term_at_prev == Some(prev_term)
    }

    fn commits(&self, entry_term: u64, current_term: u64) -> bool {
        entry_term == current_term
    }

    fn read_confirmed(&self, acks: usize, cluster: usize) -> bool {
        acks >= majority(cluster)
    }

    fn grants_pre_vote(
        &self,
        term_above_own: bool,
        candidate_last: (u64, u64),
        own_last: (u64, u64),
        leader_alive: bool,
    ) -> bool {
        term_above_own && candidate_last >= own_last && !leader_alive
    }
}

/// The smallest majority of `cluster` voters.
fn majority(cluster: usize) -> usize {
    cluster / 2 + 1
}

/// The decisions a group runs, as a configuration field: compared and
/// printed by name.
pub type Decisions = replication::Plugged<dyn RaftDecisions>;

/// This crate's own rules, as a configuration field.
pub const REFERENCE: Decisions = replication::Plugged(&Reference);

impl replication::Named for dyn RaftDecisions {
    fn name(&self) -> &'static str {
        RaftDecisions::name(self)
    }
}

#[cfg(test)]
mod tests {
    use super::{REFERENCE, RaftDecisions, Reference};
    use crate::{RaftConfig, RaftGroup};

    #[test]
    fn a_vote_goes_once_per_term_to_an_up_to_date_log() {
        let r = Reference;
        // Equal logs: granted when free, refused when the vote is cast.
        assert!(r.grants_vote(true, (3, 5), (3, 5)));
        assert!(!r.grants_vote(false, (3, 5), (3, 5)));
        // A later last term wins whatever the lengths.
        assert!(r.grants_vote(true, (4, 1), (3, 9)));
        assert!(!r.grants_vote(true, (2, 9), (3, 1)));
        // Equal last terms: the longer log (or an equal one) wins.
        assert!(r.grants_vote(true, (3, 6), (3, 5)));
        assert!(!r.grants_vote(true, (3, 4), (3, 5)));
        // Two empty logs.
        assert!(r.grants_vote(true, (0, 0), (0, 0)));
    }

    #[test]
    fn an_election_is_won_by_a_majority_of_the_voters() {
        let r = Reference;
        assert!(!r.wins_election(1, 3));
        assert!(r.wins_election(2, 3));
        assert!(!r.wins_election(2, 4));
        assert!(r.wins_election(3, 4));
        assert!(!r.wins_election(2, 5));
        assert!(r.wins_election(3, 5));
        assert!(r.wins_election(5, 5));
    }

    #[test]
    fn append_entries_continues_a_log_holding_the_previous_entry() {
        let r = Reference;
        // Index 0 (term 0) is in every log.
        assert!(r.continues_log(0, 0, Some(0)));
        assert!(r.continues_log(4, 2, Some(2)));
        // A different term at prev_index: a conflict.
        assert!(!r.continues_log(4, 3, Some(2)));
        // A log that does not reach prev_index.
        assert!(!r.continues_log(7, 2, None));
        // A snapshot base (index 10 of term 3) is asked like any entry.
        assert!(r.continues_log(10, 3, Some(3)));
    }

    /// Figure 8: S1, leader of term 4, finds the term-2 entry at index 2
    /// on a majority — it must not commit it by counting; the term-4 entry
    /// after it, once on a majority, commits both.
    #[test]
    fn figure_8_an_older_terms_entry_on_a_majority_is_not_committed_by_counting() {
        let r = Reference;
        assert!(!r.commits(2, 4), "term-2 entry under a term-4 leader");
        assert!(!r.commits(3, 4));
        assert!(r.commits(4, 4), "the leader's own term");
    }

    #[test]
    fn a_read_index_needs_a_majority_counting_the_leader() {
        let r = Reference;
        assert!(!r.read_confirmed(1, 3), "the leader alone");
        assert!(r.read_confirmed(2, 3));
        assert!(!r.read_confirmed(2, 5));
        assert!(r.read_confirmed(3, 5));
    }

    #[test]
    fn a_pre_vote_needs_a_higher_term_an_up_to_date_log_and_no_live_leader() {
        let r = Reference;
        assert!(r.grants_pre_vote(true, (3, 5), (3, 5), false));
        assert!(
            !r.grants_pre_vote(false, (3, 5), (3, 5), false),
            "stale term"
        );
        assert!(
            !r.grants_pre_vote(true, (3, 4), (3, 5), false),
            "log behind"
        );
        assert!(
            !r.grants_pre_vote(true, (3, 5), (3, 5), true),
            "leader alive"
        );
        assert!(r.grants_pre_vote(true, (4, 1), (3, 9), false));
    }

    #[test]
    fn decisions_are_compared_and_printed_by_name() {
        let d = REFERENCE;
        assert_eq!(d.name(), "reference");
        assert_eq!(format!("{d:?}"), "reference");
        let reference: &'static dyn RaftDecisions = &Reference;
        let no_votes: &'static dyn RaftDecisions = &NoVotes;
        assert_eq!(d, replication::Plugged(reference));
        assert_ne!(d, replication::Plugged(no_votes));
        assert_eq!(RaftConfig::default().decisions, d);
    }

    /// The reference rules, except that no vote is ever granted.
    struct NoVotes;

    impl RaftDecisions for NoVotes {
        fn name(&self) -> &'static str {
            "no-votes"
        }
        fn grants_vote(&self, _: bool, _: (u64, u64), _: (u64, u64)) -> bool {
            false
        }
        fn wins_election(&self, votes: usize, cluster: usize) -> bool {
            Reference.wins_election(votes, cluster)
        }
        fn continues_log(&self, index: u64, term: u64, own: Option<u64>) -> bool {
            Reference.continues_log(index, term, own)
        }
        fn commits(&self, entry_term: u64, current_term: u64) -> bool {
            Reference.commits(entry_term, current_term)
        }
        fn read_confirmed(&self, acks: usize, cluster: usize) -> bool {
            Reference.read_confirmed(acks, cluster)
        }
        fn grants_pre_vote(
            &self,
            term_above_own: bool,
            candidate_last: (u64, u64),
            own_last: (u64, u64),
            leader_alive: bool,
        ) -> bool {
            Reference.grants_pre_vote(term_above_own, candidate_last, own_last, leader_alive)
        }
    }

    #[test]
    fn a_group_runs_the_decisions_plugged_into_its_config() {
        let mut reference = RaftGroup::new(RaftConfig::default()).expect("valid");
        assert!(reference.run_until_leader(None, 200).is_ok(), "elected");

        let config = RaftConfig::default().with_decisions(&NoVotes);
        assert_eq!(config.decisions.name(), "no-votes");
        let mut group = RaftGroup::new(config).expect("valid");
        assert!(
            group.run_until_leader(None, 200).is_err(),
            "no vote is ever granted, so no leader"
        );
        assert!(group.leader_index().is_none());
        assert!(
            group.nodes.iter().all(|n| n.current_term > 1),
            "elections were tried, again and again"
        );
    }
}
