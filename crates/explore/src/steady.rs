//! The third part of **recovers**: a converged group is back to its
//! steady state — it chatters no more than its heartbeats while idle, and
//! acknowledges a write within one replication round — when the protocol
//! states those bounds for its network
//! ([`ReplicationGroup::steady_state`]).
//!
//! A leader that heartbeats every tick, answers every acknowledgement with
//! another append, or holds a proposal until its next heartbeat is safe and
//! live, so no other property tells it from the protocol it should be. Its
//! steady state gives it away.

use replication::{AckLevel, Bytes, ClientOp, OutcomeStatus, ReplicationGroup};

use crate::property::Check;

/// Whether the converged, idle `group` keeps its stated steady state: at
/// most `idle_messages` messages over `idle_ticks` idle ticks, then a
/// write of `key` at the strongest ack level acknowledged within
/// `write_latency` ticks (given `settle` ticks at most to answer).
pub(crate) fn steady_state_holds(
    group: &mut dyn ReplicationGroup,
    key: &Bytes,
    settle: u64,
) -> Check {
    let (Some(steady), Some(before)) = (group.steady_state(), group.messages_sent()) else {
        return Check::Holds;
    };
    for _ in 0..steady.idle_ticks {
        group.tick();
    }
    let sent = group.messages_sent().unwrap_or(before) - before;
    if sent > steady.idle_messages {
        return Check::Violated(format!(
            "converged and idle on a reliable network, the group sent {sent} messages in {} ticks; its steady state sends at most {}",
            steady.idle_ticks, steady.idle_messages
        ));
    }
    let submitted = group.now();
    let id = [AckLevel::AllIsr, AckLevel::Quorum, AckLevel::Leader]
        .into_iter()
        .find_map(|level| {
            match group.submit(ClientOp::write(
                key.clone(),
                Bytes::from_static(b"steady"),
                level,
            )) {
                Err(replication::GroupError::UnsupportedAck { .. }) => None,
                other => Some((level, other)),
            }
        });
    let Some((level, Ok(id))) = id else {
        return Check::Violated(format!(
            "converged and idle, the group refused a write: {:?}",
            id.map(|(_, e)| e)
        ));
    };
    for _ in 0..settle {
        if let Some(done) = group.take_completion(id) {
            let took = done.completed.saturating_sub(submitted);
            return match done.outcome.status() {
                OutcomeStatus::Done if took <= steady.write_latency => Check::Holds,
                OutcomeStatus::Done => Check::Violated(format!(
                    "converged and idle on a reliable network, a {level} write took {took} ticks to be acknowledged; its steady state acknowledges within {}",
                    steady.write_latency
                )),
                status => Check::Violated(format!(
                    "converged and idle on a reliable network, a {level} write ended {}",
                    status.name()
                )),
            };
        }
        group.tick();
    }
    Check::Violated(format!(
        "converged and idle on a reliable network, a {level} write was not answered within {settle} ticks"
    ))
}

#[cfg(test)]
mod tests {
    use proto_raft::{RaftConfig, RaftGroup};
    use replication::{AckLevel, Bytes, ReplicationGroup, SteadyState};

    use super::*;
    use crate::altered::Altered;

    /// A converged three-node Raft group on its default (reliable) network.
    fn converged() -> RaftGroup {
        let mut g = RaftGroup::new(RaftConfig::new(["n1", "n2", "n3"]).with_seed(3)).unwrap();
        g.failover(None).unwrap();
        let w = g.client_write(
            Bytes::from_static(b"p"),
            Bytes::from_static(b"v"),
            AckLevel::Quorum,
        );
        assert!(w.unwrap().accepted);
        for _ in 0..20 {
            g.tick();
        }
        g
    }

    #[test]
    fn a_converged_raft_group_keeps_its_steady_state() {
        let mut g = converged();
        let steady = g.steady_state().expect("a reliable default network");
        assert_eq!(steady.write_latency, 2, "a round trip of 1 + 1");
        assert_eq!(
            steady_state_holds(&mut g, &Bytes::from_static(b"p"), 100),
            Check::Holds
        );
    }

    #[test]
    fn chatter_beyond_the_heartbeats_is_a_violation() {
        let mut g = Altered::new(converged()).with_chatter();
        match steady_state_holds(&mut g, &Bytes::from_static(b"p"), 100) {
            Check::Violated(why) => assert!(why.contains("messages in 16 ticks"), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_write_slower_than_the_stated_round_is_a_violation() {
        let promise = SteadyState {
            write_latency: 1,
            idle_ticks: 16,
            idle_messages: 40,
        };
        let mut g = Altered::new(converged()).promising(promise);
        match steady_state_holds(&mut g, &Bytes::from_static(b"p"), 100) {
            Check::Violated(why) => assert!(why.contains("took 2 ticks"), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_protocol_that_states_no_steady_state_is_not_judged() {
        let mut g = converged();
        g.set_network(replication::NetConfig::default().with_drop_rate(0.1))
            .expect_err("not before anything was sent");
        // Lossy networks are judged by nothing: a group built on one states
        // no steady state.
        let mut lossy = RaftGroup::new(RaftConfig::new(["n1", "n2", "n3"]).with_seed(3)).unwrap();
        lossy
            .set_network(replication::NetConfig::default().with_drop_rate(0.1))
            .unwrap();
        assert_eq!(lossy.steady_state(), None);
        assert_eq!(
            steady_state_holds(&mut lossy, &Bytes::from_static(b"p"), 10),
            Check::Holds
        );
    }
}
