//! The seven experiments against `proto-wal` (PostgreSQL-shaped WAL
//! shipping). Every run builds one fresh group with a fixed seed, drives it
//! only through `ReplicationGroup`, `WalShippingGroup::{write_at, probe}`,
//! and reads every observed value back from reads, write results, the
//! probe, or the trace.

use bytes::Bytes;
use proto_wal::{SynchronousCommit, WalConfig, WalShippingGroup};
use replication::{AckLevel, GroupError, NodeId, ReadLevel, ReplicationGroup};

use crate::observed::{
    MinorityLeader, NormalReplication, Observed, Reconnect, SlowReplica, SplitBrainRead,
};
use crate::protocol::Protocol;
use crate::reads::{guard_outcome, read_levels};
use crate::run::Run;
use crate::script::{crash_after_ack, crash_after_ack_then, partition_reads};

/// Seed of every group built here.
const SEED: u64 = 5;
/// Tick bound for every run to idle.
const IDLE: u64 = 200;
/// `recovery_min_apply_delay` of the experiment-1 replay variants, in ticks.
const APPLY_DELAY: u64 = 2;
/// The contested key.
const KEY: &[u8] = b"k";

fn id(name: &str) -> NodeId {
    NodeId::new(name)
}

fn val(text: &'static str) -> Bytes {
    Bytes::from_static(text.as_bytes())
}

/// The default group, with `sync` as its synchronous standbys.
fn group(sync: &[&str]) -> Result<WalShippingGroup, GroupError> {
    WalShippingGroup::new(
        WalConfig::default()
            .with_synchronous_standbys(sync.iter().map(|s| id(s)))
            .with_seed(SEED),
    )
}

/// The synchronous standbys of a `QUORUM` variant: `standby-1`.
fn sync_for(level: AckLevel) -> &'static [&'static str] {
    if level == AckLevel::Quorum {
        &["standby-1"]
    } else {
        &[]
    }
}

fn local(g: &mut WalShippingGroup, node: &NodeId) -> Result<Option<Bytes>, GroupError> {
    Ok(g.client_read(KEY, ReadLevel::Local, Some(node))?.value)
}

fn leader_read(g: &mut WalShippingGroup) -> Result<Option<Bytes>, GroupError> {
    Ok(g.client_read(KEY, ReadLevel::Leader, None)?.value)
}

fn current_primary(g: &WalShippingGroup) -> Result<NodeId, GroupError> {
    g.leader()
        .ok_or_else(|| GroupError::NoLeader("no alive primary".into()))
}

fn applied(g: &WalShippingGroup, node: &NodeId) -> Result<u64, GroupError> {
    g.probe()
        .node(node)
        .map(|n| n.applied_lsn)
        .ok_or_else(|| GroupError::UnknownNode(node.clone()))
}

/// Every run of this protocol, in experiment order then variant order.
pub fn runs() -> Result<Vec<Run>, GroupError> {
    Ok(vec![
        exp1_normal(AckLevel::Leader)?,
        exp1_normal(AckLevel::Quorum)?,
        exp1_replay_delay(SynchronousCommit::On)?,
        exp1_replay_delay(SynchronousCommit::RemoteApply)?,
        exp2_crash_after_ack(AckLevel::Leader)?,
        exp2_crash_after_ack(AckLevel::Quorum)?,
        exp2_remote_write_standby_power_loss()?,
        exp3_minority()?,
        exp4_slow_replica(false)?,
        exp4_slow_replica(true)?,
        exp4_slow_sync_candidate(SlowCandidate::First1)?,
        exp4_slow_sync_candidate(SlowCandidate::Any1)?,
        exp5_reconnect()?,
        exp6_read_levels()?,
        exp7_split_brain()?,
    ])
}

/// Experiment 1: write `k = v` at `level` (`QUORUM` with `standby-1`
/// synchronous) and read `standby-1` at the ack, then after convergence.
pub fn exp1_normal(level: AckLevel) -> Result<Run, GroupError> {
    let g = group(sync_for(level))?;
    normal_replication(g, level, level.snake())
}

/// Experiment 1 at `QUORUM` with `standby-1` synchronous and replaying each
/// record `APPLY_DELAY` ticks after receiving it
/// (`recovery_min_apply_delay`). `apply_delay` (`synchronous_commit = on`):
/// acknowledged once flushed, so the read at the ack misses it;
/// `remote_apply`: acknowledged once replayed, so the read sees it.
pub fn exp1_replay_delay(commit: SynchronousCommit) -> Result<Run, GroupError> {
    let variant = if commit == SynchronousCommit::RemoteApply {
        "remote_apply"
    } else {
        "apply_delay"
    };
    let g = WalShippingGroup::new(
        WalConfig::default()
            .with_synchronous_standbys([id("standby-1")])
            .with_synchronous_commit(commit)
            .with_recovery_min_apply_delay(APPLY_DELAY)
            .with_seed(SEED),
    )?;
    normal_replication(g, AckLevel::Quorum, variant)
}

/// Experiment 1's steps on `g`.
fn normal_replication(
    mut g: WalShippingGroup,
    level: AckLevel,
    variant: &'static str,
) -> Result<Run, GroupError> {
    let follower = id("standby-1");
    let ack = g.client_write(Bytes::from_static(KEY), val("v"), level)?;
    let follower_at_ack = local(&mut g, &follower)?;
    g.run_until_idle(IDLE)?;
    let primary = current_primary(&g)?;
    let observed = NormalReplication {
        acked: ack.accepted,
        ack_offset: ack.offset,
        follower_at_ack,
        follower_after: local(&mut g, &follower)?,
        leader_offset: applied(&g, &primary)?,
        follower_offset: applied(&g, &follower)?,
    };
    Ok(Run::new(
        Protocol::Wal,
        variant,
        Observed::Normal(observed),
        g.trace().clone(),
    ))
}

/// Experiment 2: ack `k = v` at `level`, crash the primary before any tick,
/// fail over (the group prefers a synchronous standby), read on the new
/// primary.
pub fn exp2_crash_after_ack(level: AckLevel) -> Result<Run, GroupError> {
    let mut g = group(sync_for(level))?;
    let observed = crash_after_ack(&mut g, level, IDLE)?;
    Ok(Run::new(
        Protocol::Wal,
        level.snake(),
        Observed::CrashAfterAck(observed),
        g.trace().clone(),
    ))
}

/// Experiment 2, `remote_write`: `standby-1` synchronous with
/// `synchronous_commit = remote_write` confirms on receipt, before any
/// fsync. Ack `k = v` at `QUORUM`, crash the primary, cut standby-1's power
/// (it loses the unflushed record) and restart it, then fail over (the
/// group prefers the synchronous standby) and read on the new primary.
pub fn exp2_remote_write_standby_power_loss() -> Result<Run, GroupError> {
    let mut g = WalShippingGroup::new(
        WalConfig::default()
            .with_synchronous_standbys([id("standby-1")])
            .with_synchronous_commit(SynchronousCommit::RemoteWrite)
            .with_seed(SEED),
    )?;
    let standby = id("standby-1");
    let observed = crash_after_ack_then(&mut g, AckLevel::Quorum, IDLE, |g| {
        g.crash(&standby, true)?;
        g.restart(&standby)
    })?;
    Ok(Run::new(
        Protocol::Wal,
        "remote_write",
        Observed::CrashAfterAck(observed),
        g.trace().clone(),
    ))
}

/// Experiment 3: isolate the primary, promote a standby, write `minority`
/// at the isolated old primary and `majority` at the new one, heal, run to
/// idle. Fenced messages are the `wal_fenced` rejections in the trace.
pub fn exp3_minority() -> Result<Run, GroupError> {
    let mut g = group(&[])?;
    g.client_write(Bytes::from_static(KEY), val("initial"), AckLevel::Leader)?;
    g.run_until_idle(IDLE)?;
    let old = current_primary(&g)?;
    g.isolate(&old)?;
    let new = g.failover(None)?;
    let old_write = g.write_at(
        &old,
        Bytes::from_static(KEY),
        val("minority"),
        AckLevel::Leader,
    );
    let old_write_acked = matches!(old_write, Ok(ref w) if w.accepted);
    let new_write = g.client_write(Bytes::from_static(KEY), val("majority"), AckLevel::Leader)?;
    let (old_side_value, new_side_value) = partition_reads(&mut g, KEY, &old, &new)?;
    g.heal(&old)?;
    g.run_until_idle(IDLE)?;
    let summary = g.summary();
    let new_data = summary.node(&new).map(|n| &n.data);
    let converged = summary.alive_nodes_agree()
        && summary
            .nodes
            .iter()
            .filter(|n| n.alive)
            .all(|n| Some(&n.data) == new_data);
    let old_leader_role_after = g
        .probe()
        .node(&old)
        .map(|n| n.role.name().to_owned())
        .ok_or_else(|| GroupError::UnknownNode(old.clone()))?;
    let observed = MinorityLeader {
        old_leader: old.clone(),
        new_leader: new.clone(),
        old_side_value,
        new_side_value,
        old_write_acked,
        new_write_acked: new_write.accepted,
        fenced_messages: g.trace().count("wal_fenced") as u64,
        converged,
        old_leader_role_after,
        minority_value: local(&mut g, &old)?,
        majority_value: local(&mut g, &new)?,
    };
    Ok(Run::new(
        Protocol::Wal,
        "default",
        Observed::Minority(observed),
        g.trace().clone(),
    ))
}

/// Experiment 4: isolate one standby and write. `default`: the isolated
/// standby is asynchronous and the write is `LEADER`; `sync_standby`: the
/// isolated standby is the synchronous one and the write is `QUORUM`.
pub fn exp4_slow_replica(sync_standby: bool) -> Result<Run, GroupError> {
    let (mut g, slow, level, variant) = if sync_standby {
        (
            group(&["standby-1"])?,
            id("standby-1"),
            AckLevel::Quorum,
            "sync_standby",
        )
    } else {
        (group(&[])?, id("standby-2"), AckLevel::Leader, "default")
    };
    g.isolate(&slow)?;
    let written = val("v");
    let ack = g.client_write(Bytes::from_static(KEY), written.clone(), level)?;
    let probe = g.probe();
    let slow_lsn = probe.node(&slow).map_or(0, |n| n.applied_lsn);
    let outcome = format!(
        "{} LSN {} while it was at LSN {slow_lsn}",
        if ack.accepted { "acked" } else { "refused" },
        ack.offset.map_or("-".to_owned(), |lsn| lsn.to_string()),
    );
    let membership = if probe.synchronous_standbys.contains(&slow) {
        format!("synchronous standby {slow} gates {level} commit: {outcome}")
    } else {
        format!("async standby {slow} does not gate commit: {outcome}")
    };
    let observed = SlowReplica {
        write_available: ack.accepted,
        slow_replica_stale: local(&mut g, &slow)? != Some(written),
        membership,
    };
    Ok(Run::new(
        Protocol::Wal,
        variant,
        Observed::Slow(observed),
        g.trace().clone(),
    ))
}

/// The `synchronous_standby_names` of an experiment-4 variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlowCandidate {
    /// `FIRST 1 (standby-1, standby-2)`: variant `first_1`.
    First1,
    /// `ANY 1 (standby-1, standby-2)`: variant `any_1`.
    Any1,
}

/// Experiment 4 with both standbys listed but one confirmation needed:
/// isolate `standby-1` (the first in priority order) and write at
/// `QUORUM`. `standby-2` is connected, so it confirms and the write is
/// acknowledged, where `sync_standby` refuses it.
pub fn exp4_slow_sync_candidate(names: SlowCandidate) -> Result<Run, GroupError> {
    let (text, variant) = match names {
        SlowCandidate::First1 => ("FIRST 1 (standby-1, standby-2)", "first_1"),
        SlowCandidate::Any1 => ("ANY 1 (standby-1, standby-2)", "any_1"),
    };
    let mut g = WalShippingGroup::new(
        WalConfig::default()
            .with_synchronous_standby_names(text)?
            .with_seed(SEED),
    )?;
    let slow = id("standby-1");
    g.isolate(&slow)?;
    let written = val("v");
    let ack = g.client_write(Bytes::from_static(KEY), written.clone(), AckLevel::Quorum)?;
    let slow_lsn = applied(&g, &slow)?;
    let confirmed_by = g
        .trace()
        .of_kind("wal_sync_confirmed")
        .last()
        .and_then(|e| e.field("confirmed_by"))
        .map_or_else(|| "nobody".to_owned(), |v| v.to_string());
    let membership = format!(
        "{text}: {slow} cut off, confirmed by {confirmed_by}: {} LSN {} while {slow} was at LSN {slow_lsn}",
        if ack.accepted { "acked" } else { "refused" },
        ack.offset.map_or("-".to_owned(), |lsn| lsn.to_string()),
    );
    let observed = SlowReplica {
        write_available: ack.accepted,
        slow_replica_stale: local(&mut g, &slow)? != Some(written),
        membership,
    };
    Ok(Run::new(
        Protocol::Wal,
        variant,
        Observed::Slow(observed),
        g.trace().clone(),
    ))
}

/// Experiment 5: crash `standby-1`, write 2 records, restart, run to idle
/// (inside retention); crash it again, write retention + 2 records, restart,
/// run to idle (outside). Each mode is read from the probe.
pub fn exp5_reconnect() -> Result<Run, GroupError> {
    let mut g = group(&[])?;
    let standby = id("standby-1");
    let catch_up = |g: &mut WalShippingGroup, writes: usize| -> Result<String, GroupError> {
        g.crash(&standby, false)?;
        for i in 0..writes {
            g.client_write(
                Bytes::from(format!("k{i}")),
                Bytes::from(format!("v{i}")),
                AckLevel::Leader,
            )?;
        }
        g.restart(&standby)?;
        g.run_until_idle(IDLE)?;
        g.probe()
            .node(&standby)
            .map(|n| n.sync_mode.name().to_owned())
            .ok_or_else(|| GroupError::UnknownNode(standby.clone()))
    };
    let inside_window = catch_up(&mut g, 2)?;
    let retention = g.config().retention;
    let outside_window = catch_up(&mut g, retention + 2)?;
    let observed = Reconnect {
        inside_window,
        outside_window,
    };
    Ok(Run::new(
        Protocol::Wal,
        "default",
        Observed::Reconnect(observed),
        g.trace().clone(),
    ))
}

/// Experiment 6: write `LEADER` and, before any tick, read at each level
/// (`LOCAL` on `standby-1`).
pub fn exp6_read_levels() -> Result<Run, GroupError> {
    let mut g = group(&[])?;
    let written = val("v");
    g.client_write(Bytes::from_static(KEY), written.clone(), AckLevel::Leader)?;
    let follower = id("standby-1");
    let observed = read_levels(&mut g, KEY, &follower, &written)?;
    Ok(Run::new(
        Protocol::Wal,
        "default",
        Observed::Reads(observed),
        g.trace().clone(),
    ))
}

/// Experiment 7: write `before`, converge, isolate the primary, fail over,
/// write `after`; read both sides and try `LINEARIZABLE` on the old primary.
pub fn exp7_split_brain() -> Result<Run, GroupError> {
    let mut g = group(&[])?;
    g.client_write(Bytes::from_static(KEY), val("before"), AckLevel::Leader)?;
    g.run_until_idle(IDLE)?;
    let old = current_primary(&g)?;
    g.isolate(&old)?;
    g.failover(None)?;
    g.client_write(Bytes::from_static(KEY), val("after"), AckLevel::Leader)?;
    let guard = guard_outcome(&g.client_read(KEY, ReadLevel::Linearizable, Some(&old)));
    let observed = SplitBrainRead {
        old_local: local(&mut g, &old)?,
        current: leader_read(&mut g)?,
        guard,
    };
    Ok(Run::new(
        Protocol::Wal,
        "default",
        Observed::SplitBrain(observed),
        g.trace().clone(),
    ))
}
