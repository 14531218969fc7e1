//! [`Sentinel`]: the in-process operator that names the primary (Redis
//! Sentinel, simplified: it never fails and reaches every node).
//!
//! It owns the current primary and generation and decides, from facts the
//! group gathers ([`NodeView`]), whom to promote, who is reconfigured or
//! demoted after a promotion, and when a demotion waits because the old
//! primary is crashed or cut off. The group carries out and records every
//! decision; the sentinel touches no node.

/// What the sentinel knows of one node when it decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NodeView {
    /// The node is up.
    pub(crate) alive: bool,
    /// The node believes it is primary.
    pub(crate) claims_primary: bool,
    /// The node and the current primary reach each other both ways.
    pub(crate) linked_to_primary: bool,
}

/// What the sentinel tells one node after a new primary took over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Order {
    /// An old primary it can reach: become a replica of the new one, then
    /// resynchronise.
    Demote,
    /// An old primary it cannot demote yet (`unreachable` or `crashed`): it
    /// keeps believing it is primary until it heals or restarts.
    DeferDemotion(&'static str),
    /// A replica: follow the new primary, then resynchronise.
    Follow,
}

/// What a restarted node needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Restart {
    /// An old primary: demote it.
    Demote,
    /// The current primary, rolled back by a power loss: a new history
    /// (generation + 1), every other node reconfigured.
    NewHistory,
    /// Nothing for the sentinel: it and its replicas resynchronise.
    Rejoin,
}

/// The current primary and generation, and the sentinel's decisions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Sentinel {
    primary: usize,
    generation: u64,
}

impl Sentinel {
    /// `primary` leads generation 1.
    pub(crate) fn new(primary: usize) -> Self {
        Sentinel {
            primary,
            generation: 1,
        }
    }

    /// The node the sentinel names primary (up or not).
    pub(crate) fn primary(&self) -> usize {
        self.primary
    }

    /// The current generation.
    pub(crate) fn generation(&self) -> u64 {
        self.generation
    }

    /// `failover` without a candidate: the first node in position order
    /// that is up, a replica, and not the current primary.
    pub(crate) fn candidate(&self, views: &[NodeView]) -> Option<usize> {
        views
            .iter()
            .enumerate()
            .find(|(i, v)| *i != self.primary && v.alive && !v.claims_primary)
            .map(|(i, _)| i)
    }

    /// Promotes `node` (known up): a new generation, which is returned
    /// with the primary it replaces; `None`, changing nothing, when it
    /// already is the primary.
    pub(crate) fn promote(&mut self, node: usize) -> Option<(usize, u64)> {
        if node == self.primary {
            return None;
        }
        let previous = self.primary;
        self.primary = node;
        self.generation += 1;
        Some((previous, self.generation))
    }

    /// The current primary lost writes to a power loss and restarted: its
    /// history starts again under a new generation, which is returned.
    pub(crate) fn reset_history(&mut self) -> u64 {
        self.generation += 1;
        self.generation
    }

    /// After the current primary took over (by promotion or a history
    /// reset): the order for every other node, in position order. An old
    /// primary is demoted only when it is up and reaches the new primary
    /// both ways.
    pub(crate) fn reconfigure(&self, views: &[NodeView]) -> Vec<(usize, Order)> {
        views
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != self.primary)
            .map(|(j, v)| {
                let order = if !v.claims_primary {
                    Order::Follow
                } else if !v.alive {
                    Order::DeferDemotion("crashed")
                } else if !v.linked_to_primary {
                    Order::DeferDemotion("unreachable")
                } else {
                    Order::Demote
                };
                (j, order)
            })
            .collect()
    }

    /// Node `node` restarted, seen as `view`; `lost_history` when a power
    /// loss rolled it back past writes it had applied.
    pub(crate) fn on_restart(&self, node: usize, view: NodeView, lost_history: bool) -> Restart {
        if !view.claims_primary {
            Restart::Rejoin
        } else if node != self.primary {
            Restart::Demote
        } else if lost_history {
            Restart::NewHistory
        } else {
            Restart::Rejoin
        }
    }

    /// Node `node` healed, seen as `view`: true when it is an old primary
    /// to demote now.
    pub(crate) fn demote_on_heal(&self, node: usize, view: NodeView) -> bool {
        view.alive && view.claims_primary && node != self.primary
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(alive: bool, claims_primary: bool, linked_to_primary: bool) -> NodeView {
        NodeView {
            alive,
            claims_primary,
            linked_to_primary,
        }
    }

    #[test]
    fn promotion_bumps_the_generation_and_refuses_the_current_primary() {
        let mut s = Sentinel::new(0);
        assert_eq!(s.promote(0), None);
        assert_eq!((s.primary(), s.generation()), (0, 1));
        assert_eq!(s.promote(2), Some((0, 2)));
        assert_eq!((s.primary(), s.generation()), (2, 2));
        assert_eq!(s.reset_history(), 3);
        assert_eq!(s.primary(), 2);
    }

    #[test]
    fn an_old_primary_is_demoted_only_when_up_and_linked_both_ways() {
        let mut s = Sentinel::new(0);
        s.promote(1);
        let views = [
            view(true, true, false),
            view(true, true, true),
            view(false, false, false),
            view(false, true, true),
            view(true, true, true),
        ];
        assert_eq!(
            s.reconfigure(&views),
            vec![
                (0, Order::DeferDemotion("unreachable")),
                (2, Order::Follow),
                (3, Order::DeferDemotion("crashed")),
                (4, Order::Demote),
            ]
        );
    }

    #[test]
    fn failover_picks_the_first_up_replica_that_is_not_the_primary() {
        let s = Sentinel::new(1);
        let views = [
            view(false, false, true),
            view(true, true, true),
            view(true, true, true),
            view(true, false, true),
            view(true, false, true),
        ];
        assert_eq!(s.candidate(&views), Some(3));
        assert_eq!(s.candidate(&views[..3]), None);
    }

    #[test]
    fn a_restarted_old_primary_is_demoted_and_a_rolled_back_current_one_starts_a_new_history() {
        let mut s = Sentinel::new(0);
        s.promote(1);
        let primary = view(true, true, true);
        let replica = view(true, false, true);
        assert_eq!(s.on_restart(0, primary, false), Restart::Demote);
        assert_eq!(s.on_restart(0, primary, true), Restart::Demote);
        assert_eq!(s.on_restart(1, primary, true), Restart::NewHistory);
        assert_eq!(s.on_restart(1, primary, false), Restart::Rejoin);
        assert_eq!(s.on_restart(2, replica, true), Restart::Rejoin);
        assert!(s.demote_on_heal(0, primary));
        assert!(!s.demote_on_heal(1, primary));
        assert!(!s.demote_on_heal(2, replica));
        assert!(!s.demote_on_heal(0, view(false, true, true)));
    }
}
