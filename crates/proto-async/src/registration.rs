//! How this protocol presents itself to the laboratory: its scenario
//! settings, level aliases, explorer rows, and what a scenario reads from
//! its probe ([`ScenarioGroup`]).

use replication::{
    AckLevel, ExplorerRow, GroupError, Levels, NodeId, ReadLevel, Registration, ScenarioGroup,
    SettingDoc, SettingKind, Settings,
};

use crate::{AsyncConfig, AsyncPrimaryGroup};

/// `wait_timeout=` when `wait=` is given alone.
const WAIT_TIMEOUT: u64 = 5;

/// The Redis-shaped asynchronous primary's registration.
#[derive(Debug, Clone, Copy, Default)]
pub struct AsyncRegistration;

const SETTINGS: &[SettingDoc] = &[
    SettingDoc {
        name: "min_replicas",
        kind: SettingKind::Number,
        doc: "`min-replicas-to-write` (default 0)",
    },
    SettingDoc {
        name: "min_replicas_max_lag",
        kind: SettingKind::Number,
        doc: "`min-replicas-max-lag`, in ticks (default 10)",
    },
    SettingDoc {
        name: "wait",
        kind: SettingKind::Number,
        doc: "every `LEADER` write is followed by `WAIT N T`",
    },
    SettingDoc {
        name: "wait_timeout",
        kind: SettingKind::Number,
        doc: "the `T` of `wait=` (default 5)",
    },
    SettingDoc {
        name: "planted",
        kind: SettingKind::Text,
        doc: "a planted bug (`proto_async::planted`; builds with the `planted` feature only)",
    },
    SettingDoc {
        name: "backlog",
        kind: SettingKind::Number,
        doc: "`repl-backlog-size`, in entries (default 8)",
    },
    SettingDoc {
        name: "retention",
        kind: SettingKind::Number,
        doc: "the same as `backlog=`: entries kept for partial resync (as wal's and isr's `retention=`)",
    },
    SettingDoc {
        name: "nodes",
        kind: SettingKind::Number,
        doc: "`primary` and `replica-1` … `replica-(N-1)` (default 3, at least 2, at most 9)",
    },
];

impl AsyncRegistration {
    /// The group's configuration for `settings`.
    pub fn config(settings: &Settings) -> Result<AsyncConfig, GroupError> {
        let mut config = AsyncConfig::default();
        if let Some(seed) = settings.seed()? {
            config = config.with_seed(seed);
        }
        let (n, lag) = (
            settings.count("min_replicas")?,
            settings.number("min_replicas_max_lag")?,
        );
        if n.is_some() || lag.is_some() {
            let n = n.unwrap_or(config.min_replicas_to_write);
            let lag = lag.unwrap_or(config.min_replicas_max_lag);
            config = config.with_min_replicas(n, lag);
        }
        let (wait, timeout) = (settings.count("wait")?, settings.number("wait_timeout")?);
        if wait.is_some() || timeout.is_some() {
            config = config.with_wait(wait.unwrap_or(1), timeout.unwrap_or(WAIT_TIMEOUT));
        }
        let backlog = match (settings.count("backlog")?, settings.count("retention")?) {
            (Some(b), Some(r)) if b != r => {
                return Err(GroupError::config(
                    "retention",
                    format!("`retention={r}` and `backlog={b}` name the same setting"),
                ));
            }
            (b, r) => b.or(r),
        };
        if let Some(entries) = backlog {
            config = config.with_backlog_size(entries);
        }
        if let Some(name) = settings.get("planted") {
            config = config.with_planted(name);
        }
        if let Some(n) = settings.node_count("nodes", 2)? {
            let replicas = (1..n).map(|i| NodeId::new(format!("replica-{i}")));
            config.replicas = replicas.collect();
        }
        Ok(config)
    }
}

impl Registration for AsyncRegistration {
    fn name(&self) -> &'static str {
        "async"
    }

    fn summary(&self) -> &'static str {
        "Redis-shaped asynchronous primary/replica (proto-async)"
    }

    fn settings(&self) -> &'static [SettingDoc] {
        SETTINGS
    }

    fn build(&self, settings: &Settings) -> Result<Box<dyn ScenarioGroup>, GroupError> {
        Ok(Box::new(AsyncPrimaryGroup::new(Self::config(settings)?)?))
    }

    fn default_nodes(&self) -> Vec<NodeId> {
        AsyncConfig::default().node_ids()
    }

    fn nodes_with(&self, settings: &Settings) -> Vec<NodeId> {
        Self::config(settings).map_or_else(|_| self.default_nodes(), |c| c.node_ids())
    }

    fn levels(&self) -> Levels {
        Levels {
            weak_write: AckLevel::Leader,
            strong_write: AckLevel::Leader,
            authority_read: ReadLevel::Leader,
        }
    }

    fn planted_bugs(&self) -> Vec<replication::PlantedBug> {
        crate::planted::bugs()
    }

    fn explorer_rows(&self) -> Vec<ExplorerRow> {
        let mut rows = Vec::new();
        // Acknowledged = the write applied (and, with `wait_1`, `WAIT 1 5`
        // returned ≥ 1; with `min_replicas_1`, one replica heard within 2
        // ticks).
        let settings: [(&'static str, &[(&str, &str)]); 3] = [
            ("default", &[]),
            ("wait_1", &[("wait", "1"), ("wait_timeout", "5")]),
            (
                "min_replicas_1",
                &[("min_replicas", "1"), ("min_replicas_max_lag", "2")],
            ),
        ];
        for (setting, pairs) in settings {
            for read in [ReadLevel::Local, ReadLevel::Leader] {
                rows.push(ExplorerRow::new(AckLevel::Leader, read, setting, pairs));
            }
        }
        rows
    }
}
