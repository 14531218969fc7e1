//! The configurations the explorer's own tests check: ISR's and Raft's
//! strongest default rows, and the asynchronous primary's and WAL
//! shipping's default ones, built from the protocol crates directly (the
//! explorer itself depends on no protocol crate).

use proto_async::{AsyncConfig, AsyncPrimaryGroup};
use proto_isr::{IsrConfig, IsrGroup};
use proto_raft::{RaftConfig, RaftGroup};
use proto_wal::{WalConfig, WalShippingGroup};
use replication::{AckLevel, ReadLevel, ReplicationGroup, Transport};

use crate::config::Configuration;

/// `isr.all_isr.linearizable.default`.
pub(crate) fn isr() -> Configuration {
    Configuration::new(
        "isr",
        AckLevel::AllIsr,
        ReadLevel::Linearizable,
        "default",
        |build: &crate::Build| {
            let g = IsrGroup::new(IsrConfig::default().with_seed(build.seed))?;
            Ok(Box::new(g) as Box<dyn ReplicationGroup>)
        },
    )
}

/// `raft.quorum.linearizable.default`, on its datagram transport.
pub(crate) fn raft() -> Configuration {
    Configuration::new(
        "raft",
        AckLevel::Quorum,
        ReadLevel::Linearizable,
        "default",
        |build: &crate::Build| {
            let g = RaftGroup::new(RaftConfig::default().with_seed(build.seed))?;
            Ok(Box::new(g) as Box<dyn ReplicationGroup>)
        },
    )
    .with_transport(Transport::Datagram)
}

/// `async.leader.leader.default`.
pub(crate) fn async_primary() -> Configuration {
    Configuration::new(
        "async",
        AckLevel::Leader,
        ReadLevel::Leader,
        "default",
        |build: &crate::Build| {
            let g = AsyncPrimaryGroup::new(AsyncConfig::default().with_seed(build.seed))?;
            Ok(Box::new(g) as Box<dyn ReplicationGroup>)
        },
    )
}

/// `wal.leader.leader.default`.
pub(crate) fn wal() -> Configuration {
    Configuration::new(
        "wal",
        AckLevel::Leader,
        ReadLevel::Leader,
        "default",
        |build: &crate::Build| {
            let g = WalShippingGroup::new(WalConfig::default().with_seed(build.seed))?;
            Ok(Box::new(g) as Box<dyn ReplicationGroup>)
        },
    )
}
