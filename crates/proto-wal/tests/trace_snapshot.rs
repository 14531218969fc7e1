//! The trace of a small promotion scenario, pinned as reviewed text.

mod common;

use common::{b, group_with_sync, id};
use proto_wal::{AckLevel, ReplicationGroup};

#[test]
fn promotion_with_a_queued_record_fences_the_old_timeline_and_rebases_everyone() {
    let mut g = group_with_sync(&["standby-1"]);
    g.client_write(b("k"), b("v1"), AckLevel::Quorum).unwrap();
    g.isolate(&id("primary")).unwrap();
    g.write_at(&id("primary"), b("k"), b("v2"), AckLevel::Leader)
        .unwrap();
    g.failover(None).unwrap();
    g.client_write(b("k"), b("v3"), AckLevel::Quorum).unwrap();
    g.heal(&id("primary")).unwrap();
    g.run_until_idle(100).unwrap();
    g.check_invariants().unwrap();
    insta::assert_snapshot!("promotion_fences_old_timeline", g.trace().to_text());
}
