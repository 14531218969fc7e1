//! The leader's two ways of giving up leadership on purpose.
//!
//! - **Leadership transfer** (thesis §3.10, etcd's `MsgTransferLeader`):
//!   the leader brings the target's log up to its own end, then sends it
//!   TimeoutNow; the target starts an election at once (no PreVote, no
//!   wait) and, holding the longest log of a fresh term, wins. The leader
//!   abandons the transfer when it has not happened within the highest
//!   election timeout.
//! - **CheckQuorum** (etcd's `CheckQuorum`): every lowest election timeout
//!   the leader counts the peers it heard from since the last check; short
//!   of a majority (itself included), it steps down to follower in the same
//!   term, so an isolated leader stops believing it leads by itself.

use sim_core::{Rng, Tick};

use crate::message::Message;
use crate::node::RaftNode;
use crate::output::{NodeEvent, Output};

/// A leadership transfer in progress at a leader.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Transfer {
    /// The node that should lead next.
    pub(crate) target: usize,
    /// The tick at which the leader gives up.
    pub(crate) deadline: Tick,
    /// TimeoutNow has been sent.
    pub(crate) timeout_now_sent: bool,
}

impl RaftNode {
    /// Starts handing leadership to `target` (a leader only; the group has
    /// checked that `target` is another alive, reachable node).
    pub(crate) fn start_transfer(&mut self, now: Tick, target: usize, out: &mut Vec<Output>) {
        if !self.leads() || target == self.me {
            return;
        }
        self.transfer = Some(Transfer {
            target,
            deadline: now.saturating_add(self.timing.election_timeout.1),
            timeout_now_sent: false,
        });
        out.push(Output::Event(NodeEvent::TransferStarted {
            target,
            match_index: self.match_index[target],
            last_index: self.last_index(),
        }));
        if !self.maybe_send_timeout_now(out) {
            self.send_append(now, target, out);
        }
    }

    /// Sends TimeoutNow once the transfer target's log matches ours to the
    /// end; true when sent (now or before).
    pub(crate) fn maybe_send_timeout_now(&mut self, out: &mut Vec<Output>) -> bool {
        let last_index = self.last_index();
        let Some(transfer) = self.transfer.as_mut() else {
            return false;
        };
        if transfer.timeout_now_sent {
            return true;
        }
        let target = transfer.target;
        if self.match_index[target] < last_index {
            return false;
        }
        transfer.timeout_now_sent = true;
        out.push(Output::Event(NodeEvent::TimeoutNowSent {
            target,
            last_index: self.last_index(),
        }));
        out.push(Output::Send {
            to: target,
            msg: Message::TimeoutNow {
                term: self.current_term,
            },
        });
        true
    }

    /// Leader tick: abandon a transfer whose deadline passed.
    pub(crate) fn check_transfer(&mut self, now: Tick, out: &mut Vec<Output>) {
        if let Some(transfer) = self.transfer
            && now >= transfer.deadline
        {
            self.transfer = None;
            out.push(Output::Event(NodeEvent::TransferAbandoned {
                target: transfer.target,
                timeout_now_sent: transfer.timeout_now_sent,
            }));
        }
    }

    /// A follower told to campaign by its leader: an election now, in the
    /// next term, without PreVote.
    pub(crate) fn handle_timeout_now(
        &mut self,
        now: Tick,
        from: usize,
        rng: &mut Rng,
        out: &mut Vec<Output>,
    ) {
        out.push(Output::Event(NodeEvent::TimeoutNowReceived {
            leader: from,
            term: self.current_term,
        }));
        self.start_election(now, rng, out);
    }

    /// Leader tick with CheckQuorum on: when a check is due, step down if
    /// fewer than a majority (this leader included) were heard from since
    /// the last one. True when it stepped down.
    pub(crate) fn check_quorum_due(
        &mut self,
        now: Tick,
        rng: &mut Rng,
        out: &mut Vec<Output>,
    ) -> bool {
        if !self.timing.check_quorum || now < self.quorum_check_at {
            return false;
        }
        let me = self.me;
        let active = self
            .recent_active
            .iter()
            .enumerate()
            .filter(|(p, heard)| *p == me || **heard)
            .count();
        self.recent_active.iter_mut().for_each(|h| *h = false);
        self.quorum_check_at = now.saturating_add(self.timing.election_timeout.0);
        if active >= self.majority() {
            return false;
        }
        out.push(Output::Event(NodeEvent::LeaderSteppedDown {
            term: self.current_term,
            active,
            needed: self.majority(),
        }));
        let term = self.current_term;
        self.become_follower(term, self.voted_for);
        self.reset_election_deadline(now, rng);
        true
    }

    /// CheckQuorum bookkeeping at a new leader: nobody heard yet, first
    /// check one lowest election timeout from now.
    pub(crate) fn reset_quorum_check(&mut self, now: Tick) {
        self.recent_active.iter_mut().for_each(|h| *h = false);
        self.quorum_check_at = now.saturating_add(self.timing.election_timeout.0);
    }
}
