//! The seven experiments against `proto-isr`.
//!
//! Every run builds one fresh [`IsrGroup`] with a fixed seed and drives it
//! only through [`ReplicationGroup`] and `IsrGroup`'s public methods; every
//! observed value comes from a read, a write result, the probe, or the trace.
//! Experiment 2 has a variant `unclean_election`
//! (`unclean.leader.election.enable = true`): every ISR member is down and
//! the controller elects the out-of-sync replica.

use bytes::Bytes;
use proto_isr::{IsrConfig, IsrGroup, IsrProbe};
use replication::{AckLevel, GroupError, NodeId, ReadLevel, ReplicationGroup};

use crate::observed::{
    MinorityLeader, NormalReplication, Observed, Reconnect, SlowReplica, SplitBrainRead,
};
use crate::protocol::Protocol;
use crate::reads::{guard_outcome, read_levels};
use crate::run::Run;
use crate::script::{crash_after_ack, crash_after_ack_then, partition_reads};

const IDLE: u64 = 1_000;

fn group(seed: u64) -> Result<IsrGroup, GroupError> {
    IsrGroup::new(IsrConfig::default().with_seed(seed))
}

fn b(text: &str) -> Bytes {
    Bytes::copy_from_slice(text.as_bytes())
}

/// Every node other than the controller's leader, in id order.
fn followers(probe: &IsrProbe) -> Vec<NodeId> {
    let mut ids: Vec<NodeId> = probe
        .nodes
        .iter()
        .map(|n| n.id.clone())
        .filter(|id| *id != probe.controller_leader)
        .collect();
    ids.sort();
    ids
}

/// The first node other than the controller's leader, in id order.
fn first_follower(probe: &IsrProbe) -> Result<NodeId, GroupError> {
    followers(probe)
        .into_iter()
        .next()
        .ok_or_else(|| GroupError::NoLeader("no follower in the group".into()))
}

fn local(g: &mut IsrGroup, node: &NodeId, key: &[u8]) -> Result<Option<Bytes>, GroupError> {
    Ok(g.client_read(key, ReadLevel::Local, Some(node))?.value)
}

fn applied_hw(probe: &IsrProbe, node: &NodeId) -> u64 {
    probe.node(node).map_or(0, |n| n.applied_hw)
}

/// Experiment 1 at `level` (`Leader` or `AllIsr`).
pub fn exp1_normal(level: AckLevel) -> Result<Run, GroupError> {
    let mut g = group(1)?;
    let follower = first_follower(&g.probe())?;
    let w = g.client_write(b("k"), b("v"), level)?;
    let follower_at_ack = local(&mut g, &follower, b"k")?;
    g.run_until_idle(IDLE)?;
    let follower_after = local(&mut g, &follower, b"k")?;
    let probe = g.probe();
    let observed = NormalReplication {
        acked: w.accepted,
        ack_offset: w.offset,
        follower_at_ack,
        follower_after,
        leader_offset: applied_hw(&probe, &probe.controller_leader),
        follower_offset: applied_hw(&probe, &follower),
    };
    Ok(Run::new(
        Protocol::Isr,
        level.snake(),
        Observed::Normal(observed),
        g.trace().clone(),
    ))
}

/// Experiment 2 at `level`: crash the leader right after the ack, let the
/// controller elect the first eligible ISR member, read on it.
pub fn exp2_crash_after_ack(level: AckLevel) -> Result<Run, GroupError> {
    let mut g = group(2)?;
    let observed = crash_after_ack(&mut g, level, IDLE)?;
    Ok(Run::new(
        Protocol::Isr,
        level.snake(),
        Observed::CrashAfterAck(observed),
        g.trace().clone(),
    ))
}

/// Experiment 2, variant `unclean_election`: with
/// `unclean.leader.election.enable`, the follower `node-3` is cut off until
/// it leaves the ISR, an `AllIsr` write is acknowledged by the remaining
/// ISR (leader and `node-2`), then the leader crashes and so does `node-2`:
/// no ISR member is alive. `node-3` reconnects and the failover elects it
/// uncleanly — the partition is available again, and the acknowledged write
/// is gone. (With the setting off, the failover is refused and the
/// partition stays leaderless.)
pub fn exp2_unclean_election() -> Result<Run, GroupError> {
    let mut g = IsrGroup::new(
        IsrConfig::default()
            .with_unclean_leader_election(true)
            .with_seed(2),
    )?;
    let probe = g.probe();
    let others = followers(&probe);
    let (Some(in_sync), Some(out_of_sync)) = (others.first(), others.last()) else {
        return Err(GroupError::NoLeader("too few followers".into()));
    };
    g.isolate(out_of_sync)?;
    let lag = g.config().replica_lag_timeout;
    for _ in 0..=lag {
        g.tick();
    }
    let observed = crash_after_ack_then(&mut g, AckLevel::AllIsr, IDLE, |g| {
        g.crash(in_sync, false)?;
        g.heal(out_of_sync)
    })?;
    Ok(Run::new(
        Protocol::Isr,
        "unclean_election",
        Observed::CrashAfterAck(observed),
        g.trace().clone(),
    ))
}

/// Experiment 3: the isolated old leader still believes it leads epoch 1
/// and tries an `AllIsr` write; the new leader (epoch 2) writes too; after
/// heal the old leader's retransmission is fenced and divergence repair
/// converges it to the new leader's log.
pub fn exp3_minority() -> Result<Run, GroupError> {
    let mut g = group(3)?;
    g.client_write(b("k"), b("base"), AckLevel::AllIsr)?;
    g.run_until_idle(IDLE)?;
    let old = g.probe().controller_leader;
    g.isolate(&old)?;
    let new = g.failover(None)?;
    let old_write = g.produce_to(&old, b("k"), b("minority"), AckLevel::AllIsr)?;
    let new_write = g.client_write(b("k"), b("majority"), AckLevel::AllIsr)?;
    let (old_side_value, new_side_value) = partition_reads(&mut g, b"k", &old, &new)?;
    g.heal(&old)?;
    g.run_until_idle(IDLE)?;
    let fenced_messages = g
        .trace()
        .of_kind("isr_append_rejected")
        .filter(|e| {
            e.field("reason").is_some_and(|r| {
                let r = r.to_string();
                r.contains("stale_leader_epoch") || r.contains("non_current_leader")
            })
        })
        .count() as u64;
    let summary = g.summary();
    let leader_data = summary.node(&new).map(|n| n.data.clone());
    let converged = summary.alive_nodes_agree()
        && summary
            .nodes
            .iter()
            .filter(|n| n.alive)
            .all(|n| Some(&n.data) == leader_data.as_ref());
    let probe = g.probe();
    let old_leader_role_after = probe
        .node(&old)
        .map_or("unknown", |n| n.role.name())
        .to_owned();
    let minority_value = local(&mut g, &old, b"k")?;
    let majority_value = g.client_read(b"k", ReadLevel::Leader, Some(&new))?.value;
    let observed = MinorityLeader {
        old_leader: old.clone(),
        new_leader: new.clone(),
        old_side_value,
        new_side_value,
        old_write_acked: old_write.accepted,
        new_write_acked: new_write.accepted,
        fenced_messages,
        converged,
        old_leader_role_after,
        minority_value,
        majority_value,
    };
    Ok(Run::new(
        Protocol::Isr,
        "default",
        Observed::Minority(observed),
        g.trace().clone(),
    ))
}

/// Experiment 4 with `min.insync.replicas = min_insync`: one follower is
/// marked slow and an `AllIsr` write is attempted.
pub fn exp4_slow(min_insync: usize) -> Result<Run, GroupError> {
    let mut g = IsrGroup::new(
        IsrConfig::default()
            .with_min_insync_replicas(min_insync)
            .with_seed(4),
    )?;
    let slow = first_follower(&g.probe())?;
    g.set_replica_slow(&slow, true)?;
    let value = b("v");
    let w = g.client_write(b("k"), value.clone(), AckLevel::AllIsr)?;
    let slow_value = local(&mut g, &slow, b"k")?;
    let probe = g.probe();
    let mut membership = if probe.in_isr(&slow) {
        "still in ISR".to_owned()
    } else {
        "removed from ISR".to_owned()
    };
    if probe.isr.len() < probe.min_insync_replicas {
        membership.push_str(&format!(
            "; ISR {} below min.insync {}",
            probe.isr.len(),
            probe.min_insync_replicas
        ));
    }
    let observed = SlowReplica {
        write_available: w.accepted,
        slow_replica_stale: slow_value.as_ref() != Some(&value),
        membership,
    };
    let variant = if min_insync == IsrConfig::default().min_insync_replicas {
        "default"
    } else {
        "min_insync_3"
    };
    Ok(Run::new(
        Protocol::Isr,
        variant,
        Observed::Slow(observed),
        g.trace().clone(),
    ))
}

fn mode_after_reconnect(
    g: &mut IsrGroup,
    node: &NodeId,
    writes: usize,
) -> Result<String, GroupError> {
    g.crash(node, false)?;
    for i in 0..writes {
        g.client_write(b(&format!("k{i}")), b(&format!("v{i}")), AckLevel::AllIsr)?;
    }
    g.restart(node)?;
    g.run_until_idle(IDLE)?;
    Ok(g.probe()
        .node(node)
        .map_or("unknown", |n| n.catch_up_mode.name())
        .to_owned())
}

/// Experiment 5: a follower crashes, misses 2 writes (inside the retained
/// window) then, crashed again, `retention + 2` writes (outside).
pub fn exp5_reconnect() -> Result<Run, GroupError> {
    let mut g = group(5)?;
    let follower = followers(&g.probe())
        .pop()
        .ok_or_else(|| GroupError::NoLeader("no follower in the group".into()))?;
    let inside_window = mode_after_reconnect(&mut g, &follower, 2)?;
    let outside = g.config().retention + 2;
    let outside_window = mode_after_reconnect(&mut g, &follower, outside)?;
    Ok(Run::new(
        Protocol::Isr,
        "default",
        Observed::Reconnect(Reconnect {
            inside_window,
            outside_window,
        }),
        g.trace().clone(),
    ))
}

/// Experiment 6: a `Leader` write, then every read level before any tick.
pub fn exp6_read_levels() -> Result<Run, GroupError> {
    let mut g = group(6)?;
    let follower = first_follower(&g.probe())?;
    let value = b("v");
    g.client_write(b("k"), value.clone(), AckLevel::Leader)?;
    let observed = read_levels(&mut g, b"k", &follower, &value)?;
    Ok(Run::new(
        Protocol::Isr,
        "default",
        Observed::Reads(observed),
        g.trace().clone(),
    ))
}

/// Experiment 7: "before" converged, old leader isolated, controller
/// election, "after" at the new leader; `lease_read` tried on the old one.
pub fn exp7_split_brain() -> Result<Run, GroupError> {
    let mut g = group(7)?;
    g.client_write(b("k"), b("before"), AckLevel::AllIsr)?;
    g.run_until_idle(IDLE)?;
    let old = g.probe().controller_leader;
    g.isolate(&old)?;
    g.failover(None)?;
    g.client_write(b("k"), b("after"), AckLevel::AllIsr)?;
    let old_local = local(&mut g, &old, b"k")?;
    let current = g.client_read(b"k", ReadLevel::Linearizable, None)?.value;
    let guard = guard_outcome(&g.lease_read(&old, b"k"));
    Ok(Run::new(
        Protocol::Isr,
        "default",
        Observed::SplitBrain(SplitBrainRead {
            old_local,
            current,
            guard,
        }),
        g.trace().clone(),
    ))
}

/// Every run of this protocol, in experiment order then variant order.
pub fn runs() -> Result<Vec<Run>, GroupError> {
    Ok(vec![
        exp1_normal(AckLevel::Leader)?,
        exp1_normal(AckLevel::AllIsr)?,
        exp2_crash_after_ack(AckLevel::Leader)?,
        exp2_crash_after_ack(AckLevel::AllIsr)?,
        exp2_unclean_election()?,
        exp3_minority()?,
        exp4_slow(IsrConfig::default().min_insync_replicas)?,
        exp4_slow(3)?,
        exp5_reconnect()?,
        exp6_read_levels()?,
        exp7_split_brain()?,
    ])
}
