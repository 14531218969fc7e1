//! A configuration to explore: protocol × ack level × read level × setting,
//! and a factory that builds a fresh group for a schedule.

use std::fmt;

use replication::Transport;
use replication::{AckLevel, GroupError, Knob, ReadLevel, ReplicationGroup};

/// What a schedule asks its group to be built with: the seed, and the
/// node count and knob values its profile drew.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Build {
    /// The group's seed (the schedule's).
    pub seed: u64,
    /// The node count drawn, when the protocol offers several.
    pub nodes: Option<u8>,
    /// The knob values drawn, `(setting, value)`.
    pub knobs: Vec<(&'static str, String)>,
}

impl Build {
    /// A group of the protocol's defaults with `seed`.
    pub fn seed(seed: u64) -> Build {
        Build {
            seed,
            nodes: None,
            knobs: Vec::new(),
        }
    }
}

/// Builds a fresh group for a schedule.
pub type Factory = dyn Fn(&Build) -> Result<Box<dyn ReplicationGroup>, GroupError> + Send + Sync;

/// One row of the verdict table.
pub struct Configuration {
    /// Protocol name (`async`, `wal`, `isr`, `raft`).
    pub protocol: &'static str,
    /// The level every write of a schedule asks for.
    pub ack: AckLevel,
    /// The level every read of a schedule asks for.
    pub read: ReadLevel,
    /// The protocol setting, snake case (`default`, `min_insync_3`,
    /// `sync_standby_1`, …), as the matrix names variants.
    pub setting: &'static str,
    /// The group of a schedule.
    pub factory: Box<Factory>,
    /// Schedules a sweep runs at least, whatever it is asked for (0: no
    /// floor). For a configuration whose failure needs several faults to
    /// line up, which the default budget does not reach.
    pub min_schedules: u64,
    /// The network the protocol runs on; schedules draw its faults.
    pub transport: Transport,
    /// Node counts a schedule may draw (empty: the group's default).
    pub node_counts: Vec<u8>,
    /// Settings a schedule may vary.
    pub knobs: Vec<Knob>,
    /// The knob values every steered run is built with — the model
    /// checker's, the debugger's, a checker path's replay — `(setting,
    /// value)`; empty: the protocol's defaults. The sweep draws its own.
    pub knob_values: Vec<(&'static str, String)>,
    /// The planted bug the group is built with (a positive control), or
    /// `None`.
    pub planted: Option<&'static str>,
    /// The most power losses a schedule makes (`None`: any number); a
    /// power loss past it is skipped (`power-loss bound reached`).
    pub max_power_losses: Option<u32>,
}

impl Configuration {
    /// A configuration on datagrams, of the group's default size, no knobs.
    pub fn new(
        protocol: &'static str,
        ack: AckLevel,
        read: ReadLevel,
        setting: &'static str,
        factory: impl Fn(&Build) -> Result<Box<dyn ReplicationGroup>, GroupError>
        + Send
        + Sync
        + 'static,
    ) -> Configuration {
        Configuration {
            protocol,
            ack,
            read,
            setting,
            factory: Box::new(factory),
            min_schedules: 0,
            transport: Transport::Datagram,
            node_counts: Vec::new(),
            knobs: Vec::new(),
            knob_values: Vec::new(),
            planted: None,
            max_power_losses: None,
        }
    }

    /// The configuration, swept with at least `schedules` schedules.
    #[must_use]
    pub fn with_min_schedules(mut self, schedules: u64) -> Configuration {
        self.min_schedules = schedules;
        self
    }

    /// The configuration on `transport`.
    #[must_use]
    pub fn with_transport(mut self, transport: Transport) -> Configuration {
        self.transport = transport;
        self
    }

    /// The configuration whose schedules make at most `n` power losses.
    #[must_use]
    pub fn with_max_power_losses(mut self, n: Option<u32>) -> Configuration {
        self.max_power_losses = n;
        self
    }

    /// The node counts schedules may draw.
    #[must_use]
    pub fn with_node_counts(mut self, counts: Vec<u8>) -> Configuration {
        self.node_counts = counts;
        self
    }

    /// The settings schedules may vary.
    #[must_use]
    pub fn with_knobs(mut self, knobs: Vec<Knob>) -> Configuration {
        self.knobs = knobs;
        self
    }

    /// The configuration whose steered runs are built with `values`
    /// (`(setting, value)`, each one of the knobs schedules may vary), as
    /// a checker path's replay id names them. A setting that is not one
    /// of the row's knobs is an error naming it and the knobs there are;
    /// a value the protocol refuses is refused when a group is built.
    pub fn with_knob_values(
        mut self,
        values: &[(String, String)],
    ) -> Result<Configuration, GroupError> {
        let mut set: Vec<(&'static str, String)> = Vec::new();
        for (name, value) in values {
            let Some(knob) = self.knobs.iter().find(|k| k.name == name.as_str()) else {
                let known: Vec<&str> = self.knobs.iter().map(|k| k.name).collect();
                return Err(GroupError::config(
                    "knob",
                    format!(
                        "{} has no knob `{name}` ({})",
                        self.key(),
                        if known.is_empty() {
                            "it has none".to_string()
                        } else {
                            format!("its knobs: {}", known.join(", "))
                        }
                    ),
                ));
            };
            if set.iter().any(|(k, _)| *k == knob.name) {
                return Err(GroupError::config(
                    "knob",
                    format!("knob `{name}` is given twice"),
                ));
            }
            set.push((knob.name, value.clone()));
        }
        set.sort();
        self.knob_values = set;
        Ok(self)
    }

    /// The knob values of [`knob_values`](Self::knob_values) as text:
    /// `max_append_entries=1`, comma-separated (empty for none).
    pub fn knob_text(&self) -> String {
        let parts: Vec<String> = self
            .knob_values
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        parts.join(", ")
    }

    /// The configuration of the same row with the planted bug `name` (its
    /// factory must build the group with it).
    #[must_use]
    pub fn with_planted(mut self, name: &'static str) -> Configuration {
        self.planted = Some(name);
        self
    }

    /// `protocol.ack.read.setting`, e.g. `raft.quorum.linearizable.default`,
    /// with `.BUG` after it for a planted bug's configuration
    /// (`raft.quorum.linearizable.default.raft_commit_old_term`): the stable
    /// key of replay ids and `--check` files.
    pub fn key(&self) -> String {
        let mut key = format!(
            "{}.{}.{}.{}",
            self.protocol,
            self.ack.snake(),
            read_snake(self.read),
            self.setting
        );
        if let Some(bug) = self.planted {
            key.push('.');
            key.push_str(bug);
        }
        key
    }
}

impl fmt::Debug for Configuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.key())
    }
}

/// `local`, `leader` or `linearizable`.
pub fn read_snake(level: ReadLevel) -> &'static str {
    match level {
        ReadLevel::Local => "local",
        ReadLevel::Leader => "leader",
        ReadLevel::Linearizable => "linearizable",
    }
}

/// The group's node count with default settings (the profile's default).
pub(crate) fn default_nodes(config: &Configuration) -> Result<u8, GroupError> {
    let nodes = (config.factory)(&Build::seed(0))?.node_ids().len();
    Ok(u8::try_from(nodes).unwrap_or(u8::MAX))
}
