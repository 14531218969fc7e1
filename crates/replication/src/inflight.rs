//! The bookkeeping every protocol shares for operations in flight: op ids,
//! the `client_op_submitted` / `client_op_completed` trace events, and the
//! queue of completions not yet taken.
//!
//! A protocol keeps its own list of pending operations (what each waits
//! for is protocol logic); it calls [`ClientOps::submitted`] when it accepts
//! an operation and [`ClientOps::complete`] when it decides the outcome.

use std::collections::VecDeque;

use sim_core::{NodeId, Tick, Trace, record};

use crate::op::{ClientOp, Completion, OpId, Outcome};

/// Op ids, client events in the trace, and completions waiting to be taken.
#[derive(Debug, Default, Clone)]
pub struct ClientOps {
    next: u64,
    ready: VecDeque<Completion>,
}

impl ClientOps {
    /// An empty table; the first op gets id 1.
    pub fn new() -> ClientOps {
        ClientOps::default()
    }

    /// Feeds `h` the table: the next id, and each completion waiting to
    /// be taken by its `Debug` form (none, mostly: no text is made then).
    pub fn hash_into(&self, h: &mut crate::StateHasher) {
        use std::hash::Hasher as _;
        h.write_u64(self.next);
        h.write_usize(self.ready.len());
        for done in &self.ready {
            h.write_u64(crate::StateHasher::of_debug(done));
        }
    }

    /// Gives `op` the next id and records `client_op_submitted` with the
    /// client-visible fields: `op`, `kind`, `key`, `value` (writes), `level`
    /// and `node` (absent when the client named none).
    pub fn submitted(&mut self, trace: &mut Trace, now: Tick, op: &ClientOp) -> OpId {
        self.next += 1;
        let id = OpId(self.next);
        let value = match op {
            ClientOp::Write { value, .. } => Some(value),
            ClientOp::Read { .. } => None,
        };
        record!(
            trace,
            now,
            "client_op_submitted",
            op = id.0,
            kind = op.kind(),
            key = op.key(),
            value = value,
            level = op.level_name(),
            node = op.node()
        );
        id
    }

    /// Completes `id` with `outcome` at `now`, records `client_op_completed`
    /// (`op`, `outcome`, `node`, `offset`, `value` for a served read,
    /// `reason` for failed / unknown) and queues the completion.
    #[allow(clippy::too_many_arguments)]
    pub fn complete(
        &mut self,
        trace: &mut Trace,
        now: Tick,
        id: OpId,
        op: ClientOp,
        submitted: Tick,
        node: Option<NodeId>,
        outcome: Outcome,
    ) {
        Self::record_completed(trace, now, id, node.as_ref(), &outcome);
        self.ready.push_back(Completion {
            id,
            op,
            submitted,
            completed: now,
            node,
            outcome,
        });
    }

    /// Records `client_op_completed` for `id` exactly as
    /// [`ClientOps::complete`] does, without queueing a completion: for a
    /// blocking call that completes its own operation in the same call and
    /// hands the outcome straight to its caller (nothing else could have
    /// taken that completion).
    pub fn record_completed(
        trace: &mut Trace,
        now: Tick,
        id: OpId,
        node: Option<&NodeId>,
        outcome: &Outcome,
    ) {
        if !trace.is_enabled() {
            return;
        }
        let status = outcome.status().name();
        match outcome {
            Outcome::Written { offset, .. } => record!(
                trace,
                now,
                "client_op_completed",
                op = id.0,
                outcome = status,
                node = node,
                offset = *offset
            ),
            Outcome::Read(read) => record!(
                trace,
                now,
                "client_op_completed",
                op = id.0,
                outcome = status,
                node = &read.node,
                offset = read.offset,
                value = read.value.as_ref()
            ),
            Outcome::Failed { message, .. } => record!(
                trace,
                now,
                "client_op_completed",
                op = id.0,
                outcome = status,
                node = node,
                reason = message.clone()
            ),
            Outcome::Unknown { offset, message } => record!(
                trace,
                now,
                "client_op_completed",
                op = id.0,
                outcome = status,
                node = node,
                offset = *offset,
                reason = message.clone()
            ),
        }
    }

    /// Every completion not yet taken, in completion order.
    pub fn take_all(&mut self) -> Vec<Completion> {
        if self.ready.is_empty() {
            return Vec::new();
        }
        // The queue's own buffer becomes the list: nothing is moved.
        Vec::from(std::mem::take(&mut self.ready))
    }

    /// The completion of `id`, if it has completed and was not yet taken.
    pub fn take(&mut self, id: OpId) -> Option<Completion> {
        let pos = self.ready.iter().position(|c| c.id == id)?;
        self.ready.remove(pos)
    }

    /// The number of completions waiting to be taken.
    pub fn ready_len(&self) -> usize {
        self.ready.len()
    }
}
