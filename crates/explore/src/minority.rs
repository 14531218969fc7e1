//! The end of **available**: an aimed fault the protocol claims to
//! tolerate, held long enough, on a group that has recovered.
//!
//! During the schedule a fault is judged only after it has been tolerated
//! for the protocol's recovery bound with no other nemesis step in
//! between, which dense schedules rarely leave room for. So each run ends
//! with one such window on purpose: one follower crashes, and when the
//! protocol says it tolerates that (Raft: a minority down; ISR: the ISR
//! still at min.insync once the follower leaves it; WAL: no synchronous
//! standby lost), a write at the strongest level, submitted once the
//! recovery bound has passed, must complete *done*, and so must the same
//! write made through the blocking `client_write`. A commit rule that
//! waits for every replica, or an ISR that never shrinks, fails it.

use replication::{AckLevel, Bytes, OutcomeStatus, ReplicationGroup};

use crate::property::Check;

/// Crashes the last follower of `group` (in node order) and, while the
/// protocol tolerates that, waits its recovery bound and then writes `key`
/// at the strongest ack level, which must be *done* within `settle` ticks.
/// Not judged (holds) when there is no leader or follower, or the protocol
/// does not claim to tolerate the crash.
pub(crate) fn available_without_a_follower(
    group: &mut dyn ReplicationGroup,
    key: &Bytes,
    settle: u64,
) -> Check {
    let Some(leader) = group.leader() else {
        return Check::Holds;
    };
    let Some(follower) = group.node_ids().into_iter().rev().find(|n| *n != leader) else {
        return Check::Holds;
    };
    if group.crash(&follower, false).is_err() || !group.tolerates_current_faults() {
        return Check::Holds;
    }
    let bound = group.recovery_bound();
    for _ in 0..bound {
        group.tick();
    }
    if !group.tolerates_current_faults() {
        return Check::Holds;
    }
    let how = match crate::probe::write(group, key, b"without-a-follower") {
        None => return Check::Holds,
        Some((level, Err(e))) => format!("the write at {level} was refused: {e}"),
        Some((level, Ok(id))) => match crate::probe::answer(group, id, settle) {
            Some(c) if c.outcome.status() == OutcomeStatus::Done => {
                return blocking_write_accepted(group, key, level);
            }
            Some(c) => format!("the write at {level} ended {}", c.outcome.status().name()),
            None => format!("the write at {level} did not complete within {settle} ticks"),
        },
    };
    Check::Violated(format!(
        "with {follower} crashed after recovery, a fault the protocol tolerates, held for its recovery bound ({bound} ticks), {how}"
    ))
}

/// The same fault, asked through the blocking call scenario files make
/// ([`ReplicationGroup::client_write`], which waits on its own): a write
/// at `level` must be accepted as the submitted one was.
fn blocking_write_accepted(group: &mut dyn ReplicationGroup, key: &Bytes, level: &str) -> Check {
    let Some(ack) = [AckLevel::AllIsr, AckLevel::Quorum, AckLevel::Leader]
        .into_iter()
        .find(|a| a.name() == level)
    else {
        return Check::Holds;
    };
    let value = Bytes::from_static(b"without-a-follower, blocking");
    let how = match group.client_write(key.clone(), value, ack) {
        Ok(w) if w.accepted => return Check::Holds,
        Ok(w) => format!("ended {}: {}", w.status.name(), w.message),
        Err(e) => format!("was refused: {e}"),
    };
    Check::Violated(format!(
        "with a follower crashed after recovery, a fault the protocol tolerates, a write at {level} completed, but a blocking client_write at {level} {how}"
    ))
}

#[cfg(test)]
mod tests {
    use proto_raft::{RaftConfig, RaftGroup};
    use replication::{AckLevel, Bytes, ReplicationGroup};

    use super::*;

    fn raft(nodes: &[&str]) -> RaftGroup {
        let mut g = RaftGroup::new(RaftConfig::new(nodes.iter().copied()).with_seed(3)).unwrap();
        g.failover(None).unwrap();
        let w = g.client_write(
            Bytes::from_static(b"k"),
            Bytes::from_static(b"v"),
            AckLevel::Quorum,
        );
        assert!(w.unwrap().accepted);
        g
    }

    #[test]
    fn raft_without_one_of_three_still_commits() {
        let mut g = raft(&["n1", "n2", "n3"]);
        assert_eq!(
            available_without_a_follower(&mut g, &Bytes::from_static(b"k"), 100),
            Check::Holds
        );
        assert_eq!(g.summary().nodes.iter().filter(|n| !n.alive).count(), 1);
    }

    #[test]
    fn a_blocking_write_that_does_not_wait_is_a_violation() {
        let mut g =
            crate::altered::Altered::new(raft(&["n1", "n2", "n3"])).with_impatient_blocking_write();
        match available_without_a_follower(&mut g, &Bytes::from_static(b"k"), 100) {
            Check::Violated(why) => assert!(
                why.contains("a blocking client_write at QUORUM was refused: "),
                "{why}"
            ),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_group_claiming_a_fault_it_cannot_serve_through_is_a_violation() {
        // Two of three down is not a minority: Raft does not claim it, and
        // the probe does not judge …
        let mut g = raft(&["n1", "n2", "n3"]);
        let leader = g.leader().unwrap();
        let first = g.node_ids().into_iter().find(|n| *n != leader).unwrap();
        g.crash(&first, false).unwrap();
        let key = Bytes::from_static(b"k");
        assert_eq!(
            available_without_a_follower(&mut g, &key, 100),
            Check::Holds
        );
        // … while a group that claims it, and cannot commit, is caught.
        let mut g = crate::altered::Altered::new(raft(&["n1", "n2", "n3"])).claiming_tolerance();
        let leader = g.leader().unwrap();
        let first = g.node_ids().into_iter().find(|n| *n != leader).unwrap();
        g.crash(&first, false).unwrap();
        match available_without_a_follower(&mut g, &key, 100) {
            Check::Violated(why) => assert!(why.contains("write at QUORUM ended unknown"), "{why}"),
            other => panic!("{other:?}"),
        }
    }
}
