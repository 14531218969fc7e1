//! A Redis-shaped failover, step by step: an acknowledged write is lost
//! when the primary crashes before streaming it, and a partitioned old
//! primary's dirty write is discarded when it rejoins.
//!
//! Run: `cargo run -p proto-async --example async_failover`

use proto_async::{
    AckLevel, AsyncConfig, AsyncPrimaryGroup, Bytes, GroupError, NodeId, ReadLevel,
    ReplicationGroup,
};

fn main() -> Result<(), GroupError> {
    let mut group = AsyncPrimaryGroup::new(AsyncConfig::default())?;
    let primary = NodeId::new("primary");
    let replica = NodeId::new("replica-1");

    // 1. A LEADER write is acknowledged before any replica has it.
    group.client_write(Bytes::from("k"), Bytes::from("v1"), AckLevel::Leader)?;
    group.run_until_idle(100)?;

    // 2. Cut the primary off, promote a replica: both sides accept writes.
    group.isolate(&primary)?;
    group.promote(&replica)?;
    let dirty = group.write_at(
        &primary,
        Bytes::from("k"),
        Bytes::from("minority"),
        AckLevel::Leader,
    )?;
    let clean = group.client_write(Bytes::from("k"), Bytes::from("majority"), AckLevel::Leader)?;
    println!(
        "dirty write acked: {}, new primary write acked: {}",
        dirty.accepted, clean.accepted
    );
    group.run_until_idle(100)?;

    // 3. Heal: the old primary's buffered stream is fenced, it is demoted and
    //    full-syncs from the new primary; its dirty write is gone.
    group.heal(&primary)?;
    group.run_until_idle(100)?;
    let read = group.client_read(b"k", ReadLevel::Local, Some(&primary))?;
    println!("old primary now reads {:?}", read.value);
    let probe = group.probe();
    for node in &probe.nodes {
        println!(
            "{:<10} {:<8} {} offset {} mode {}",
            node.id, node.role, node.replication_id, node.offset, node.catch_up_mode
        );
    }
    println!("\n{}", group.trace().to_text());
    Ok(())
}
