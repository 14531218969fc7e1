//! Building each protocol's group from a scenario's `config` settings,
//! through the protocol crates' own config builders.
//!
//! | setting | protocols | meaning |
//! |---|---|---|
//! | `seed=N` | all | the group's seed (default: each protocol's default, 0) |
//! | `sync_standbys=a,b` | wal | `synchronous_standbys` (default none) |
//! | `min_insync=N` | isr | `min.insync.replicas` (default 2) |
//! | `min_replicas=N` | async | `min-replicas-to-write` (default 0) |
//! | `min_replicas_max_lag=T` | async | `min-replicas-max-lag`, in ticks (default 10) |
//! | `pre_vote=true\|false` | raft | PreVote (default off) |
//! | `check_quorum=true\|false` | raft | CheckQuorum (default off) |
//! | `snapshot_threshold=N` | raft | compact the log every N applied entries (default: never) |
//!
//! A setting a protocol does not have is ignored by it, and `config` says
//! so in that protocol's output. Every group starts with a leader: raft's
//! first election is run (bounded) before the first directive.

use proto_async::{AsyncConfig, AsyncPrimaryGroup};
use proto_isr::{IsrConfig, IsrGroup};
use proto_raft::{RaftConfig, RaftGroup};
use proto_wal::{WalConfig, WalShippingGroup};
use replication::{GroupError, NodeId, ReadResult, ReplicationGroup};

use crate::protocol::Protocol;

/// Ticks raft's first election may take.
const FIRST_ELECTION: u64 = 400;

/// Every setting key `config` accepts.
pub const SETTINGS: &str = "seed, sync_standbys, min_insync, min_replicas, \
     min_replicas_max_lag, pre_vote, check_quorum, snapshot_threshold";

/// The settings of one `config` directive; unset = the protocol's default.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settings {
    /// `seed=`.
    pub seed: Option<u64>,
    /// `sync_standbys=` (wal).
    pub sync_standbys: Option<Vec<NodeId>>,
    /// `min_insync=` (isr).
    pub min_insync: Option<usize>,
    /// `min_replicas=` (async).
    pub min_replicas: Option<usize>,
    /// `min_replicas_max_lag=` (async).
    pub min_replicas_max_lag: Option<u64>,
    /// `pre_vote=` (raft).
    pub pre_vote: Option<bool>,
    /// `check_quorum=` (raft).
    pub check_quorum: Option<bool>,
    /// `snapshot_threshold=` (raft).
    pub snapshot_threshold: Option<u64>,
}

impl Settings {
    /// Takes every `key=value` pair as a setting; an unknown key or a
    /// malformed value is an error.
    pub(crate) fn take(pairs: &mut Vec<(String, String)>) -> Result<Settings, String> {
        let mut settings = Settings::default();
        for (key, value) in pairs.drain(..) {
            let number = || {
                value
                    .parse::<u64>()
                    .map_err(|_| format!("`{key}={value}`: not a whole number"))
            };
            let flag = || match value.as_str() {
                "true" => Ok(true),
                "false" => Ok(false),
                _ => Err(format!("`{key}={value}`: not `true` or `false`")),
            };
            let count =
                || usize::try_from(number()?).map_err(|_| format!("`{key}={value}`: too large"));
            match key.as_str() {
                "seed" => settings.seed = Some(number()?),
                "min_replicas" => settings.min_replicas = Some(count()?),
                "min_replicas_max_lag" => settings.min_replicas_max_lag = Some(number()?),
                "pre_vote" => settings.pre_vote = Some(flag()?),
                "check_quorum" => settings.check_quorum = Some(flag()?),
                "snapshot_threshold" => settings.snapshot_threshold = Some(number()?),
                "min_insync" => settings.min_insync = Some(count()?),
                "sync_standbys" => {
                    settings.sync_standbys = Some(
                        value
                            .split(',')
                            .filter(|s| !s.is_empty())
                            .map(NodeId::new)
                            .collect(),
                    );
                }
                other => {
                    return Err(format!(
                        "unknown config setting `{other}` (known: {SETTINGS})"
                    ));
                }
            }
        }
        Ok(settings)
    }

    /// The settings given that `protocol` (a group's protocol name) does
    /// not have, with the protocol that does.
    pub fn ignored_by(&self, protocol: &str) -> Vec<String> {
        let mut ignored = Vec::new();
        if self.sync_standbys.is_some() && protocol != "wal" {
            ignored.push("sync_standbys (wal only)".to_owned());
        }
        if self.min_insync.is_some() && protocol != "isr" {
            ignored.push("min_insync (isr only)".to_owned());
        }
        let only = |set: bool, name: &str, owner: &str| {
            (set && protocol != owner).then(|| format!("{name} ({owner} only)"))
        };
        ignored.extend(
            [
                only(self.min_replicas.is_some(), "min_replicas", "async"),
                only(
                    self.min_replicas_max_lag.is_some(),
                    "min_replicas_max_lag",
                    "async",
                ),
                only(self.pre_vote.is_some(), "pre_vote", "raft"),
                only(self.check_quorum.is_some(), "check_quorum", "raft"),
                only(
                    self.snapshot_threshold.is_some(),
                    "snapshot_threshold",
                    "raft",
                ),
            ]
            .into_iter()
            .flatten(),
        );
        ignored
    }
}

/// A group a scenario drives: the [`ReplicationGroup`] trait, plus the
/// few protocol calls outside it that an experiment needs. Each has a
/// default answering `None` (the protocol has no such call), which the
/// interpreter prints as an error naming the protocol that has it.
pub trait ScenarioGroup: ReplicationGroup {
    /// isr's `lease_read` (`lease-read key= node=`): a LINEARIZABLE read
    /// addressed to `node`, blocked with guard `lease fenced` unless `node`
    /// is the controller's current leader.
    fn lease_read(&mut self, node: &NodeId, key: &[u8]) -> Option<Result<ReadResult, GroupError>> {
        let _ = (node, key);
        None
    }
}

impl ScenarioGroup for AsyncPrimaryGroup {}
impl ScenarioGroup for WalShippingGroup {}
impl ScenarioGroup for RaftGroup {}

impl ScenarioGroup for IsrGroup {
    fn lease_read(&mut self, node: &NodeId, key: &[u8]) -> Option<Result<ReadResult, GroupError>> {
        Some(IsrGroup::lease_read(self, node, key))
    }
}

/// A fresh group of `protocol` with `settings`.
pub fn build(
    protocol: Protocol,
    settings: &Settings,
) -> Result<Box<dyn ScenarioGroup>, GroupError> {
    Ok(match protocol {
        Protocol::Async => {
            let mut config = AsyncConfig::default();
            if let Some(seed) = settings.seed {
                config = config.with_seed(seed);
            }
            if settings.min_replicas.is_some() || settings.min_replicas_max_lag.is_some() {
                let n = settings
                    .min_replicas
                    .unwrap_or(config.min_replicas_to_write);
                let lag = settings
                    .min_replicas_max_lag
                    .unwrap_or(config.min_replicas_max_lag);
                config = config.with_min_replicas(n, lag);
            }
            Box::new(AsyncPrimaryGroup::new(config)?)
        }
        Protocol::Wal => {
            let mut config = WalConfig::default();
            if let Some(seed) = settings.seed {
                config = config.with_seed(seed);
            }
            if let Some(sync) = &settings.sync_standbys {
                config = config.with_synchronous_standbys(sync.iter().cloned());
            }
            Box::new(WalShippingGroup::new(config)?)
        }
        Protocol::Isr => {
            let mut config = IsrConfig::default();
            if let Some(seed) = settings.seed {
                config = config.with_seed(seed);
            }
            if let Some(n) = settings.min_insync {
                config = config.with_min_insync_replicas(n);
            }
            Box::new(IsrGroup::new(config)?)
        }
        Protocol::Raft => {
            let mut config = RaftConfig::default();
            if let Some(seed) = settings.seed {
                config = config.with_seed(seed);
            }
            if let Some(on) = settings.pre_vote {
                config = config.with_pre_vote(on);
            }
            if let Some(on) = settings.check_quorum {
                config = config.with_check_quorum(on);
            }
            if let Some(n) = settings.snapshot_threshold {
                config = config.with_snapshot_threshold(n);
            }
            let mut group = RaftGroup::new(config)?;
            group.run_until_leader(None, FIRST_ELECTION)?;
            Box::new(group)
        }
    })
}
