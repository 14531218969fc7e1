//! A schedule: client operations, waits and nemesis events, generated from
//! a seed and its [`Profile`].
//!
//! Steps name nodes by position in the group's node list, the current
//! leader, or by what the runner knows of the faults it made (a crashed
//! node, an isolated one, a slow one, a cut link), so one schedule runs on
//! every protocol and a restart or heal is aimed at a node that needs it.
//! Every write value is unique within a schedule (`v<step>`), so a value
//! read identifies the one write that wrote it.

use std::fmt;

use replication::Rng;

use crate::profile::{FaultKind, Profile};

/// Salt of the steps' generator.
const STEP_SALT: u64 = 0x6578_706c_6f72_6521;
/// Ticks an aimed strike awaits the next leader (a few election timeouts).
const STRIKE_AWAIT: u8 = 40;
/// The most ticks an aimed strike lets pass after the election.
const STRIKE_LATE: u64 = 8;

/// A node as a step names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeRef {
    /// Whoever leads when the step runs.
    Leader,
    /// The node at this position of the group's node list (modulo its
    /// length).
    At(u8),
    /// A node the run crashed and has not restarted (skipped when none).
    Crashed,
    /// A node the run isolated and has not healed (skipped when none).
    Isolated,
    /// A node the run marked slow (skipped when none).
    Slowed,
    /// The node isolated longest ago, only while so many nodes are
    /// isolated that the others are not a majority (skipped otherwise): a
    /// rolling partition heals one node for each it cuts off.
    OverMinority,
}

/// One step of a schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Client `client` writes `k<key>` = `v<value>` at the configuration's
    /// ack level (skipped when the client still has an operation in flight).
    Write {
        /// The client.
        client: u8,
        /// The key number.
        key: u8,
        /// The value number (unique in the schedule).
        value: u32,
    },
    /// Client `client` reads `k<key>` at the configuration's read level.
    Read {
        /// The client.
        client: u8,
        /// The key number.
        key: u8,
    },
    /// Client `client` writes `k0` = `v<value>` at `level`, another than
    /// the configuration's (the debugger's move): the properties do not
    /// judge it, as the row claims nothing of other levels.
    WriteAt {
        /// The client.
        client: u8,
        /// The value number.
        value: u32,
        /// The level it asks.
        level: replication::AckLevel,
    },
    /// Client `client` reads `k0` at `level`, another than the
    /// configuration's (the debugger's move; not judged either).
    ReadAt {
        /// The client.
        client: u8,
        /// The level it asks.
        level: replication::ReadLevel,
    },
    /// Client `client` reads `k0` at the configuration's read level, sent
    /// to a named node — a client that still believes that node leads, as
    /// the sweep's stale clients do (the model checker's move with
    /// `pinned_reads`; not judged for availability: the node may be down
    /// or deposed on purpose).
    ReadVia {
        /// The client.
        client: u8,
        /// The node it asks.
        node: NodeRef,
    },
    /// Let `ticks` ticks pass (think time).
    Wait(u8),
    /// Let ticks pass until a leader other than the one leading when the
    /// step began leads (any leader, when none did), at most `ticks` of
    /// them — so that the next step strikes a leader just elected, before
    /// its first messages of the term arrived anywhere.
    AwaitLeader(u8),
    /// Let ticks pass until the leader applies a new entry (its applied
    /// offset grows), at most `ticks` of them, or until another node
    /// leads — so that the next step strikes a leader just after a
    /// commit, before the commit reached its followers.
    AwaitApplied(u8),
    /// Cut a node from every peer, both ways.
    Isolate(NodeRef),
    /// Restore every link of a node.
    Heal(NodeRef),
    /// Cut the one-way link `from → to`.
    Cut(NodeRef, NodeRef),
    /// Restore one link the run cut (skipped when none).
    Restore,
    /// Restore the one-way link `from → to` (the debugger's move; skipped
    /// when it is not cut).
    Uncut(NodeRef, NodeRef),
    /// Crash a node; `power_loss` also loses what it had not fsynced.
    Crash(NodeRef, bool),
    /// Restart a crashed node.
    Restart(NodeRef),
    /// Make a node's state durable.
    Fsync(NodeRef),
    /// Mark a replica slow (`true`) or clear it.
    Slow(NodeRef, bool),
    /// The protocol's failover, to a named node or the protocol's choice.
    Failover(Option<NodeRef>),
    /// A steered run ([`Profile::steered`](crate::Profile::steered)):
    /// deliver the `n`-th deliverable held message (send order) at the
    /// next tick, and let that tick pass.
    Deliver(u16),
    /// A steered run: drop the `n`-th held message (send order; on a
    /// stream only one that is first on its link).
    Drop(u16),
    /// A steered run on datagrams: hold a second copy of the `n`-th held
    /// message.
    Duplicate(u16),
    /// A steered run: make the node's first armed timer due at once
    /// ([`Steer::expire`](replication::Steer::expire): an election
    /// timeout, a heartbeat), and let the next tick pass.
    Fire(NodeRef),
}

impl Step {
    /// True for a step that only runs ticks (each collected and checked
    /// by the run as it goes).
    pub fn only_ticks(&self) -> bool {
        matches!(
            self,
            Step::Wait(_) | Step::AwaitLeader(_) | Step::AwaitApplied(_)
        )
    }

    /// True for a nemesis step (a fault or a repair).
    pub fn is_nemesis(&self) -> bool {
        !matches!(
            self,
            Step::Write { .. }
                | Step::Read { .. }
                | Step::WriteAt { .. }
                | Step::ReadAt { .. }
                | Step::ReadVia { .. }
                | Step::Wait(_)
                | Step::AwaitLeader(_)
                | Step::AwaitApplied(_)
                | Step::Deliver(_)
                | Step::Fire(_)
        )
    }
}

impl fmt::Display for NodeRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NodeRef::Leader => f.write_str("leader"),
            NodeRef::At(i) => write!(f, "node#{i}"),
            NodeRef::Crashed => f.write_str("a crashed node"),
            NodeRef::Isolated => f.write_str("an isolated node"),
            NodeRef::Slowed => f.write_str("a slow node"),
            NodeRef::OverMinority => {
                f.write_str("the longest-isolated node if a majority is cut off")
            }
        }
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::Write { client, key, value } => write!(f, "c{client} write k{key}=v{value}"),
            Step::Read { client, key } => write!(f, "c{client} read k{key}"),
            Step::WriteAt {
                client,
                value,
                level,
            } => write!(f, "c{client} write k0=v{value} at {level}"),
            Step::ReadAt { client, level } => write!(f, "c{client} read k0 at {level}"),
            Step::ReadVia { client, node } => write!(f, "c{client} read k0 at {node}"),
            Step::Wait(n) => write!(f, "wait {n}"),
            Step::AwaitLeader(n) => write!(f, "await a new leader (at most {n} ticks)"),
            Step::AwaitApplied(n) => {
                write!(f, "await the leader's next commit (at most {n} ticks)")
            }
            Step::Isolate(n) => write!(f, "isolate {n}"),
            Step::Heal(n) => write!(f, "heal {n}"),
            Step::Cut(a, b) => write!(f, "cut {a} -> {b}"),
            Step::Restore => f.write_str("restore a cut link"),
            Step::Uncut(a, b) => write!(f, "restore {a} -> {b}"),
            Step::Crash(n, false) => write!(f, "crash {n}"),
            Step::Crash(n, true) => write!(f, "crash {n} (power loss)"),
            Step::Restart(n) => write!(f, "restart {n}"),
            Step::Fsync(n) => write!(f, "fsync {n}"),
            Step::Slow(n, true) => write!(f, "slow {n}"),
            Step::Slow(n, false) => write!(f, "unslow {n}"),
            Step::Failover(None) => f.write_str("failover"),
            Step::Failover(Some(n)) => write!(f, "failover to {n}"),
            Step::Deliver(n) => write!(f, "deliver held message {n}"),
            Step::Drop(n) => write!(f, "drop held message {n}"),
            Step::Duplicate(n) => write!(f, "duplicate held message {n}"),
            Step::Fire(n) => write!(f, "fire {n}'s timer"),
        }
    }
}

/// A generated schedule.
#[derive(Debug, Clone, PartialEq)]
pub struct Schedule {
    /// The seed it was generated from.
    pub seed: u64,
    /// The profile drawn from the seed.
    pub profile: Profile,
    /// Its steps, in order.
    pub steps: Vec<Step>,
}

/// One schedule in this many (by seed) runs with the group's trace on,
/// and its trace is checked against the group's state at the end
/// ([`Schedule::checks_its_trace`]).
pub const TRACE_SAMPLE: u64 = 32;

/// One schedule in this many (by seed) that recovered ends with the lease
/// probe ([`Schedule::probes_its_lease`]).
pub const LEASE_SAMPLE: u64 = 4;

impl Schedule {
    /// True when this schedule's run, if it recovered, ends by checking
    /// that the group's lease lapses as it promises
    /// ([`ReplicationGroup::lease_lapse_bound`](replication::ReplicationGroup::lease_lapse_bound),
    /// part of *invariants*): every 4th seed, from 0, so a replay and a
    /// shrink probe it as the sweep did.
    #[must_use]
    pub fn probes_its_lease(&self) -> bool {
        self.seed.is_multiple_of(LEASE_SAMPLE)
    }

    /// True when this schedule's run records the group's trace and checks
    /// it against the group's state at the end
    /// ([`ReplicationGroup::check_trace`](replication::ReplicationGroup::check_trace),
    /// part of *invariants*): every 32nd seed, from 0, so
    /// a replay and a shrink of the schedule check it as the sweep did.
    #[must_use]
    pub fn checks_its_trace(&self) -> bool {
        self.seed.is_multiple_of(TRACE_SAMPLE)
    }

    /// The schedule of `seed` under `profile`: the same seed and profile
    /// always give the same steps. A `density` percent of the steps are
    /// nemesis steps of the profile's kinds; of the rest, three in four
    /// are client operations (55% writes) and one a wait of 1–4 ticks.
    pub fn generate(seed: u64, profile: Profile) -> Schedule {
        let mut rng = Rng::new(seed ^ STEP_SALT);
        let clients = u64::from(profile.clients.max(1));
        let keys = u64::from(profile.keys.max(1));
        let nodes = u64::from(profile.nodes.max(1));
        let node = |rng: &mut Rng| -> NodeRef {
            if rng.chance(0.4) {
                NodeRef::Leader
            } else {
                NodeRef::At(pick(rng, nodes))
            }
        };
        let kinds = profile.faults.clone();
        let aimed = profile.has(FaultKind::Strike);
        let mut steps = Vec::with_capacity(usize::from(profile.steps));
        for index in 0..usize::from(profile.steps) {
            let step =
                if !kinds.is_empty() && rng.range_inclusive(1, 100) <= u64::from(profile.density) {
                    // An aimed profile strikes in half its nemesis steps
                    // (a rolling partition needs several in a row).
                    let kind = if aimed && rng.chance(0.5) {
                        FaultKind::Strike
                    } else {
                        kinds[usize::from(pick(&mut rng, kinds.len() as u64))]
                    };
                    match kind {
                        FaultKind::Isolate => Step::Isolate(node(&mut rng)),
                        FaultKind::Heal => Step::Heal(if rng.chance(0.8) {
                            NodeRef::Isolated
                        } else {
                            node(&mut rng)
                        }),
                        FaultKind::Cut => Step::Cut(node(&mut rng), node(&mut rng)),
                        FaultKind::Restore => Step::Restore,
                        FaultKind::Crash => Step::Crash(node(&mut rng), false),
                        FaultKind::PowerLoss => Step::Crash(node(&mut rng), true),
                        FaultKind::Restart => Step::Restart(NodeRef::Crashed),
                        FaultKind::Fsync => Step::Fsync(node(&mut rng)),
                        FaultKind::Slow => {
                            if rng.chance(0.5) {
                                Step::Slow(node(&mut rng), true)
                            } else {
                                Step::Slow(NodeRef::Slowed, false)
                            }
                        }
                        FaultKind::Failover => Step::Failover(None),
                        FaultKind::FailoverTo => Step::Failover(Some(node(&mut rng))),
                        FaultKind::Strike => {
                            // Await the next leader; strike it at once
                            // (its first messages of the term are still
                            // on their way), a few ticks later, or just
                            // after its next commit; isolate it (what is
                            // in flight to or from it is lost) or crash
                            // it; then heal the longest-isolated node if
                            // a majority is cut off (a rolling partition).
                            steps.push(Step::AwaitLeader(STRIKE_AWAIT));
                            match pick(&mut rng, 3) {
                                0 => {}
                                1 => steps.push(Step::Wait(pick(&mut rng, STRIKE_LATE) + 1)),
                                _ => steps.push(Step::AwaitApplied(STRIKE_AWAIT)),
                            }
                            steps.push(if rng.chance(0.75) {
                                Step::Isolate(NodeRef::Leader)
                            } else {
                                Step::Crash(NodeRef::Leader, false)
                            });
                            Step::Heal(NodeRef::OverMinority)
                        }
                    }
                } else if rng.chance(0.75) {
                    let client = pick(&mut rng, clients);
                    let key = pick(&mut rng, keys);
                    if rng.chance(0.55) {
                        Step::Write {
                            client,
                            key,
                            value: u32::try_from(index).unwrap_or(u32::MAX),
                        }
                    } else {
                        Step::Read { client, key }
                    }
                } else {
                    Step::Wait(pick(&mut rng, 4) + 1)
                };
            steps.push(step);
        }
        Schedule {
            seed,
            profile,
            steps,
        }
    }

    /// The schedule with only the steps at `kept` (indices into `steps`).
    pub fn subset(&self, kept: &[usize]) -> Schedule {
        Schedule {
            seed: self.seed,
            profile: self.profile.clone(),
            steps: kept
                .iter()
                .filter_map(|&i| self.steps.get(i).copied())
                .collect(),
        }
    }
}

fn pick(rng: &mut Rng, below: u64) -> u8 {
    u8::try_from(rng.range_inclusive(0, below.saturating_sub(1))).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Configuration;
    use replication::{AckLevel, GroupError, ReadLevel};

    fn config() -> Configuration {
        Configuration::new("t", AckLevel::Leader, ReadLevel::Local, "default", |_| {
            Err(GroupError::NoLeader("no group".into()))
        })
    }

    #[test]
    fn the_same_seed_gives_the_same_schedule_and_values_are_unique() {
        let c = config();
        let make = |seed| Schedule::generate(seed, Profile::draw(seed, &c, 3));
        let a = make(7);
        assert_eq!(a, make(7));
        assert_ne!(a, make(8));
        let mut values: Vec<u32> = a
            .steps
            .iter()
            .filter_map(|s| match s {
                Step::Write { value, .. } => Some(*value),
                _ => None,
            })
            .collect();
        let n = values.len();
        values.dedup();
        assert_eq!(values.len(), n);
        assert!(n > 3, "a schedule writes: {n}");
    }

    #[test]
    fn profiles_vary_the_mix_length_clients_and_network() {
        let c = config();
        let profiles: Vec<Profile> = (0..200).map(|s| Profile::draw(s, &c, 3)).collect();
        let distinct = |f: &dyn Fn(&Profile) -> String| {
            let mut v: Vec<String> = profiles.iter().map(f).collect();
            v.sort();
            v.dedup();
            v.len()
        };
        assert!(distinct(&|p| format!("{:?}", p.faults)) > 50);
        assert!(distinct(&|p| p.steps.to_string()) > 50);
        assert_eq!(distinct(&|p| p.clients.to_string()), 4, "2 to 5 clients");
        assert_eq!(distinct(&|p| p.keys.to_string()), 3, "1 to 3 keys");
        assert!(profiles.iter().any(|p| p.net.drop_rate > 0.0));
        assert!(profiles.iter().any(|p| p.net.reorder_rate > 0.0));
        assert!(profiles.iter().any(|p| p.stale > 0));
        assert!(profiles.iter().all(|p| (2..=40).contains(&p.density)));
        // Densities reach both ends of the range.
        assert!(profiles.iter().any(|p| p.density <= 5));
        assert!(profiles.iter().any(|p| p.density >= 35));
    }

    #[test]
    fn only_aimed_protocols_strike_and_each_strike_awaits_a_leader_first() {
        let other = config();
        assert!(
            (0..300).all(|s| !Profile::draw(s, &other, 3).has(FaultKind::Strike)),
            "a protocol not in AIMED_PROTOCOLS keeps its schedules"
        );
        let raft = Configuration::new(
            "raft",
            AckLevel::Quorum,
            ReadLevel::Local,
            "default",
            |_| Err(GroupError::NoLeader("no group".into())),
        );
        let aimed = (0..300)
            .filter(|&s| Profile::draw(s, &raft, 3).has(FaultKind::Strike))
            .count();
        assert!((100..=200).contains(&aimed), "about half strike: {aimed}");
        let mut strikes = 0;
        for seed in 0..100 {
            let steps = Schedule::generate(seed, Profile::draw(seed, &raft, 3)).steps;
            for (i, step) in steps.iter().enumerate() {
                if *step != Step::AwaitLeader(STRIKE_AWAIT) {
                    continue;
                }
                strikes += 1;
                // Await, maybe a wait or an await of the next commit, the
                // blow at the leader, the rolling heal.
                let blow = match steps[i + 1] {
                    Step::Wait(n) if (1..=8).contains(&n) => i + 2,
                    Step::AwaitApplied(_) => i + 2,
                    _ => i + 1,
                };
                assert!(matches!(
                    steps[blow],
                    Step::Isolate(NodeRef::Leader) | Step::Crash(NodeRef::Leader, false)
                ));
                assert_eq!(steps[blow + 1], Step::Heal(NodeRef::OverMinority));
            }
        }
        assert!(strikes > 100, "{strikes} strikes");
    }

    #[test]
    fn restarts_and_heals_are_aimed_at_nodes_that_need_them() {
        let c = config();
        let steps: Vec<Step> = (0..100)
            .flat_map(|s| Schedule::generate(s, Profile::draw(s, &c, 3)).steps)
            .collect();
        assert!(steps.contains(&Step::Restart(NodeRef::Crashed)));
        assert!(
            !steps
                .iter()
                .any(|s| matches!(s, Step::Restart(NodeRef::At(_) | NodeRef::Leader)))
        );
        let heals = steps.iter().filter(|s| matches!(s, Step::Heal(_))).count();
        let aimed = steps
            .iter()
            .filter(|s| **s == Step::Heal(NodeRef::Isolated))
            .count();
        assert!(aimed * 10 >= heals * 7, "{aimed} of {heals} heals aimed");
    }
}
