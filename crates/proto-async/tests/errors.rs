//! Every bad call is an error naming what is wrong, and changes nothing.

use proto_async::{AsyncConfig, AsyncPrimaryGroup};
use replication::{AckLevel, Bytes, GroupError, NodeId, ReadLevel, ReplicationGroup};

fn group() -> AsyncPrimaryGroup {
    AsyncPrimaryGroup::new(AsyncConfig::default()).expect("default config is valid")
}

fn id(name: &str) -> NodeId {
    NodeId::new(name)
}

/// Runs `op` and asserts it failed with `expected` leaving probe and trace unchanged.
fn refused(
    g: &mut AsyncPrimaryGroup,
    expected: GroupError,
    op: impl FnOnce(&mut AsyncPrimaryGroup) -> Result<(), GroupError>,
) {
    let before = (g.probe(), g.trace().clone(), g.summary());
    assert_eq!(op(g), Err(expected));
    assert_eq!((g.probe(), g.trace().clone(), g.summary()), before);
}

fn setting(config: AsyncConfig) -> String {
    match AsyncPrimaryGroup::new(config) {
        Err(GroupError::Config { setting, .. }) => setting,
        Err(other) => panic!("expected a config error, got {other}"),
        Ok(_) => panic!("expected a config error, got a group"),
    }
}

#[test]
fn invalid_configs_are_config_errors_naming_the_setting() {
    let d = AsyncConfig::default;
    assert_eq!(setting(AsyncConfig::new(id("primary"), vec![])), "replicas");
    assert_eq!(
        setting(AsyncConfig::new(id("primary"), vec![id("primary")])),
        "replicas"
    );
    assert_eq!(
        setting(AsyncConfig::new(id("primary"), vec![id("r"), id("r")])),
        "replicas"
    );
    assert_eq!(
        setting(AsyncConfig::new(id("primary"), vec![id("")])),
        "replicas"
    );
    assert_eq!(
        setting(AsyncConfig::new(id(""), [id("replica-1"), id("replica-2")])),
        "primary"
    );
    assert_eq!(setting(d().with_backlog_size(0)), "backlog_size");
    assert_eq!(setting(d().with_replication_delay(0)), "replication_delay");
}

#[test]
fn operations_on_an_unknown_node_are_unknown_node_errors() {
    let mut g = group();
    let ghost = id("ghost");
    let err = GroupError::UnknownNode(ghost.clone());
    refused(&mut g, err.clone(), |g| g.crash(&ghost, false));
    refused(&mut g, err.clone(), |g| g.crash(&ghost, true));
    refused(&mut g, err.clone(), |g| g.restart(&ghost));
    refused(&mut g, err.clone(), |g| g.isolate(&ghost));
    refused(&mut g, err.clone(), |g| g.heal(&ghost));
    let p = id("primary");
    refused(&mut g, err.clone(), |g| g.cut_link(&ghost, &p));
    refused(&mut g, err.clone(), |g| g.cut_link(&p, &ghost));
    refused(&mut g, err.clone(), |g| g.restore_link(&ghost, &p));
    refused(&mut g, err.clone(), |g| g.restore_link(&p, &ghost));
    refused(&mut g, err.clone(), |g| g.fsync(&ghost));
    refused(&mut g, err.clone(), |g| g.promote(&ghost));
    refused(&mut g, err.clone(), |g| g.failover(Some(&ghost)).map(drop));
    refused(&mut g, err.clone(), |g| {
        g.client_read(b"k", ReadLevel::Local, Some(&ghost))
            .map(drop)
    });
    refused(&mut g, err, |g| {
        g.write_at(&ghost, Bytes::from("k"), Bytes::from("v"), AckLevel::Leader)
            .map(drop)
    });
}

#[test]
fn operations_needing_a_crashed_node_alive_are_node_down_errors() {
    let mut g = group();
    let p = id("primary");
    let r = id("replica-1");
    g.crash(&p, false).unwrap();
    g.crash(&r, false).unwrap();
    let down = |n: &NodeId| GroupError::NodeDown(n.clone());
    refused(&mut g, down(&p), |g| {
        g.client_write(Bytes::from("k"), Bytes::from("v"), AckLevel::Leader)
            .map(drop)
    });
    refused(&mut g, down(&p), |g| {
        g.client_read(b"k", ReadLevel::Local, None).map(drop)
    });
    refused(&mut g, down(&r), |g| {
        g.client_read(b"k", ReadLevel::Local, Some(&r)).map(drop)
    });
    refused(&mut g, down(&r), |g| g.crash(&r, false));
    refused(&mut g, down(&r), |g| g.fsync(&r));
    refused(&mut g, down(&r), |g| g.promote(&r));
    refused(&mut g, down(&r), |g| g.failover(Some(&r)).map(drop));
    refused(&mut g, down(&r), |g| {
        g.write_at(&r, Bytes::from("k"), Bytes::from("v"), AckLevel::Leader)
            .map(drop)
    });
    refused(&mut g, down(&p), |g| g.wait(1, 3).map(drop));
    assert!(matches!(
        g.client_read(b"k", ReadLevel::Leader, None),
        Err(GroupError::NoLeader(_))
    ));
    assert_eq!(g.leader(), None);
}

#[test]
fn restarting_a_running_node_is_already_running() {
    let mut g = group();
    let r = id("replica-2");
    refused(&mut g, GroupError::AlreadyRunning(r.clone()), |g| {
        g.restart(&r)
    });
}

#[test]
fn promoting_the_current_primary_is_not_permitted() {
    let mut g = group();
    let p = id("primary");
    let before = g.probe();
    match g.promote(&p) {
        Err(GroupError::NotPermitted { node, .. }) => assert_eq!(node, p),
        other => panic!("expected NotPermitted, got {other:?}"),
    }
    assert_eq!(g.probe(), before);
}

#[test]
fn writing_at_a_replica_is_not_permitted() {
    let mut g = group();
    let r = id("replica-1");
    let before = g.probe();
    match g.write_at(&r, Bytes::from("k"), Bytes::from("v"), AckLevel::Leader) {
        Err(GroupError::NotPermitted { node, reason }) => {
            assert_eq!(node, r);
            assert!(reason.contains("READONLY"));
        }
        other => panic!("expected NotPermitted, got {other:?}"),
    }
    assert_eq!(g.probe(), before);
}

#[test]
fn unsupported_ack_level_is_reported_before_the_node_is_checked() {
    let mut g = group();
    g.crash(&id("primary"), false).unwrap();
    assert_eq!(
        g.client_write(Bytes::from("k"), Bytes::from("v"), AckLevel::Quorum),
        Err(GroupError::UnsupportedAck {
            protocol: "async",
            level: AckLevel::Quorum
        })
    );
}

#[test]
fn failover_without_an_alive_replica_is_no_leader() {
    let mut g = group();
    g.crash(&id("replica-1"), false).unwrap();
    g.crash(&id("replica-2"), false).unwrap();
    let before = g.probe();
    assert!(matches!(g.failover(None), Err(GroupError::NoLeader(_))));
    assert_eq!(g.probe(), before);
}

#[test]
fn run_until_idle_past_its_bound_is_not_idle() {
    let mut g = group();
    g.client_write(Bytes::from("k"), Bytes::from("v"), AckLevel::Leader)
        .unwrap();
    match g.run_until_idle(0) {
        Err(GroupError::NotIdle { ticks, waiting_for }) => {
            assert_eq!(ticks, 0);
            assert!(
                waiting_for.contains("output buffers not empty"),
                "{waiting_for}"
            );
        }
        other => panic!("expected NotIdle, got {other:?}"),
    }
    assert_eq!(g.run_until_idle(5), Ok(1));
    assert_eq!(g.run_until_idle(5), Ok(0));
}
