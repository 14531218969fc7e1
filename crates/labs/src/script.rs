//! Experiment scripts that are the same for every protocol, written once
//! against the [`ReplicationGroup`] trait.

use bytes::Bytes;
use replication::{AckLevel, GroupError, NodeId, ReadLevel, ReplicationGroup};

use crate::observed::CrashAfterAck;

/// Experiment 2's script: ack `k = v` at `level`, read it on the leader,
/// crash the leader before any tick, fail over to the protocol's first
/// eligible node, run to idle (at most `max_ticks`), read on the new leader.
pub fn crash_after_ack<G: ReplicationGroup>(
    group: &mut G,
    level: AckLevel,
    max_ticks: u64,
) -> Result<CrashAfterAck, GroupError> {
    crash_after_ack_then(group, level, max_ticks, |_| Ok(()))
}

/// [`crash_after_ack`] with more faults injected between the leader's crash
/// and the failover (`after_crash`), as the variants that cut a standby's
/// power or crash the rest of the ISR do.
pub fn crash_after_ack_then<G: ReplicationGroup>(
    group: &mut G,
    level: AckLevel,
    max_ticks: u64,
    after_crash: impl FnOnce(&mut G) -> Result<(), GroupError>,
) -> Result<CrashAfterAck, GroupError> {
    let written = Bytes::from_static(b"v");
    let ack = group.client_write(Bytes::from_static(b"k"), written.clone(), level)?;
    let value_before = group.client_read(b"k", ReadLevel::Leader, None)?.value;
    let old_leader = group
        .leader()
        .ok_or_else(|| GroupError::NoLeader("no leader right after the ack".into()))?;
    group.crash(&old_leader, false)?;
    after_crash(group)?;
    let new_leader = group.failover(None)?;
    group.run_until_idle(max_ticks)?;
    let value_after = group.client_read(b"k", ReadLevel::Leader, None)?.value;
    Ok(CrashAfterAck {
        acked: ack.accepted,
        value_before,
        old_leader,
        new_leader,
        survived: value_after.as_ref() == Some(&written),
        value_after,
    })
}

/// Experiment 3, during the partition: what each side's leader holds for
/// `key` (LOCAL reads, no time passes) — `(old side, new side)`.
pub fn partition_reads<G: ReplicationGroup>(
    group: &mut G,
    key: &[u8],
    old: &NodeId,
    new: &NodeId,
) -> Result<(Option<Bytes>, Option<Bytes>), GroupError> {
    let old_side = group.client_read(key, ReadLevel::Local, Some(old))?.value;
    let new_side = group.client_read(key, ReadLevel::Local, Some(new))?.value;
    Ok((old_side, new_side))
}
