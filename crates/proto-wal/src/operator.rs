//! The operator's view of the group: which node was last promoted and the
//! newest timeline ever issued — and the two decisions made from it: may
//! this node be promoted (`pg_promote` on the current primary is refused),
//! and which node a failover promotes.
//!
//! PostgreSQL leaves both to whoever runs it (an operator, Patroni,
//! repmgr); here they are one small pure type. It decides from facts the
//! group gives it and never touches a node, the network or the trace.

/// What the operator knows: the last promoted primary and the newest
/// timeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Operator {
    /// Position of the last promoted primary (the initial one at first).
    primary: Option<usize>,
    /// The newest timeline ever issued.
    newest_timeline: u64,
}

/// A promotion the operator decided on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Promotion {
    /// The timeline the promoted node starts.
    pub timeline: u64,
    /// The primary it replaces.
    pub previous: Option<usize>,
}

/// What a failover needs to know about one node, in configuration order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Standing {
    /// The node is running.
    pub alive: bool,
    /// Listed in `synchronous_standby_names`.
    pub synchronous: bool,
}

/// Why a promotion was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AlreadyPrimary;

impl Operator {
    /// The view at creation: `primary` on timeline 1.
    pub fn new(primary: Option<usize>) -> Self {
        Operator {
            primary,
            newest_timeline: 1,
        }
    }

    /// The last promoted primary (alive or not).
    pub fn primary(&self) -> Option<usize> {
        self.primary
    }

    /// The newest timeline ever issued.
    pub fn newest_timeline(&self) -> u64 {
        self.newest_timeline
    }

    /// Promotes `candidate`: a timeline one higher than any issued. Refused
    /// (nothing changes) when it already is the primary.
    pub fn promote(&mut self, candidate: usize) -> Result<Promotion, AlreadyPrimary> {
        if self.primary == Some(candidate) {
            return Err(AlreadyPrimary);
        }
        let previous = self.primary;
        self.newest_timeline += 1;
        self.primary = Some(candidate);
        Ok(Promotion {
            timeline: self.newest_timeline,
            previous,
        })
    }

    /// The node a failover promotes: the first alive node other than the
    /// primary, in configuration order, preferring a synchronous standby
    /// (it holds every `QUORUM`-acknowledged write); `None` when no other
    /// node is alive.
    pub fn failover_candidate(&self, nodes: &[Standing]) -> Option<usize> {
        let eligible = |sync: bool| {
            nodes
                .iter()
                .enumerate()
                .position(|(i, n)| n.alive && Some(i) != self.primary && (!sync || n.synchronous))
        };
        eligible(true).or_else(|| eligible(false))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const UP: Standing = Standing {
        alive: true,
        synchronous: false,
    };
    const SYNC: Standing = Standing {
        alive: true,
        synchronous: true,
    };
    const DOWN_SYNC: Standing = Standing {
        alive: false,
        synchronous: true,
    };

    #[test]
    fn each_promotion_issues_a_timeline_one_higher_and_names_the_primary_it_replaces() {
        let mut op = Operator::new(Some(0));
        assert_eq!(
            op.promote(2),
            Ok(Promotion {
                timeline: 2,
                previous: Some(0)
            })
        );
        assert_eq!(
            op.promote(0),
            Ok(Promotion {
                timeline: 3,
                previous: Some(2)
            })
        );
        assert_eq!((op.primary(), op.newest_timeline()), (Some(0), 3));
    }

    #[test]
    fn promoting_the_current_primary_is_refused_and_changes_nothing() {
        let mut op = Operator::new(Some(1));
        assert_eq!(op.promote(1), Err(AlreadyPrimary));
        assert_eq!(op, Operator::new(Some(1)));
    }

    #[test]
    fn failover_prefers_the_first_alive_synchronous_standby_then_any_alive_node() {
        let op = Operator::new(Some(0));
        assert_eq!(op.failover_candidate(&[SYNC, UP, SYNC]), Some(2));
        assert_eq!(op.failover_candidate(&[UP, UP, DOWN_SYNC]), Some(1));
        assert_eq!(op.failover_candidate(&[UP, DOWN_SYNC, DOWN_SYNC]), None);
    }
}
