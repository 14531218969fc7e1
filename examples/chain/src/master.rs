//! The master (the paper's configuration service), in process and never
//! failing: it owns the chain and its epoch, and decides reconfigurations
//! from facts the group gives it.

/// The chain's configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Master {
    /// The configuration epoch, from 1.
    pub epoch: u64,
    /// The chain, head first.
    pub chain: Vec<usize>,
}

/// A new configuration the master decided on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reconfiguration {
    /// The new epoch.
    pub epoch: u64,
    /// The new chain, head first.
    pub chain: Vec<usize>,
    /// Nodes removed (down or unreachable).
    pub removed: Vec<usize>,
    /// A node appended at the tail (it gets a state transfer).
    pub joined: Option<usize>,
}

impl Master {
    /// Every node in order, epoch 1.
    pub fn new(nodes: usize) -> Master {
        Master {
            epoch: 1,
            chain: (0..nodes).collect(),
        }
    }

    /// The chain without the nodes `usable` says are down or unreachable,
    /// and with the first usable node outside it appended at the tail; `None`
    /// when nothing would change or no node would be left.
    pub fn reconfigure(&mut self, usable: &[bool]) -> Option<Reconfiguration> {
        let ok = |n: usize| usable.get(n).copied().unwrap_or(false);
        let removed: Vec<usize> = self.chain.iter().copied().filter(|&n| !ok(n)).collect();
        let mut chain: Vec<usize> = self.chain.iter().copied().filter(|&n| ok(n)).collect();
        let joined = (0..usable.len()).find(|&n| ok(n) && !chain.contains(&n) && !chain.is_empty());
        if let Some(n) = joined {
            chain.push(n);
        }
        if chain.is_empty() || (removed.is_empty() && joined.is_none()) {
            return None;
        }
        self.epoch += 1;
        self.chain = chain.clone();
        Some(Reconfiguration {
            epoch: self.epoch,
            chain,
            removed,
            joined,
        })
    }

    /// The head, if the chain has one.
    pub fn head(&self) -> Option<usize> {
        self.chain.first().copied()
    }

    /// The tail, if the chain has one.
    pub fn tail(&self) -> Option<usize> {
        self.chain.last().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_head_is_removed_and_a_returning_node_joins_at_the_tail() {
        let mut m = Master::new(3);
        let r = m.reconfigure(&[false, true, true]).expect("head removed");
        assert_eq!(
            (r.epoch, r.chain.as_slice(), r.joined),
            (2, &[1, 2][..], None)
        );
        let r = m.reconfigure(&[true, true, true]).expect("node 0 rejoins");
        assert_eq!((r.chain.as_slice(), r.joined), (&[1, 2, 0][..], Some(0)));
        assert_eq!(m.reconfigure(&[true, true, true]), None);
    }
}
