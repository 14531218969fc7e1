//! Building the probe and the summary.

use replication::{GroupSummary, NodeSummary};

use crate::group::IsrGroup;
use crate::log::LogEntry;
use crate::probe::{IsrProbe, NodeProbe};
use crate::role::Role;

impl IsrGroup {
    fn role_of(&self, idx: usize) -> Role {
        if self.nodes[idx].believes_leader() {
            Role::Leader
        } else {
            Role::Follower
        }
    }

    /// A typed snapshot of the controller and every replica (copies logs
    /// and maps: for tests and experiments, not hot paths).
    #[must_use]
    pub fn probe(&self) -> IsrProbe {
        let (first, last) = self.retained_range();
        let nodes = self
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| NodeProbe {
                id: n.id.clone(),
                alive: n.alive,
                role: self.role_of(i),
                slow: self.slow[i],
                known_leader_epoch: n.known_epoch,
                log: n.log.entries.iter().map(|e| LogEntry::clone(e)).collect(),
                log_end_offset: n.log.end(),
                applied_hw: n.log.applied_hw,
                durable_offset: self.durable.image(&n.id).copied().unwrap_or(0),
                data: n.log.data.clone(),
                committed_data: n.log.committed.clone(),
                catch_up_mode: n.catch_up_mode,
            })
            .collect();
        IsrProbe {
            tick: self.tick_now(),
            leader: self
                .leader_available()
                .then(|| self.nodes[self.leader].id.clone()),
            controller_leader: self.nodes[self.leader].id.clone(),
            leader_epoch: self.leader_epoch,
            controller_epoch: self.controller_epoch,
            isr: self.isr_sorted(),
            high_watermark: self.high_watermark,
            min_insync_replicas: self.config.min_insync_replicas,
            lease_expiry: self.lease_expiry,
            retained_offsets: (first..=last).collect(),
            nodes,
        }
    }

    pub(crate) fn build_summary(&self) -> GroupSummary {
        GroupSummary {
            protocol: "isr",
            tick: self.tick_now(),
            leader: self
                .leader_available()
                .then(|| self.nodes[self.leader].id.clone()),
            nodes: {
                let mut nodes: Vec<NodeSummary> = self
                    .nodes
                    .iter()
                    .enumerate()
                    .map(|(i, n)| NodeSummary {
                        id: n.id.clone(),
                        alive: n.alive,
                        role: self.role_of(i).name(),
                        applied_offset: n.log.end(),
                        data: n.log.data.clone(),
                    })
                    .collect();
                nodes.sort_by(|a, b| a.id.cmp(&b.id));
                nodes
            },
        }
    }
}
