//! A strong write travels head → middle → tail; the tail answers the
//! linearizable read.
//!
//! Run: `cargo run --manifest-path examples/chain/Cargo.toml --example chain_write`

use proto_chain::ChainGroup;
use replication::{AckLevel, GroupError, NodeId, ReadLevel, ReplicationGroup};

fn main() -> Result<(), GroupError> {
    let nodes = ["chain-1", "chain-2", "chain-3"].map(NodeId::new).to_vec();
    let mut chain = ChainGroup::new(nodes, 1)?;
    let write = chain.client_write("k".into(), "v".into(), AckLevel::AllIsr)?;
    println!(
        "write: accepted={} offset={:?}",
        write.accepted, write.offset
    );
    let read = chain.client_read(b"k", ReadLevel::Linearizable, None)?;
    println!("read at {}: {:?}", read.node, read.value);
    print!("{}", chain.trace().to_text());
    Ok(())
}
