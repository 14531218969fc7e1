//! The fault state of a cluster: which nodes are down, isolated or slow,
//! and which one-way links are cut.

/// Which nodes are down, isolated or slow, and which one-way links are cut.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Faults {
    pub(super) alive: Vec<bool>,
    pub(super) isolated: Vec<bool>,
    pub(super) slow: Vec<bool>,
    /// One-way cuts `(from, to)`, in the order they were made.
    pub(super) cuts: Vec<(usize, usize)>,
}

impl Faults {
    /// `n` nodes, all up, linked and not slow.
    pub(crate) fn new(n: usize) -> Faults {
        Faults {
            alive: vec![true; n],
            isolated: vec![false; n],
            slow: vec![false; n],
            cuts: Vec::new(),
        }
    }

    #[inline]
    pub(crate) fn is_alive(&self, i: usize) -> bool {
        self.alive[i]
    }

    pub(crate) fn is_isolated(&self, i: usize) -> bool {
        self.isolated[i]
    }

    #[inline]
    pub(crate) fn is_slow(&self, i: usize) -> bool {
        self.slow[i]
    }

    /// True when the one-way link `a → b` is cut: either end isolated, or
    /// the link itself cut (a node is never cut from itself).
    #[inline]
    pub(crate) fn cuts_link(&self, a: usize, b: usize) -> bool {
        a != b && (self.isolated[a] || self.isolated[b] || self.cuts.contains(&(a, b)))
    }

    /// True when some link is cut: a node isolated (among two or more)
    /// or a one-way cut.
    pub(crate) fn cuts_any(&self) -> bool {
        !self.cuts.is_empty() || (self.isolated.len() > 1 && self.isolated.contains(&true))
    }
}
