//! Pinned traces: a behaviour change shows up as a reviewed diff.

use proto_raft::{RaftConfig, RaftGroup};
use replication::{AckLevel, ReadLevel, ReplicationGroup};

#[test]
fn election_quorum_write_and_read_index_trace() {
    let mut g = RaftGroup::new(RaftConfig::default()).expect("group");
    g.run_until_leader(None, 100).expect("leader");
    g.client_write("k".into(), "v".into(), AckLevel::Quorum)
        .expect("write");
    g.client_read(b"k", ReadLevel::Linearizable, None)
        .expect("read");
    g.run_until_idle(100).expect("idle");
    insta::assert_snapshot!("election_quorum_write_and_read_index", g.trace().to_text());
}
