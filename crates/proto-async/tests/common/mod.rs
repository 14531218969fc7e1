//! Helpers shared by the integration tests.
#![allow(dead_code)]

use proto_async::{AsyncConfig, AsyncPrimaryGroup};
use replication::{AckLevel, Bytes, NodeId, ReadLevel, ReplicationGroup};
use sim_core::Value;

pub fn group() -> AsyncPrimaryGroup {
    AsyncPrimaryGroup::new(AsyncConfig::default()).expect("default config is valid")
}

pub fn id(name: &str) -> NodeId {
    NodeId::new(name)
}

pub fn write(g: &mut AsyncPrimaryGroup, key: &str, value: &str) -> u64 {
    let ack = g
        .client_write(
            Bytes::copy_from_slice(key.as_bytes()),
            Bytes::copy_from_slice(value.as_bytes()),
            AckLevel::Leader,
        )
        .expect("write at the primary");
    assert!(ack.accepted);
    ack.offset.expect("an accepted write has an offset")
}

pub fn local(g: &mut AsyncPrimaryGroup, node: &str, key: &str) -> Option<Bytes> {
    g.client_read(key.as_bytes(), ReadLevel::Local, Some(&id(node)))
        .expect("local read")
        .value
}

pub fn rejections(g: &AsyncPrimaryGroup, reason: &str) -> Vec<(String, String)> {
    g.trace()
        .of_kind("async_message_rejected")
        .filter(|e| matches!(e.field("reason"), Some(Value::Str(r)) if r == reason))
        .map(|e| {
            (
                e.field("node").map(|v| v.to_string()).unwrap_or_default(),
                e.field("msg").map(|v| v.to_string()).unwrap_or_default(),
            )
        })
        .collect()
}
