//! Promotion and reconnection: how a new timeline is announced and how a
//! node that comes back (restart, heal) finds its place again.

use bytes::Bytes;
use replication::GroupError;
use sim_core::{NodeId, Tick, record};

use crate::group::WalShippingGroup;
use crate::message::WalMsg;
use crate::role::Role;

impl WalShippingGroup {
    /// Promotes `node` (`pg_promote`): timeline + 1, retention cleared, the
    /// new primary fsyncs and announces its timeline to every other node;
    /// those that hear it follow it and resynchronise. A `QUORUM` write
    /// still waiting completes *unknown* at once: its client's primary was
    /// replaced under it.
    pub fn promote(&mut self, node: &NodeId) -> Result<(), GroupError> {
        let i = self.alive_index(node)?;
        if self.primary == Some(i) {
            return Err(GroupError::not_permitted(node, "already the primary"));
        }
        let previous = self.primary.map(|p| self.nodes[p].id.clone());
        self.top_timeline += 1;
        let timeline = self.top_timeline;
        self.primary = Some(i);
        self.with_node(i, |n, now, trace, fx| {
            // Recovery replays everything received before it ends, whatever
            // the replay delay.
            n.replay_until(Tick::MAX, now, trace);
            n.promote(timeline, fx);
            record!(
                trace,
                now,
                "wal_promoted",
                node = &n.id,
                timeline = timeline,
                lsn = n.lsn(),
                previous_primary = previous
            );
        });
        let lsn = self.nodes[i].lsn();
        for j in 0..self.nodes.len() {
            if j != i {
                let msg = WalMsg::Keepalive { timeline, lsn };
                self.net.send(
                    &self.nodes[i].id,
                    &self.nodes[j].id,
                    msg,
                    &mut self.rng,
                    &mut self.trace,
                );
            }
        }
        self.settle_pending();
        Ok(())
    }

    /// After a restart or heal of node `i`: a standby asks its primary to
    /// stream from its next LSN; a node that believes it is primary
    /// announces itself and re-ships retained records its peers have not
    /// acknowledged; every other primary announces itself to `i`.
    pub(crate) fn reconnect(&mut self, i: usize) {
        if self.nodes[i].role == Role::Primary {
            let (timeline, lsn, first) = (
                self.nodes[i].timeline,
                self.nodes[i].lsn(),
                self.nodes[i].retained_first(),
            );
            for j in 0..self.nodes.len() {
                if j == i {
                    continue;
                }
                let dst = self.nodes[j].id.clone();
                let msg = WalMsg::Keepalive { timeline, lsn };
                self.net
                    .send(&self.nodes[i].id, &dst, msg, &mut self.rng, &mut self.trace);
                let acked = self.nodes[i].peer_flush.get(&dst).copied().unwrap_or(0);
                let skip = (acked + 1).saturating_sub(first) as usize;
                let frames: Vec<Bytes> =
                    self.nodes[i].retained.iter().skip(skip).cloned().collect();
                for frame in frames {
                    self.net.send(
                        &self.nodes[i].id,
                        &dst,
                        WalMsg::Record { frame },
                        &mut self.rng,
                        &mut self.trace,
                    );
                }
            }
        } else {
            self.with_node(i, |n, now, trace, fx| {
                n.request_catchup(true, now, trace, fx)
            });
        }
        for j in 0..self.nodes.len() {
            if j != i && self.nodes[j].alive && self.nodes[j].role == Role::Primary {
                let msg = WalMsg::Keepalive {
                    timeline: self.nodes[j].timeline,
                    lsn: self.nodes[j].lsn(),
                };
                self.net.send(
                    &self.nodes[j].id,
                    &self.nodes[i].id,
                    msg,
                    &mut self.rng,
                    &mut self.trace,
                );
            }
        }
    }
}
