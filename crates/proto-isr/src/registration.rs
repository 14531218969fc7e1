//! How this protocol presents itself to the laboratory: its scenario
//! settings, level aliases, explorer rows, and what a scenario reads from
//! its probe ([`ScenarioGroup`]).

use replication::{
    AckLevel, ExplorerRow, GroupError, Levels, NodeId, ReadLevel, Registration, ScenarioGroup,
    SettingDoc, SettingKind, Settings,
};

use crate::fetch::{FetchGroup, Rung};
use crate::{IsrConfig, IsrGroup, IsrMode};

/// `replica.lag.time.max.ms` of the fetch-mode explorer rows, in ticks:
/// above the slowest fetch round a schedule's network draws (two one-way
/// delays of up to 6 ticks plus stalls of up to 6: 24 ticks), as Kafka's
/// 30 s is far above a fetch round.
const FETCH_LAG: &str = "30";

/// The Kafka-shaped ISR's registration.
#[derive(Debug, Clone, Copy, Default)]
pub struct IsrRegistration;

const SETTINGS: &[SettingDoc] = &[
    SettingDoc {
        name: "nodes",
        kind: SettingKind::Number,
        doc: "brokers `node-1` … `node-N`, `node-1` the first leader (default 3, at least 2, at most 9)",
    },
    SettingDoc {
        name: "min_insync",
        kind: SettingKind::Number,
        doc: "`min.insync.replicas` (default 2)",
    },
    SettingDoc {
        name: "unclean_election",
        kind: SettingKind::Flag,
        doc: "`unclean.leader.election.enable` (default off)",
    },
    SettingDoc {
        name: "lag_timeout",
        kind: SettingKind::Number,
        doc: "`replica.lag.time.max.ms`, in ticks (default 3)",
    },
    SettingDoc {
        name: "planted",
        kind: SettingKind::Text,
        doc: "a planted bug (`proto_isr::planted`; builds with the `planted` feature only)",
    },
    SettingDoc {
        name: "mode",
        kind: SettingKind::Text,
        doc: "`chapter` (the source chapter's model, default) or `fetch` (Kafka's fetch-driven replication, `proto_isr::fetch`)",
    },
    SettingDoc {
        name: "rung",
        kind: SettingKind::Text,
        doc: "with `mode=fetch`: the truncation rule of the Kafka ladder, `hw`, `kip101`, `kip279`, `kip320` or `elr` (default)",
    },
    SettingDoc {
        name: "flush_messages",
        kind: SettingKind::Number,
        doc: "with `mode=fetch`: `flush.messages`, flush after this many unflushed records (default: only on fsync)",
    },
    SettingDoc {
        name: "retention",
        kind: SettingKind::Number,
        doc: "log entries the leader retains for incremental catch-up (default 8)",
    },
];

impl IsrRegistration {
    /// The group's configuration for `settings`.
    pub fn config(settings: &Settings) -> Result<IsrConfig, GroupError> {
        let mut config = IsrConfig::default();
        if let Some(n) = settings.node_count("nodes", 2)? {
            config = IsrConfig::with_nodes((1..=n).map(|i| NodeId::new(format!("node-{i}"))));
        }
        if let Some(seed) = settings.seed()? {
            config = config.with_seed(seed);
        }
        if let Some(n) = settings.count("min_insync")? {
            config = config.with_min_insync_replicas(n);
        }
        if let Some(on) = settings.flag("unclean_election")? {
            config = config.with_unclean_leader_election(on);
        }
        if let Some(ticks) = settings.number("lag_timeout")? {
            config = config.with_replica_lag_timeout(ticks);
        }
        if let Some(entries) = settings.count("retention")? {
            config = config.with_retention(entries);
        }
        if let Some(name) = settings.get("planted") {
            config = config.with_planted(name);
        }
        let rung = match settings.get("rung") {
            Some(name) => Some(Rung::from_name(name).ok_or_else(|| {
                GroupError::config(
                    "rung",
                    format!("unknown rung {name:?}; the rungs are hw, kip101, kip279, kip320, elr"),
                )
            })?),
            None => None,
        };
        match settings.get("mode") {
            None | Some("chapter") => {
                if rung.is_some() {
                    return Err(GroupError::config("rung", "a rung needs mode=fetch"));
                }
            }
            Some("fetch") => config = config.with_mode(IsrMode::Fetch(rung.unwrap_or(Rung::Elr))),
            Some(other) => {
                return Err(GroupError::config(
                    "mode",
                    format!("unknown mode {other:?}; the modes are chapter, fetch"),
                ));
            }
        }
        if let Some(n) = settings.number("flush_messages")? {
            config = config.with_flush_messages(n);
        }
        Ok(config)
    }
}

impl Registration for IsrRegistration {
    fn name(&self) -> &'static str {
        "isr"
    }

    fn summary(&self) -> &'static str {
        "Kafka-shaped ISR, high watermark and controller epochs (proto-isr)"
    }

    fn settings(&self) -> &'static [SettingDoc] {
        SETTINGS
    }

    fn build(&self, settings: &Settings) -> Result<Box<dyn ScenarioGroup>, GroupError> {
        let config = Self::config(settings)?;
        Ok(match config.mode {
            IsrMode::Chapter => Box::new(IsrGroup::new(config)?),
            _ => Box::new(FetchGroup::new(config)?),
        })
    }

    fn default_nodes(&self) -> Vec<NodeId> {
        IsrConfig::default().nodes
    }

    fn nodes_with(&self, settings: &Settings) -> Vec<NodeId> {
        Self::config(settings).map_or_else(|_| self.default_nodes(), |c| c.nodes)
    }

    fn levels(&self) -> Levels {
        Levels {
            weak_write: AckLevel::Leader,
            strong_write: AckLevel::AllIsr,
            authority_read: ReadLevel::Linearizable,
        }
    }

    fn planted_bugs(&self) -> Vec<replication::PlantedBug> {
        crate::planted::bugs()
    }

    fn explorer_knobs(&self) -> Vec<replication::Knob> {
        vec![replication::Knob::numbers("lag_timeout", [3, 8, 16])]
    }

    fn explorer_rows(&self) -> Vec<ExplorerRow> {
        let mut rows = Vec::new();
        for ack in [AckLevel::Leader, AckLevel::AllIsr] {
            for read in [ReadLevel::Local, ReadLevel::Leader, ReadLevel::Linearizable] {
                rows.push(ExplorerRow::new(ack, read, "default", &[]));
            }
        }
        rows.push(ExplorerRow::new(
            AckLevel::AllIsr,
            ReadLevel::Linearizable,
            "min_insync_1",
            &[("min_insync", "1")],
        ));
        rows.push(ExplorerRow::new(
            AckLevel::AllIsr,
            ReadLevel::Linearizable,
            "unclean_election",
            &[("unclean_election", "true")],
        ));
        // Kafka replicates over TCP; on datagrams (loss, duplication,
        // reordering) the verdict is whatever the run shows.
        rows.push(
            ExplorerRow::new(AckLevel::AllIsr, ReadLevel::Linearizable, "datagram", &[])
                .on_transport(sim_core::Transport::Datagram),
        );
        // The Kafka ladder: fetch mode at acks=all, min.insync 2, every
        // rung on the same schedules. A flush on every record keeps power
        // losses from losing anything, so what breaks is the rung's rule.
        for (setting, rung) in [
            ("fetch_hw", "hw"),
            ("fetch_kip101", "kip101"),
            ("fetch_kip279", "kip279"),
            ("fetch_kip320", "kip320"),
            ("fetch_elr", "elr"),
        ] {
            let row = ExplorerRow::new(
                AckLevel::AllIsr,
                ReadLevel::Linearizable,
                setting,
                &[
                    ("mode", "fetch"),
                    ("rung", rung),
                    ("flush_messages", "1"),
                    ("lag_timeout", FETCH_LAG),
                ],
            );
            // kip279's hole (a fetch of an earlier epoch, KAFKA-6880) needs
            // a stall across two elections back to one leader: first found
            // at seed 2634, once in 3,000 schedules.
            rows.push(if rung == "kip279" {
                row.with_min_schedules(3_000)
            } else {
                row
            });
        }
        // Kafka's default: no flush per record. KIP-966 promises no loss of
        // committed records with at most min.insync − 1 = 1 unclean
        // shutdown; the rung below it does not keep that promise (the last
        // replica standing). Without the bound ELR keeps the partition
        // offline rather than elect a broker that lost records.
        for (setting, rung) in [
            ("fetch_kip320_one_power_loss", "kip320"),
            ("fetch_elr_one_power_loss", "elr"),
        ] {
            rows.push(
                ExplorerRow::new(
                    AckLevel::AllIsr,
                    ReadLevel::Linearizable,
                    setting,
                    &[
                        ("mode", "fetch"),
                        ("rung", rung),
                        ("lag_timeout", FETCH_LAG),
                    ],
                )
                .with_max_power_losses(1),
            );
        }
        rows.push(ExplorerRow::new(
            AckLevel::AllIsr,
            ReadLevel::Linearizable,
            "fetch_elr_no_flush",
            &[
                ("mode", "fetch"),
                ("rung", "elr"),
                ("lag_timeout", FETCH_LAG),
            ],
        ));
        rows
    }
}
