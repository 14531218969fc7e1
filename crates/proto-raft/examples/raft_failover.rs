//! A three-node Raft group: election, a QUORUM write, a read-index read,
//! the leader crashes, the others elect a new one, the write survives; a
//! read-index round on an isolated old leader is fenced.
//!
//! Run: `cargo run -p proto-raft --example raft_failover`

use proto_raft::{AckLevel, GroupError, RaftConfig, RaftGroup, ReadLevel, ReplicationGroup};

fn main() -> Result<(), GroupError> {
    let mut group = RaftGroup::new(RaftConfig::default())?;
    let leader = group.run_until_leader(None, 100)?;
    println!("tick {}: {leader} elected", group.now());

    let w = group.client_write("k".into(), "v1".into(), AckLevel::Quorum)?;
    println!(
        "write k=v1: accepted={} index={:?} ({})",
        w.accepted, w.offset, w.message
    );
    let r = group.client_read(b"k", ReadLevel::Linearizable, None)?;
    println!("linearizable read on {}: {:?}", r.node, r.value);

    group.crash(&leader, false)?;
    let new_leader = group.failover(None)?;
    let r = group.client_read(b"k", ReadLevel::Linearizable, Some(&new_leader))?;
    println!("{leader} crashed; {new_leader} elected; k = {:?}", r.value);

    group.restart(&leader)?;
    group.run_until_converged(200)?;
    group.isolate(&new_leader)?;
    let third = group.failover(None)?;
    group.client_write("k".into(), "v2".into(), AckLevel::Quorum)?;
    match group.client_read(b"k", ReadLevel::Linearizable, Some(&new_leader)) {
        Err(err) => println!("{new_leader} isolated, {third} leads: {err}"),
        Ok(read) => println!("unexpected: served {:?}", read.value),
    }
    for node in group.probe().nodes {
        println!(
            "{:7} {:9} term {} log end {} commit {} data {:?}",
            node.id.as_str(),
            node.role.name(),
            node.term,
            node.last_index(),
            node.commit_index,
            node.data
        );
    }
    Ok(())
}
