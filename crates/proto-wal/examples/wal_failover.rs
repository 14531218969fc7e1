//! WAL shipping end to end: a synchronous and an asynchronous standby, an
//! asynchronous write lost by promoting the async standby, a timeline
//! switch, and a base backup bringing everyone onto the new timeline.
//!
//! Run: `cargo run -p proto-wal --example wal_failover`

use proto_wal::prelude::*;

fn main() -> Result<(), GroupError> {
    let primary = NodeId::new("primary");
    let sync = NodeId::new("standby-1");
    let lagging = NodeId::new("standby-2");
    let config = WalConfig::default().with_synchronous_standbys([sync.clone()]);
    let mut group = WalShippingGroup::new(config)?;

    let ack = group.client_write(Bytes::from("colour"), Bytes::from("red"), AckLevel::Quorum)?;
    println!("QUORUM write: {ack:?}");
    let at_sync = group.client_read(b"colour", ReadLevel::Local, Some(&sync))?;
    println!("{sync} at the ack: {:?}", at_sync.value);

    // Cut the async standby off, write at LEADER, promote the async standby:
    // the acknowledged write is not on it.
    group.isolate(&lagging)?;
    let ack = group.client_write(Bytes::from("colour"), Bytes::from("blue"), AckLevel::Leader)?;
    println!("LEADER write while {lagging} is cut off: {ack:?}");
    group.crash(&primary, false)?;
    group.heal(&lagging)?;
    let new_primary = group.failover(Some(&lagging))?;
    group.run_until_idle(100)?;
    let read = group.client_read(b"colour", ReadLevel::Leader, None)?;
    println!("after promoting {new_primary}: colour = {:?}", read.value);

    // The old primary comes back, hears the newer timeline, steps down and
    // is re-cloned by a base backup.
    group.restart(&primary)?;
    group.run_until_idle(100)?;
    for node in group.probe().nodes {
        println!(
            "{:>10}: {:<7} timeline {} lsn {} mode {} data {:?}",
            node.id.as_str(),
            node.role.name(),
            node.timeline,
            node.applied_lsn,
            node.catch_up_mode,
            node.data.get(&Bytes::from("colour"))
        );
    }
    println!("\ntrace:\n{}", group.trace().to_text());
    Ok(())
}
