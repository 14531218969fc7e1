//! How this protocol presents itself to the laboratory: its scenario
//! settings, level aliases, explorer rows, and what a scenario reads from
//! its probe ([`ScenarioGroup`]).

use replication::{
    AckLevel, ExplorerRow, GroupError, Levels, NodeId, ReadLevel, Registration, ScenarioGroup,
    SettingDoc, SettingKind, Settings,
};

use crate::{SynchronousCommit, WalConfig, WalShippingGroup};

/// Schedules the `remote_write` rows run at least: losing a `remote_write`
/// commit takes three faults in a row — a power loss on the synchronous
/// standby, its restart, and a failover to it — which the default 200
/// schedules never line up (3 of the first 5,000 seeds do; seed 3,895
/// shrinks to 5 steps).
const REMOTE_WRITE_SCHEDULES: u64 = 5_000;

/// Schedules the rows where one confirmation commits run at least
/// (`sync_standby_1`, `first_1`, `any_1`): losing such a commit takes the
/// write kept from the other standby (a cut or a crash) and then a
/// failover to exactly that standby, which the default 200 schedules do
/// not line up (the first seed that does is 610).
const ONE_CONFIRMATION_SCHEDULES: u64 = 1_000;

/// A row's `key=value` settings.
type Pairs<'a> = &'a [(&'a str, &'a str)];

/// PostgreSQL-shaped WAL shipping's registration.
#[derive(Debug, Clone, Copy, Default)]
pub struct WalRegistration;

const SETTINGS: &[SettingDoc] = &[
    SettingDoc {
        name: "sync_standbys",
        kind: SettingKind::Nodes,
        doc: "`synchronous_standbys`, every one confirming (default none)",
    },
    SettingDoc {
        name: "synchronous_standby_names",
        kind: SettingKind::Text,
        doc: "PostgreSQL's text form (`FIRST n (…)`, `ANY n (…)`, `a, b`)",
    },
    SettingDoc {
        name: "synchronous_commit",
        kind: SettingKind::Text,
        doc: "`remote_write`, `on` or `remote_apply`: how far a synchronous standby must get (default `on`)",
    },
    SettingDoc {
        name: "apply_delay",
        kind: SettingKind::Number,
        doc: "`recovery_min_apply_delay`, in ticks (default 0)",
    },
    SettingDoc {
        name: "planted",
        kind: SettingKind::Text,
        doc: "a planted bug (`proto_wal::planted`; builds with the `planted` feature only)",
    },
    SettingDoc {
        name: "retention",
        kind: SettingKind::Number,
        doc: "WAL records the primary retains for incremental catch-up (`wal_keep_size`; default 8)",
    },
    SettingDoc {
        name: "nodes",
        kind: SettingKind::Number,
        doc: "`primary` and `standby-1` … `standby-(N-1)` (default 3, at least 2, at most 9)",
    },
];

impl WalRegistration {
    /// The group's configuration for `settings`.
    pub fn config(settings: &Settings) -> Result<WalConfig, GroupError> {
        let mut config = WalConfig::default();
        if let Some(seed) = settings.seed()? {
            config = config.with_seed(seed);
        }
        if let Some(n) = settings.node_count("nodes", 2)? {
            let standbys = (1..n).map(|i| NodeId::new(format!("standby-{i}")));
            config.standbys = standbys.collect();
        }
        if let Some(sync) = settings.nodes("sync_standbys") {
            config = config.with_synchronous_standbys(sync);
        }
        if let Some(names) = settings.get("synchronous_standby_names") {
            config = config.with_synchronous_standby_names(names)?;
        }
        if let Some(commit) = settings.get("synchronous_commit") {
            let level = commit
                .parse::<SynchronousCommit>()
                .map_err(|e| GroupError::config("synchronous_commit", e.to_string()))?;
            config = config.with_synchronous_commit(level);
        }
        if let Some(ticks) = settings.number("apply_delay")? {
            config = config.with_recovery_min_apply_delay(ticks);
        }
        if let Some(records) = settings.count("retention")? {
            config = config.with_retention(records);
        }
        if let Some(name) = settings.get("planted") {
            config = config.with_planted(name);
        }
        Ok(config)
    }
}

impl Registration for WalRegistration {
    fn name(&self) -> &'static str {
        "wal"
    }

    fn summary(&self) -> &'static str {
        "PostgreSQL-shaped WAL shipping with synchronous standbys (proto-wal)"
    }

    fn settings(&self) -> &'static [SettingDoc] {
        SETTINGS
    }

    fn check_setting(&self, key: &str, value: &str) -> Result<(), String> {
        match key {
            "synchronous_standby_names" => WalConfig::default()
                .with_synchronous_standby_names(value)
                .map(drop)
                .map_err(|e| e.to_string()),
            "synchronous_commit" => value
                .parse::<SynchronousCommit>()
                .map(drop)
                .map_err(|e| e.to_string()),
            _ => Ok(()),
        }
    }

    fn build(&self, settings: &Settings) -> Result<Box<dyn ScenarioGroup>, GroupError> {
        Ok(Box::new(WalShippingGroup::new(Self::config(settings)?)?))
    }

    fn default_nodes(&self) -> Vec<NodeId> {
        WalConfig::default().node_ids()
    }

    fn nodes_with(&self, settings: &Settings) -> Vec<NodeId> {
        Self::config(settings).map_or_else(|_| self.default_nodes(), |c| c.node_ids())
    }

    fn levels(&self) -> Levels {
        Levels {
            weak_write: AckLevel::Leader,
            strong_write: AckLevel::Quorum,
            authority_read: ReadLevel::Leader,
        }
    }

    fn planted_bugs(&self) -> Vec<replication::PlantedBug> {
        crate::planted::bugs()
    }

    fn explorer_rows(&self) -> Vec<ExplorerRow> {
        let both = "standby-1,standby-2";
        // Each row after `sync_standby_all` (both standbys, `on`) differs
        // from it in one setting.
        let settings: [(AckLevel, &'static str, Pairs<'_>); 7] = [
            (AckLevel::Leader, "default", &[]),
            (
                AckLevel::Quorum,
                "sync_standby_1",
                &[("sync_standbys", "standby-1")],
            ),
            (
                AckLevel::Quorum,
                "sync_standby_all",
                &[("sync_standbys", both)],
            ),
            (
                AckLevel::Quorum,
                "first_1",
                &[(
                    "synchronous_standby_names",
                    "FIRST 1 (standby-1, standby-2)",
                )],
            ),
            (
                AckLevel::Quorum,
                "any_1",
                &[("synchronous_standby_names", "ANY 1 (standby-1, standby-2)")],
            ),
            (
                AckLevel::Quorum,
                "remote_write",
                &[
                    ("sync_standbys", both),
                    ("synchronous_commit", "remote_write"),
                ],
            ),
            (
                AckLevel::Quorum,
                "remote_apply",
                &[
                    ("sync_standbys", both),
                    ("synchronous_commit", "remote_apply"),
                    ("apply_delay", "2"),
                ],
            ),
        ];
        let mut rows = Vec::new();
        for (ack, setting, pairs) in settings {
            for read in [ReadLevel::Local, ReadLevel::Leader] {
                let row = ExplorerRow::new(ack, read, setting, pairs);
                rows.push(match setting {
                    "remote_write" => row.with_min_schedules(REMOTE_WRITE_SCHEDULES),
                    "sync_standby_1" | "first_1" | "any_1" => {
                        row.with_min_schedules(ONE_CONFIRMATION_SCHEDULES)
                    }
                    _ => row,
                });
            }
        }
        rows
    }
}
