//! A stream network's per-link "last message due at" ticks.

use crate::clock::Tick;

/// For each directed link (its ends as positions in the network's node
/// table), the tick its last message is due; 0 when nothing was sent on it
/// since it last reset. A dense square table: a send reads and writes one
/// slot (it was a `BTreeMap` lookup and insert per send).
#[derive(Debug, Clone, Default)]
pub(crate) struct LinkDue {
    width: usize,
    due: Vec<Tick>,
}

impl LinkDue {
    /// The slot of link `src → dst`, widening the table for a new node.
    #[inline]
    fn slot(&mut self, src: u32, dst: u32) -> &mut Tick {
        let (a, b) = (src as usize, dst as usize);
        if a >= self.width || b >= self.width {
            self.widen(a.max(b) + 1);
        }
        &mut self.due[a * self.width + b]
    }

    #[cold]
    fn widen(&mut self, width: usize) {
        let width = width.max(self.width * 2).max(4);
        let mut due = vec![0; width * width];
        for a in 0..self.width {
            due[a * width..a * width + self.width]
                .copy_from_slice(&self.due[a * self.width..(a + 1) * self.width]);
        }
        self.width = width;
        self.due = due;
    }

    /// When a message sent on `src → dst` with `due` is due: never before
    /// the last one on that link (FIFO); records it as the link's last.
    #[inline]
    pub(crate) fn fifo(&mut self, src: u32, dst: u32, due: Tick) -> Tick {
        let slot = self.slot(src, dst);
        *slot = (*slot).max(due);
        *slot
    }

    /// The link's connection reset: nothing on it is pending any more.
    pub(crate) fn reset(&mut self, src: u32, dst: u32) {
        *self.slot(src, dst) = 0;
    }

    /// Every link reset.
    pub(crate) fn clear(&mut self) {
        self.due.fill(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_is_fifo_until_reset_and_links_are_independent_as_it_widens() {
        let mut links = LinkDue::default();
        assert_eq!(links.fifo(0, 1, 5), 5);
        assert_eq!(links.fifo(0, 1, 3), 5, "never due before the last one");
        assert_eq!(
            links.fifo(1, 0, 2),
            2,
            "the other direction is its own link"
        );
        assert_eq!(links.fifo(9, 2, 7), 7, "a new node widens the table");
        assert_eq!(links.fifo(0, 1, 4), 5, "widening kept the old links");
        links.reset(0, 1);
        assert_eq!(links.fifo(0, 1, 4), 4);
        links.clear();
        assert_eq!(links.fifo(9, 2, 1), 1);
    }
}
