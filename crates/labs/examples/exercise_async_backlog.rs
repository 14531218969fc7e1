//! Guide exercise (async): how many writes can a replica miss and still
//! resynchronise *partially* (Redis `+CONTINUE`) instead of in *full*
//! (`+FULLRESYNC`)? A fresh group per gap, `backlog_size = 4`.
//!
//! Run: `cargo run -p labs --example exercise_async_backlog`

use proto_async::{
    AckLevel, AsyncConfig, AsyncPrimaryGroup, Bytes, GroupError, NodeId, ReplicationGroup,
};

/// The catch-up mode of `replica-1` after it missed `missed` writes.
fn mode_after_missing(missed: usize, backlog: usize) -> Result<String, GroupError> {
    let mut g = AsyncPrimaryGroup::new(AsyncConfig::default().with_backlog_size(backlog))?;
    let replica = NodeId::new("replica-1");
    g.crash(&replica, false)?;
    for i in 0..missed {
        g.client_write(
            Bytes::from("k"),
            Bytes::from(format!("v{i}")),
            AckLevel::Leader,
        )?;
    }
    g.restart(&replica)?;
    g.run_until_idle(100)?;
    let probe = g.probe();
    let node = probe
        .node(&replica)
        .ok_or(GroupError::UnknownNode(replica.clone()))?;
    assert_eq!(
        node.offset, missed as u64,
        "the replica caught up either way"
    );
    Ok(node.catch_up_mode.name().to_owned())
}

fn main() -> Result<(), GroupError> {
    let backlog = 4;
    for missed in 1..=backlog + 2 {
        let mode = mode_after_missing(missed, backlog)?;
        println!("backlog {backlog}, missed {missed}: {mode}");
        let expected = if missed <= backlog { "partial" } else { "full" };
        assert_eq!(mode, expected, "missed {missed}");
    }
    Ok(())
}
