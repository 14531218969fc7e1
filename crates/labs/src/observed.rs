//! What each experiment observed, and the matrix cell computed from it.

use bytes::Bytes;
use replication::NodeId;
use serde_json::{Value as Json, json};

use crate::reads::{ReadOutcome, show};

fn bytes_json(value: &Option<Bytes>) -> Json {
    match value {
        Some(b) => Json::String(String::from_utf8_lossy(b).into_owned()),
        None => Json::Null,
    }
}

/// Experiment 1 — normal replication.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NormalReplication {
    /// Whether the write was acknowledged at the variant's level.
    pub acked: bool,
    /// Offset / LSN / index the write was given.
    pub ack_offset: Option<u64>,
    /// The observed follower's value for the key right at the ack boundary.
    pub follower_at_ack: Option<Bytes>,
    /// The same follower's value after running to convergence.
    pub follower_after: Option<Bytes>,
    /// The leader's applied/committed offset after convergence.
    pub leader_offset: u64,
    /// The follower's applied/committed offset after convergence.
    pub follower_offset: u64,
}

/// Experiment 2 — crash the leader right after the ack.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrashAfterAck {
    /// Whether the write was acknowledged.
    pub acked: bool,
    /// The key's value read on the leader right after the ack.
    pub value_before: Option<Bytes>,
    /// The crashed leader.
    pub old_leader: NodeId,
    /// The leader after failover.
    pub new_leader: NodeId,
    /// The key's value read on the new leader.
    pub value_after: Option<Bytes>,
    /// `value_after` is the acknowledged value.
    pub survived: bool,
}

/// Experiment 3 — the old leader in a minority.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MinorityLeader {
    /// The leader that was isolated.
    pub old_leader: NodeId,
    /// The leader the failover put in its place.
    pub new_leader: NodeId,
    /// The contested key on the old leader during the partition, after
    /// both writes (LOCAL read): its own dirty write, if it took one.
    pub old_side_value: Option<Bytes>,
    /// The contested key on the new leader during the partition.
    pub new_side_value: Option<Bytes>,
    /// The write attempted at the isolated old leader was acknowledged.
    pub old_write_acked: bool,
    /// The write at the new leader was acknowledged.
    pub new_write_acked: bool,
    /// Old-lineage messages rejected by receivers (counted in the trace).
    pub fenced_messages: u64,
    /// After heal every alive node holds the new leader's history.
    pub converged: bool,
    /// The old leader's role after heal (from the probe).
    pub old_leader_role_after: String,
    /// The contested key on the old leader after heal (LOCAL read).
    pub minority_value: Option<Bytes>,
    /// The contested key on the new leader after heal.
    pub majority_value: Option<Bytes>,
}

/// Experiment 4 — one slow replica.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlowReplica {
    /// The write at the variant's level was acknowledged.
    pub write_available: bool,
    /// The slow replica does not have the write.
    pub slow_replica_stale: bool,
    /// Why the slow replica does or does not gate the write, read from the
    /// protocol's probe.
    pub membership: String,
}

/// Experiment 5 — replica reconnect inside / outside the retention window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reconnect {
    /// Catch-up mode seen when the gap fits the retained window.
    pub inside_window: String,
    /// Catch-up mode seen when the gap overflows it.
    pub outside_window: String,
}

/// Experiment 6 — the read-level matrix row of one protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadLevels {
    /// `LOCAL` read on the lagging follower.
    pub local: ReadOutcome,
    /// `LEADER` read.
    pub leader: ReadOutcome,
    /// `LINEARIZABLE` read.
    pub linearizable: ReadOutcome,
}

/// Experiment 7 — split-brain read and lease.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitBrainRead {
    /// `LOCAL` read on the isolated old leader.
    pub old_local: Option<Bytes>,
    /// Read on the current leader.
    pub current: Option<Bytes>,
    /// What the authority guard did when tried against the old leader.
    pub guard: String,
}

/// The typed observation of one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Observed {
    /// Experiment 1.
    Normal(NormalReplication),
    /// Experiment 2.
    CrashAfterAck(CrashAfterAck),
    /// Experiment 3.
    Minority(MinorityLeader),
    /// Experiment 4.
    Slow(SlowReplica),
    /// Experiment 5.
    Reconnect(Reconnect),
    /// Experiment 6.
    Reads(ReadLevels),
    /// Experiment 7.
    SplitBrain(SplitBrainRead),
}

/// `Observed::as_*` accessors: the experiment's typed observation, or
/// `None` for another experiment's.
macro_rules! accessors {
    ($($name:ident => $variant:ident($ty:ty), $doc:literal;)*) => {
        impl Observed {
            $(
                #[doc = $doc]
                #[must_use]
                pub fn $name(&self) -> Option<&$ty> {
                    match self {
                        Observed::$variant(o) => Some(o),
                        _ => None,
                    }
                }
            )*
        }
    };
}

accessors! {
    as_normal => Normal(NormalReplication), "Experiment 1's observation.";
    as_crash_after_ack => CrashAfterAck(CrashAfterAck), "Experiment 2's observation.";
    as_minority => Minority(MinorityLeader), "Experiment 3's observation.";
    as_slow => Slow(SlowReplica), "Experiment 4's observation.";
    as_reconnect => Reconnect(Reconnect), "Experiment 5's observation.";
    as_reads => Reads(ReadLevels), "Experiment 6's observation.";
    as_split_brain => SplitBrain(SplitBrainRead), "Experiment 7's observation.";
}

fn yes(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

impl Observed {
    /// The experiment number (1–7) this observation belongs to.
    pub fn experiment(&self) -> u8 {
        match self {
            Observed::Normal(_) => 1,
            Observed::CrashAfterAck(_) => 2,
            Observed::Minority(_) => 3,
            Observed::Slow(_) => 4,
            Observed::Reconnect(_) => 5,
            Observed::Reads(_) => 6,
            Observed::SplitBrain(_) => 7,
        }
    }

    /// For the two durability experiments, whether every acknowledged
    /// write survived: experiment 2, the write acknowledged before the
    /// crash is still there (`survived`) or not (`lost`); experiment 3,
    /// the cut-off old leader refused its write (`Some(true)`) or
    /// acknowledged one that the heal then discarded (`Some(false)`).
    /// `None` for a refused write in experiment 2 and for the other
    /// experiments, whose cells are trade-offs, not verdicts.
    pub fn acked_writes_survived(&self) -> Option<bool> {
        match self {
            Observed::CrashAfterAck(o) if o.acked => Some(o.survived),
            Observed::Minority(o) => Some(!o.old_write_acked),
            _ => None,
        }
    }

    /// The matrix cell text, computed from the observed values only.
    pub fn cell(&self) -> String {
        match self {
            Observed::Normal(o) if !o.acked => "refused".to_owned(),
            Observed::Normal(o) => format!(
                "acked @{}; follower at ack: {}; after: {} (offsets {}/{})",
                o.ack_offset.map_or("-".to_owned(), |x| x.to_string()),
                show(o.follower_at_ack.as_ref()),
                show(o.follower_after.as_ref()),
                o.leader_offset,
                o.follower_offset
            ),
            Observed::CrashAfterAck(o) if !o.acked => "refused".to_owned(),
            Observed::CrashAfterAck(o) => format!(
                "{} (new leader {} reads {})",
                if o.survived { "survived" } else { "lost" },
                o.new_leader,
                show(o.value_after.as_ref())
            ),
            Observed::Minority(o) => format!(
                "old write acked: {}; new write acked: {}; partition reads: {} ({}) / {} ({}); \
                 fenced: {}; converged: {}; old leader now {}; values {}/{}",
                yes(o.old_write_acked),
                yes(o.new_write_acked),
                show(o.old_side_value.as_ref()),
                o.old_leader,
                show(o.new_side_value.as_ref()),
                o.new_leader,
                o.fenced_messages,
                yes(o.converged),
                o.old_leader_role_after,
                show(o.minority_value.as_ref()),
                show(o.majority_value.as_ref())
            ),
            Observed::Slow(o) => format!(
                "write available: {}; slow replica stale: {}; {}",
                yes(o.write_available),
                yes(o.slow_replica_stale),
                o.membership
            ),
            Observed::Reconnect(o) => format!("{} / {}", o.inside_window, o.outside_window),
            Observed::Reads(o) => format!("{} / {} / {}", o.local, o.leader, o.linearizable),
            Observed::SplitBrain(o) => format!(
                "old LOCAL {}; current {}; guard: {}",
                show(o.old_local.as_ref()),
                show(o.current.as_ref()),
                o.guard
            ),
        }
    }

    /// Every observed field as a JSON object (byte values as UTF-8 strings,
    /// absent values as null), with the field names of the `--json` output.
    pub fn to_json(&self) -> Json {
        match self {
            Observed::Normal(o) => json!({
                "acked": o.acked,
                "ack_offset": o.ack_offset,
                "follower_at_ack": bytes_json(&o.follower_at_ack),
                "follower_after": bytes_json(&o.follower_after),
                "leader_offset": o.leader_offset,
                "follower_offset": o.follower_offset,
            }),
            Observed::CrashAfterAck(o) => json!({
                "acked": o.acked,
                "value_before": bytes_json(&o.value_before),
                "old_leader": o.old_leader.as_str(),
                "new_leader": o.new_leader.as_str(),
                "value_after": bytes_json(&o.value_after),
                "survived": o.survived,
            }),
            Observed::Minority(o) => json!({
                "old_leader": o.old_leader.as_str(),
                "new_leader": o.new_leader.as_str(),
                "old_side_value": bytes_json(&o.old_side_value),
                "new_side_value": bytes_json(&o.new_side_value),
                "old_write_acked": o.old_write_acked,
                "new_write_acked": o.new_write_acked,
                "fenced_messages": o.fenced_messages,
                "converged": o.converged,
                "old_leader_role_after": o.old_leader_role_after,
                "minority_value": bytes_json(&o.minority_value),
                "majority_value": bytes_json(&o.majority_value),
            }),
            Observed::Slow(o) => json!({
                "write_available": o.write_available,
                "slow_replica_stale": o.slow_replica_stale,
                "membership": o.membership,
            }),
            Observed::Reconnect(o) => json!({
                "inside_window": o.inside_window,
                "outside_window": o.outside_window,
            }),
            Observed::Reads(o) => json!({
                "LOCAL": o.local.name(),
                "LEADER": o.leader.name(),
                "LINEARIZABLE": o.linearizable.name(),
            }),
            Observed::SplitBrain(o) => json!({
                "old_local": bytes_json(&o.old_local),
                "current": bytes_json(&o.current),
                "guard": o.guard,
            }),
        }
    }
}
