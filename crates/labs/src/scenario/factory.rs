//! Building each protocol's group from a scenario's `config` settings,
//! through the protocol crates' own config builders.
//!
//! | setting | protocols | meaning |
//! |---|---|---|
//! | `seed=N` | all | the group's seed (default: each protocol's default, 0) |
//! | `sync_standbys=a,b` | wal | `synchronous_standbys`, every one confirming (default none) |
//! | `synchronous_standby_names="FIRST 1 (a, b)"` | wal | PostgreSQL's text form (`FIRST n (…)`, `ANY n (…)`, `a, b`) |
//! | `synchronous_commit=remote_write\|on\|remote_apply` | wal | how far a synchronous standby must get (default `on`) |
//! | `apply_delay=T` | wal | `recovery_min_apply_delay`, in ticks (default 0) |
//! | `unclean_election=true\|false` | isr | `unclean.leader.election.enable` (default off) |
//! | `wait=N` | async | every `LEADER` write is followed by `WAIT N T` |
//! | `wait_timeout=T` | async | the `T` of `wait=` (default 5) |
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
//!
//! Two more words of `config` are not group settings but say what the
//! part of the file it starts is: `protocols=a,b` runs the part on those
//! protocols only (the others print nothing until the next `config`), and
//! `variant=NAME` makes the part a run of the comparison matrix (see
//! [`crate::experiments`]).

use proto_async::{AsyncConfig, AsyncPrimaryGroup};
use proto_isr::{IsrConfig, IsrGroup};
use proto_raft::{RaftConfig, RaftGroup};
use proto_wal::{SynchronousCommit, WalConfig, WalShippingGroup};
use replication::{GroupError, NodeId};

use crate::protocol::Protocol;
use crate::scenario::views::ScenarioGroup;

/// Ticks raft's first election may take.
const FIRST_ELECTION: u64 = 400;

/// Every setting key `config` accepts.
pub const SETTINGS: &str = "variant, protocols, seed, sync_standbys, \
     synchronous_standby_names, synchronous_commit, apply_delay, min_insync, unclean_election, \
     min_replicas, min_replicas_max_lag, wait, wait_timeout, pre_vote, check_quorum, \
     snapshot_threshold";

/// `wait_timeout=` when `wait=` is given alone.
const WAIT_TIMEOUT: u64 = 5;

/// The settings of one `config` directive; unset = the protocol's default.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settings {
    /// `variant=`: the matrix variant this part of the file is (not a group
    /// setting).
    pub variant: Option<String>,
    /// `protocols=`: the protocols this part runs on; `None` = all four
    /// (not a group setting).
    pub protocols: Option<Vec<Protocol>>,
    /// `seed=`.
    pub seed: Option<u64>,
    /// `sync_standbys=` (wal).
    pub sync_standbys: Option<Vec<NodeId>>,
    /// `synchronous_standby_names=` (wal), as written.
    pub synchronous_standby_names: Option<String>,
    /// `synchronous_commit=` (wal).
    pub synchronous_commit: Option<SynchronousCommit>,
    /// `apply_delay=` (wal's `recovery_min_apply_delay`).
    pub apply_delay: Option<u64>,
    /// `min_insync=` (isr).
    pub min_insync: Option<usize>,
    /// `unclean_election=` (isr).
    pub unclean_election: Option<bool>,
    /// `wait=` (async's `WAIT numreplicas`).
    pub wait: Option<usize>,
    /// `wait_timeout=` (async's `WAIT … timeout`).
    pub wait_timeout: Option<u64>,
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
                "variant" => {
                    if value.is_empty()
                        || value.contains(|c: char| !c.is_ascii_alphanumeric() && c != '_')
                    {
                        return Err(format!(
                            "`variant={value}`: a variant name is letters, digits and `_`"
                        ));
                    }
                    settings.variant = Some(value.clone());
                }
                "protocols" => {
                    let mut list = Vec::new();
                    for name in value.split(',') {
                        let p = Protocol::from_name(name).ok_or_else(|| {
                            format!("`protocols={value}`: unknown protocol `{name}` (known: async, wal, isr, raft)")
                        })?;
                        list.push(p);
                    }
                    settings.protocols = Some(list);
                }
                "synchronous_standby_names" => {
                    WalConfig::default()
                        .with_synchronous_standby_names(&value)
                        .map_err(|e| format!("`{key}={value}`: {e}"))?;
                    settings.synchronous_standby_names = Some(value.clone());
                }
                "synchronous_commit" => {
                    settings.synchronous_commit = Some(
                        value
                            .parse::<SynchronousCommit>()
                            .map_err(|e| format!("`{key}={value}`: {e}"))?,
                    );
                }
                "apply_delay" => settings.apply_delay = Some(number()?),
                "unclean_election" => settings.unclean_election = Some(flag()?),
                "wait" => settings.wait = Some(count()?),
                "wait_timeout" => settings.wait_timeout = Some(number()?),
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
                only(
                    self.synchronous_standby_names.is_some(),
                    "synchronous_standby_names",
                    "wal",
                ),
                only(
                    self.synchronous_commit.is_some(),
                    "synchronous_commit",
                    "wal",
                ),
                only(self.apply_delay.is_some(), "apply_delay", "wal"),
                only(self.unclean_election.is_some(), "unclean_election", "isr"),
                only(self.wait.is_some(), "wait", "async"),
                only(self.wait_timeout.is_some(), "wait_timeout", "async"),
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
            if settings.wait.is_some() || settings.wait_timeout.is_some() {
                let n = settings.wait.unwrap_or(1);
                config = config.with_wait(n, settings.wait_timeout.unwrap_or(WAIT_TIMEOUT));
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
            if let Some(names) = &settings.synchronous_standby_names {
                config = config.with_synchronous_standby_names(names)?;
            }
            if let Some(commit) = settings.synchronous_commit {
                config = config.with_synchronous_commit(commit);
            }
            if let Some(ticks) = settings.apply_delay {
                config = config.with_recovery_min_apply_delay(ticks);
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
            if let Some(on) = settings.unclean_election {
                config = config.with_unclean_leader_election(on);
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
