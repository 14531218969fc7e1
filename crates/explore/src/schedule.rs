//! A schedule: client operations, waits and nemesis events, generated from
//! a seed.
//!
//! Steps name nodes by position in the group's node list (or the current
//! leader), so one schedule runs on every protocol. Every write value is
//! unique within a schedule (`v<step>`), so a value read identifies the one
//! write that wrote it.

use std::fmt;

use replication::Rng;

/// A node as a step names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeRef {
    /// Whoever leads when the step runs.
    Leader,
    /// The node at this position of the group's node list (modulo its
    /// length).
    At(u8),
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
    /// Let `ticks` ticks pass (think time).
    Wait(u8),
    /// Cut a node from every peer, both ways.
    Isolate(NodeRef),
    /// Restore every link of a node.
    Heal(NodeRef),
    /// Cut the one-way link `from → to`.
    Cut(NodeRef, NodeRef),
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
}

impl fmt::Display for NodeRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NodeRef::Leader => f.write_str("leader"),
            NodeRef::At(i) => write!(f, "node#{i}"),
        }
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::Write { client, key, value } => write!(f, "c{client} write k{key}=v{value}"),
            Step::Read { client, key } => write!(f, "c{client} read k{key}"),
            Step::Wait(n) => write!(f, "wait {n}"),
            Step::Isolate(n) => write!(f, "isolate {n}"),
            Step::Heal(n) => write!(f, "heal {n}"),
            Step::Cut(a, b) => write!(f, "cut {a} -> {b}"),
            Step::Crash(n, false) => write!(f, "crash {n}"),
            Step::Crash(n, true) => write!(f, "crash {n} (power loss)"),
            Step::Restart(n) => write!(f, "restart {n}"),
            Step::Fsync(n) => write!(f, "fsync {n}"),
            Step::Slow(n, true) => write!(f, "slow {n}"),
            Step::Slow(n, false) => write!(f, "unslow {n}"),
            Step::Failover(None) => f.write_str("failover"),
            Step::Failover(Some(n)) => write!(f, "failover to {n}"),
        }
    }
}

/// How schedules are generated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScheduleShape {
    /// Concurrent clients (each has at most one operation in flight).
    pub clients: u8,
    /// Keys `k0 … k<keys-1>`.
    pub keys: u8,
    /// Steps per schedule before the final heal-and-read phase.
    pub steps: usize,
    /// Nodes in the group (node references are drawn below this).
    pub nodes: u8,
}

impl ScheduleShape {
    /// Steps of a default schedule.
    pub const DEFAULT_STEPS: usize = 90;
}

impl Default for ScheduleShape {
    /// 3 clients, 2 keys, 90 steps (about 60 client operations), 3 nodes.
    fn default() -> Self {
        ScheduleShape {
            clients: 3,
            keys: 2,
            steps: ScheduleShape::DEFAULT_STEPS,
            nodes: 3,
        }
    }
}

/// A generated schedule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    /// The seed it was generated from.
    pub seed: u64,
    /// Its steps, in order.
    pub steps: Vec<Step>,
}

impl Schedule {
    /// The schedule of `seed`: the same seed and shape always give the same
    /// steps. About two thirds client operations, a fifth waits, the rest
    /// nemesis events.
    pub fn generate(seed: u64, shape: &ScheduleShape) -> Schedule {
        let mut rng = Rng::new(seed ^ 0x6578_706c_6f72_6521);
        let clients = u64::from(shape.clients.max(1));
        let keys = u64::from(shape.keys.max(1));
        let nodes = u64::from(shape.nodes.max(1));
        let node = |rng: &mut Rng| -> NodeRef {
            if rng.chance(0.4) {
                NodeRef::Leader
            } else {
                NodeRef::At(pick(rng, nodes))
            }
        };
        let mut steps = Vec::with_capacity(shape.steps);
        for index in 0..shape.steps {
            let roll = rng.range_inclusive(0, 99);
            let step = if roll < 65 {
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
            } else if roll < 85 {
                Step::Wait(pick(&mut rng, 4) + 1)
            } else {
                match rng.range_inclusive(0, 10) {
                    0 | 1 => Step::Isolate(node(&mut rng)),
                    2 | 3 => Step::Heal(node(&mut rng)),
                    4 => Step::Cut(node(&mut rng), node(&mut rng)),
                    5 => Step::Crash(node(&mut rng), rng.chance(0.5)),
                    6 => Step::Restart(node(&mut rng)),
                    7 => Step::Fsync(node(&mut rng)),
                    8 => Step::Slow(node(&mut rng), rng.chance(0.6)),
                    9 => Step::Failover(None),
                    _ => Step::Failover(Some(node(&mut rng))),
                }
            };
            steps.push(step);
        }
        Schedule { seed, steps }
    }

    /// The schedule with only the steps at `kept` (indices into `steps`).
    pub fn subset(&self, kept: &[usize]) -> Schedule {
        Schedule {
            seed: self.seed,
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

    #[test]
    fn the_same_seed_gives_the_same_schedule_and_values_are_unique() {
        let shape = ScheduleShape::default();
        let a = Schedule::generate(7, &shape);
        assert_eq!(a, Schedule::generate(7, &shape));
        assert_ne!(a, Schedule::generate(8, &shape));
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
        assert!(n > 10, "a default schedule writes: {n}");
    }
}
