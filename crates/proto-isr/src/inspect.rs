//! Building the probe and the summary from the controller, the nodes and
//! the harness's fault state.

use replication::{Cluster, GroupSummary, NodeSummary};

use crate::controller::Controller;
use crate::log::LogEntry;
use crate::message::IsrMessage;
use crate::node::IsrNode;
use crate::probe::{IsrProbe, NodeProbe};
use crate::role::Role;

fn role_of(node: &IsrNode) -> Role {
    if node.is_leader() {
        Role::Leader
    } else {
        Role::Follower
    }
}

/// The controller's leader while it can serve.
fn serving_leader(controller: &Controller, cluster: &Cluster<IsrMessage>) -> Option<usize> {
    let l = controller.leader();
    controller
        .leader_available(cluster.is_alive(l))
        .then_some(l)
}

/// A typed snapshot of the controller and every replica.
pub(crate) fn probe(
    controller: &Controller,
    nodes: &[IsrNode],
    cluster: &Cluster<IsrMessage>,
) -> IsrProbe {
    let l = controller.leader();
    let (first, last) = nodes[l].retained_range();
    let nodes = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| NodeProbe {
            id: cluster.id(i).clone(),
            alive: cluster.is_alive(i),
            role: role_of(n),
            slow: cluster.is_slow(i),
            known_leader_epoch: n.leader_epoch(),
            log: n
                .log()
                .entries()
                .iter()
                .map(|e| LogEntry::clone(e))
                .collect(),
            log_end_offset: n.log_end_offset(),
            applied_hw: n.high_watermark(),
            durable_offset: n.durable_offset(),
            data: n.log().data().to_sorted(),
            committed_data: n.log().committed_data().to_sorted(),
            catch_up_mode: n.catch_up_mode(),
            fenced_packets: n.fenced_packets(),
        })
        .collect();
    IsrProbe {
        tick: cluster.now(),
        leader: serving_leader(controller, cluster).map(|i| cluster.id(i).clone()),
        controller_leader: cluster.id(l).clone(),
        leader_epoch: controller.leader_epoch(),
        controller_epoch: controller.controller_epoch(),
        isr: controller
            .isr()
            .into_iter()
            .map(|i| cluster.id(i).clone())
            .collect(),
        high_watermark: controller.high_watermark(),
        min_insync_replicas: controller.min_insync_replicas(),
        lease_expiry: controller.lease_expiry(),
        retained_offsets: (first..=last).collect(),
        nodes,
    }
}

/// The protocol-neutral summary.
pub(crate) fn summary(
    controller: &Controller,
    nodes: &[IsrNode],
    cluster: &Cluster<IsrMessage>,
) -> GroupSummary {
    let mut summary = GroupSummary {
        protocol: "isr",
        tick: cluster.now(),
        leader: serving_leader(controller, cluster).map(|i| cluster.id(i).clone()),
        nodes: nodes
            .iter()
            .enumerate()
            .map(|(i, n)| NodeSummary {
                id: cluster.id(i).clone(),
                alive: cluster.is_alive(i),
                role: role_of(n).name(),
                applied_offset: n.log_end_offset(),
                data: n.log().data().to_sorted(),
            })
            .collect(),
    };
    summary.nodes.sort_by(|a, b| a.id.cmp(&b.id));
    summary
}
