//! The pure decision of whether a commit LSN is confirmed by the
//! synchronous standbys — PostgreSQL's `SyncRepGetSyncRecPtr` over the
//! candidates of `synchronous_standby_names`. The group gathers the facts
//! (who is connected, how far each standby reported); nothing here touches
//! the simulator or the trace.

use sim_core::NodeId;

use crate::sync_names::SyncQuorum;

/// One standby listed in `synchronous_standby_names`, as the primary sees
/// it. `Id` names it: a [`NodeId`] in tests, a node position in the group.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Candidate<Id = NodeId> {
    pub id: Id,
    /// Streaming from this primary now: alive, a standby following it on
    /// its timeline, the link open both ways. A listed node that is the
    /// primary itself is never connected (its own flush never confirms).
    pub connected: bool,
    /// The LSN it reported reaching at the configured `synchronous_commit`
    /// position (written / flushed / applied) on the primary's timeline.
    pub reached: Option<u64>,
}

impl<Id> Candidate<Id> {
    fn confirms(&self, lsn: u64) -> bool {
        self.reached.is_some_and(|r| r >= lsn)
    }
}

/// Why a commit is still waiting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WaitReason {
    /// Enough synchronous standbys are connected; `missing` has not
    /// reported the LSN yet.
    NotConfirmed,
    /// Fewer than the needed standbys are connected; `missing` is the first
    /// listed one that is not (possibly the primary itself).
    TooFewConnected { connected: usize, needed: usize },
}

/// Whether a commit LSN is confirmed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SyncDecision<Id = NodeId> {
    /// Confirmed; `by` are the synchronous standbys that reported it, in
    /// priority order.
    Confirmed { by: Vec<Id> },
    /// Still waiting, first of all for `missing`.
    Waiting { missing: Id, why: WaitReason },
}

impl<Id: Clone> SyncDecision<Id> {
    /// The standby waited for, `None` once confirmed.
    pub fn missing(&self) -> Option<Id> {
        match self {
            SyncDecision::Confirmed { .. } => None,
            SyncDecision::Waiting { missing, .. } => Some(missing.clone()),
        }
    }
}

/// Decides whether `lsn` is confirmed under `quorum` by `candidates`
/// (listed in priority order; no synchronous standbys at all means the
/// local flush commits). Allocates only the `by` list of a confirmation:
/// the group asks after every tick while a commit waits.
///
/// - [`SyncQuorum::Every`]: every listed standby reported it (connected or
///   not); a listed primary never confirms.
/// - [`SyncQuorum::First`]`(n)`: the first `n` connected candidates are the
///   synchronous standbys; all of them reported it, and there are `n`.
/// - [`SyncQuorum::Any`]`(n)`: at least `n` connected candidates reported it.
pub(crate) fn decide<Id: Clone>(
    quorum: SyncQuorum,
    lsn: u64,
    candidates: &[Candidate<Id>],
) -> SyncDecision<Id> {
    decide_with(quorum, lsn, candidates, true)
}

/// The standby [`decide`] says `lsn` waits for, `None` once confirmed —
/// the same decision without building a confirmation's `by` list (no
/// allocation: a pending write is judged after every tick).
pub(crate) fn waiting_for<Id: Clone>(
    quorum: SyncQuorum,
    lsn: u64,
    candidates: &[Candidate<Id>],
) -> Option<Id> {
    decide_with(quorum, lsn, candidates, false).missing()
}

/// [`decide`]; a confirmation lists `by` only `with_by` (else it is empty).
fn decide_with<Id: Clone>(
    quorum: SyncQuorum,
    lsn: u64,
    candidates: &[Candidate<Id>],
    with_by: bool,
) -> SyncDecision<Id> {
    let by = |ids: &mut dyn Iterator<Item = &Candidate<Id>>| -> Vec<Id> {
        if with_by {
            ids.map(|c| c.id.clone()).collect()
        } else {
            Vec::new()
        }
    };
    let needed = quorum.needed(candidates.len());
    let connected = || candidates.iter().filter(|c| c.connected);
    let too_few = || {
        let Some(missing) = candidates.iter().find(|c| !c.connected) else {
            unreachable!("fewer connected than needed means one listed is not connected")
        };
        SyncDecision::Waiting {
            missing: missing.id.clone(),
            why: WaitReason::TooFewConnected {
                connected: connected().count(),
                needed,
            },
        }
    };
    let not_confirmed = |c: &Candidate<Id>| SyncDecision::Waiting {
        missing: c.id.clone(),
        why: WaitReason::NotConfirmed,
    };
    match quorum {
        SyncQuorum::Every => match candidates.iter().find(|c| !c.confirms(lsn)) {
            // A listed node that is now the primary reports nothing: it
            // never confirms.
            Some(c) if !c.connected => SyncDecision::Waiting {
                missing: c.id.clone(),
                why: WaitReason::TooFewConnected {
                    connected: connected().count(),
                    needed,
                },
            },
            Some(c) => not_confirmed(c),
            None => SyncDecision::Confirmed {
                by: by(&mut candidates.iter()),
            },
        },
        SyncQuorum::First(n) => {
            if connected().count() < n {
                return too_few();
            }
            match connected().take(n).find(|c| !c.confirms(lsn)) {
                Some(c) => not_confirmed(c),
                None => SyncDecision::Confirmed {
                    by: by(&mut connected().take(n)),
                },
            }
        }
        SyncQuorum::Any(n) => {
            if connected().filter(|c| c.confirms(lsn)).count() >= n {
                return SyncDecision::Confirmed {
                    by: by(&mut connected().filter(|c| c.confirms(lsn))),
                };
            }
            if connected().count() < n {
                return too_few();
            }
            match connected().find(|c| !c.confirms(lsn)) {
                Some(c) => not_confirmed(c),
                None => unreachable!("fewer than n confirmed among at least n connected"),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(id: &str, connected: bool, reached: Option<u64>) -> Candidate {
        Candidate {
            id: NodeId::new(id),
            connected,
            reached,
        }
    }

    fn by(ids: &[&str]) -> SyncDecision {
        SyncDecision::Confirmed {
            by: ids.iter().map(|i| NodeId::new(*i)).collect(),
        }
    }

    #[test]
    fn waiting_for_names_whom_decide_waits_for() {
        let cs = [
            c("s1", true, Some(5)),
            c("s2", true, Some(3)),
            c("s3", false, None),
        ];
        for quorum in [
            SyncQuorum::Every,
            SyncQuorum::First(1),
            SyncQuorum::First(2),
            SyncQuorum::First(3),
            SyncQuorum::Any(1),
            SyncQuorum::Any(2),
            SyncQuorum::Any(3),
        ] {
            for lsn in [3, 5, 6] {
                assert_eq!(
                    waiting_for(quorum, lsn, &cs),
                    decide(quorum, lsn, &cs).missing(),
                    "{quorum:?} at {lsn}"
                );
            }
        }
    }

    #[test]
    fn first_1_waits_for_the_highest_priority_connected_standby_only() {
        let both = [c("s1", true, Some(2)), c("s2", true, Some(5))];
        assert_eq!(
            decide(SyncQuorum::First(1), 5, &both).missing(),
            Some(NodeId::new("s1")),
            "s1 has priority: s2's confirmation does not count"
        );
        let s1_gone = [c("s1", false, Some(2)), c("s2", true, Some(5))];
        assert_eq!(decide(SyncQuorum::First(1), 5, &s1_gone), by(&["s2"]));
    }

    #[test]
    fn any_1_is_confirmed_by_whichever_connected_standby_reported_first() {
        let cs = [c("s1", true, Some(2)), c("s2", true, Some(5))];
        assert_eq!(decide(SyncQuorum::Any(1), 5, &cs), by(&["s2"]));
        assert_eq!(
            decide(SyncQuorum::Any(2), 5, &cs),
            SyncDecision::Waiting {
                missing: NodeId::new("s1"),
                why: WaitReason::NotConfirmed
            }
        );
    }

    #[test]
    fn too_few_connected_waits_naming_the_first_unconnected_candidate() {
        let cs = [c("primary", false, None), c("s2", true, Some(9))];
        assert_eq!(
            decide(SyncQuorum::First(2), 5, &cs),
            SyncDecision::Waiting {
                missing: NodeId::new("primary"),
                why: WaitReason::TooFewConnected {
                    connected: 1,
                    needed: 2
                }
            }
        );
        let none = [c("s1", false, Some(9))];
        assert_eq!(
            decide(SyncQuorum::Any(1), 5, &none).missing(),
            Some(NodeId::new("s1")),
            "a disconnected standby's old report does not count under ANY"
        );
    }

    #[test]
    fn every_counts_a_report_from_a_standby_that_has_since_disconnected() {
        let cs = [c("s1", false, Some(5)), c("s2", true, Some(5))];
        assert_eq!(decide(SyncQuorum::Every, 5, &cs), by(&["s1", "s2"]));
        let listed_primary = [c("s1", false, None), c("s2", true, Some(5))];
        assert_eq!(
            decide(SyncQuorum::Every, 5, &listed_primary).missing(),
            Some(NodeId::new("s1"))
        );
    }
}
