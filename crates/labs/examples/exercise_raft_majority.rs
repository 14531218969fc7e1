//! Guide exercise (raft): in a five-node group, how many followers can be
//! cut off before a QUORUM write stops committing and a LINEARIZABLE read
//! is fenced?
//!
//! Run: `cargo run -p labs --example exercise_raft_majority`

use proto_raft::{
    AckLevel, Bytes, GroupError, NodeId, RaftConfig, RaftGroup, ReadLevel, ReplicationGroup,
};

fn main() -> Result<(), GroupError> {
    let mut g = RaftGroup::new(RaftConfig::new(["n1", "n2", "n3", "n4", "n5"]))?;
    let leader = g.run_until_leader(None, 200)?;
    let followers: Vec<NodeId> = g.node_ids().into_iter().filter(|n| *n != leader).collect();
    for (cut, follower) in followers.iter().take(3).enumerate() {
        g.isolate(follower)?;
        let value = Bytes::from(format!("v{}", cut + 1));
        let write = g.client_write(Bytes::from("k"), value, AckLevel::Quorum)?;
        let read = match g.client_read(b"k", ReadLevel::Linearizable, None) {
            Ok(read) => format!("served {:?}", read.value.unwrap_or_default()),
            Err(GroupError::ReadBlocked { guard, .. }) => format!("blocked ({guard})"),
            Err(other) => return Err(other),
        };
        println!(
            "{} of 5 cut off: QUORUM write accepted {}; LINEARIZABLE read {read}",
            cut + 1,
            write.accepted
        );
        let cut_off = cut + 1;
        assert_eq!(write.accepted, cut_off <= 2, "a majority is 3 of 5");
    }
    Ok(())
}
