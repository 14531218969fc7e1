//! A part of **recovers** for protocols with a lease read
//! ([`ReplicationGroup::lease_read`], the ISR chapter's): on a converged
//! group, the leader's lease read is served and answers what every node
//! converged on, and every other node's is refused. No other step of a
//! schedule asks for a lease read, so without this a lease that never
//! serves, or serves anywhere, would go unseen. And, at the very end of
//! one run in 4 that recovered (by seed, [`crate::schedule::LEASE_SAMPLE`]),
//! a lease must lapse as the protocol promises: its
//! leader, cut off from every peer for the protocol's lease bound, serves
//! no lease read (a lease renewed without the replicas it needs would
//! serve a stale read in any system where another leader can take over
//! meanwhile; in this model the controller names the new leader at once,
//! so only the promise itself can be checked).

use replication::{Bytes, ReplicationGroup};

use crate::property::Check;

/// Whether the converged `group`'s lease reads of `key` (whose every copy
/// holds `value`) are served at the leader alone, answering `value`. A
/// protocol without lease reads, or a group without a leader now, is not
/// judged.
pub(crate) fn lease_reads_hold(
    group: &mut dyn ReplicationGroup,
    key: &Bytes,
    value: &Bytes,
) -> Check {
    let Some(leader) = group.leader() else {
        return Check::Holds;
    };
    match group.lease_read(&leader, key) {
        None => return Check::Holds,
        Some(Ok(read)) if read.value.as_ref() == Some(value) => {}
        Some(Ok(read)) => {
            return Check::Violated(format!(
                "on a converged group, the leader {leader}'s lease read answered {} where every node holds {}",
                read.value
                    .map_or("nothing".to_owned(), |v| crate::history::text(&v)),
                crate::history::text(value)
            ));
        }
        Some(Err(e)) => {
            return Check::Violated(format!(
                "on a converged group, the leader {leader}'s lease read was refused: {e}"
            ));
        }
    }
    for node in group.node_ids().into_iter().filter(|n| *n != leader) {
        if let Some(Ok(_)) = group.lease_read(&node, key) {
            return Check::Violated(format!(
                "on a converged group led by {leader}, a lease read at {node} was served"
            ));
        }
    }
    Check::Holds
}

/// Whether `group`'s lease lapses as it promises
/// ([`ReplicationGroup::lease_lapse_bound`]): its leader, cut off from
/// every peer, serves no lease read of `key` once that many ticks have
/// passed. Leaves the leader isolated. Not judged (holds) without the
/// promise or a leader.
pub(crate) fn lease_lapses(group: &mut dyn ReplicationGroup, key: &Bytes) -> Check {
    let (Some(bound), Some(leader)) = (group.lease_lapse_bound(), group.leader()) else {
        return Check::Holds;
    };
    if group.isolate(&leader).is_err() {
        return Check::Holds;
    }
    for _ in 0..bound {
        group.tick();
    }
    match group.lease_read(&leader, key) {
        Some(Ok(_)) => Check::Violated(format!(
            "{leader}, cut off from every peer for its lease bound ({bound} ticks), still served a lease read"
        )),
        _ => Check::Holds,
    }
}

#[cfg(test)]
mod tests {
    use proto_isr::{IsrConfig, IsrGroup};
    use replication::{AckLevel, Bytes, ReplicationGroup};

    use super::*;

    #[test]
    fn a_converged_isr_group_serves_lease_reads_at_its_leader_alone() {
        let mut g = IsrGroup::new(IsrConfig::default()).unwrap();
        let (key, value) = (Bytes::from_static(b"k"), Bytes::from_static(b"v"));
        let w = g.client_write(key.clone(), value.clone(), AckLevel::AllIsr);
        assert!(w.unwrap().accepted);
        assert_eq!(lease_reads_hold(&mut g, &key, &value), Check::Holds);
        match lease_reads_hold(&mut g, &key, &Bytes::from_static(b"other")) {
            Check::Violated(why) => assert!(why.contains("answered v where"), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_lease_read_refused_at_the_leader_is_a_violation() {
        let mut g = IsrGroup::new(IsrConfig::default()).unwrap();
        let (key, value) = (Bytes::from_static(b"k"), Bytes::from_static(b"v"));
        let w = g.client_write(key.clone(), value.clone(), AckLevel::AllIsr);
        assert!(w.unwrap().accepted);
        // The lease lapses while no ISR member but the leader is reachable.
        let leader = g.leader();
        for node in g
            .node_ids()
            .into_iter()
            .filter(|n| Some(n) != leader.as_ref())
        {
            g.isolate(&node).unwrap();
        }
        for _ in 0..10 {
            g.tick();
        }
        match lease_reads_hold(&mut g, &key, &value) {
            Check::Violated(why) => assert!(why.contains("lease read was refused"), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_protocol_without_lease_reads_is_not_judged() {
        let mut g = proto_raft::RaftGroup::new(proto_raft::RaftConfig::default()).unwrap();
        g.failover(None).unwrap();
        let key = Bytes::from_static(b"k");
        assert_eq!(lease_reads_hold(&mut g, &key, &key), Check::Holds);
    }

    #[test]
    fn an_isolated_leader_s_lease_lapses_within_its_bound() {
        let key = Bytes::from_static(b"k");
        let converged = |min_insync: usize| {
            let config = IsrConfig::default().with_min_insync_replicas(min_insync);
            let mut g = IsrGroup::new(config).unwrap();
            let w = g.client_write(key.clone(), key.clone(), AckLevel::AllIsr);
            assert!(w.unwrap().accepted);
            g
        };
        let mut g = converged(2);
        assert_eq!(g.lease_lapse_bound(), Some(4));
        assert_eq!(lease_lapses(&mut g, &key), Check::Holds);
        // Its leader is cut off, and its lease read refused.
        let leader = g.leader().unwrap();
        assert!(g.lease_read(&leader, &key).is_err());
        // With min.insync.replicas 1 the leader alone renews its lease:
        // no promise, not judged.
        let mut g = converged(1);
        assert_eq!(g.lease_lapse_bound(), None);
        assert_eq!(lease_lapses(&mut g, &key), Check::Holds);
        // The same group promising that it lapses is caught serving.
        let mut g = crate::altered::Altered::new(converged(1)).promising_a_lease_lapse(4);
        match lease_lapses(&mut g, &key) {
            Check::Violated(why) => assert!(
                why.contains("cut off from every peer for its lease bound (4 ticks), still served a lease read"),
                "{why}"
            ),
            other => panic!("{other:?}"),
        }
    }
}
