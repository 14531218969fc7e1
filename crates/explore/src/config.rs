//! A configuration to explore: protocol × ack level × read level × setting,
//! and a factory that builds a fresh group for a seed.

use std::fmt;

use replication::{AckLevel, GroupError, ReadLevel, ReplicationGroup};

/// Builds a fresh group for a seed.
pub type Factory = dyn Fn(u64) -> Result<Box<dyn ReplicationGroup>, GroupError> + Send + Sync;

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
    /// The group of a seed.
    pub factory: Box<Factory>,
    /// Schedules a sweep runs at least, whatever it is asked for (0: no
    /// floor). For a configuration whose failure needs several faults to
    /// line up, which the default budget does not reach.
    pub min_schedules: u64,
}

impl Configuration {
    /// A configuration.
    pub fn new(
        protocol: &'static str,
        ack: AckLevel,
        read: ReadLevel,
        setting: &'static str,
        factory: impl Fn(u64) -> Result<Box<dyn ReplicationGroup>, GroupError> + Send + Sync + 'static,
    ) -> Configuration {
        Configuration {
            protocol,
            ack,
            read,
            setting,
            factory: Box::new(factory),
            min_schedules: 0,
        }
    }

    /// The configuration, swept with at least `schedules` schedules.
    #[must_use]
    pub fn with_min_schedules(mut self, schedules: u64) -> Configuration {
        self.min_schedules = schedules;
        self
    }

    /// `protocol.ack.read.setting`, e.g. `raft.quorum.linearizable.default`:
    /// the stable key of replay ids and `--check` files.
    pub fn key(&self) -> String {
        format!(
            "{}.{}.{}.{}",
            self.protocol,
            self.ack.snake(),
            read_snake(self.read),
            self.setting
        )
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
