//! The fault state of a cluster and every fault, written once: crash,
//! restart, isolate, heal, one-way cuts, partitions, slow marks.
//!
//! The network's cut set is always derived from this state
//! ([`Cluster::relink`]), so the order faults were made in never matters:
//! healing one of two isolated nodes leaves the other isolated.

use sim_core::{NodeId, Payload, record};

use super::Cluster;
use crate::error::GroupError;

impl<M: Payload> Cluster<M> {
    /// Re-derives the network's cut links from the fault state. On a
    /// stream network every link cut now resets its connection (the
    /// network drops what was in flight on it); both ends are told through
    /// [`Cluster::take_resets`].
    fn relink(&mut self) {
        let n = self.ids.len();
        let mut cuts = std::collections::BTreeSet::new();
        for a in 0..n {
            for b in 0..n {
                if self.faults.cuts_link(a, b) {
                    cuts.insert((self.ids[a].clone(), self.ids[b].clone()));
                }
            }
        }
        let newly = self.net.set_cuts(cuts, &mut self.trace);
        if self.net.config().transport == sim_core::Transport::Stream {
            for (src, dst) in newly {
                if let (Some(a), Some(b)) = (self.position(&src), self.position(&dst)) {
                    self.resets.push((a, b));
                }
            }
        }
    }

    /// Crashes `node`: it is down until [`Cluster::restart`], and every
    /// message in flight to or from it is lost. Records `node_crashed`
    /// (with `lose_unfsynced`, the caller's power-loss flag: what the node
    /// loses is the protocol's hook) and returns the node's position.
    pub fn crash(&mut self, node: &NodeId, lose_unfsynced: bool) -> Result<usize, GroupError> {
        let i = self.alive_index(node)?;
        self.faults.alive[i] = false;
        let now = self.net.now();
        record!(
            self.trace,
            now,
            "node_crashed",
            node = node,
            lose_unfsynced = lose_unfsynced
        );
        self.discard_in_flight(i, "node_crashed", |_| true);
        if self.net.config().transport == sim_core::Transport::Stream {
            // The crashed process's connections are gone: its peers see them
            // reset.
            for peer in (0..self.ids.len()).filter(|&p| p != i) {
                self.resets.push((i, peer));
                self.resets.push((peer, i));
            }
        }
        Ok(i)
    }

    /// Restarts a crashed `node` ([`GroupError::AlreadyRunning`] when it
    /// is up); records `node_restarted` and returns its position.
    pub fn restart(&mut self, node: &NodeId) -> Result<usize, GroupError> {
        let i = self.index(node)?;
        if self.faults.alive[i] {
            return Err(GroupError::AlreadyRunning(node.clone()));
        }
        self.faults.alive[i] = true;
        self.record_node("node_restarted", i);
        Ok(i)
    }

    /// Cuts `node` from every peer, both ways (up or down); records
    /// `node_isolated`.
    pub fn isolate(&mut self, node: &NodeId) -> Result<usize, GroupError> {
        let i = self.index(node)?;
        self.faults.isolated[i] = true;
        self.relink();
        self.record_node("node_isolated", i);
        Ok(i)
    }

    /// Restores every link of `node`: it is no longer isolated and every
    /// one-way cut from or to it is restored. Records `node_healed`.
    pub fn heal(&mut self, node: &NodeId) -> Result<usize, GroupError> {
        let i = self.index(node)?;
        self.faults.isolated[i] = false;
        self.faults.cuts.retain(|&(a, b)| a != i && b != i);
        // With no link cut anywhere, before or after, the links stay as
        // they are (the heal of every node a judged end makes).
        if self.net.has_cuts() || self.faults.cuts_any() {
            self.relink();
        }
        self.record_node("node_healed", i);
        Ok(i)
    }

    /// Cuts the one-way link `from → to`; records `link_cut` and returns
    /// both positions.
    pub fn cut_link(&mut self, from: &NodeId, to: &NodeId) -> Result<(usize, usize), GroupError> {
        let (a, b) = (self.index(from)?, self.index(to)?);
        if !self.faults.cuts.contains(&(a, b)) {
            self.faults.cuts.push((a, b));
        }
        self.relink();
        let now = self.net.now();
        record!(self.trace, now, "link_cut", from = from, to = to);
        Ok((a, b))
    }

    /// Restores the one-way link `from → to` cut by [`Cluster::cut_link`]
    /// (an isolated end stays isolated); records `link_restored`.
    pub fn restore_link(
        &mut self,
        from: &NodeId,
        to: &NodeId,
    ) -> Result<(usize, usize), GroupError> {
        let (a, b) = (self.index(from)?, self.index(to)?);
        self.faults.cuts.retain(|&link| link != (a, b));
        self.relink();
        let now = self.net.now();
        record!(self.trace, now, "link_restored", from = from, to = to);
        Ok((a, b))
    }

    /// Cuts both directions between `a` and `b` (a partial partition):
    /// two `link_cut` events.
    pub fn partition(&mut self, a: &NodeId, b: &NodeId) -> Result<(), GroupError> {
        self.index(a)?;
        self.index(b)?;
        self.cut_link(a, b)?;
        self.cut_link(b, a)?;
        Ok(())
    }

    /// Restores every link: nothing isolated, nothing cut. Records
    /// `all_healed`.
    pub fn heal_all(&mut self) {
        self.faults.isolated.iter_mut().for_each(|i| *i = false);
        self.faults.cuts.clear();
        self.relink();
        let now = self.net.now();
        record!(self.trace, now, "all_healed");
    }

    /// Marks node `i` slow or clears the mark, recording `node_slow`. The
    /// protocol validates first (e.g. a leader cannot be slow) and says what
    /// slow means for it.
    pub fn set_slow(&mut self, i: usize, slow: bool) {
        self.faults.slow[i] = slow;
        let now = self.net.now();
        record!(
            self.trace,
            now,
            "node_slow",
            node = &self.ids[i],
            slow = slow
        );
    }

    /// Clears node `i`'s slow mark without recording `node_slow`: for a
    /// protocol transition that implies it and that the protocol records
    /// itself (an ISR replica elected leader is never slow; the election is
    /// the event). [`Cluster::set_slow`] is the fault call and records.
    pub fn lift_slow(&mut self, i: usize) {
        self.faults.slow[i] = false;
    }
}

#[cfg(test)]
mod tests {
    use sim_core::{NetConfig, NodeId, Payload};

    use crate::Cluster;

    #[derive(Debug, Clone, PartialEq, Eq)]
    struct Ping;

    impl Payload for Ping {
        fn label(&self) -> &'static str {
            "ping"
        }
    }

    /// `can_send` reads the cut links by position; after every fault and
    /// heal it answers what the network's cut set (by name) says.
    #[test]
    fn can_send_agrees_with_the_network_after_every_fault() {
        let ids: Vec<NodeId> = ["a", "b", "c", "d"].map(NodeId::new).to_vec();
        let mut c: Cluster<Ping> = Cluster::new(ids.clone(), NetConfig::default(), 1).unwrap();
        let agree = |c: &Cluster<Ping>, step: &str| {
            for a in 0..ids.len() {
                for b in 0..ids.len() {
                    assert_eq!(
                        c.can_send(a, b),
                        !c.net.is_cut(&ids[a], &ids[b]),
                        "{a} -> {b} after {step}"
                    );
                }
            }
        };
        agree(&c, "nothing");
        c.isolate(&ids[1]).unwrap();
        agree(&c, "isolate b");
        c.cut_link(&ids[0], &ids[2]).unwrap();
        agree(&c, "cut a -> c");
        c.partition(&ids[2], &ids[3]).unwrap();
        agree(&c, "partition c d");
        c.heal(&ids[1]).unwrap();
        agree(&c, "heal b");
        c.restore_link(&ids[0], &ids[2]).unwrap();
        agree(&c, "restore a -> c");
        c.isolate(&ids[3]).unwrap();
        agree(&c, "isolate d");
        c.heal_all();
        agree(&c, "heal all");
        assert!((0..4).all(|a| (0..4).all(|b| c.can_send(a, b))));
    }
}
