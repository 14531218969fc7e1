//! Reads, served at once and changing nothing: `Local` (a node's full
//! data), `Leader` (the controller's leader's full data), `Linearizable`
//! (the leader's `committed_data` behind the controller's HW, ISR and lease
//! guards) and `lease_read`. Functions over the controller, the nodes and
//! the harness's fault state.

use replication::{Cluster, GroupError, NodeId, ReadLevel, ReadResult};

use crate::controller::{Controller, ReadRefusal};
use crate::message::IsrMessage;
use crate::node::IsrNode;

fn blocked(
    cluster: &Cluster<IsrMessage>,
    idx: usize,
    refusal: ReadRefusal,
    reason: String,
) -> GroupError {
    GroupError::ReadBlocked {
        level: ReadLevel::Linearizable,
        node: cluster.id(idx).clone(),
        guard: refusal.guard(),
        reason,
    }
}

/// `key`'s value on node `n` for a read at `level`: from its committed
/// data or from its whole log, as the chapter's rules say.
fn answer(
    controller: &Controller,
    n: &IsrNode,
    level: ReadLevel,
    key: &[u8],
) -> Option<bytes::Bytes> {
    let data = if controller.decide.reads_committed(level) {
        n.log().committed_data()
    } else {
        n.log().data()
    };
    data.get(key).cloned()
}

/// Position of the controller's leader when it can serve.
fn serving_leader(
    controller: &Controller,
    cluster: &Cluster<IsrMessage>,
) -> Result<usize, GroupError> {
    let l = controller.leader();
    if !cluster.is_alive(l) {
        return Err(GroupError::NodeDown(cluster.id(l).clone()));
    }
    if !controller.in_isr(l) {
        return Err(GroupError::NoLeader(replication::message![
            "leader ",
            cluster.id(l),
            " is not in the ISR (restarted without the committed prefix)"
        ]));
    }
    Ok(l)
}

/// Serves a read at once: `Err` is an up-front error or
/// [`GroupError::ReadBlocked`].
pub(crate) fn read(
    controller: &Controller,
    nodes: &[IsrNode],
    cluster: &Cluster<IsrMessage>,
    key: &[u8],
    level: ReadLevel,
    node: Option<&NodeId>,
) -> Result<ReadResult, GroupError> {
    let idx = match (level, node) {
        (ReadLevel::Linearizable, _) => return linearizable(controller, nodes, cluster, key),
        (ReadLevel::Local, Some(n)) => cluster.alive_index(n)?,
        (ReadLevel::Local | ReadLevel::Leader, _) => serving_leader(controller, cluster)?,
    };
    let n = &nodes[idx];
    Ok(ReadResult {
        value: answer(controller, n, level, key),
        node: cluster.id(idx).clone(),
        offset: n.log_end_offset(),
    })
}

/// The leader's `committed_data`, only when the controller's guards pass:
/// nothing above HW, ISR ≥ min.insync, a live lease.
fn linearizable(
    controller: &Controller,
    nodes: &[IsrNode],
    cluster: &Cluster<IsrMessage>,
    key: &[u8],
) -> Result<ReadResult, GroupError> {
    let l = serving_leader(controller, cluster)?;
    let n = &nodes[l];
    controller
        .linearizable_read(cluster.now(), n.log_end_offset())
        .map_err(|r| blocked(cluster, l, r, r.reason()))?;
    debug_assert_eq!(
        n.high_watermark(),
        controller.high_watermark(),
        "leader applies HW as it advances"
    );
    Ok(ReadResult {
        value: answer(controller, n, ReadLevel::Linearizable, key),
        node: cluster.id(l).clone(),
        offset: n.high_watermark(),
    })
}

/// `lease_read`: `node` must be the controller's current leader with a
/// live lease, then the `Linearizable` guards apply.
pub(crate) fn lease_read(
    controller: &Controller,
    nodes: &[IsrNode],
    cluster: &Cluster<IsrMessage>,
    node: &NodeId,
    key: &[u8],
) -> Result<ReadResult, GroupError> {
    let idx = cluster.alive_index(node)?;
    if let Err(refusal) = controller.lease_read(cluster.now(), idx) {
        let reason = match refusal {
            ReadRefusal::NotLeader => format!(
                "{node} is not the current leader (controller leader {} in epoch {}; \
                 {node} knows epoch {})",
                cluster.id(controller.leader()),
                controller.leader_epoch(),
                nodes[idx].leader_epoch()
            ),
            other => other.reason(),
        };
        return Err(blocked(cluster, idx, refusal, reason));
    }
    linearizable(controller, nodes, cluster, key)
}
