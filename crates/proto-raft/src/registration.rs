//! How this protocol presents itself to the laboratory: its scenario
//! settings, level aliases, explorer rows, and what a scenario reads from
//! its probe ([`ScenarioGroup`]).

use replication::{
    AckLevel, ExplorerRow, GroupError, Knob, Levels, NodeId, ReadLevel, Registration,
    ScenarioGroup, SettingDoc, SettingKind, Settings, Transport,
};

use crate::{RaftConfig, RaftGroup};

/// Textbook Raft's registration.
#[derive(Debug, Clone, Copy, Default)]
pub struct RaftRegistration;

const SETTINGS: &[SettingDoc] = &[
    SettingDoc {
        name: "pre_vote",
        kind: SettingKind::Flag,
        doc: "PreVote (default off)",
    },
    SettingDoc {
        name: "check_quorum",
        kind: SettingKind::Flag,
        doc: "CheckQuorum (default off)",
    },
    SettingDoc {
        name: "leadership_transfer",
        kind: SettingKind::Flag,
        doc: "leadership transfer, so `failover node=` can name the next leader (default off)",
    },
    SettingDoc {
        name: "snapshot_threshold",
        kind: SettingKind::Number,
        doc: "compact the log every N applied entries (default: never)",
    },
    SettingDoc {
        name: "max_append_entries",
        kind: SettingKind::Number,
        doc: "the most entries one AppendEntries carries (default 64)",
    },
    SettingDoc {
        name: "nodes",
        kind: SettingKind::Number,
        doc: "voters `node-1` … `node-N` (default 3, at least 3, at most 9)",
    },
    SettingDoc {
        name: "planted",
        kind: SettingKind::Text,
        doc: "a planted bug (`proto_raft::planted`; builds with the `planted` feature only)",
    },
];

impl RaftRegistration {
    /// The group's configuration for `settings`.
    pub fn config(settings: &Settings) -> Result<RaftConfig, GroupError> {
        let mut config = RaftConfig::default();
        if let Some(seed) = settings.seed()? {
            config = config.with_seed(seed);
        }
        if let Some(on) = settings.flag("pre_vote")? {
            config = config.with_pre_vote(on);
        }
        if let Some(on) = settings.flag("check_quorum")? {
            config = config.with_check_quorum(on);
        }
        if let Some(on) = settings.flag("leadership_transfer")? {
            config = config.with_leadership_transfer(on);
        }
        if let Some(n) = settings.number("snapshot_threshold")? {
            config = config.with_snapshot_threshold(n);
        }
        if let Some(n) = settings.number("max_append_entries")? {
            config = config.with_max_append_entries(n);
        }
        if let Some(name) = settings.get("planted") {
            config = config.with_planted(name);
        }
        if let Some(n) = settings.node_count("nodes", 3)? {
            let nodes = (1..=n).map(|i| NodeId::new(format!("node-{i}")));
            config = RaftConfig {
                nodes: nodes.collect(),
                ..config
            };
        }
        Ok(config)
    }
}

impl Registration for RaftRegistration {
    fn name(&self) -> &'static str {
        "raft"
    }

    fn summary(&self) -> &'static str {
        "textbook Raft, with PreVote, CheckQuorum, transfer and snapshots (proto-raft)"
    }

    fn settings(&self) -> &'static [SettingDoc] {
        SETTINGS
    }

    /// A fresh group of followers at term 0 (it has no leader until the
    /// first election; a scenario waits for it).
    fn build(&self, settings: &Settings) -> Result<Box<dyn ScenarioGroup>, GroupError> {
        Ok(Box::new(RaftGroup::new(Self::config(settings)?)?))
    }

    fn default_nodes(&self) -> Vec<NodeId> {
        RaftConfig::default().nodes
    }

    fn nodes_with(&self, settings: &Settings) -> Vec<NodeId> {
        Self::config(settings).map_or_else(|_| self.default_nodes(), |c| c.nodes)
    }

    fn levels(&self) -> Levels {
        Levels {
            weak_write: AckLevel::Quorum,
            strong_write: AckLevel::Quorum,
            authority_read: ReadLevel::Linearizable,
        }
    }

    fn explorer_rows(&self) -> Vec<ExplorerRow> {
        let q = AckLevel::Quorum;
        let mut rows: Vec<ExplorerRow> =
            [ReadLevel::Local, ReadLevel::Leader, ReadLevel::Linearizable]
                .into_iter()
                .map(|read| ExplorerRow::new(q, read, "default", &[]))
                .collect();
        // Each mechanism beyond textbook Raft alone, then all of them: the
        // LINEARIZABLE verdicts must not move. Snapshots every 4 applied
        // entries, so schedules compact and send InstallSnapshot.
        let lin = ReadLevel::Linearizable;
        rows.push(ExplorerRow::new(q, lin, "prevote", &[("pre_vote", "true")]));
        rows.push(ExplorerRow::new(
            q,
            lin,
            "check_quorum",
            &[("check_quorum", "true")],
        ));
        rows.push(ExplorerRow::new(
            q,
            lin,
            "snapshots",
            &[("snapshot_threshold", "4")],
        ));
        let all: &[(&str, &str)] = &[
            ("pre_vote", "true"),
            ("check_quorum", "true"),
            ("leadership_transfer", "true"),
            ("snapshot_threshold", "4"),
        ];
        for read in [ReadLevel::Local, lin] {
            rows.push(ExplorerRow::new(q, read, "all_features", all));
        }
        rows
    }

    /// The Raft paper assumes an asynchronous network that may lose,
    /// duplicate and reorder messages.
    fn transport(&self) -> Transport {
        Transport::Datagram
    }

    fn explorer_knobs(&self) -> Vec<Knob> {
        Self::knobs()
    }

    fn node_counts(&self) -> Vec<u8> {
        vec![3, 5]
    }

    fn planted_bugs(&self) -> Vec<replication::PlantedBug> {
        crate::planted::bugs()
    }
}

impl RaftRegistration {
    /// The registration's explorer knobs, the transport and node counts
    /// (see [`Registration`]).
    fn knobs() -> Vec<Knob> {
        vec![Knob::numbers("max_append_entries", [1, 2, 4, 64])]
    }
}
