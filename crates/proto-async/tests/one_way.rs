//! One-way cuts: the sentinel demotes an old primary only when it can talk
//! to the new one both ways; a one-way cut defers the demotion.

use proto_async::{AsyncConfig, AsyncPrimaryGroup};
use replication::{NodeId, ReplicationGroup};

fn n(name: &str) -> NodeId {
    NodeId::new(name)
}

fn promote_across_one_way_cut(from: &str, to: &str) -> AsyncPrimaryGroup {
    let mut g = AsyncPrimaryGroup::new(AsyncConfig::default()).expect("valid config");
    g.cut_link(&n(from), &n(to)).unwrap();
    g.failover(Some(&n("replica-1"))).unwrap();
    g
}

fn deferred(g: &AsyncPrimaryGroup) -> bool {
    g.trace().to_text().lines().any(|l| {
        l.contains("async_demotion_deferred")
            && l.contains("node=primary")
            && l.contains("reason=\"unreachable\"")
    })
}

#[test]
fn old_primary_cut_one_way_towards_the_new_primary_is_not_demoted() {
    let g = promote_across_one_way_cut("primary", "replica-1");
    assert!(deferred(&g), "{}", g.trace().to_text());
    assert!(!g.trace().to_text().contains("async_demoted"));
}

#[test]
fn old_primary_cut_one_way_from_the_new_primary_is_not_demoted() {
    let g = promote_across_one_way_cut("replica-1", "primary");
    assert!(deferred(&g), "{}", g.trace().to_text());
    assert!(!g.trace().to_text().contains("async_demoted"));
}
