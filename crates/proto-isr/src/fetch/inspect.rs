//! What a user sees of a fetch-mode partition: the summary and each
//! replica's state line.

use replication::{Cluster, GroupSummary, NodeState, NodeSummary, StateField};

use super::controller::PartitionController;
use super::replica::{Phase, Replica};
use super::wire::FetchMessage;

/// `leader`, `follower`, `truncating` or `offline`, as the replica
/// believes.
pub(crate) fn role(r: &Replica) -> &'static str {
    match r.phase() {
        Phase::Leader(_) => "leader",
        Phase::Fetching { .. } => "follower",
        Phase::Truncating { .. } => "truncating",
        Phase::Offline => "offline",
    }
}

/// The group summary: each replica's committed records (up to its own HW).
pub(crate) fn summary(
    cluster: &Cluster<FetchMessage>,
    replicas: &[Replica],
    leader: Option<replication::NodeId>,
) -> GroupSummary {
    GroupSummary {
        protocol: "isr",
        tick: cluster.now(),
        leader,
        nodes: replicas
            .iter()
            .enumerate()
            .map(|(i, r)| NodeSummary {
                id: cluster.id(i).clone(),
                alive: cluster.is_alive(i),
                role: role(r),
                applied_offset: r.high_watermark(),
                data: r.data(r.high_watermark()),
            })
            .collect(),
    }
}

/// One line per replica: role, epoch, `LEO`, `HW`, `flushed`; on the
/// controller's leader the ISR (and the ELR when it is not empty); `unclean`
/// after a power loss.
pub(crate) fn lines(
    cluster: &Cluster<FetchMessage>,
    replicas: &[Replica],
    controller: &PartitionController,
) -> Vec<NodeState> {
    let names = |set: &[usize]| -> Vec<replication::NodeId> {
        set.iter().map(|&i| cluster.id(i).clone()).collect()
    };
    replicas
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let mut line = NodeState::new(cluster.id(i).clone(), cluster.is_alive(i), role(r))
                .with("epoch", r.epoch())
                .with("LEO", r.log_end())
                .with("HW", r.high_watermark());
            if controller.leader() == Some(i) {
                line = line.with_field(StateField::set("ISR", &names(controller.isr())));
                if !controller.elr().is_empty() {
                    line = line.with_field(StateField::set("ELR", &names(controller.elr())));
                }
            }
            line = line.with("flushed", r.flushed());
            if r.unclean() {
                line = line.with("unclean", "yes");
            }
            line
        })
        .collect()
}
