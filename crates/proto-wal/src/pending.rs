//! A `QUORUM` write in flight, and the pure decision of when it completes.
//!
//! PostgreSQL's backend, after flushing a commit record with
//! `synchronous_commit = on`, sleeps in `SyncRepWaitForLSN` until the
//! synchronous standbys' reported flush positions (write positions for
//! `remote_write`, replay positions for `remote_apply`) confirm the commit
//! LSN under `synchronous_standby_names` (see `sync_rep`).
//! Here that wait is a [`PendingWrite`]; the group hands it the facts after
//! every tick (and after a crash or a promotion) and it answers with a
//! [`Verdict`]. Nothing here touches the simulator or the trace.

use replication::{ClientOp, OpId};
use sim_core::{NodeId, Tick};

/// A `QUORUM` write appended and flushed on its primary, waiting for its
/// synchronous standbys to confirm that LSN.
#[derive(Debug, Clone)]
pub(crate) struct PendingWrite {
    pub id: OpId,
    pub op: Option<ClientOp>,
    pub submitted: Tick,
    /// Index of the node it was appended on.
    pub primary: usize,
    /// The LSN it was appended at.
    pub lsn: u64,
    /// The group's newest timeline when it was appended.
    pub timeline: u64,
}

/// What the group knows about a pending write's primary right now; `Id`
/// names a node (the group judges with positions, so judging after every
/// tick touches no shared name).
#[derive(Debug, Clone)]
pub(crate) struct Facts<Id> {
    pub now: Tick,
    /// The primary is running.
    pub alive: bool,
    /// The primary still believes it is a primary.
    pub is_primary: bool,
    /// The newest timeline issued by any promotion.
    pub newest_timeline: u64,
    /// The synchronous standby the write still waits for (see
    /// `sync_rep::decide`); `None` once confirmed.
    pub missing: Option<Id>,
    /// The longest a write waits.
    pub ack_timeout: u64,
}

/// How a pending write stands; `Id` names the standby it waited for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict<Id> {
    /// Keep waiting.
    Wait,
    /// Every synchronous standby flushed it: *done*.
    Acked { waited: u64 },
    /// Its primary crashed before the acknowledgement: *unknown*.
    Crashed { missing: Id },
    /// Another node was promoted while it waited: *unknown*.
    Superseded { missing: Id, timeline: u64 },
    /// Its primary heard a newer timeline and stepped down: *unknown*.
    SteppedDown { missing: Id, waited: u64 },
    /// `ack_timeout` ticks passed: *unknown*.
    TimedOut { missing: Id, waited: u64 },
}

impl PendingWrite {
    /// Decides from `facts`. An acknowledgement that has arrived wins; a
    /// crash, a promotion, a step-down or the timeout end the wait (the
    /// record stays appended and flushed on the primary, so the write may
    /// still survive: *unknown*).
    pub fn judge<Id>(&self, facts: Facts<Id>) -> Verdict<Id> {
        let waited = facts.now - self.submitted;
        let Some(missing) = facts.missing else {
            return Verdict::Acked { waited };
        };
        if !facts.alive {
            Verdict::Crashed { missing }
        } else if facts.newest_timeline != self.timeline {
            Verdict::Superseded {
                missing,
                timeline: facts.newest_timeline,
            }
        } else if !facts.is_primary {
            Verdict::SteppedDown { missing, waited }
        } else if waited >= facts.ack_timeout {
            Verdict::TimedOut { missing, waited }
        } else {
            Verdict::Wait
        }
    }
}

impl<Id> Verdict<Id> {
    /// The same verdict with its node named by `name`.
    pub fn map<J>(self, name: impl FnOnce(Id) -> J) -> Verdict<J> {
        match self {
            Verdict::Wait => Verdict::Wait,
            Verdict::Acked { waited } => Verdict::Acked { waited },
            Verdict::Crashed { missing } => Verdict::Crashed {
                missing: name(missing),
            },
            Verdict::Superseded { missing, timeline } => Verdict::Superseded {
                missing: name(missing),
                timeline,
            },
            Verdict::SteppedDown { missing, waited } => Verdict::SteppedDown {
                missing: name(missing),
                waited,
            },
            Verdict::TimedOut { missing, waited } => Verdict::TimedOut {
                missing: name(missing),
                waited,
            },
        }
    }
}

impl Verdict<NodeId> {
    /// Why a write that ended *unknown* is unknown, for its client: on
    /// `node` at `lsn`, after at most `ack_timeout` ticks; `promoted` is
    /// the node promoted meanwhile (for [`Verdict::Superseded`]). Empty for
    /// [`Verdict::Wait`] and [`Verdict::Acked`].
    pub fn unknown_reason(
        &self,
        node: &NodeId,
        lsn: u64,
        ack_timeout: u64,
        promoted: Option<&NodeId>,
    ) -> String {
        match self {
            Verdict::Wait | Verdict::Acked { .. } => String::new(),
            Verdict::TimedOut { missing, .. } if missing == node => format!(
                "no synchronous standby other than {node} itself can confirm LSN {lsn}: \
                 the primary's own flush never counts; waited {ack_timeout} ticks"
            ),
            Verdict::TimedOut { missing, .. } => format!(
                "synchronous standby {missing} did not acknowledge LSN {lsn} \
                 within {ack_timeout} ticks"
            ),
            Verdict::SteppedDown { missing, .. } => format!(
                "{node} stepped down (it heard a newer timeline) before synchronous \
                 standby {missing} acknowledged LSN {lsn}"
            ),
            Verdict::Crashed { missing } => format!(
                "{node} crashed before synchronous standby {missing} acknowledged LSN {lsn}"
            ),
            Verdict::Superseded { missing, timeline } => {
                let promoted = promoted.map_or("another node", NodeId::as_str);
                format!(
                    "{promoted} was promoted to timeline {timeline} before synchronous \
                     standby {missing} acknowledged LSN {lsn} on {node}"
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use replication::AckLevel;

    fn pending() -> PendingWrite {
        PendingWrite {
            id: OpId(1),
            op: Some(ClientOp::write("k", "v", AckLevel::Quorum)),
            submitted: 10,
            primary: 0,
            lsn: 3,
            timeline: 1,
        }
    }

    fn facts(now: Tick, missing: Option<&str>) -> Facts<NodeId> {
        Facts {
            now,
            alive: true,
            is_primary: true,
            newest_timeline: 1,
            missing: missing.map(NodeId::new),
            ack_timeout: 4,
        }
    }

    #[test]
    fn an_arrived_acknowledgement_wins_over_every_ending() {
        let f = Facts {
            alive: false,
            is_primary: false,
            newest_timeline: 2,
            ..facts(99, None)
        };
        assert_eq!(pending().judge(f), Verdict::Acked { waited: 89 });
    }

    #[test]
    fn it_waits_until_exactly_ack_timeout_ticks_have_passed() {
        let s = NodeId::new("s");
        assert_eq!(pending().judge(facts(13, Some("s"))), Verdict::Wait);
        assert_eq!(
            pending().judge(facts(14, Some("s"))),
            Verdict::TimedOut {
                missing: s,
                waited: 4
            }
        );
    }

    #[test]
    fn a_crash_a_promotion_and_a_step_down_end_the_wait_before_the_timeout() {
        let s = || NodeId::new("s");
        let crashed = Facts {
            alive: false,
            newest_timeline: 2,
            ..facts(11, Some("s"))
        };
        assert_eq!(pending().judge(crashed), Verdict::Crashed { missing: s() });
        let promoted = Facts {
            is_primary: false,
            newest_timeline: 2,
            ..facts(11, Some("s"))
        };
        assert_eq!(
            pending().judge(promoted),
            Verdict::Superseded {
                missing: s(),
                timeline: 2
            }
        );
        let demoted = Facts {
            is_primary: false,
            ..facts(11, Some("s"))
        };
        assert_eq!(
            pending().judge(demoted),
            Verdict::SteppedDown {
                missing: s(),
                waited: 1
            }
        );
    }
}
