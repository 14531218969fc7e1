//! From a scenario part's labelled answers to an experiment's typed
//! [`Observed`] value: which `as=` labels each experiment file records,
//! and how the observation is read from them. Nothing here knows a
//! protocol: every protocol-specific word was printed by the group itself
//! (`probe`, `fenced`, `gate`; see [`ScenarioGroup`]).
//!
//! The labels each experiment reads are tabulated in
//! [`crate::experiments`].
//!
//! [`ScenarioGroup`]: replication::ScenarioGroup

use bytes::Bytes;
use replication::{GroupError, NodeId, ReadResult, WriteResult};

use crate::observed::{
    CrashAfterAck, MinorityLeader, NormalReplication, Observed, ReadLevels, Reconnect, SlowReplica,
    SplitBrainRead,
};
use crate::reads::{ReadOutcome, guard_outcome};
use scenario::{Record, Records};

/// Why a part's records do not make an observation: the label missing or
/// of the wrong kind.
fn missing(label: &str, kind: &str) -> GroupError {
    GroupError::config(
        "scenario",
        format!("the experiment needs a {kind} recorded as `as={label}`"),
    )
}

struct Labels<'a>(&'a Records);

impl Labels<'_> {
    fn write(&self, label: &str) -> Result<(&Bytes, &Result<WriteResult, GroupError>), GroupError> {
        match self.0.get(label) {
            Some(Record::Write { value, result, .. }) => Ok((value, result)),
            _ => Err(missing(label, "write")),
        }
    }

    /// A write that must have been answered (an error is the run's error).
    fn answered(&self, label: &str) -> Result<(&Bytes, &WriteResult), GroupError> {
        let (value, result) = self.write(label)?;
        result.as_ref().map(|w| (value, w)).map_err(Clone::clone)
    }

    fn read(&self, label: &str) -> Result<&Result<ReadResult, GroupError>, GroupError> {
        match self.0.get(label) {
            Some(Record::Read(result)) => Ok(result),
            _ => Err(missing(label, "read")),
        }
    }

    /// The value a read that must have been served returned.
    fn value(&self, label: &str) -> Result<Option<Bytes>, GroupError> {
        self.read(label)?
            .as_ref()
            .map(|r| r.value.clone())
            .map_err(Clone::clone)
    }

    fn failover(&self, label: &str) -> Result<(NodeId, NodeId), GroupError> {
        match self.0.get(label) {
            Some(Record::Failover { old, new }) => {
                let new = new.clone()?;
                let old = old
                    .clone()
                    .ok_or_else(|| GroupError::NoLeader("no leader before the failover".into()))?;
                Ok((old, new))
            }
            _ => Err(missing(label, "failover")),
        }
    }

    fn node(&self, label: &str) -> Result<(&str, u64, &str), GroupError> {
        match self.0.get(label) {
            Some(Record::Node {
                role,
                offset,
                catch_up,
                ..
            }) => Ok((role, *offset, catch_up)),
            _ => Err(missing(label, "probe")),
        }
    }

    fn count(&self, label: &str) -> Result<u64, GroupError> {
        match self.0.get(label) {
            Some(Record::Count(n)) => Ok(*n),
            _ => Err(missing(label, "fenced count")),
        }
    }

    fn flag(&self, label: &str) -> Result<bool, GroupError> {
        match self.0.get(label) {
            Some(Record::Flag(b)) => Ok(*b),
            _ => Err(missing(label, "converged check")),
        }
    }

    fn text(&self, label: &str) -> Result<String, GroupError> {
        match self.0.get(label) {
            Some(Record::Text(t)) => Ok(t.clone()),
            _ => Err(missing(label, "gate")),
        }
    }
}

/// Experiment `experiment`'s observation from a part's `records`.
pub(crate) fn observe(experiment: u8, records: &Records) -> Result<Observed, GroupError> {
    let r = Labels(records);
    Ok(match experiment {
        1 => {
            let (_, ack) = r.answered("ack")?;
            Observed::Normal(NormalReplication {
                acked: ack.accepted,
                ack_offset: ack.offset,
                follower_at_ack: r.value("at_ack")?,
                follower_after: r.value("after")?,
                leader_offset: r.node("leader")?.1,
                follower_offset: r.node("follower")?.1,
            })
        }
        2 => {
            let (written, ack) = r.answered("ack")?;
            let (old_leader, new_leader) = r.failover("failover")?;
            let value_after = r.value("after")?;
            Observed::CrashAfterAck(CrashAfterAck {
                acked: ack.accepted,
                value_before: r.value("before")?,
                old_leader,
                new_leader,
                survived: value_after.as_ref() == Some(written),
                value_after,
            })
        }
        3 => {
            let (old_leader, new_leader) = r.failover("failover")?;
            Observed::Minority(MinorityLeader {
                old_leader,
                new_leader,
                old_side_value: r.value("old_side")?,
                new_side_value: r.value("new_side")?,
                // Refused or not even taken (a follower now): not acked.
                old_write_acked: r.write("old_write")?.1.as_ref().is_ok_and(|w| w.accepted),
                new_write_acked: r.answered("new_write")?.1.accepted,
                fenced_messages: r.count("fenced")?,
                converged: r.flag("converged")?,
                old_leader_role_after: r.node("old_after")?.0.to_owned(),
                minority_value: r.value("minority")?,
                majority_value: r.value("majority")?,
            })
        }
        4 => {
            let (written, ack) = r.answered("ack")?;
            Observed::Slow(SlowReplica {
                write_available: ack.accepted,
                slow_replica_stale: r.value("slow")?.as_ref() != Some(written),
                membership: r.text("gate")?,
            })
        }
        5 => Observed::Reconnect(Reconnect {
            inside_window: r.node("inside")?.2.to_owned(),
            outside_window: r.node("outside")?.2.to_owned(),
        }),
        6 => {
            let (written, _) = r.answered("written")?;
            let classify = |label: &str| ReadOutcome::classify(r.read(label)?, written);
            Observed::Reads(ReadLevels {
                local: classify("local")?,
                leader: classify("leader")?,
                linearizable: classify("linearizable")?,
            })
        }
        7 => {
            let guard = match r.read("lease") {
                Ok(lease) => lease,
                Err(_) => r.read("guard")?,
            };
            Observed::SplitBrain(SplitBrainRead {
                old_local: r.value("old_local")?,
                current: r.value("current")?,
                guard: guard_outcome(guard),
            })
        }
        other => {
            return Err(GroupError::config(
                "experiment",
                format!("there is no experiment {other} (1–7)"),
            ));
        }
    })
}
