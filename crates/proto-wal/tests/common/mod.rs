//! Helpers shared by the integration tests.
#![allow(dead_code)]

use proto_wal::{Bytes, NodeId, WalConfig, WalRecord, WalShippingGroup};

pub fn id(name: &str) -> NodeId {
    NodeId::new(name)
}

pub fn b(text: &str) -> Bytes {
    Bytes::copy_from_slice(text.as_bytes())
}

pub fn group_with_sync(sync: &[&str]) -> WalShippingGroup {
    WalShippingGroup::new(
        WalConfig::default().with_synchronous_standbys(sync.iter().map(|s| id(s))),
    )
    .expect("the default config with listed standbys is valid")
}

/// The records of `node`'s WAL, from the probe.
pub fn records(g: &WalShippingGroup, node: &str) -> Vec<WalRecord> {
    let probe = g.probe();
    let wal = &probe.node(&id(node)).expect("node exists").wal;
    WalRecord::decode_all(wal).expect("a node's WAL decodes")
}

/// `(applied, flushed, durable)` LSNs of `node`.
pub fn lsns(g: &WalShippingGroup, node: &str) -> (u64, u64, u64) {
    let probe = g.probe();
    let n = probe.node(&id(node)).expect("node exists");
    (n.applied_lsn, n.flushed_lsn, n.durable_lsn)
}
