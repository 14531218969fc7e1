//! The Raft lab's unit checks: each stage's functions called directly.

use proto_raft::decisions::RaftDecisions;

use crate::lab::Student;
use crate::stage::{Check, expect};

/// The student's Raft rules.
fn raft(student: Student) -> Result<&'static dyn RaftDecisions, String> {
    match student {
        Student::Raft(d) => Ok(d),
        Student::Isr(_) => Err("this is the Raft lab's check; the crate implements ISR's".into()),
    }
}

/// A unit check over the student's Raft rules.
fn unit(name: &'static str, f: fn(&dyn RaftDecisions) -> Result<(), String>) -> Check {
    Check::Unit {
        name,
        run: Box::new(move |student| f(raft(student)?)),
    }
}

pub(super) fn stage1() -> Vec<Check> {
    vec![
        unit("grants_vote: one vote per term", |d| {
            expect(
                "grants_vote(already voted for another, candidate (2, 5), own (2, 5))",
                d.grants_vote(false, (2, 5), (2, 5)),
                false,
                "a node votes for at most one candidate per term (§5.2)",
            )
        }),
        unit(
            "grants_vote: only for a log at least as up to date (§5.4.1)",
            |d| {
                expect(
                    "grants_vote(free, candidate (2, 5), own (2, 5))",
                    d.grants_vote(true, (2, 5), (2, 5)),
                    true,
                    "an equal log is up to date",
                )?;
                expect(
                    "grants_vote(free, candidate (3, 1), own (2, 5))",
                    d.grants_vote(true, (3, 1), (2, 5)),
                    true,
                    "a later last term wins, whatever the length",
                )?;
                expect(
                    "grants_vote(free, candidate (2, 4), own (2, 5))",
                    d.grants_vote(true, (2, 4), (2, 5)),
                    false,
                    "same last term, shorter log: the candidate may lack a committed entry",
                )?;
                expect(
                    "grants_vote(free, candidate (1, 9), own (2, 5))",
                    d.grants_vote(true, (1, 9), (2, 5)),
                    false,
                    "an earlier last term loses, however long the log",
                )
            },
        ),
        unit("wins_election: a majority of the cluster", |d| {
            expect(
                "wins_election(2 votes of 3)",
                d.wins_election(2, 3),
                true,
                "2 of 3 is a majority",
            )?;
            expect(
                "wins_election(1 vote of 3)",
                d.wins_election(1, 3),
                false,
                "its own vote alone is not",
            )?;
            expect(
                "wins_election(2 votes of 4)",
                d.wins_election(2, 4),
                false,
                "half is not a majority: two leaders could win",
            )?;
            expect(
                "wins_election(3 votes of 5)",
                d.wins_election(3, 5),
                true,
                "3 of 5 is a majority",
            )
        }),
    ]
}

pub(super) fn stage2() -> Vec<Check> {
    vec![
        unit(
            "continues_log: the AppendEntries consistency check (§5.3)",
            |d| {
                expect(
                    "continues_log(prev 0 of term 0, own term 0 at 0)",
                    d.continues_log(0, 0, Some(0)),
                    true,
                    "every log holds index 0",
                )?;
                expect(
                    "continues_log(prev 4 of term 2, own term 2 at 4)",
                    d.continues_log(4, 2, Some(2)),
                    true,
                    "the entry before matches",
                )?;
                expect(
                    "continues_log(prev 4 of term 2, own term 1 at 4)",
                    d.continues_log(4, 2, Some(1)),
                    false,
                    "a different term at the same index: the logs diverge there",
                )?;
                expect(
                    "continues_log(prev 4 of term 2, log shorter than 4)",
                    d.continues_log(4, 2, None),
                    false,
                    "the log has a gap before the entries",
                )
            },
        ),
        unit(
            "commits: only the leader's own term by counting (Figure 8)",
            |d| {
                expect(
                    "commits(entry term 4, current term 4)",
                    d.commits(4, 4),
                    true,
                    "an entry of the current term on a majority is committed",
                )?;
                expect(
                    "commits(entry term 2, current term 4)",
                    d.commits(2, 4),
                    false,
                    "Figure 8: an older term's entry on a majority can still be overwritten; it is committed only by a later entry of the current term",
                )
            },
        ),
    ]
}

pub(super) fn stage3() -> Vec<Check> {
    vec![unit(
        "read_confirmed: a majority confirmed the leadership (§6.4)",
        |d| {
            expect(
                "read_confirmed(2 of 3)",
                d.read_confirmed(2, 3),
                true,
                "a majority answered this round",
            )?;
            expect(
                "read_confirmed(1 of 3)",
                d.read_confirmed(1, 3),
                false,
                "the leader alone cannot know that no newer leader exists",
            )?;
            expect(
                "read_confirmed(2 of 4)",
                d.read_confirmed(2, 4),
                false,
                "half is not a majority",
            )
        },
    )]
}

pub(super) fn stage4() -> Vec<Check> {
    vec![unit(
        "grants_pre_vote: a higher term, an up-to-date log, no live leader",
        |d| {
            expect(
                "grants_pre_vote(term above, candidate (2, 5), own (2, 5), no leader)",
                d.grants_pre_vote(true, (2, 5), (2, 5), false),
                true,
                "it could win a real election",
            )?;
            expect(
                "grants_pre_vote(term above, candidate (2, 5), own (2, 5), leader alive)",
                d.grants_pre_vote(true, (2, 5), (2, 5), true),
                false,
                "a node that hears from its leader does not help depose it (thesis §9.6)",
            )?;
            expect(
                "grants_pre_vote(term above, candidate (2, 4), own (2, 5), no leader)",
                d.grants_pre_vote(true, (2, 4), (2, 5), false),
                false,
                "the real vote would refuse this log",
            )?;
            expect(
                "grants_pre_vote(term not above, candidate (2, 5), own (2, 5), no leader)",
                d.grants_pre_vote(false, (2, 5), (2, 5), false),
                false,
                "a stale term cannot win",
            )
        },
    )]
}
