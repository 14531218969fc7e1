//! The guide's "Operations in flight" example (docs/scenarios.md), compiled and run.

use proto_raft::prelude::*;
use proto_raft::{RaftConfig, RaftGroup};

#[test]
fn readme_operations_in_flight() -> Result<(), GroupError> {
    let mut g = RaftGroup::new(RaftConfig::default())?;
    g.run_until_leader(None, 100)?;
    let a = g.submit(ClientOp::write("k", "v1", AckLevel::Quorum))?;
    let b = g.submit(ClientOp::write("k", "v2", AckLevel::Quorum))?;
    let r = g.submit(ClientOp::read("k", ReadLevel::Linearizable))?;
    while g.take_completion(r).is_none() {
        g.tick();
    } // a and b complete too
    let done: Vec<Completion> = g.take_completions();
    for c in &done {
        println!("{} {} at tick {}", c.id, c.outcome.status().name(), c.completed);
    }
    assert_eq!(done.iter().map(|c| c.id).collect::<Vec<_>>(), vec![a, b]);
    Ok(())
}
