//! The third part of **recovers**: a converged group is back to its
//! steady state — it chatters no more than its heartbeats while idle, and
//! acknowledges a write and serves a read within one round each — when the protocol
//! states those bounds for its network
//! ([`ReplicationGroup::steady_state`]).
//!
//! A leader that heartbeats every tick, answers every acknowledgement with
//! another append, or holds a proposal until its next heartbeat is safe and
//! live, so no other property tells it from the protocol it should be. Its
//! steady state gives it away.

use replication::{Bytes, OutcomeStatus, ReplicationGroup};

use crate::property::Check;

/// Whether the converged, idle `group` keeps its stated steady state: at
/// most `idle_messages` messages over `idle_ticks` idle ticks, then a
/// write of `key` at the strongest ack level acknowledged within
/// `write_latency` ticks, and a read of it at the strongest read level
/// served within `read_latency` (each given `settle` ticks at most).
pub(crate) fn steady_state_holds(
    group: &mut dyn ReplicationGroup,
    key: &Bytes,
    settle: u64,
) -> Check {
    match group.steady_state() {
        Some(steady) => holds_with(group, steady, key, settle),
        None => Check::Holds,
    }
}

/// [`steady_state_holds`] against the bounds `steady`.
fn holds_with(
    group: &mut dyn ReplicationGroup,
    steady: replication::SteadyState,
    key: &Bytes,
    settle: u64,
) -> Check {
    let Some(before) = group.messages_sent() else {
        return Check::Holds;
    };
    for _ in 0..steady.idle_ticks {
        group.tick();
    }
    let idle = group.messages_sent().unwrap_or(before) - before;
    if idle > steady.idle_messages {
        return Check::Violated(format!(
            "converged and idle on a reliable network, the group sent {idle} messages in {} ticks; its steady state sends at most {}",
            steady.idle_ticks, steady.idle_messages
        ));
    }
    let submitted = group.now();
    let before = group.messages_sent().unwrap_or(0);
    let write = crate::probe::write(group, key, b"steady");
    if let Err(why) = timed(
        group,
        "write",
        submitted,
        write,
        steady.write_latency,
        settle,
    ) {
        return Check::Violated(format!("converged and idle on a reliable network, {why}"));
    }
    if let Some(most) = steady.write_messages {
        // The write's window is as long as the idle one before it: what
        // it sent beyond that window's chatter is the write's own cost.
        while group.now() < submitted + steady.idle_ticks {
            group.tick();
        }
        let sent = group.messages_sent().unwrap_or(before) - before;
        let cost = sent.saturating_sub(idle);
        if group.now() == submitted + steady.idle_ticks && cost > most {
            return Check::Violated(format!(
                "converged and idle on a reliable network, a write cost {cost} messages beyond the idle chatter ({sent} in {} ticks against {idle}); its steady state costs at most {most}",
                steady.idle_ticks
            ));
        }
    }
    let submitted = group.now();
    let read = crate::probe::read(group, key);
    if let Err(why) = timed(group, "read", submitted, read, steady.read_latency, settle) {
        return Check::Violated(format!("converged and idle on a reliable network, {why}"));
    }
    match steady.rejoin_ticks {
        Some(ticks) => rejoin_keeps_the_leader(group, ticks),
        None => Check::Holds,
    }
}

/// Cuts a follower off for `ticks` ticks, heals it, lets `ticks` more
/// pass: the leader must be the one that led before.
fn rejoin_keeps_the_leader(group: &mut dyn ReplicationGroup, ticks: u64) -> Check {
    let Some(leader) = group.leader() else {
        return Check::Holds;
    };
    let Some(follower) = group.node_ids().into_iter().find(|n| *n != leader) else {
        return Check::Holds;
    };
    if group.isolate(&follower).is_err() {
        return Check::Holds;
    }
    for _ in 0..ticks {
        group.tick();
    }
    let _ = group.heal(&follower);
    for _ in 0..ticks {
        group.tick();
    }
    match group.leader() {
        Some(now) if now == leader => Check::Holds,
        now => Check::Violated(format!(
            "converged and idle on a reliable network, {follower} cut off for {ticks} ticks and healed deposed leader {leader} (leader {ticks} ticks later: {})",
            now.map_or("none".to_owned(), |n| n.to_string())
        )),
    }
}

/// Waits (at most `settle` ticks) for the `what` probe `submitted` at
/// tick `at`: `Err` says how it broke its `bound` — slower, not *done*,
/// refused, or not answered.
fn timed(
    group: &mut dyn ReplicationGroup,
    what: &str,
    at: u64,
    submitted: crate::probe::Submitted,
    bound: u64,
    settle: u64,
) -> Result<(), String> {
    let (level, id) = match submitted {
        None => return Ok(()),
        Some((level, Err(e))) => return Err(format!("a {what} at {level} was refused: {e}")),
        Some((level, Ok(id))) => (level, id),
    };
    let Some(done) = crate::probe::answer(group, id, settle) else {
        return Err(format!(
            "a {what} at {level} was not answered within {settle} ticks"
        ));
    };
    let took = done.completed.saturating_sub(at);
    match done.outcome.status() {
        OutcomeStatus::Done if took <= bound => Ok(()),
        OutcomeStatus::Done => Err(format!(
            "a {what} at {level} took {took} ticks; its steady state answers within {bound}"
        )),
        status => Err(format!("a {what} at {level} ended {}", status.name())),
    }
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

    /// A steady state promising `write` and `read` ticks, kept by Raft
    /// (one round trip: 2 ticks each on the default network) or not.
    fn judged(write: u64, read: u64) -> Check {
        let promise = SteadyState {
            write_latency: write,
            read_latency: read,
            idle_ticks: 16,
            idle_messages: 40,
            rejoin_ticks: None,
            write_messages: None,
        };
        let mut g = Altered::new(converged()).promising(promise);
        steady_state_holds(&mut g, &Bytes::from_static(b"p"), 100)
    }

    #[test]
    fn a_write_or_read_slower_than_the_stated_round_is_a_violation() {
        assert_eq!(judged(2, 2), Check::Holds);
        for (write, read, slow) in [(1, 2, "write at QUORUM"), (2, 1, "read at LINEARIZABLE")] {
            match judged(write, read) {
                Check::Violated(why) => {
                    assert!(why.contains(&format!("{slow} took 2 ticks")), "{why}")
                }
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn a_write_costing_more_messages_than_stated_is_a_violation() {
        let g = converged();
        let real = g.steady_state().expect("a reliable default network");
        assert_eq!(
            real.write_messages,
            Some(4),
            "an append and its answer per follower"
        );
        let cost = |most: u64| {
            let promise = SteadyState {
                write_messages: Some(most),
                ..real
            };
            let mut g = Altered::new(converged()).promising(promise);
            steady_state_holds(&mut g, &Bytes::from_static(b"p"), 100)
        };
        assert_eq!(cost(4), Check::Holds);
        match cost(3) {
            Check::Violated(why) => {
                assert!(
                    why.contains("a write cost 4 messages beyond the idle chatter"),
                    "{why}"
                )
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn isr_keeps_its_steady_state_and_its_bounds_are_tight() {
        use proto_isr::{IsrConfig, IsrGroup};
        let isr = || {
            let mut g = IsrGroup::new(IsrConfig::default()).unwrap();
            let w = g.client_write(
                Bytes::from_static(b"p"),
                Bytes::from_static(b"v"),
                AckLevel::AllIsr,
            );
            assert!(w.unwrap().accepted);
            g.run_until_idle(50).unwrap();
            g
        };
        let real = isr().steady_state().expect("a reliable default network");
        assert_eq!(
            (real.write_latency, real.idle_messages, real.write_messages),
            (1, 0, Some(2)),
            "one delay, silence, an append per follower"
        );
        let key = Bytes::from_static(b"p");
        assert_eq!(steady_state_holds(&mut isr(), &key, 100), Check::Holds);
        // One tick or one message less is broken by the real protocol.
        for tighter in [
            SteadyState {
                write_latency: 0,
                ..real
            },
            SteadyState {
                write_messages: Some(1),
                ..real
            },
        ] {
            let check = holds_with(&mut isr(), tighter, &key, 100);
            assert!(
                matches!(check, Check::Violated(_)),
                "{tighter:?}: {check:?}"
            );
        }
    }

    #[test]
    fn a_rejoining_follower_keeps_the_leader_only_with_pre_vote() {
        let rejoin = |pre_vote: bool| {
            let config = RaftConfig::new(["n1", "n2", "n3"])
                .with_seed(3)
                .with_pre_vote(pre_vote);
            let mut g = RaftGroup::new(config).unwrap();
            g.failover(None).unwrap();
            rejoin_keeps_the_leader(&mut g, 42)
        };
        assert_eq!(rejoin(true), Check::Holds);
        match rejoin(false) {
            Check::Violated(why) => assert!(why.contains("deposed leader"), "{why}"),
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
