//! The configurations the explorer checks: every protocol × the ack and read
//! levels it offers × the settings that change an answer.

use explore::Configuration;
use proto_async::{AsyncConfig, AsyncPrimaryGroup};
use proto_isr::{IsrConfig, IsrGroup};
use proto_raft::{RaftConfig, RaftGroup};
use proto_wal::{SynchronousCommit, WalConfig, WalShippingGroup};
use replication::{AckLevel, GroupError, NodeId, ReadLevel, ReplicationGroup};

fn boxed<G: ReplicationGroup + 'static>(group: G) -> Box<dyn ReplicationGroup> {
    Box::new(group)
}

/// A WAL configuration of one explorer row, before its seed.
type WalSetting = fn() -> Result<WalConfig, GroupError>;

/// Both standbys synchronous: every listed standby (`FIRST 2`).
fn both_standbys() -> WalConfig {
    WalConfig::default()
        .with_synchronous_standbys([NodeId::new("standby-1"), NodeId::new("standby-2")])
}

/// Schedules the `wal … remote_write` rows run at least.
const REMOTE_WRITE_SCHEDULES: u64 = 5_000;

/// Every configuration of the verdict table, in table order: protocol,
/// then ack level, then setting, then read level.
pub fn explore_configs() -> Vec<Configuration> {
    use AckLevel as A;
    use ReadLevel as R;
    let mut configs = Vec::new();
    for read in [R::Local, R::Leader] {
        configs.push(Configuration::new(
            "async",
            A::Leader,
            read,
            "default",
            |seed| AsyncPrimaryGroup::new(AsyncConfig::default().with_seed(seed)).map(boxed),
        ));
    }
    // Acknowledged = the write applied and `WAIT 1 5` returned ≥ 1.
    for read in [R::Local, R::Leader] {
        configs.push(Configuration::new(
            "async",
            A::Leader,
            read,
            "wait_1",
            |seed| {
                AsyncPrimaryGroup::new(AsyncConfig::default().with_wait(1, 5).with_seed(seed))
                    .map(boxed)
            },
        ));
    }
    for read in [R::Local, R::Leader] {
        configs.push(Configuration::new(
            "async",
            A::Leader,
            read,
            "min_replicas_1",
            |seed| {
                AsyncPrimaryGroup::new(
                    AsyncConfig::default()
                        .with_min_replicas(1, 2)
                        .with_seed(seed),
                )
                .map(boxed)
            },
        ));
    }
    for read in [R::Local, R::Leader] {
        configs.push(Configuration::new(
            "wal",
            A::Leader,
            read,
            "default",
            |seed| WalShippingGroup::new(WalConfig::default().with_seed(seed)).map(boxed),
        ));
    }
    for read in [R::Local, R::Leader] {
        configs.push(Configuration::new(
            "wal",
            A::Quorum,
            read,
            "sync_standby_1",
            |seed| {
                WalShippingGroup::new(
                    WalConfig::default()
                        .with_synchronous_standbys([NodeId::new("standby-1")])
                        .with_seed(seed),
                )
                .map(boxed)
            },
        ));
    }
    for read in [R::Local, R::Leader] {
        configs.push(Configuration::new(
            "wal",
            A::Quorum,
            read,
            "sync_standby_all",
            |seed| {
                WalShippingGroup::new(
                    WalConfig::default()
                        .with_synchronous_standbys([
                            NodeId::new("standby-1"),
                            NodeId::new("standby-2"),
                        ])
                        .with_seed(seed),
                )
                .map(boxed)
            },
        ));
    }
    // synchronous_standby_names and synchronous_commit: each row differs
    // from `sync_standby_all` (both standbys, `on`) in one setting.
    let wal_settings: [(&'static str, WalSetting); 4] = [
        ("first_1", || {
            WalConfig::default().with_synchronous_standby_names("FIRST 1 (standby-1, standby-2)")
        }),
        ("any_1", || {
            WalConfig::default().with_synchronous_standby_names("ANY 1 (standby-1, standby-2)")
        }),
        ("remote_write", || {
            Ok(both_standbys().with_synchronous_commit(SynchronousCommit::RemoteWrite))
        }),
        ("remote_apply", || {
            Ok(both_standbys()
                .with_synchronous_commit(SynchronousCommit::RemoteApply)
                .with_recovery_min_apply_delay(2))
        }),
    ];
    for (setting, config) in wal_settings {
        for read in [R::Local, R::Leader] {
            let row = Configuration::new("wal", A::Quorum, read, setting, move |seed| {
                WalShippingGroup::new(config()?.with_seed(seed)).map(boxed)
            });
            // Losing a `remote_write` commit takes three faults in a row —
            // a power loss on the synchronous standby, its restart, and a
            // failover to it — which the default 200 schedules never line
            // up (the first seed that does is 4,859).
            configs.push(if setting == "remote_write" {
                row.with_min_schedules(REMOTE_WRITE_SCHEDULES)
            } else {
                row
            });
        }
    }
    for ack in [A::Leader, A::AllIsr] {
        for read in [R::Local, R::Leader, R::Linearizable] {
            configs.push(Configuration::new("isr", ack, read, "default", |seed| {
                IsrGroup::new(IsrConfig::default().with_seed(seed)).map(boxed)
            }));
        }
    }
    configs.push(Configuration::new(
        "isr",
        A::AllIsr,
        R::Linearizable,
        "min_insync_1",
        |seed| {
            IsrGroup::new(
                IsrConfig::default()
                    .with_min_insync_replicas(1)
                    .with_seed(seed),
            )
            .map(boxed)
        },
    ));
    configs.push(Configuration::new(
        "isr",
        A::AllIsr,
        R::Linearizable,
        "unclean_election",
        |seed| {
            IsrGroup::new(
                IsrConfig::default()
                    .with_unclean_leader_election(true)
                    .with_seed(seed),
            )
            .map(boxed)
        },
    ));
    for read in [R::Local, R::Leader, R::Linearizable] {
        configs.push(Configuration::new(
            "raft",
            A::Quorum,
            read,
            "default",
            |seed| RaftGroup::new(RaftConfig::default().with_seed(seed)).map(boxed),
        ));
    }
    // Each mechanism beyond textbook Raft alone, then all of them: the
    // LINEARIZABLE verdicts must not move. Snapshots every 4 applied
    // entries, so schedules compact and send InstallSnapshot.
    configs.push(Configuration::new(
        "raft",
        A::Quorum,
        R::Linearizable,
        "prevote",
        |seed| RaftGroup::new(RaftConfig::default().with_pre_vote(true).with_seed(seed)).map(boxed),
    ));
    configs.push(Configuration::new(
        "raft",
        A::Quorum,
        R::Linearizable,
        "check_quorum",
        |seed| {
            RaftGroup::new(
                RaftConfig::default()
                    .with_check_quorum(true)
                    .with_seed(seed),
            )
            .map(boxed)
        },
    ));
    configs.push(Configuration::new(
        "raft",
        A::Quorum,
        R::Linearizable,
        "snapshots",
        |seed| {
            RaftGroup::new(
                RaftConfig::default()
                    .with_snapshot_threshold(4)
                    .with_seed(seed),
            )
            .map(boxed)
        },
    ));
    for read in [R::Local, R::Linearizable] {
        configs.push(Configuration::new(
            "raft",
            A::Quorum,
            read,
            "all_features",
            |seed| {
                RaftGroup::new(RaftConfig::default().with_all_features(4).with_seed(seed))
                    .map(boxed)
            },
        ));
    }
    configs
}
