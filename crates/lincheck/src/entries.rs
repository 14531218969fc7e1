//! The history as a doubly linked list of call and return events.

/// What a list node stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Entry {
    /// Operation `op` was called here.
    Call(usize),
    /// Operation `op` returned here.
    Return(usize),
    /// The end of the list.
    End,
}

/// Call and return events of one partition in time order, linked both ways
/// so that linearizing an operation ("lifting" its two events out) and
/// undoing it on backtrack are O(1) each — the representation of Lowe's
/// "Testing for linearizability" and Porcupine.
///
/// Events are sorted by tick; at equal ticks calls come before returns, so
/// operations whose intervals touch are concurrent. Operations with an
/// unknown outcome have only a call event: nothing forces them to take
/// effect before anything else.
pub(crate) struct Entries {
    /// Node 0 is the head sentinel, the last node the end sentinel.
    next: Vec<usize>,
    prev: Vec<usize>,
    entry: Vec<Entry>,
    /// The call node of each operation.
    call_node: Vec<usize>,
    /// The return node of each operation, if it has one.
    return_node: Vec<Option<usize>>,
}

impl Entries {
    /// The event list for operations given as `(call, ret, id)` triples,
    /// indexed by position. `id` only breaks ties, for determinism.
    pub(crate) fn new(ops: &[(u64, Option<u64>, u64)]) -> Self {
        // (tick, is_return, id, entry)
        let mut events: Vec<(u64, bool, u64, Entry)> = Vec::with_capacity(ops.len() * 2);
        for (op, &(call, ret, id)) in ops.iter().enumerate() {
            events.push((call, false, id, Entry::Call(op)));
            if let Some(ret) = ret {
                events.push((ret, true, id, Entry::Return(op)));
            }
        }
        events.sort_unstable_by_key(|&(tick, is_return, id, _)| (tick, is_return, id));

        let nodes = events.len() + 2;
        let mut entry = Vec::with_capacity(nodes);
        entry.push(Entry::End); // head sentinel, never read as an entry
        let mut call_node = vec![0; ops.len()];
        let mut return_node = vec![None; ops.len()];
        for (i, &(_, _, _, e)) in events.iter().enumerate() {
            match e {
                Entry::Call(op) => call_node[op] = i + 1,
                Entry::Return(op) => return_node[op] = Some(i + 1),
                Entry::End => {}
            }
            entry.push(e);
        }
        entry.push(Entry::End);
        Entries {
            next: (1..=nodes).collect(),
            prev: (0..nodes).map(|i| i.saturating_sub(1)).collect(),
            entry,
            call_node,
            return_node,
        }
    }

    /// The first node still in the list (the end sentinel if none).
    pub(crate) fn first(&self) -> usize {
        self.next[0]
    }

    /// The node after `node`.
    #[cfg(test)]
    pub(crate) fn next(&self, node: usize) -> usize {
        self.next[node]
    }

    /// What `node` stands for.
    #[cfg(test)]
    pub(crate) fn entry(&self, node: usize) -> Entry {
        self.entry[node]
    }

    /// The operations that may be linearized next — those called before
    /// the first pending return — appended to `window` in list order,
    /// and the operation of that first pending return (`None` if only
    /// operations with unknown outcomes are left).
    pub(crate) fn window(&self, window: &mut Vec<usize>) -> Option<usize> {
        let mut node = self.first();
        loop {
            match self.entry[node] {
                Entry::Call(op) => window.push(op),
                Entry::Return(op) => return Some(op),
                Entry::End => return None,
            }
            node = self.next[node];
        }
    }

    /// Takes operation `op`'s call and return (if any) out of the list.
    #[inline]
    pub(crate) fn lift(&mut self, op: usize) {
        self.unlink(self.call_node[op]);
        if let Some(ret) = self.return_node[op] {
            self.unlink(ret);
        }
    }

    /// Undoes [`lift`](Entries::lift); lifts must be undone in reverse
    /// order.
    #[inline]
    pub(crate) fn unlift(&mut self, op: usize) {
        if let Some(ret) = self.return_node[op] {
            self.relink(ret);
        }
        self.relink(self.call_node[op]);
    }

    #[inline]
    fn unlink(&mut self, node: usize) {
        let (p, n) = (self.prev[node], self.next[node]);
        self.next[p] = n;
        self.prev[n] = p;
    }

    #[inline]
    fn relink(&mut self, node: usize) {
        let (p, n) = (self.prev[node], self.next[node]);
        self.next[p] = node;
        self.prev[n] = node;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walk(list: &Entries) -> Vec<Entry> {
        let mut out = Vec::new();
        let mut node = list.first();
        while list.entry(node) != Entry::End {
            out.push(list.entry(node));
            node = list.next(node);
        }
        out
    }

    #[test]
    fn calls_sort_before_returns_at_the_same_tick() {
        // op 0: [0, 5], op 1: [5, 6] — touching intervals are concurrent.
        let list = Entries::new(&[(0, Some(5), 10), (5, Some(6), 11)]);
        assert_eq!(
            walk(&list),
            vec![
                Entry::Call(0),
                Entry::Call(1),
                Entry::Return(0),
                Entry::Return(1)
            ]
        );
    }

    #[test]
    fn an_unknown_operation_has_no_return_entry() {
        let list = Entries::new(&[(3, None, 1), (1, Some(2), 2)]);
        assert_eq!(
            walk(&list),
            vec![Entry::Call(1), Entry::Return(1), Entry::Call(0)]
        );
    }

    #[test]
    fn the_window_is_every_call_before_the_first_pending_return() {
        // op 0: [0, 4], op 1: [1, 2], op 2: [3, ?]
        let mut list = Entries::new(&[(0, Some(4), 1), (1, Some(2), 2), (3, None, 3)]);
        let mut window = Vec::new();
        assert_eq!(list.window(&mut window), Some(1));
        assert_eq!(window, vec![0, 1]);
        list.lift(1);
        window.clear();
        assert_eq!(list.window(&mut window), Some(0));
        assert_eq!(window, vec![0, 2]);
        list.lift(0);
        window.clear();
        assert_eq!(list.window(&mut window), None);
        assert_eq!(window, vec![2]);
    }

    #[test]
    fn lifting_and_unlifting_restores_the_list() {
        let mut list = Entries::new(&[(0, Some(4), 1), (1, Some(2), 2), (3, None, 3)]);
        let before = walk(&list);
        list.lift(0);
        assert_eq!(
            walk(&list),
            vec![Entry::Call(1), Entry::Return(1), Entry::Call(2)]
        );
        list.lift(1);
        assert_eq!(walk(&list), vec![Entry::Call(2)]);
        list.unlift(1);
        list.unlift(0);
        assert_eq!(walk(&list), before);
    }
}
