//! The second half of **recovers**: once the recovery probes are *done*,
//! every node converges on them.
//!
//! A protocol that serves the probes from its leader alone can still be
//! broken: followers that never learn the commit index (Raft's
//! `leaderCommit` ignored), a catch-up that stops after one batch, a
//! replica that never resynchronises after a heal. Every protocol here
//! promises eventual convergence once the network is whole and every node
//! runs — Redis replicas resync, PostgreSQL standbys replay, Kafka
//! followers fetch to the log end, Raft followers apply what the leader
//! committed — so each node's `LOCAL` read of the probe key must answer
//! the probe's value within the protocol's recovery bound.

use replication::{Bytes, ClientOp, Outcome, OutcomeStatus, ReadLevel, ReplicationGroup};

use crate::property::Check;

/// How many times the operator asks for a failover to the named node.
const FAILOVER_TRIES: usize = 5;

/// Ticks between two rounds of local reads.
const POLL_TICKS: u64 = 4;

/// Whether every node's `LOCAL` read of `key` answers `value` within
/// `bound` ticks (reads at submission; a read in flight is given
/// `settle` ticks). A protocol that refuses a `LOCAL` read at a named node
/// is not judged (it makes no per-node promise to read).
pub(crate) fn every_node_converges(
    group: &mut dyn ReplicationGroup,
    key: &Bytes,
    value: &Bytes,
    bound: u64,
    settle: u64,
) -> Check {
    let start = group.now();
    let nodes = group.node_ids();
    loop {
        let mut behind = None;
        for node in &nodes {
            let op = ClientOp::read(key.clone(), ReadLevel::Local).at(node);
            let id = match group.submit(op) {
                Ok(id) => id,
                Err(replication::GroupError::UnsupportedRead { .. }) => return Check::Holds,
                Err(e) => {
                    behind = Some(format!("{node}'s LOCAL read was refused: {e}"));
                    break;
                }
            };
            let read = match crate::probe::answer(group, id, settle) {
                Some(c) if c.outcome.status() == OutcomeStatus::Done => match c.outcome {
                    Outcome::Read(read) => read.value,
                    _ => None,
                },
                Some(c) => {
                    behind = Some(format!(
                        "{node}'s LOCAL read ended {}",
                        c.outcome.status().name()
                    ));
                    break;
                }
                None => {
                    behind = Some(format!(
                        "{node}'s LOCAL read did not complete within {settle} ticks"
                    ));
                    break;
                }
            };
            if read.as_ref() != Some(value) {
                behind = Some(format!(
                    "{node}'s LOCAL read answers {}",
                    read.map_or("nothing".to_owned(), |v| crate::history::text(&v))
                ));
                break;
            }
        }
        let Some(behind) = behind else {
            return Check::Holds;
        };
        if group.now() >= start.saturating_add(bound) {
            return Check::Violated(format!(
                "after the recovery probes were done, not every node converged on them within the recovery bound ({bound} ticks): {behind}"
            ));
        }
        for _ in 0..POLL_TICKS {
            group.tick();
        }
    }
}

/// The operator's half of recovering: once every replica has converged, a
/// failover to a named follower — as caught up as a follower can be —
/// makes it lead (Raft: a leadership transfer, TimeoutNow; PostgreSQL: a
/// promotion; Redis Sentinel / the Kafka controller: a preferred
/// election). A protocol that does not offer a failover to a named node
/// here ([`GroupError::NotPermitted`](replication::GroupError), e.g. Raft
/// with leadership transfer off) is not judged.
/// A failed attempt is retried, after waiting up to `settle` ticks for a
/// leader, [`FAILOVER_TRIES`] times in all.
pub(crate) fn a_named_failover_succeeds(group: &mut dyn ReplicationGroup, settle: u64) -> Check {
    let leader = group.leader();
    let Some(target) = group
        .node_ids()
        .into_iter()
        .find(|n| Some(n) != leader.as_ref())
    else {
        return Check::Holds;
    };
    // A transfer is best effort on a lossy network (its TimeoutNow may be
    // dropped, and the leader then abandons it after an election
    // timeout): an operator tries again, a few times.
    let mut answer = group.failover(Some(&target));
    for _ in 1..FAILOVER_TRIES {
        if matches!(&answer, Ok(leads) if *leads == target)
            || matches!(answer, Err(replication::GroupError::NotPermitted { .. }))
        {
            break;
        }
        // A failed transfer may leave an election to finish first.
        for _ in 0..settle {
            if group.leader().is_some() {
                break;
            }
            group.tick();
        }
        answer = group.failover(Some(&target));
    }
    match answer {
        Ok(now_leads) if now_leads == target => Check::Holds,
        Ok(other) => Check::Violated(format!(
            "after every replica converged, a failover to {target} made {other} lead instead"
        )),
        Err(replication::GroupError::NotPermitted { .. }) => Check::Holds,
        Err(e) => Check::Violated(format!(
            "after every replica converged, {FAILOVER_TRIES} failovers to {target} failed, the last: {e}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use proto_raft::{RaftConfig, RaftGroup};
    use replication::{AckLevel, NodeId};

    use super::*;

    /// A three-node Raft group with a leader and `probe` written at QUORUM.
    fn raft_with_probe() -> (RaftGroup, Bytes, Bytes) {
        let mut g = RaftGroup::new(RaftConfig::new(["n1", "n2", "n3"]).with_seed(3)).unwrap();
        g.failover(None).unwrap();
        let (key, value) = (Bytes::from_static(b"p"), Bytes::from_static(b"probe"));
        let w = g.client_write(key.clone(), value.clone(), AckLevel::Quorum);
        assert!(w.unwrap().accepted);
        (g, key, value)
    }

    fn a_follower(g: &RaftGroup) -> NodeId {
        let leader = g.leader();
        g.node_ids()
            .into_iter()
            .find(|n| Some(n) != leader.as_ref())
            .unwrap()
    }

    #[test]
    fn a_healthy_group_converges_and_hands_leadership_over() {
        let (mut g, key, value) = raft_with_probe();
        assert_eq!(
            every_node_converges(&mut g, &key, &value, 60, 50),
            Check::Holds
        );
        let target = a_follower(&g);
        assert_eq!(a_named_failover_succeeds(&mut g, 50), Check::Holds);
        assert_eq!(g.leader(), Some(target));
    }

    #[test]
    fn a_follower_cut_off_is_named_as_the_one_that_did_not_converge() {
        let (mut g, key, _) = raft_with_probe();
        let follower = a_follower(&g);
        g.isolate(&follower).unwrap();
        let newer = Bytes::from_static(b"newer");
        assert!(
            g.client_write(key.clone(), newer.clone(), AckLevel::Quorum)
                .unwrap()
                .accepted
        );
        match every_node_converges(&mut g, &key, &newer, 60, 50) {
            Check::Violated(why) => assert!(
                why.contains(&format!("{follower}'s LOCAL read answers")),
                "{why}"
            ),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_failover_that_keeps_failing_is_a_violation() {
        let (mut g, _, _) = raft_with_probe();
        let target = a_follower(&g);
        g.crash(&target, false).unwrap();
        match a_named_failover_succeeds(&mut g, 50) {
            Check::Violated(why) => assert!(
                why.contains(&format!("failovers to {target} failed")),
                "{why}"
            ),
            other => panic!("{other:?}"),
        }
    }
}
