//! What each replica *says* about itself — its public answers
//! ([`IsrNode::me`], [`IsrNode::leader_epoch`], [`IsrNode::leader`],
//! [`IsrNode::is_leader`], [`IsrNode::awaiting_controller`],
//! [`IsrNode::high_watermark`]) — checked against
//! its position and against the controller. These are the answers the
//! probe, the reads and a downstream model checker see; the state-based
//! checks of the parent module read the replica's fields instead, so a
//! replica whose answers had drifted from its state would pass those.
//!
//! Each rule is Kafka's:
//!
//! - a replica is the broker at its own position (its `broker.id`);
//! - leader epochs come only from the controller (LeaderAndIsr), so no
//!   replica knows an epoch the controller has not issued;
//! - the controller's available leader is the replica it made leader in
//!   the current epoch: it knows that epoch, knows itself as the leader,
//!   and its high watermark *is* the partition's (the leader computes HW;
//!   here the in-process controller does so on its behalf and the leader
//!   applies it in the same tick);
//! - one leader per epoch: no other replica believes it leads the current
//!   epoch (a displaced leader may still believe it leads — an older one);
//! - a leader that is up but out of the ISR (it restarted without the
//!   committed prefix) leads nothing until the controller elects again: a
//!   restarted broker holds no leadership until LeaderAndIsr, so it
//!   answers that it awaits the controller.

use replication::Cluster;

use crate::controller::Controller;
use crate::message::IsrMessage;
use crate::node::IsrNode;

/// The rules of the [module docs](self); the error names the first one
/// broken and the replica that broke it.
pub(super) fn check_views(
    controller: &Controller,
    nodes: &[IsrNode],
    cluster: &Cluster<IsrMessage>,
) -> Result<(), String> {
    let epoch = controller.leader_epoch();
    for (i, n) in nodes.iter().enumerate() {
        if n.me() != i {
            return Err(format!(
                "{}: answers to position {} (it is at {i})",
                cluster.id(i),
                n.me()
            ));
        }
        if n.leader_epoch() > epoch {
            return Err(format!(
                "{}: knows leader epoch {}, above the controller's {epoch}",
                cluster.id(i),
                n.leader_epoch()
            ));
        }
    }
    let l = controller.leader();
    if !controller.leader_available(cluster.is_alive(l)) {
        let leader = &nodes[l];
        if cluster.is_alive(l) && (!leader.awaiting_controller() || leader.is_leader()) {
            return Err(format!(
                "{}: the controller's leader is up but out of the ISR, yet does not await the controller (awaiting: {}, leads: {})",
                cluster.id(l),
                leader.awaiting_controller(),
                leader.is_leader()
            ));
        }
        return Ok(());
    }
    let leader = &nodes[l];
    if !leader.is_leader() || leader.leader() != l || leader.leader_epoch() != epoch {
        return Err(format!(
            "{}: the controller's leader of epoch {epoch} answers leader {} of epoch {} (leads: {})",
            cluster.id(l),
            cluster.id(leader.leader()),
            leader.leader_epoch(),
            leader.is_leader()
        ));
    }
    if leader.high_watermark() != controller.high_watermark() {
        return Err(format!(
            "{}: the leader's high watermark {} is not the partition's {}",
            cluster.id(l),
            leader.high_watermark(),
            controller.high_watermark()
        ));
    }
    if let Some((j, _)) = nodes
        .iter()
        .enumerate()
        .find(|&(j, n)| j != l && n.is_leader() && n.leader_epoch() == epoch)
    {
        return Err(format!(
            "{} and {} both lead epoch {epoch}",
            cluster.id(j),
            cluster.id(l)
        ));
    }
    Ok(())
}
