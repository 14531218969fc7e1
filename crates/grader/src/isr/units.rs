//! The ISR lab's unit checks: each stage's functions called directly,
//! each answer compared with the chapter's, with the chapter's reason.

use proto_isr::controller::ReplicaFacts;
use proto_isr::decisions::IsrDecisions;
use replication::{AckLevel, ReadLevel};

use crate::lab::Student;
use crate::stage::{Check, expect};

/// The student's ISR rules.
fn isr(student: Student) -> Result<&'static dyn IsrDecisions, String> {
    match student {
        Student::Isr(d) => Ok(d),
        Student::Raft(_) => Err("this is the ISR lab's check; the crate implements Raft's".into()),
    }
}

/// A unit check over the student's ISR rules.
fn unit(name: &'static str, f: fn(&dyn IsrDecisions) -> Result<(), String>) -> Check {
    Check::Unit {
        name,
        run: Box::new(move |student| f(isr(student)?)),
    }
}

/// A follower's facts: alive, not slow, linked, with `log_end` and
/// `confirmed` end.
fn follower(log_end: u64, confirmed: Option<u64>) -> ReplicaFacts {
    ReplicaFacts::new(true, false, false, true, log_end, confirmed)
}

pub(super) fn stage1() -> Vec<Check> {
    vec![
        unit("acknowledged: LEADER answers at append", |d| {
            expect(
                "acknowledged(LEADER, offset 5, HW 4, ISR holds: false)",
                d.acknowledged(AckLevel::Leader, 5, 4, false),
                true,
                "acks=1 returns once the leader appended, without waiting for the ISR or HW",
            )
        }),
        unit(
            "acknowledged: ALL_ISR waits for HW to cover the offset",
            |d| {
                expect(
                    "acknowledged(ALL_ISR, offset 5, HW 4, ISR holds: false)",
                    d.acknowledged(AckLevel::AllIsr, 5, 4, false),
                    false,
                    "at append nothing but the leader holds the entry",
                )?;
                expect(
                    "acknowledged(ALL_ISR, offset 5, HW 4, ISR holds: true)",
                    d.acknowledged(AckLevel::AllIsr, 5, 4, true),
                    false,
                    "every ISR member holds it, but HW has not advanced through it yet",
                )
            },
        ),
        unit(
            "acknowledged: ALL_ISR needs every current ISR member",
            |d| {
                expect(
                    "acknowledged(ALL_ISR, offset 5, HW 5, ISR holds: false)",
                    d.acknowledged(AckLevel::AllIsr, 5, 5, false),
                    false,
                    "a member of the current ISR does not hold the offset in this epoch",
                )
            },
        ),
        unit(
            "acknowledged: ALL_ISR once the ISR holds it and HW covers it",
            |d| {
                expect(
                    "acknowledged(ALL_ISR, offset 5, HW 5, ISR holds: true)",
                    d.acknowledged(AckLevel::AllIsr, 5, 5, true),
                    true,
                    "both facts of the chapter's message hold: the ISR has it and HW advanced",
                )?;
                expect(
                    "acknowledged(ALL_ISR, offset 5, HW 9, ISR holds: true)",
                    d.acknowledged(AckLevel::AllIsr, 5, 9, true),
                    true,
                    "HW past the offset covers it too",
                )
            },
        ),
    ]
}

pub(super) fn stage2() -> Vec<Check> {
    vec![
        unit(
            "high_watermark: the minimum confirmed end of the ISR",
            |d| {
                expect(
                    "high_watermark(leader end 9, ISR ends [9, 7, 8])",
                    d.high_watermark(9, &[9, 7, 8]),
                    7,
                    "HW is the minimum log end among alive ISR members",
                )?;
                expect(
                    "high_watermark(leader end 9, ISR ends [9, 3])",
                    d.high_watermark(9, &[9, 3]),
                    3,
                    "the leader's own log end is not the HW while a member lags",
                )?;
                expect(
                    "high_watermark(leader end 4, ISR ends [4])",
                    d.high_watermark(4, &[4]),
                    4,
                    "an ISR of the leader alone commits what the leader holds",
                )
            },
        ),
        unit(
            "reads_committed: only an authority read hides what HW does not cover",
            |d| {
                expect(
                    "reads_committed(LINEARIZABLE)",
                    d.reads_committed(ReadLevel::Linearizable),
                    true,
                    "an authority read answers from committed_data, the prefix through HW",
                )?;
                expect(
                    "reads_committed(LOCAL)",
                    d.reads_committed(ReadLevel::Local),
                    false,
                    "a LOCAL read shows the node's full local data, possibly stale",
                )?;
                expect(
                    "reads_committed(LEADER)",
                    d.reads_committed(ReadLevel::Leader),
                    false,
                    "a LEADER read shows the leader's full data, appends above HW included",
                )
            },
        ),
    ]
}

pub(super) fn stage3() -> Vec<Check> {
    vec![
        unit("caught_up: confirmed through the leader's log end", |d| {
            expect(
                "caught_up(follower confirmed through 6, leader end 6)",
                d.caught_up(&follower(6, Some(6)), 6),
                true,
                "it holds the current leader's entries through its log end",
            )?;
            expect(
                "caught_up(follower confirmed through 4, leader end 6)",
                d.caught_up(&follower(6, Some(4)), 6),
                false,
                "it is confirmed only through 4",
            )
        }),
        unit(
            "caught_up: an equal log end is not enough (rejoin needs catch-up)",
            |d| {
                expect(
                    "caught_up(follower with log end 6, not confirmed in this epoch, leader end 6)",
                    d.caught_up(&follower(6, None), 6),
                    false,
                    "a log of the same length may hold another epoch's entries; only a \
                 follower confirmed in the current epoch is in sync",
                )
            },
        ),
        unit("caught_up: never while slow, cut off or down", |d| {
            let slow = ReplicaFacts::new(true, false, true, true, 6, Some(6));
            let cut = ReplicaFacts::new(true, false, false, false, 6, Some(6));
            let down = ReplicaFacts::new(false, false, false, true, 6, Some(6));
            expect(
                "caught_up(slow follower)",
                d.caught_up(&slow, 6),
                false,
                "the leader sends a slow replica nothing",
            )?;
            expect(
                "caught_up(follower cut off from the leader)",
                d.caught_up(&cut, 6),
                false,
                "no packet reaches it",
            )?;
            expect(
                "caught_up(crashed follower)",
                d.caught_up(&down, 6),
                false,
                "it is down",
            )
        }),
        unit("lagging: out after replica_lag_timeout ticks behind", |d| {
            expect(
                "lagging(3 ticks, timeout 3)",
                d.lagging(3, 3),
                true,
                "it has lagged for the whole timeout",
            )?;
            expect(
                "lagging(2 ticks, timeout 3)",
                d.lagging(2, 3),
                false,
                "it may still catch up",
            )?;
            expect(
                "lagging(0 ticks, timeout 3)",
                d.lagging(0, 3),
                false,
                "it was caught up this tick",
            )
        }),
        unit("admits: ALL_ISR needs min.insync.replicas members", |d| {
            expect(
                "admits(ISR 2, min.insync 2)",
                d.admits(2, 2),
                true,
                "the ISR meets the minimum",
            )?;
            expect(
                "admits(ISR 3, min.insync 2)",
                d.admits(3, 2),
                true,
                "the ISR exceeds the minimum",
            )?;
            expect(
                "admits(ISR 1, min.insync 2)",
                d.admits(1, 2),
                false,
                "min.insync.replicas refuses a strong write below the minimum (the ISR itself may shrink below it)",
            )
        }),
    ]
}

pub(super) fn stage4() -> Vec<Check> {
    vec![
        unit(
            "electable: a clean election takes an ISR member only",
            |d| {
                expect(
                    "electable(in ISR, unclean not permitted)",
                    d.electable(true, false),
                    true,
                    "an ISR member holds everything committed",
                )?;
                expect(
                    "electable(outside the ISR, unclean not permitted)",
                    d.electable(false, false),
                    false,
                    "a replica outside the ISR may lack committed entries",
                )?;
                expect(
                    "electable(outside the ISR, unclean permitted)",
                    d.electable(false, true),
                    true,
                    "with unclean.leader.election.enable and no live ISR member, availability wins",
                )
            },
        ),
        unit(
            "accepts_packet: the known leader's packets of the known epoch only",
            |d| {
                expect(
                    "accepts_packet(epoch 3, known 3, from the known leader)",
                    d.accepts_packet(3, 3, true),
                    true,
                    "the current leader's packet",
                )?;
                expect(
                    "accepts_packet(epoch 2, known 3, from the known leader)",
                    d.accepts_packet(2, 3, true),
                    false,
                    "a packet of an older epoch comes from a displaced leader",
                )?;
                expect(
                    "accepts_packet(epoch 2, known 3, from another replica)",
                    d.accepts_packet(2, 3, false),
                    false,
                    "a displaced leader's packet: an older epoch, and not the leader this follower knows",
                )?;
                expect(
                    "accepts_packet(epoch 3, known 3, from another replica)",
                    d.accepts_packet(3, 3, false),
                    false,
                    "only the epoch's leader sends appends",
                )
            },
        ),
        unit("continues_log: appends only on a matching prefix", |d| {
            expect(
                "continues_log(prev 0 of epoch 0, empty log)",
                d.continues_log(0, 0, 0, 0),
                true,
                "every log continues from nothing",
            )?;
            expect(
                "continues_log(prev 3 of epoch 2, log end 5 holding epoch 2 at 3)",
                d.continues_log(3, 2, 5, 2),
                true,
                "the prefix matches",
            )?;
            expect(
                "continues_log(prev 3 of epoch 2, log end 5 holding epoch 1 at 3)",
                d.continues_log(3, 2, 5, 1),
                false,
                "the entry at 3 came from another epoch: the logs diverge there",
            )?;
            expect(
                "continues_log(prev 5 of epoch 2, log end 4)",
                d.continues_log(5, 2, 4, 0),
                false,
                "the log has a gap before the packet's entries",
            )
        }),
    ]
}

pub(super) fn stage5() -> Vec<Check> {
    vec![
        unit(
            "renews_lease: while min.insync members are reachable",
            |d| {
                expect(
                    "renews_lease(2 reachable, min.insync 2)",
                    d.renews_lease(2, 2),
                    true,
                    "enough of the ISR answers the leader",
                )?;
                expect(
                    "renews_lease(1 reachable, min.insync 2)",
                    d.renews_lease(1, 2),
                    false,
                    "the leader may be cut off from the rest",
                )
            },
        ),
        unit("lease_live: strictly before the expiry tick", |d| {
            expect(
                "lease_live(now 3, expiry 4)",
                d.lease_live(3, 4),
                true,
                "the lease runs until tick 4",
            )?;
            expect(
                "lease_live(now 4, expiry 4)",
                d.lease_live(4, 4),
                false,
                "at the expiry tick another leader may already serve",
            )?;
            expect(
                "lease_live(now 9, expiry 4)",
                d.lease_live(9, 4),
                false,
                "long expired",
            )
        }),
    ]
}
