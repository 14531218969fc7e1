//! Swarm profiles (Groce et al., "Swarm testing", ISSTA 2012): each
//! schedule first draws, from its seed, which fault kinds are on, how dense
//! they are, the network settings of the protocol's transport, the size of
//! the group, the clients and keys, the schedule's length and the knob
//! values — so the sweep covers many different mixes instead of one
//! uniform one, and a fault that needs others switched off (a long quiet
//! stretch, a single kind repeated) gets its schedules.

use std::fmt;

use replication::Rng;
use replication::{NetConfig, Transport};

use crate::config::{Build, Configuration};

/// Salt of the profile's generator (so profile and steps draw apart).
const PROFILE_SALT: u64 = 0x7377_6172_6d21_7072;

/// Protocols whose profiles may also draw the aimed [`FaultKind::Strike`]
/// (half of them do), drawn after everything else so that the rest of
/// every profile stays as it was. Raft elects its own leaders, so
/// "strike the leader just elected" is its typical race (the Figure 8
/// log gap needs two of them). The other protocols' schedules are left
/// byte-identical — their counterexamples pinned in tests replay
/// unchanged — until they are added here and those pins re-derived.
pub const AIMED_PROTOCOLS: &[&str] = &["raft"];

/// A kind of nemesis step a profile may switch on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FaultKind {
    /// Cut a node from every peer.
    Isolate,
    /// Restore an isolated node's links.
    Heal,
    /// Cut one directed link.
    Cut,
    /// Restore a cut link.
    Restore,
    /// A process crash.
    Crash,
    /// A power loss (unfsynced state lost).
    PowerLoss,
    /// Restart a crashed node.
    Restart,
    /// Make a node's state durable.
    Fsync,
    /// Mark a replica slow, or clear it.
    Slow,
    /// The protocol's failover, its choice.
    Failover,
    /// A failover to a named node.
    FailoverTo,
    /// An aimed fault: await the next leader, then (at once or a few ticks
    /// later) isolate or crash it — a leader deposed before, or just
    /// after, its first messages of the term reached anyone. Not in
    /// [`FaultKind::ALL`]: drawn only for [`AIMED_PROTOCOLS`].
    Strike,
}

impl FaultKind {
    /// Every kind, in a fixed order.
    pub const ALL: [FaultKind; 11] = [
        FaultKind::Isolate,
        FaultKind::Heal,
        FaultKind::Cut,
        FaultKind::Restore,
        FaultKind::Crash,
        FaultKind::PowerLoss,
        FaultKind::Restart,
        FaultKind::Fsync,
        FaultKind::Slow,
        FaultKind::Failover,
        FaultKind::FailoverTo,
    ];

    /// Its name in a profile's description.
    pub fn name(self) -> &'static str {
        match self {
            FaultKind::Isolate => "isolate",
            FaultKind::Heal => "heal",
            FaultKind::Cut => "cut",
            FaultKind::Restore => "restore",
            FaultKind::Crash => "crash",
            FaultKind::PowerLoss => "power-loss",
            FaultKind::Restart => "restart",
            FaultKind::Fsync => "fsync",
            FaultKind::Slow => "slow",
            FaultKind::Failover => "failover",
            FaultKind::FailoverTo => "failover-to",
            FaultKind::Strike => "strike-new-leader",
        }
    }
}

/// What one schedule is made of.
#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    /// Nodes in the group.
    pub nodes: u8,
    /// `Some(n)` when the node count was drawn (the group is built with it).
    pub drawn_nodes: Option<u8>,
    /// Concurrent clients (each has at most one operation in flight).
    pub clients: u8,
    /// The last `stale` clients send every operation to a fixed node, as a
    /// client with old metadata does (their node: client number modulo the
    /// node count).
    pub stale: u8,
    /// Keys `k0 …`.
    pub keys: u8,
    /// Steps before the final heal-and-read phase.
    pub steps: u16,
    /// Percent of steps that are nemesis steps.
    pub density: u8,
    /// The fault kinds switched on.
    pub faults: Vec<FaultKind>,
    /// The network of the protocol's transport.
    pub net: NetConfig,
    /// Knob values, `(setting, value)`.
    pub knobs: Vec<(&'static str, String)>,
    /// The network holds every message until a step delivers, drops or
    /// duplicates it ([`Step::Deliver`](crate::Step::Deliver)): the model
    /// checker's runs. Never drawn.
    pub steered: bool,
    /// With `steered`: ticks the network delivers by itself before it is
    /// held (a group that starts without a leader elects one first).
    pub warm_up: u8,
}

impl Profile {
    /// The profile of `seed` for `config`, whose group has `default_nodes`
    /// nodes when no count is drawn.
    pub fn draw(seed: u64, config: &Configuration, default_nodes: u8) -> Profile {
        let mut rng = Rng::new(seed ^ PROFILE_SALT);
        let drawn_nodes = match config.node_counts.as_slice() {
            [] | [_] => None,
            counts => Some(counts[pick(&mut rng, counts.len() as u64) as usize]),
        };
        let nodes = drawn_nodes.unwrap_or(default_nodes).max(1);
        let clients = 2 + pick(&mut rng, 4);
        let stale = if rng.chance(0.5) {
            1 + pick(&mut rng, u64::from(clients / 2))
        } else {
            0
        };
        let keys = 1 + pick(&mut rng, 3);
        let steps = u16::try_from(rng.range_inclusive(30, 300)).unwrap_or(300);
        let density = u8::try_from(rng.range_inclusive(2, 40)).unwrap_or(15);
        let mut faults: Vec<FaultKind> = FaultKind::ALL
            .into_iter()
            .filter(|_| rng.chance(0.5))
            .collect();
        if faults.is_empty() {
            faults.push(FaultKind::ALL[pick(&mut rng, FaultKind::ALL.len() as u64) as usize]);
        }
        let net = network(&mut rng, config.transport);
        let mut knobs = Vec::new();
        for k in &config.knobs {
            if !k.values.is_empty() && rng.chance(0.5) {
                let v = k.values[usize::from(pick(&mut rng, k.values.len() as u64))].clone();
                knobs.push((k.name, v));
            }
        }
        if AIMED_PROTOCOLS.contains(&config.protocol) && rng.chance(0.5) {
            faults.push(FaultKind::Strike);
        }
        Profile {
            nodes,
            drawn_nodes,
            clients,
            stale,
            keys,
            steps,
            density,
            faults,
            net,
            knobs,
            steered: false,
            warm_up: 0,
        }
    }

    /// What the group of this profile is built with.
    pub fn build(&self, seed: u64) -> Build {
        Build {
            seed,
            nodes: self.drawn_nodes,
            knobs: self.knobs.clone(),
        }
    }

    /// True when `client` is one of the stale clients.
    pub fn is_stale(&self, client: u8) -> bool {
        client < self.clients && client >= self.clients - self.stale
    }

    /// True when `kind` is switched on.
    pub fn has(&self, kind: FaultKind) -> bool {
        self.faults.contains(&kind)
    }
}

/// Messages in flight a schedule's network holds: a few clients on a few
/// nodes keep tens in flight, so reaching this is a message storm (the
/// group's invariant check reports it, and the run stops there).
pub const STORM: usize = 2_000;

/// The network settings of a schedule on `transport`: delays from 1 to 6
/// ticks, and for datagrams drops, duplicates and reordering; for streams
/// stalls that keep order.
fn network(rng: &mut Rng, transport: Transport) -> NetConfig {
    let min = 1 + rng.range_inclusive(0, 1);
    let max = if rng.chance(0.5) {
        min
    } else {
        min + rng.range_inclusive(1, 4)
    };
    let net = NetConfig::default()
        .with_transport(transport)
        .with_delay_range(min, max)
        .with_capacity(STORM);
    match transport {
        Transport::Datagram => {
            let drop = if rng.chance(0.4) {
                rng.range_inclusive(1, 10) as f64 / 100.0
            } else {
                0.0
            };
            let duplicate = if rng.chance(0.3) {
                rng.range_inclusive(1, 10) as f64 / 100.0
            } else {
                0.0
            };
            let (reorder, jitter) = if rng.chance(0.4) {
                (
                    rng.range_inclusive(5, 30) as f64 / 100.0,
                    rng.range_inclusive(1, 4),
                )
            } else {
                (0.0, 2)
            };
            net.with_drop_rate(drop)
                .with_duplicate_rate(duplicate)
                .with_reorder(reorder, jitter)
        }
        Transport::Stream => {
            if rng.chance(0.4) {
                net.with_stalls(
                    rng.range_inclusive(2, 10) as f64 / 100.0,
                    rng.range_inclusive(2, 6),
                )
            } else {
                net
            }
        }
    }
}

fn pick(rng: &mut Rng, below: u64) -> u8 {
    u8::try_from(rng.range_inclusive(0, below.saturating_sub(1))).unwrap_or(0)
}

fn percent(rate: f64) -> String {
    format!("{}%", (rate * 100.0).round())
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} nodes, {} clients", self.nodes, self.clients)?;
        if self.stale > 0 {
            let stale: Vec<String> = (self.clients - self.stale..self.clients)
                .map(|c| format!("c{c} → node#{}", c % self.nodes.max(1)))
                .collect();
            write!(f, " ({} stale: {})", self.stale, stale.join(", "))?;
        }
        let kinds: Vec<&str> = self.faults.iter().map(|k| k.name()).collect();
        write!(
            f,
            ", {} keys, {} steps; nemesis {}% of steps: {}",
            self.keys,
            self.steps,
            self.density,
            kinds.join(", ")
        )?;
        let n = &self.net;
        write!(
            f,
            "; network: {} delay {}..{}",
            n.transport.name(),
            n.min_delay,
            n.max_delay
        )?;
        match n.transport {
            Transport::Datagram => write!(
                f,
                ", drop {}, duplicate {}, reorder {} (up to +{})",
                percent(n.drop_rate),
                percent(n.duplicate_rate),
                percent(n.reorder_rate),
                n.reorder_jitter
            )?,
            Transport::Stream => write!(
                f,
                ", stalls {} (up to {} ticks)",
                percent(n.stall_rate),
                n.stall_ticks
            )?,
        }
        if !self.knobs.is_empty() {
            let knobs: Vec<String> = self.knobs.iter().map(|(k, v)| format!("{k}={v}")).collect();
            write!(f, "; knobs: {}", knobs.join(", "))?;
        }
        Ok(())
    }
}
