//! Which primary a node follows: the authority check every message from a
//! primary passes before anything is applied, switching to the primary of
//! a newer timeline (a displaced primary steps down), and asking the
//! followed primary for catch-up.

use super::{Output, WalEvent, WalMsg, WalNode};
use crate::role::Role;

/// The outcome of the authority check made before anything is applied.
pub(super) enum Fence {
    /// From the primary this node follows, on its timeline.
    Accept,
    /// Old lineage: rejected with this reason.
    Reject(&'static str),
    /// A primary of a newer timeline: follow it and resynchronise.
    NewerPrimary,
}

impl WalNode {
    /// The authority check for a message from `src` carrying `timeline`.
    pub(super) fn fence(&self, src: usize, timeline: u64) -> Fence {
        let planted = self.role != Role::Primary
            && crate::planted::on(self.planted, crate::planted::NO_TIMELINE_FENCE);
        if timeline < self.timeline && !planted {
            Fence::Reject("stale_timeline")
        } else if timeline > self.timeline {
            Fence::NewerPrimary
        } else if planted {
            Fence::Accept
        } else if self.role == Role::Primary || self.following != Some(src) {
            Fence::Reject("non_current_primary")
        } else {
            Fence::Accept
        }
    }

    /// Reports a rejected message (`msg` is its label) of an old lineage.
    pub(super) fn reject(
        &self,
        src: usize,
        msg: &'static str,
        timeline: u64,
        reason: &'static str,
        out: &mut Vec<Output>,
    ) {
        out.push(Output::Event(WalEvent::Fenced {
            src,
            msg,
            lsn: None,
            msg_timeline: timeline,
            node_timeline: self.timeline,
            reason,
        }));
    }

    /// A primary announces its timeline and end of WAL: a newer timeline is
    /// followed; on this node's own stream, a primary ahead reveals a gap.
    pub(super) fn on_keepalive(
        &mut self,
        src: usize,
        timeline: u64,
        lsn: u64,
        out: &mut Vec<Output>,
    ) {
        match self.fence(src, timeline) {
            Fence::Reject(reason) => self.reject(src, "keepalive", timeline, reason, out),
            Fence::NewerPrimary => self.adopt(src, timeline, true, out),
            Fence::Accept if lsn > self.lsn() => {
                out.push(Output::Event(WalEvent::GapDetected {
                    applied_lsn: self.lsn(),
                    primary_lsn: lsn,
                }));
                // A keepalive is a reconnect: ask again even if an earlier
                // request was lost.
                self.request_catchup(true, out);
            }
            Fence::Accept => {}
        }
    }

    /// Follows `primary` of a newer timeline (a displaced primary steps
    /// down) and asks it for catch-up. `announced` (a keepalive) asks again
    /// even when already following it, in case the earlier request was lost.
    pub(super) fn adopt(
        &mut self,
        primary: usize,
        timeline: u64,
        announced: bool,
        out: &mut Vec<Output>,
    ) {
        if self.role == Role::Standby && self.following == Some(primary) {
            // Already switched; the base backup is normally on its way.
            return self.request_catchup(announced, out);
        }
        if self.role == Role::Primary {
            out.push(Output::Event(WalEvent::PrimaryDemoted {
                new_primary: primary,
                timeline: self.timeline,
                new_timeline: timeline,
            }));
        }
        self.role = Role::Standby;
        self.retained.clear();
        self.forget_peers();
        self.following = Some(primary);
        out.push(Output::Event(WalEvent::FollowingChanged {
            primary,
            timeline,
        }));
        self.request_catchup(true, out);
    }

    /// Asks the followed primary to stream from the next LSN (once per
    /// position unless `force`). A primary never asks.
    pub(super) fn request_catchup(&mut self, force: bool, out: &mut Vec<Output>) {
        let Some(primary) = self.following else {
            return;
        };
        if self.role != Role::Standby || (!force && self.requested_at == Some(self.lsn())) {
            return;
        }
        self.requested_at = Some(self.lsn());
        out.push(Output::Event(WalEvent::CatchUpRequested {
            primary,
            timeline: self.timeline,
            next_lsn: self.lsn() + 1,
        }));
        out.push(Output::Send {
            to: primary,
            msg: WalMsg::StartReplication {
                timeline: self.timeline,
                next_lsn: self.lsn() + 1,
            },
        });
    }
}
