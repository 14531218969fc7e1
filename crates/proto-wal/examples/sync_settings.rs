//! `synchronous_standby_names` and `synchronous_commit`: `ANY 1` keeps
//! QUORUM writes available with one standby cut off, `remote_apply` makes
//! an acknowledged write readable on the standby despite a replay delay,
//! and `remote_write` loses an acknowledged write to a standby power loss.
//!
//! Run: `cargo run -p proto-wal --example sync_settings`

use proto_wal::prelude::*;

fn main() -> Result<(), GroupError> {
    let (s1, s2) = (NodeId::new("standby-1"), NodeId::new("standby-2"));

    let config =
        WalConfig::default().with_synchronous_standby_names("ANY 1 (standby-1, standby-2)")?;
    let mut group = WalShippingGroup::new(config)?;
    group.isolate(&s1)?;
    let ack = group.client_write(Bytes::from("k"), Bytes::from("v"), AckLevel::Quorum)?;
    println!("ANY 1 with {s1} cut off: {}", ack.message);

    let config = WalConfig::default()
        .with_synchronous_standbys([s2.clone()])
        .with_synchronous_commit(SynchronousCommit::RemoteApply)
        .with_recovery_min_apply_delay(3);
    let mut group = WalShippingGroup::new(config)?;
    let ack = group.client_write(Bytes::from("k"), Bytes::from("v"), AckLevel::Quorum)?;
    let read = group.client_read(b"k", ReadLevel::Local, Some(&s2))?;
    println!(
        "remote_apply: {} / {s2} reads {:?}",
        ack.message, read.value
    );

    let config = WalConfig::default()
        .with_synchronous_standbys([s1.clone()])
        .with_synchronous_commit(SynchronousCommit::RemoteWrite);
    let mut group = WalShippingGroup::new(config)?;
    let ack = group.client_write(Bytes::from("k"), Bytes::from("v"), AckLevel::Quorum)?;
    group.crash(&NodeId::new("primary"), false)?;
    group.crash(&s1, true)?;
    group.restart(&s1)?;
    group.failover(Some(&s1))?;
    group.run_until_idle(100)?;
    let read = group.client_read(b"k", ReadLevel::Leader, None)?;
    println!(
        "remote_write: acked {} then {s1} lost power and was promoted: k = {:?}",
        ack.accepted, read.value
    );
    Ok(())
}
