//! The seven experiments against `proto-async`.
//!
//! Every run builds one fresh [`AsyncPrimaryGroup`] with a fixed seed, drives
//! it through the [`ReplicationGroup`] trait plus `promote`,
//! `client_write_at` and `probe`, and fills its observation from what the
//! group answered: reads, write results, the probe and the trace. Every run
//! has the variant `default` (the protocol has one acknowledgement level
//! worth comparing: `LEADER`); two Redis settings add variants where they
//! change a cell: `wait_1` (experiment 2: every `LEADER` write followed by
//! `WAIT 1 5`) and `min_replicas_1` (experiment 3: `min-replicas-to-write
//! 1`, `min-replicas-max-lag 2`).

use bytes::Bytes;
use proto_async::{AsyncConfig, AsyncPrimaryGroup};
use replication::{AckLevel, GroupError, NodeId, ReadLevel, ReplicationGroup};
use sim_core::Value;

use crate::observed::{
    MinorityLeader, NormalReplication, Observed, Reconnect, SlowReplica, SplitBrainRead,
};
use crate::protocol::Protocol;
use crate::reads::{guard_outcome, read_levels};
use crate::run::Run;
use crate::script::{crash_after_ack, partition_reads};

/// The seed every async run uses.
const SEED: u64 = 1;
/// Tick budget for every `run_until_idle`.
const MAX_TICKS: u64 = 1_000;
/// The key every experiment writes.
const KEY: &[u8] = b"k";

fn group() -> Result<AsyncPrimaryGroup, GroupError> {
    AsyncPrimaryGroup::new(AsyncConfig::default().with_seed(SEED))
}

/// `min-replicas-max-lag` of the `min_replicas_1` variant, in ticks.
const MIN_REPLICAS_MAX_LAG: u64 = 2;

fn key() -> Bytes {
    Bytes::from_static(KEY)
}

/// The first replica in id order (the follower every experiment observes).
fn first_replica(group: &AsyncPrimaryGroup) -> Result<NodeId, GroupError> {
    let leader = group.leader();
    group
        .node_ids()
        .into_iter()
        .find(|id| Some(id) != leader.as_ref())
        .ok_or_else(|| GroupError::NoLeader("the group has no replica".into()))
}

fn local(group: &mut AsyncPrimaryGroup, node: &NodeId) -> Result<Option<Bytes>, GroupError> {
    Ok(group.client_read(KEY, ReadLevel::Local, Some(node))?.value)
}

fn leader_read(group: &mut AsyncPrimaryGroup) -> Result<Option<Bytes>, GroupError> {
    Ok(group.client_read(KEY, ReadLevel::Leader, None)?.value)
}

fn primary(group: &AsyncPrimaryGroup) -> Result<NodeId, GroupError> {
    group
        .leader()
        .ok_or_else(|| GroupError::NoLeader("the primary is down".into()))
}

/// Every run of this protocol, in experiment order then variant order.
pub fn runs() -> Result<Vec<Run>, GroupError> {
    Ok(vec![
        exp1_normal()?,
        exp2_crash_after_ack()?,
        exp2_wait_1()?,
        exp3_minority()?,
        exp3_min_replicas_1()?,
        exp4_slow_replica()?,
        exp5_reconnect()?,
        exp6_read_levels()?,
        exp7_split_brain()?,
    ])
}

/// Experiment 1: a `LEADER` write is acknowledged before the follower has
/// it; the follower has it after the stream is delivered.
pub fn exp1_normal() -> Result<Run, GroupError> {
    let mut g = group()?;
    let follower = first_replica(&g)?;
    let ack = g.client_write(key(), Bytes::from_static(b"v"), AckLevel::Leader)?;
    let follower_at_ack = local(&mut g, &follower)?;
    g.run_until_idle(MAX_TICKS)?;
    let follower_after = local(&mut g, &follower)?;
    let summary = g.summary();
    let offset_of = |id: Option<&NodeId>| {
        id.and_then(|id| summary.node(id))
            .map_or(0, |n| n.applied_offset)
    };
    let observed = NormalReplication {
        acked: ack.accepted,
        ack_offset: ack.offset,
        follower_at_ack,
        follower_after,
        leader_offset: offset_of(summary.leader.as_ref()),
        follower_offset: offset_of(Some(&follower)),
    };
    Ok(Run::new(
        Protocol::Async,
        "default",
        Observed::Normal(observed),
        g.trace().clone(),
    ))
}

/// Experiment 2: ack a write, crash the primary before any tick, promote a
/// replica, read there.
pub fn exp2_crash_after_ack() -> Result<Run, GroupError> {
    let mut g = group()?;
    let observed = crash_after_ack(&mut g, AckLevel::Leader, MAX_TICKS)?;
    Ok(Run::new(
        Protocol::Async,
        "default",
        Observed::CrashAfterAck(observed),
        g.trace().clone(),
    ))
}

/// Experiment 2, variant `wait_1`: every `LEADER` write is followed by
/// `WAIT 1 5`, so the ack comes only once a replica acknowledged the offset;
/// the failover promotes such a replica here, so the write survives. (`WAIT`
/// is still not durability: promoting a replica that had not acknowledged
/// loses it — the explorer's `async.leader.*.wait_1` counterexample.)
pub fn exp2_wait_1() -> Result<Run, GroupError> {
    let mut g = AsyncPrimaryGroup::new(AsyncConfig::default().with_seed(SEED).with_wait(1, 5))?;
    let observed = crash_after_ack(&mut g, AckLevel::Leader, MAX_TICKS)?;
    Ok(Run::new(
        Protocol::Async,
        "wait_1",
        Observed::CrashAfterAck(observed),
        g.trace().clone(),
    ))
}

/// Experiment 3: the old primary, cut off, keeps acknowledging writes; after
/// heal its buffered stream is fenced and it converges to the new primary.
pub fn exp3_minority() -> Result<Run, GroupError> {
    minority(group()?, "default")
}

/// Experiment 3, variant `min_replicas_1` (`min-replicas-to-write 1`,
/// `min-replicas-max-lag 2`): once the cut-off old primary has not heard
/// from a replica for more than 2 ticks it refuses its write before
/// applying it (`NOREPLICAS`); the new primary, which hears from its
/// replicas, accepts.
pub fn exp3_min_replicas_1() -> Result<Run, GroupError> {
    let config = AsyncConfig::default()
        .with_seed(SEED)
        .with_min_replicas(1, MIN_REPLICAS_MAX_LAG);
    minority(AsyncPrimaryGroup::new(config)?, "min_replicas_1")
}

/// Experiment 3's script; with `min_replicas_to_write` set, both writes wait
/// until `min-replicas-max-lag` has passed since the isolation.
fn minority(mut g: AsyncPrimaryGroup, variant: &'static str) -> Result<Run, GroupError> {
    g.client_write(key(), Bytes::from_static(b"base"), AckLevel::Leader)?;
    g.run_until_idle(MAX_TICKS)?;
    let old = primary(&g)?;
    g.isolate(&old)?;
    let new = g.failover(None)?;
    if g.config().min_replicas_to_write > 0 {
        for _ in 0..=g.config().min_replicas_max_lag {
            g.tick();
        }
    }
    let old_write = g.client_write_at(
        &old,
        key(),
        Bytes::from_static(b"minority"),
        AckLevel::Leader,
    );
    let new_write = g.client_write(key(), Bytes::from_static(b"majority"), AckLevel::Leader)?;
    g.run_until_idle(MAX_TICKS)?;
    let (old_side_value, new_side_value) = partition_reads(&mut g, KEY, &old, &new)?;
    g.heal(&old)?;
    g.run_until_idle(MAX_TICKS)?;
    let fenced_messages = g
        .trace()
        .of_kind("async_message_rejected")
        .filter(|e| {
            matches!(e.field("reason"), Some(Value::Str(r))
                if r == "non_current_primary" || r == "stale_generation")
        })
        .count() as u64;
    let summary = g.summary();
    let new_data = summary.node(&new).map(|n| (&n.data, n.applied_offset));
    let converged = summary
        .nodes
        .iter()
        .filter(|n| n.alive)
        .all(|n| Some((&n.data, n.applied_offset)) == new_data);
    let probe = g.probe();
    let old_leader_role_after = probe
        .node(&old)
        .map_or("unknown", |n| n.role.name())
        .to_owned();
    let minority_value = local(&mut g, &old)?;
    let majority_value = leader_read(&mut g)?;
    let observed = MinorityLeader {
        old_leader: old.clone(),
        new_leader: new.clone(),
        old_side_value,
        new_side_value,
        old_write_acked: old_write.as_ref().is_ok_and(|w| w.accepted),
        new_write_acked: new_write.accepted,
        fenced_messages,
        converged,
        old_leader_role_after,
        minority_value,
        majority_value,
    };
    Ok(Run::new(
        Protocol::Async,
        variant,
        Observed::Minority(observed),
        g.trace().clone(),
    ))
}

/// Experiment 4: an isolated replica does not gate a `LEADER` write.
pub fn exp4_slow_replica() -> Result<Run, GroupError> {
    let mut g = group()?;
    let slow = first_replica(&g)?;
    g.isolate(&slow)?;
    let written = Bytes::from_static(b"v");
    let ack = g.client_write(key(), written.clone(), AckLevel::Leader)?;
    g.run_until_idle(MAX_TICKS)?;
    let slow_value = local(&mut g, &slow)?;
    let probe = g.probe();
    let acked_at = ack.offset.unwrap_or(0);
    let membership = match probe.node(&slow) {
        // The ack came while this replica lacked the entry: it has no vote.
        Some(node) if ack.accepted && node.offset < acked_at => format!(
            "{} {} is not a voter: acked at offset {} while it was at offset {}",
            node.role.name(),
            node.id,
            acked_at,
            node.offset
        ),
        Some(node) => format!(
            "{} {} held offset {} when offset {} was answered",
            node.role.name(),
            node.id,
            node.offset,
            acked_at
        ),
        None => format!("{slow} is not in the probe"),
    };
    let observed = SlowReplica {
        write_available: ack.accepted,
        slow_replica_stale: slow_value.as_ref() != Some(&written),
        membership,
    };
    Ok(Run::new(
        Protocol::Async,
        "default",
        Observed::Slow(observed),
        g.trace().clone(),
    ))
}

/// Experiment 5: a replica restarted after missing 2 writes resyncs from the
/// backlog (partial); after missing more than the backlog holds, in full.
/// The cell prints Redis's words: `partial / full`.
pub fn exp5_reconnect() -> Result<Run, GroupError> {
    let mut g = group()?;
    let replica = first_replica(&g)?;
    g.client_write(key(), Bytes::from_static(b"v0"), AckLevel::Leader)?;
    g.run_until_idle(MAX_TICKS)?;
    let mut written = 0usize;
    let mut catch_up = |g: &mut AsyncPrimaryGroup, writes: usize| -> Result<String, GroupError> {
        g.crash(&replica, false)?;
        for _ in 0..writes {
            written += 1;
            g.client_write(key(), Bytes::from(format!("v{written}")), AckLevel::Leader)?;
        }
        g.restart(&replica)?;
        g.run_until_idle(MAX_TICKS)?;
        let probe = g.probe();
        Ok(probe
            .node(&replica)
            .map_or_else(|| "unknown".to_owned(), |n| n.sync_mode.name().to_owned()))
    };
    let inside_window = catch_up(&mut g, 2)?;
    let overflow = g.config().backlog_size + 2;
    let outside_window = catch_up(&mut g, overflow)?;
    Ok(Run::new(
        Protocol::Async,
        "default",
        Observed::Reconnect(Reconnect {
            inside_window,
            outside_window,
        }),
        g.trace().clone(),
    ))
}

/// Experiment 6: LOCAL on a lagging replica, LEADER, LINEARIZABLE.
pub fn exp6_read_levels() -> Result<Run, GroupError> {
    let mut g = group()?;
    let follower = first_replica(&g)?;
    let written = Bytes::from_static(b"v");
    g.client_write(key(), written.clone(), AckLevel::Leader)?;
    let observed = read_levels(&mut g, KEY, &follower, &written)?;
    Ok(Run::new(
        Protocol::Async,
        "default",
        Observed::Reads(observed),
        g.trace().clone(),
    ))
}

/// Experiment 7: the isolated old primary still serves "before" locally; no
/// authority guard exists to try against it (LINEARIZABLE is unsupported).
pub fn exp7_split_brain() -> Result<Run, GroupError> {
    let mut g = group()?;
    g.client_write(key(), Bytes::from_static(b"before"), AckLevel::Leader)?;
    g.run_until_idle(MAX_TICKS)?;
    let old = primary(&g)?;
    g.isolate(&old)?;
    g.failover(None)?;
    g.client_write(key(), Bytes::from_static(b"after"), AckLevel::Leader)?;
    g.run_until_idle(MAX_TICKS)?;
    let old_local = local(&mut g, &old)?;
    let current = leader_read(&mut g)?;
    let attempt = g.client_read(KEY, ReadLevel::Linearizable, Some(&old));
    let observed = SplitBrainRead {
        old_local,
        current,
        guard: guard_outcome(&attempt),
    };
    Ok(Run::new(
        Protocol::Async,
        "default",
        Observed::SplitBrain(observed),
        g.trace().clone(),
    ))
}
