//! The fetch mode's invariants, from the TLA+ specifications of the
//! protocol (Gustafson's kafka-specification, Vanlightly's kafka-tlaplus),
//! checked over the controller and every replica.

use replication::NodeId;

use super::controller::PartitionController;
use super::replica::Replica;

/// `Err` names the first broken invariant:
///
/// - every replica's leader-epoch cache is monotonic and within its log;
///   its HW and flushed end are within its log;
/// - **StrongIsr**: while the controller's leader leads its epoch, every
///   committed record (at or below the leader's HW) is in the log of every
///   ISR member, the same record at the same offset — so HW is never above
///   an ISR member's log end. A member that lost power is exempt until it
///   has caught up again (Kafka cannot keep records a disk did not flush;
///   that loss is what ELR and `flush.messages` are about);
/// - a follower never truncates below HW once it has acknowledged the
///   epoch (recorded as it happens: `violation`).
pub(crate) fn check(
    ids: &[NodeId],
    replicas: &[Replica],
    controller: &PartitionController,
    violation: Option<&String>,
) -> Result<(), String> {
    if let Some(v) = violation {
        return Err(v.clone());
    }
    for (i, r) in replicas.iter().enumerate() {
        r.cache()
            .check(r.log_end())
            .map_err(|e| format!("{}: {e}", ids[i]))?;
        if r.high_watermark() > r.log_end() || r.flushed() > r.log_end() {
            return Err(format!(
                "{}: HW {} or flushed end {} above its log end {}",
                ids[i],
                r.high_watermark(),
                r.flushed(),
                r.log_end()
            ));
        }
    }
    let epoch = controller.leader_epoch();
    let Some(l) = controller.leader() else {
        return Ok(());
    };
    let leader = &replicas[l];
    if !leader.leads_in(epoch) {
        return Ok(());
    }
    let hw = leader.high_watermark();
    for &m in controller.isr() {
        let r = &replicas[m];
        if m == l || r.unclean() {
            continue;
        }
        if r.log_end() < hw {
            return Err(format!(
                "StrongIsr: HW {hw} of leader {} is above ISR member {}'s log end {}",
                ids[l],
                ids[m],
                r.log_end()
            ));
        }
        // A fetched record is the leader's own `Arc`: compare values only
        // where the pointers differ.
        let differs = |k: usize| {
            let (a, b) = (&r.log()[k], &leader.log()[k]);
            !std::sync::Arc::ptr_eq(a, b) && **a != **b
        };
        if let Some(at) = (0..hw as usize).find(|&k| differs(k)) {
            return Err(format!(
                "StrongIsr: committed offset {} differs between leader {} (epoch {}) and ISR member {} (epoch {})",
                at + 1,
                ids[l],
                leader.log()[at].epoch,
                ids[m],
                r.log()[at].epoch
            ));
        }
    }
    Ok(())
}
