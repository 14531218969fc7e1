//! The Wing–Gong–Lowe search over one partition, resumable in slices.

use crate::bitset::Bitset;
use crate::cache::{Cache, Insert};
use crate::entries::Entries;
use crate::explain::Explanation;
use crate::history::Operation;
use crate::model::{Model, Next};
use crate::prefix::{Level, LongestPrefix};
use crate::result::{Limit, SearchStats};
use crate::states::{StateId, States};

/// How a partition's search ended.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// An order was found; the operations in it, as indices.
    Linearizable(Vec<usize>),
    /// No order exists.
    Violation(Box<Explanation>),
    /// A budget ran out.
    OutOfBudget(Limit),
}

/// What one [`Search::run`] call came to.
#[derive(Debug)]
pub(crate) enum Progress {
    /// The slice's steps are spent; call `run` again to go on.
    Paused,
    /// The search is over.
    Done(Outcome),
}

/// No state id: [`States`] never hands out `u32::MAX`.
const NO_STATE: StateId = StateId::MAX;

/// A decision the search may undo: operation `op` was linearized from
/// `prev_state`. The model's other possible next states, not yet tried,
/// are `alternatives[alternatives_from..]` of the search (last is tried
/// first). `base`, `next` and `blocker` restore the level the decision was
/// taken at.
struct Frame {
    op: usize,
    prev_state: StateId,
    alternatives_from: usize,
    base: usize,
    next: usize,
    blocker: Option<usize>,
}

impl Level for Frame {
    fn op(&self) -> usize {
        self.op
    }

    fn state_before(&self) -> StateId {
        self.prev_state
    }
}

/// Looks for a linearization of one partition under a model, a slice of
/// steps at a time.
///
/// At each level the candidates are the operations called before the
/// first pending return (the *window*): anything called later cannot come
/// first, and the operation of that return must be placed before anything
/// called after it. The search tries the candidates one by one: if the
/// model accepts one and the resulting (linearized set, state) is new, its
/// events are lifted out of the list and the search descends. If no
/// candidate works it is stuck on the first pending return: it undoes the
/// most recent decision (trying the model's other next states first) and
/// tries that level's next candidate. It succeeds when every operation
/// with a return has been linearized; operations that never returned left
/// over simply never took effect.
///
/// Candidates are tried read-only first ([`Model::is_read_only`]), then
/// the others that returned, then those that never returned, each group
/// in call order — the order of the event list, as in Lowe's search and
/// Porcupine. The order does not change the verdict, only how fast it is
/// reached, and no order is best on every history. Earliest-return
/// first, this search's order before, took 20,410 steps on Porcupine's
/// `etcd_067` where this one takes 68: it guessed the order of two
/// overlapping writes wrong (the call order had it right) and paid for
/// the guess with every subset of the timed-out writes still pending. On
/// all 108 of Porcupine's test histories this order takes 1.91 million
/// steps (earliest return first 2.29, Porcupine's plain call order 2.13),
/// and on twelve generated registers
/// ([`register_history`](crate::synthetic::register_history), default
/// shape) 4.4 million (11.5 and 9.2). Operations that never returned come
/// last because such an operation constrains nothing, and often never
/// took effect: with three times the timeouts, where more of them matter,
/// the plain call order exhausted the step budget on fewer of those
/// twelve (2 against 4; earliest return first 5).
///
/// One reduction prunes whole levels: if a candidate `r` is read-only
/// (it never changes any state) and legal in the current state, placing
/// `r` first loses nothing. Any completion `A r B` can be rewritten
/// `r A B`: `r` is legal now and changes nothing, so `A` runs from the
/// same state as before and `B` from the same state as before; and real
/// time allows it, since `r` being in the window means every operation
/// that must precede `r` is already placed. So once such an `r` fails — or
/// its configuration is already in the cache, which only holds failures —
/// the other candidates of that level are not tried. For a register,
/// every read that sees the current value is such an `r`, which leaves
/// only the order of writes to search. (It must be read-only everywhere,
/// not merely here: a write of the value already current changes nothing
/// now, but would change the state in its place further on.)
///
/// States are interned ([`States`]): the stack, the cache and the record
/// of the longest prefix hold state ids, so a step that reaches a known
/// state clones nothing, and a step allocates nothing at all unless the
/// model is nondeterministic ([`Next::AnyOf`]).
pub(crate) struct Search<'h, M: Model> {
    model: &'h M,
    /// The partition's operations: those that returned, earliest return
    /// first, then those that never did (the two zones of the set).
    ops: Vec<&'h Operation<M::Input, M::Output>>,
    read_only: Vec<bool>,
    /// Per operation, the id of the state its last [`Next::To`] led to
    /// ([`NO_STATE`] before the first): a write leads to the same state
    /// whatever came before, so comparing with that one state usually
    /// spares hashing the new one to intern it.
    last_to: Vec<StateId>,
    list: Entries,
    linearized: Bitset,
    cache: Cache,
    states: States<M::State>,
    stack: Vec<Frame>,
    alternatives: Vec<StateId>,
    /// The windows of every level, one after the other, in candidate
    /// order; this level's is `windows[base..]` and `next` is its next
    /// candidate.
    windows: Vec<usize>,
    /// Scratch space of [`Search::open_window`].
    not_read_only: Vec<usize>,
    base: usize,
    next: usize,
    blocker: Option<usize>,
    state: StateId,
    pending_returns: usize,
    /// Operations with a return: in candidate order they come first, so
    /// operation `op` returned iff `op < returned`.
    returned: usize,
    best: LongestPrefix,
    steps: u64,
    cache_hits: u64,
    max_steps: u64,
    max_memory: Option<u64>,
}

impl<'h, M: Model> Search<'h, M> {
    /// A search over `ops` (one partition), within `max_steps` and
    /// `max_memory`.
    pub(crate) fn new(
        model: &'h M,
        ops: &[&'h Operation<M::Input, M::Output>],
        max_steps: u64,
        max_memory: Option<u64>,
    ) -> Self {
        // Index the operations that returned first, earliest return first
        // (zone A of the set: the search places them roughly in that
        // order, so the set's leading words fill up), then those that
        // never did (zone B). Candidates are tried in call order, which
        // the event list gives.
        let mut ops = ops.to_vec();
        ops.sort_by_key(|op| (op.ret.is_none(), op.ret, op.call, op.id));
        let returned = ops.iter().filter(|op| op.ret.is_some()).count();
        let timing: Vec<_> = ops.iter().map(|op| (op.call, op.ret, op.id)).collect();
        // Read-only operations first: one that fits is placed without
        // branching (see above).
        let read_only: Vec<bool> = ops
            .iter()
            .map(|op| model.is_read_only(&op.input, op.output.as_ref()))
            .collect();
        let mut search = Search {
            model,
            list: Entries::new(&timing),
            linearized: Bitset::new(ops.len(), returned),
            ops,
            read_only,
            last_to: Vec::new(),
            cache: Cache::new(),
            states: States::new(model.init()),
            stack: Vec::new(),
            alternatives: Vec::new(),
            windows: Vec::new(),
            not_read_only: Vec::new(),
            base: 0,
            next: 0,
            blocker: None,
            state: 0,
            pending_returns: returned,
            returned,
            best: LongestPrefix::new(),
            steps: 0,
            cache_hits: 0,
            max_steps,
            max_memory,
        };
        search.last_to = vec![NO_STATE; search.ops.len()];
        search.blocker = search.open_window();
        search
    }

    /// The operations, in the search's (candidate) order.
    pub(crate) fn ops(&self) -> &[&'h Operation<M::Input, M::Output>] {
        &self.ops
    }

    /// What the search has done so far.
    pub(crate) fn stats(&self) -> SearchStats {
        SearchStats {
            steps: self.steps,
            cache_hits: self.cache_hits,
            configurations: self.cache.len() as u64,
            model_states: self.states.len() as u64,
            memory_bytes: self.memory_bytes(),
        }
    }

    /// Searches on until the search is over or `until_steps` steps have
    /// been taken in all.
    pub(crate) fn run(&mut self, until_steps: u64) -> Progress {
        loop {
            if self.pending_returns == 0 {
                let order = self.stack.iter().map(|f| f.op).collect();
                return Progress::Done(Outcome::Linearizable(order));
            }
            if let Some(&op) = self.windows.get(self.base + self.next) {
                if self.steps >= self.max_steps {
                    return self.out_of(Limit::Steps);
                }
                if self.steps >= until_steps {
                    return Progress::Paused;
                }
                self.next += 1;
                self.steps += 1;
                match self.try_place(op) {
                    Ok(()) => continue,
                    Err(limit) => return self.out_of(limit),
                }
            }
            // No candidate can be placed: stuck before the first pending
            // return. With returns pending, the window always ends at one.
            debug_assert!(
                self.blocker.is_some(),
                "returns are pending but none is in the list"
            );
            let Some(blocked) = self.blocker else {
                return Progress::Done(Outcome::Linearizable(Vec::new()));
            };
            self.best.offer(&self.stack, self.state, blocked);
            let Some(frame) = self.stack.pop() else {
                let explanation =
                    self.best
                        .explain(self.model, &self.ops, &self.states, None, blocked);
                return Progress::Done(Outcome::Violation(Box::new(explanation)));
            };
            self.best.popped_to(self.stack.len());
            match self.first_unvisited(frame.alternatives_from, None) {
                Err(limit) => return self.out_of(limit),
                Ok(Some(alternative)) => {
                    // Same operation, another of the model's next states:
                    // the list, and so this level's window, are unchanged.
                    self.state = alternative;
                    self.next = 0;
                    self.stack.push(frame);
                }
                Ok(None) => self.undo(frame),
            }
        }
    }

    /// Tries to linearize candidate `op` next; descends if it fits and
    /// leads somewhere new.
    fn try_place(&mut self, op: usize) -> Result<(), Limit> {
        let o = self.ops[op];
        let next = self
            .model
            .step(self.states.get(self.state), &o.input, o.output.as_ref());
        let alternatives_from = self.alternatives.len();
        let first = match next {
            Next::Illegal => return Ok(()),
            Next::Unchanged => self.state,
            Next::To(state) => {
                let last = self.last_to[op];
                if last != NO_STATE && *self.states.get(last) == state {
                    last
                } else {
                    let id = self.states.intern(state).ok_or(Limit::Memory)?;
                    self.last_to[op] = id;
                    id
                }
            }
            Next::AnyOf(states) => {
                let mut ids = Vec::with_capacity(states.len());
                for state in states {
                    ids.push(self.states.intern(state).ok_or(Limit::Memory)?);
                }
                let Some((&first, rest)) = ids.split_first() else {
                    return Ok(());
                };
                self.alternatives.extend(rest.iter().rev());
                first
            }
        };
        // A read-only candidate that fits can be placed now without loss
        // (see the type's docs): its level has no other choice worth
        // trying.
        let fitting_read = self.read_only[op]
            && first == self.state
            && self.alternatives.len() == alternatives_from;
        if fitting_read {
            self.next = self.windows.len() - self.base;
        }
        self.linearized.insert(op);
        let Some(next_state) = self.first_unvisited(alternatives_from, Some(first))? else {
            self.linearized.remove(op);
            return Ok(());
        };
        self.list.lift(op);
        if op < self.returned {
            self.pending_returns -= 1;
        }
        self.stack.push(Frame {
            op,
            prev_state: self.state,
            alternatives_from,
            base: self.base,
            next: self.next,
            blocker: self.blocker,
        });
        self.state = next_state;
        let parent = self.base..self.windows.len();
        (self.base, self.next) = (self.windows.len(), 0);
        if self.blocker == Some(op) {
            self.blocker = self.open_window();
        } else {
            // The first pending return is still the same one, so the new
            // window is the old one without `op`, in the same order.
            for i in parent {
                let other = self.windows[i];
                if other != op {
                    self.windows.push(other);
                }
            }
        }
        Ok(())
    }

    /// `first`, then the alternatives above `from` (last first), until one
    /// whose configuration with the current set has not been visited;
    /// records it as visited.
    fn first_unvisited(
        &mut self,
        from: usize,
        mut candidate: Option<StateId>,
    ) -> Result<Option<StateId>, Limit> {
        loop {
            let state = match candidate.take() {
                Some(state) => state,
                None if self.alternatives.len() > from => match self.alternatives.pop() {
                    Some(state) => state,
                    None => return Ok(None),
                },
                None => return Ok(None),
            };
            match self.cache.insert(&self.linearized, state) {
                Insert::New => {
                    if self.max_memory.is_some_and(|max| self.memory_bytes() > max) {
                        return Err(Limit::Memory);
                    }
                    return Ok(Some(state));
                }
                Insert::Seen => self.cache_hits += 1,
                Insert::Full => return Err(Limit::Memory),
            }
        }
    }

    /// Takes back `frame`'s decision: the level it was taken at is
    /// current again.
    fn undo(&mut self, frame: Frame) {
        self.windows.truncate(self.base);
        (self.base, self.next, self.blocker) = (frame.base, frame.next, frame.blocker);
        self.state = frame.prev_state;
        self.linearized.remove(frame.op);
        self.list.unlift(frame.op);
        if frame.op < self.returned {
            self.pending_returns += 1;
        }
    }

    /// Appends the current window to `windows` (from `base`) in candidate
    /// order — read-only operations, then the others that returned, then
    /// those that never did, each group in call order (the list's) — and
    /// returns the first pending return's operation.
    fn open_window(&mut self) -> Option<usize> {
        let blocker = self.list.window(&mut self.windows);
        self.not_read_only.clear();
        let mut read_only = self.base;
        for i in self.base..self.windows.len() {
            let op = self.windows[i];
            if self.read_only[op] {
                self.windows[read_only] = op;
                read_only += 1;
            } else {
                self.not_read_only.push(op);
            }
        }
        self.windows.truncate(read_only);
        let returned = self.returned;
        let rest = &self.not_read_only;
        self.windows
            .extend(rest.iter().filter(|&&op| op < returned));
        self.windows
            .extend(rest.iter().filter(|&&op| op >= returned));
        blocker
    }

    fn out_of(&self, limit: Limit) -> Progress {
        Progress::Done(Outcome::OutOfBudget(limit))
    }

    /// The bytes the search holds, as it counts them.
    fn memory_bytes(&self) -> u64 {
        let stack = self.stack.len() * std::mem::size_of::<Frame>()
            + self.alternatives.len() * std::mem::size_of::<StateId>()
            + self.windows.len() * std::mem::size_of::<usize>();
        self.cache.memory_bytes()
            + self.states.memory_bytes()
            + self.best.memory_bytes()
            + stack as u64
    }
}
