//! The Wing–Gong–Lowe search over one partition.

use crate::bitset::Bitset;
use crate::cache::Cache;
use crate::entries::Entries;
use crate::explain::{Explanation, OpSummary, PrefixStep};
use crate::history::Operation;
use crate::model::Model;

/// The verdict on one partition.
#[derive(Debug)]
pub(crate) enum PartitionVerdict {
    /// An order was found.
    Linearizable,
    /// No order exists.
    Violation(Explanation),
    /// The step budget ran out after `steps` steps.
    Unknown {
        /// Steps taken.
        steps: u64,
    },
}

/// A decision the search may undo: operation `op` was linearized from
/// `prev_state`; `alternatives` are the model's other possible next
/// states, not yet tried (last is tried first). `base`, `next` and
/// `blocker` restore the level the decision was taken at.
struct Frame<S> {
    op: usize,
    prev_state: S,
    alternatives: Vec<S>,
    base: usize,
    next: usize,
    blocker: Option<usize>,
}

/// Looks for a linearization of `ops` (one partition) under `model`.
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
/// with a known return has been linearized; operations with unknown
/// outcomes left over simply never took effect.
///
/// Candidates are tried read-only first ([`Model::is_read_only`]), then
/// earliest-return first (unknown outcomes last): the operation that
/// must be placed soonest is the likeliest to be next, and a wrong first
/// guess costs a whole subtree. The order does not change the verdict,
/// only how fast it is reached.
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
pub(crate) fn check_partition<M: Model>(
    model: &M,
    ops: &[&Operation<M::Input, M::Output>],
    partition: Option<&str>,
    max_steps: u64,
) -> PartitionVerdict {
    // Index operations in candidate order, so a window sorts as integers.
    let mut ops = ops.to_vec();
    ops.sort_by_key(|op| (op.ret.unwrap_or(u64::MAX), op.call, op.id));
    let ops = ops.as_slice();

    let timing: Vec<_> = ops.iter().map(|op| (op.call, op.ret, op.id)).collect();
    let mut list = Entries::new(&timing);
    let mut linearized = Bitset::new(ops.len());
    let mut cache = Cache::new();
    let mut stack: Vec<Frame<M::State>> = Vec::new();
    let mut best = LongestPrefix::new();
    let mut state = model.init();
    let mut pending_returns = ops.iter().filter(|op| op.ret.is_some()).count();
    let mut steps = 0u64;
    // The windows of every level, one after the other; this level's is
    // `windows[base..]` and `next` is its next candidate.
    let mut windows = Vec::new();
    let (mut base, mut next) = (0, 0);
    // Read-only operations first: one that fits is placed without
    // branching (see above).
    let read_only: Vec<bool> = ops.iter().map(|op| model.is_read_only(&op.input)).collect();
    let mut blocker = open_window(&list, &mut windows, base, &read_only);

    loop {
        if pending_returns == 0 {
            return PartitionVerdict::Linearizable;
        }
        if let Some(&op) = windows.get(base + next) {
            next += 1;
            if steps >= max_steps {
                return PartitionVerdict::Unknown { steps };
            }
            steps += 1;
            let mut next_states = model.step(&state, &ops[op].input, ops[op].output.as_ref());
            // A read-only candidate that fits can be placed now without
            // loss (see `check_partition`'s docs): its level has no other
            // choice worth trying.
            let fitting_read =
                read_only[op] && matches!(next_states.as_slice(), [only] if *only == state);
            if fitting_read {
                next = windows.len() - base;
            }
            next_states.reverse();
            linearized.insert(op);
            let Some(next_state) = first_unvisited(&mut next_states, &linearized, &mut cache)
            else {
                linearized.remove(op);
                continue;
            };
            list.lift(op);
            if ops[op].ret.is_some() {
                pending_returns -= 1;
            }
            let prev_state = std::mem::replace(&mut state, next_state);
            stack.push(Frame {
                op,
                prev_state,
                alternatives: next_states,
                base,
                next,
                blocker,
            });
            (base, next) = (windows.len(), 0);
            blocker = open_window(&list, &mut windows, base, &read_only);
            continue;
        }

        // No candidate can be placed: stuck before the first pending
        // return. With returns pending, the window always ends at one.
        debug_assert!(
            blocker.is_some(),
            "returns are pending but none is in the list"
        );
        let Some(blocked) = blocker else {
            return PartitionVerdict::Linearizable;
        };
        best.offer(&stack, &state, blocked);
        let Some(mut frame) = stack.pop() else {
            return PartitionVerdict::Violation(best.explain(model, ops, partition, blocked));
        };
        best.popped_to(stack.len());
        if let Some(alternative) = first_unvisited(&mut frame.alternatives, &linearized, &mut cache)
        {
            // Same operation, another of the model's next states: the list,
            // and so this level's window, are unchanged.
            state = alternative;
            next = 0;
            stack.push(frame);
            continue;
        }
        windows.truncate(base);
        (base, next, blocker) = (frame.base, frame.next, frame.blocker);
        state = frame.prev_state;
        linearized.remove(frame.op);
        list.unlift(frame.op);
        if ops[frame.op].ret.is_some() {
            pending_returns += 1;
        }
    }
}

/// Appends the current window to `windows` (from `base`), sorted into
/// candidate order — read-only operations first, then by index — and
/// returns the first pending return's operation.
fn open_window(
    list: &Entries,
    windows: &mut Vec<usize>,
    base: usize,
    read_only: &[bool],
) -> Option<usize> {
    let blocker = list.window(windows);
    windows[base..].sort_unstable_by_key(|&op| (!read_only[op], op));
    blocker
}

/// Pops candidate states until one whose (linearized, state) configuration
/// has not been visited; records it as visited.
fn first_unvisited<S: Clone + Eq + std::hash::Hash>(
    candidates: &mut Vec<S>,
    linearized: &Bitset,
    cache: &mut Cache<S>,
) -> Option<S> {
    while let Some(state) = candidates.pop() {
        if cache.insert(linearized, &state) {
            return Some(state);
        }
    }
    None
}

/// The deepest point the search reached, kept for the explanation.
///
/// Copying the whole stack at every new record would be quadratic; instead
/// `shared` tracks how much of the stack still equals the record, and only
/// the rest is copied. Each pushed frame is copied at most once.
struct LongestPrefix<S> {
    /// (operation, state after it) for each step of the record.
    steps: Vec<(usize, S)>,
    /// The operation that could not be placed after the record.
    blocked: Option<usize>,
    /// Length of the common prefix of the stack and `steps`.
    shared: usize,
}

impl<S: Clone> LongestPrefix<S> {
    fn new() -> Self {
        LongestPrefix {
            steps: Vec::new(),
            blocked: None,
            shared: 0,
        }
    }

    /// The search is stuck on `blocked` with `stack` linearized and
    /// `state` reached; keep it if it is deeper than the record.
    fn offer(&mut self, stack: &[Frame<S>], state: &S, blocked: usize) {
        if self.blocked.is_some() && stack.len() <= self.steps.len() {
            return;
        }
        self.steps.truncate(self.shared);
        for i in self.shared..stack.len() {
            let after = match stack.get(i + 1) {
                Some(next) => next.prev_state.clone(),
                None => state.clone(),
            };
            self.steps.push((stack[i].op, after));
        }
        self.shared = stack.len();
        self.blocked = Some(blocked);
    }

    /// The stack shrank to `len` frames.
    fn popped_to(&mut self, len: usize) {
        self.shared = self.shared.min(len);
    }

    fn explain<M: Model<State = S>>(
        &self,
        model: &M,
        ops: &[&Operation<M::Input, M::Output>],
        partition: Option<&str>,
        blocked_now: usize,
    ) -> Explanation {
        let summary = |op: usize| {
            let o = ops[op];
            OpSummary {
                id: o.id,
                client: o.client,
                call: o.call,
                ret: o.ret,
                description: model.describe_operation(&o.input, o.output.as_ref()),
            }
        };
        let init = model.init();
        let state = self.steps.last().map_or(&init, |(_, s)| s);
        Explanation {
            partition: partition.map(str::to_string),
            partition_ops: ops.len(),
            initial_state: model.describe_state(&init),
            prefix: self
                .steps
                .iter()
                .map(|(op, after)| PrefixStep {
                    op: summary(*op),
                    state_after: model.describe_state(after),
                })
                .collect(),
            state: model.describe_state(state),
            // `offer` always runs before the search can fail, so the
            // fallback is never used.
            unplaceable: summary(self.blocked.unwrap_or(blocked_now)),
        }
    }
}
