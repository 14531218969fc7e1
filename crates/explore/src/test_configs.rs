//! The configurations the explorer's own tests check: ISR's and Raft's
//! strongest default rows, built from the protocol crates directly (the
//! explorer itself depends on no protocol crate).

use proto_isr::{IsrConfig, IsrGroup};
use proto_raft::{RaftConfig, RaftGroup};
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
