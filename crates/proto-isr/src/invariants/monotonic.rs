//! SPEC §6's monotonicity, between two checks that passed: what must
//! not go back from one [`fingerprint`](super::fingerprint) to the next.

use replication::Cluster;

use super::{
    AT_APPLIED_HW, AT_KNOWN_EPOCH, AT_LEADER, AT_VERSION, MONOTONIC, NODES_FROM, PER_NODE,
};
use crate::message::IsrMessage;

/// SPEC §6's monotonicity, between two checks that passed (two
/// [`fingerprint`](super::fingerprint)s of the same partition): the
/// leader and controller epochs never go back; a new leader comes with a
/// new leader epoch (Kafka bumps the epoch at every leader change), and a
/// new leader epoch with a new controller epoch (the chapter's
/// `controller_elect` increments both); HW
/// goes back only in an unclean election (which sets the unclean epoch
/// anew); no replica's known leader epoch goes back (it only ever learns
/// the controller's current one); and a replica's `applied_hw` goes back
/// only when its log was truncated or replaced (a power loss, a divergent
/// suffix, a snapshot — each a new log version), invariant 5.
pub(super) fn check_monotonic(
    before: &[u64],
    now: &[u64],
    cluster: &Cluster<IsrMessage>,
) -> Result<(), String> {
    let [leader_epoch, controller_epoch, hw, unclean] = before[..MONOTONIC] else {
        return Ok(());
    };
    let [leader_epoch_now, controller_epoch_now, hw_now, unclean_now] = now[..MONOTONIC] else {
        return Ok(());
    };
    if leader_epoch_now < leader_epoch {
        return Err(format!(
            "leader epoch went back from {leader_epoch} to {leader_epoch_now}"
        ));
    }
    if controller_epoch_now < controller_epoch {
        return Err(format!(
            "controller epoch went back from {controller_epoch} to {controller_epoch_now}"
        ));
    }
    if leader_epoch_now > leader_epoch && controller_epoch_now == controller_epoch {
        return Err(format!(
            "leader epoch {leader_epoch_now} was issued without a new controller epoch (still {controller_epoch})"
        ));
    }
    if hw_now < hw && unclean_now == unclean {
        return Err(format!(
            "HW went back from {hw} to {hw_now} without an unclean election"
        ));
    }
    if now[AT_LEADER] != before[AT_LEADER] && leader_epoch_now == leader_epoch {
        return Err(format!(
            "the leader changed within leader epoch {leader_epoch}"
        ));
    }
    let replicas = before[NODES_FROM..]
        .chunks_exact(PER_NODE)
        .zip(now[NODES_FROM..].chunks_exact(PER_NODE));
    for (i, (was, is)) in replicas.enumerate() {
        if is[AT_KNOWN_EPOCH] < was[AT_KNOWN_EPOCH] {
            return Err(format!(
                "{}: its leader epoch went back from {} to {}",
                cluster.id(i),
                was[AT_KNOWN_EPOCH],
                is[AT_KNOWN_EPOCH]
            ));
        }
        if is[AT_VERSION] == was[AT_VERSION] && is[AT_APPLIED_HW] < was[AT_APPLIED_HW] {
            return Err(format!(
                "{}: applied_hw went back from {} to {} without a truncation",
                cluster.id(i),
                was[AT_APPLIED_HW],
                is[AT_APPLIED_HW]
            ));
        }
    }
    Ok(())
}
