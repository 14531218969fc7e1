//! How a protocol presents itself to the laboratory: one [`Registration`]
//! per protocol, collected in a [`Registry`].
//!
//! A registration is everything the tools need to know about a protocol
//! beyond the [`ReplicationGroup`](crate::ReplicationGroup) trait: its name
//! (the command-line name, the matrix column, the prefix of its lines in a
//! scenario file), how to build a group from a scenario's `config`
//! settings, the level aliases a scenario writes (`weak`, `strong`,
//! `authority`), what a scenario reads from its probe in the protocol's own
//! words ([`ScenarioGroup`]), and the rows the explorer checks. Adding a
//! protocol is one crate that implements these, plus one line in a
//! registry (`labs::registry()` for the built-in four; any
//! [`Registry::with`] for a protocol of your own).
//!
//! ```
//! use replication::{Registration, Registry};
//! let registry = Registry::new(Vec::new());
//! assert!(registry.named("raft").is_none());
//! ```

mod planted;
mod scenario_group;
mod settings;

use std::fmt;

pub use planted::{PlantedBug, check_planted, planted_name};
pub use scenario_group::ScenarioGroup;
pub use settings::{MAX_NODES, SettingDoc, SettingKind, Settings};

use crate::error::GroupError;
use crate::level::{AckLevel, ReadLevel};
use sim_core::NodeId;

/// The levels a scenario's aliases stand for on one protocol.
///
/// | alias | meaning |
/// |---|---|
/// | write `weak` | the weakest write that still has an acknowledgement boundary |
/// | write `strong` | the strongest write the protocol offers |
/// | read `weak` | always `LOCAL` |
/// | read `authority` | the strongest read the protocol offers |
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Levels {
    /// `weak` write.
    pub weak_write: AckLevel,
    /// `strong` write.
    pub strong_write: AckLevel,
    /// `authority` read.
    pub authority_read: ReadLevel,
}

/// One row of the explorer's verdict table for a protocol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExplorerRow {
    /// The level every write of a schedule asks for.
    pub ack: AckLevel,
    /// The level every read of a schedule asks for.
    pub read: ReadLevel,
    /// The row's setting name, snake case (`default`, `min_insync_1`, …).
    pub setting: &'static str,
    /// The scenario settings that build the row's group (the seed is the
    /// schedule's).
    pub settings: Settings,
    /// Schedules a sweep runs at least for this row (0: no floor).
    pub min_schedules: u64,
    /// The transport this row's schedules run on, when it is not the
    /// protocol's own ([`Registration::transport`]) — e.g. ISR on
    /// datagrams, to show what its stream assumptions buy.
    pub transport: Option<sim_core::Transport>,
    /// The most power losses one schedule may make (`None`: any number) —
    /// for a row whose guarantee is stated under such a bound (KIP-966:
    /// at most `min.insync.replicas − 1` unclean shutdowns).
    pub max_power_losses: Option<u32>,
}

impl ExplorerRow {
    /// A row of `ack` × `read` with `setting` built from `settings`
    /// (`key=value` pairs, as a scenario `config` writes them).
    pub fn new(
        ack: AckLevel,
        read: ReadLevel,
        setting: &'static str,
        settings: &[(&str, &str)],
    ) -> ExplorerRow {
        ExplorerRow {
            ack,
            read,
            setting,
            settings: Settings::from_pairs(settings),
            min_schedules: 0,
            transport: None,
            max_power_losses: None,
        }
    }

    /// The row, run on `transport` instead of the protocol's own.
    #[must_use]
    pub fn on_transport(mut self, transport: sim_core::Transport) -> ExplorerRow {
        self.transport = Some(transport);
        self
    }

    /// The row, swept with at least `schedules` schedules.
    #[must_use]
    pub fn with_min_schedules(mut self, schedules: u64) -> ExplorerRow {
        self.min_schedules = schedules;
        self
    }

    /// The row, whose schedules make at most `n` power losses (a later one
    /// is skipped, as a step that cannot act is).
    #[must_use]
    pub fn with_max_power_losses(mut self, n: u32) -> ExplorerRow {
        self.max_power_losses = Some(n);
        self
    }
}

/// What the laboratory knows about one protocol. Implement it on a unit
/// struct in the protocol's crate and register `&YourRegistration`.
pub trait Registration: Sync {
    /// The short name: command line, matrix column, JSON, scenario prefix
    /// (`async`, `wal`, `isr`, `raft`). Lower-case letters, digits and `_`.
    fn name(&self) -> &'static str;

    /// One line for help texts: the mechanism and the crate.
    fn summary(&self) -> &'static str;

    /// The `config` settings this protocol accepts (besides `seed`, which
    /// every protocol takes), in the order its docs list them.
    fn settings(&self) -> &'static [SettingDoc];

    /// Checks one of its settings' values beyond its [`SettingKind`] (e.g.
    /// a grammar); the message says what is wrong. The default accepts.
    fn check_setting(&self, key: &str, value: &str) -> Result<(), String> {
        let _ = (key, value);
        Ok(())
    }

    /// A fresh group with `settings` (its own; others are ignored), or the
    /// [`GroupError::Config`] naming the setting at fault.
    fn build(&self, settings: &Settings) -> Result<Box<dyn ScenarioGroup>, GroupError>;

    /// The node ids of a group built with default settings, without
    /// building one (scenario files name nodes by these).
    fn default_nodes(&self) -> Vec<NodeId>;

    /// The node ids of a group built with `settings` (a `nodes=` count
    /// renames and adds nodes), without building one; settings it cannot
    /// read give the default nodes (building reports the error). The
    /// default is [`default_nodes`](Registration::default_nodes).
    fn nodes_with(&self, settings: &Settings) -> Vec<NodeId> {
        let _ = settings;
        self.default_nodes()
    }

    /// What the level aliases mean here.
    fn levels(&self) -> Levels;

    /// This protocol's own name for write level `level`: what its
    /// scenario outputs print (`acked offset=1 (TAIL)`) and what a
    /// scenario file may write (`level=TAIL`, beside the shared names).
    /// The shared name (`ALL_ISR`) unless the protocol says otherwise.
    fn ack_name(&self, level: AckLevel) -> &'static str {
        level.name()
    }

    /// This protocol's own name for read level `level`, as
    /// [`Registration::ack_name`].
    fn read_name(&self, level: ReadLevel) -> &'static str {
        level.name()
    }

    /// The explorer's rows for this protocol, in table order.
    fn explorer_rows(&self) -> Vec<ExplorerRow>;

    /// The network the real system runs on: TCP-like streams (the default:
    /// Kafka, PostgreSQL, Redis) or datagrams (what the Raft paper assumes).
    /// The explorer draws its network faults for this transport.
    fn transport(&self) -> sim_core::Transport {
        sim_core::Transport::Stream
    }

    /// Settings that change how deep a schedule reaches (entries per
    /// append, retention windows, timeouts), each with the values the
    /// explorer may draw for a schedule. Default: none.
    fn explorer_knobs(&self) -> Vec<Knob> {
        Vec::new()
    }

    /// The node counts a group can be built with through the `nodes`
    /// setting; the explorer draws among them. Default: only the default
    /// count (no `nodes` setting).
    fn node_counts(&self) -> Vec<u8> {
        vec![u8::try_from(self.default_nodes().len()).unwrap_or(u8::MAX)]
    }

    /// The bugs this protocol can plant (`planted=NAME`, in builds with
    /// the crate's `planted` feature). Default: none.
    fn planted_bugs(&self) -> Vec<PlantedBug> {
        Vec::new()
    }
}

/// A setting the explorer varies per schedule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Knob {
    /// The setting's key.
    pub name: &'static str,
    /// The values it may take.
    pub values: Vec<String>,
}

impl Knob {
    /// A knob over whole numbers.
    pub fn numbers(name: &'static str, values: impl IntoIterator<Item = u64>) -> Knob {
        Knob {
            name,
            values: values.into_iter().map(|v| v.to_string()).collect(),
        }
    }
}

/// A registered protocol: a cheap, copyable handle on its
/// [`Registration`], compared and ordered by name.
#[derive(Clone, Copy)]
pub struct Protocol(&'static dyn Registration);

impl Protocol {
    /// The handle of `registration`.
    pub const fn new(registration: &'static dyn Registration) -> Protocol {
        Protocol(registration)
    }

    /// [`Registration::name`].
    pub fn name(self) -> &'static str {
        self.0.name()
    }

    /// The registration itself.
    pub fn registration(self) -> &'static dyn Registration {
        self.0
    }
}

impl PartialEq for Protocol {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}

impl Eq for Protocol {}

impl std::hash::Hash for Protocol {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.name().hash(state);
    }
}

impl fmt::Debug for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Protocol({})", self.name())
    }
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The protocols a tool knows, in column order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registry {
    protocols: Vec<Protocol>,
}

impl Registry {
    /// A registry of `protocols`, in this order (a later duplicate name is
    /// dropped).
    pub fn new(protocols: Vec<Protocol>) -> Registry {
        let mut registry = Registry {
            protocols: Vec::new(),
        };
        for p in protocols {
            registry = registry.with(p);
        }
        registry
    }

    /// This registry plus `protocol` as its last column (unchanged when a
    /// protocol of that name is already registered).
    #[must_use]
    pub fn with(mut self, protocol: Protocol) -> Registry {
        if self.named(protocol.name()).is_none() {
            self.protocols.push(protocol);
        }
        self
    }

    /// Every protocol, in column order.
    pub fn protocols(&self) -> &[Protocol] {
        &self.protocols
    }

    /// The protocol called `name`.
    pub fn named(&self, name: &str) -> Option<Protocol> {
        self.protocols.iter().copied().find(|p| p.name() == name)
    }

    /// Every name, in column order.
    pub fn names(&self) -> Vec<&'static str> {
        self.protocols.iter().map(|p| p.name()).collect()
    }

    /// The protocols that accept the setting `key`.
    pub fn owners(&self, key: &str) -> Vec<Protocol> {
        self.protocols
            .iter()
            .copied()
            .filter(|p| p.registration().settings().iter().any(|s| s.name == key))
            .collect()
    }

    /// Checks `key=value` as a `config` setting: some protocol must accept
    /// the key, and each that does must accept the value. `seed` is every
    /// protocol's.
    pub fn check_setting(&self, key: &str, value: &str) -> Result<(), String> {
        if key == "seed" {
            return SettingKind::Number.check(key, value);
        }
        let owners = self.owners(key);
        if owners.is_empty() {
            let mut known = vec!["seed".to_owned()];
            for p in &self.protocols {
                for s in p.registration().settings() {
                    if !known.iter().any(|k| k == s.name) {
                        known.push(s.name.to_owned());
                    }
                }
            }
            return Err(format!(
                "unknown config setting `{key}` (known: {})",
                known.join(", ")
            ));
        }
        for p in owners {
            let reg = p.registration();
            if let Some(doc) = reg.settings().iter().find(|s| s.name == key) {
                doc.kind.check(key, value)?;
            }
            reg.check_setting(key, value)
                .map_err(|e| format!("`{key}={value}`: {e}"))?;
        }
        Ok(())
    }

    /// The settings given that `protocol` does not accept, each with the
    /// protocols that do: `min_insync (isr only)`.
    pub fn ignored_by(&self, protocol: Protocol, settings: &Settings) -> Vec<String> {
        let own = protocol.registration().settings();
        settings
            .pairs()
            .iter()
            .filter(|(k, _)| k != "seed" && !own.iter().any(|s| s.name == k.as_str()))
            .map(|(k, _)| {
                let owners: Vec<&str> = self.owners(k).iter().map(|p| p.name()).collect();
                format!("{k} ({} only)", owners.join(", "))
            })
            .collect()
    }
}
