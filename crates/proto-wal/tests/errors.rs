//! Every bad call is an error naming the node, level or setting, and an
//! error changes no protocol state.

mod common;

use common::{b, group_with_sync, id};
use proto_wal::{
    AckLevel, GroupError, NetConfig, ReadLevel, ReplicationGroup, WalConfig, WalShippingGroup,
};

fn config_error(config: WalConfig) -> (String, String) {
    match WalShippingGroup::new(config) {
        Err(GroupError::Config { setting, reason }) => (setting, reason),
        Err(other) => panic!("expected a config error, got {other}"),
        Ok(_) => panic!("expected a config error, got a group"),
    }
}

#[test]
fn invalid_configurations_name_the_setting() {
    let d = WalConfig::default;
    let named = |primary: &str, standbys: &[&str]| {
        WalConfig::new(id(primary), standbys.iter().map(|s| id(s)))
    };
    let cases = [
        (d().with_retention(0), "retention"),
        (d().with_delay(0), "delay"),
        (d().with_ack_timeout(0), "ack_timeout"),
        (named("", &["standby-1"]), "primary"),
        (named("primary", &["a", "a"]), "standbys"),
        (named("primary", &["primary"]), "standbys"),
        (named("primary", &[""]), "standbys"),
        (
            d().with_synchronous_standbys([id("ghost")]),
            "synchronous_standbys",
        ),
        (
            d().with_synchronous_standbys([id("primary")]),
            "synchronous_standbys",
        ),
        (
            d().with_synchronous_standbys([id("standby-1"), id("standby-1")]),
            "synchronous_standbys",
        ),
    ];
    for (config, setting) in cases {
        let (got, reason) = config_error(config);
        assert_eq!(got, setting, "{reason}");
        assert!(!reason.is_empty());
    }
    let bad_net = NetConfig::default().with_delay_range(3, 1);
    match WalShippingGroup::with_network(WalConfig::default(), bad_net) {
        Err(GroupError::Config { setting, .. }) => assert_eq!(setting, "max_delay"),
        _ => panic!("a bad network config is a config error"),
    }
}

#[test]
fn defaults_follow_the_spec() {
    let c = WalConfig::default();
    assert_eq!(c.primary, id("primary"));
    assert_eq!(c.standbys, vec![id("standby-1"), id("standby-2")]);
    assert!(c.synchronous_standbys.is_empty());
    assert_eq!((c.retention, c.delay, c.ack_timeout, c.seed), (8, 1, 32, 0));
    let g = WalShippingGroup::new(c).unwrap();
    assert_eq!(
        g.node_ids(),
        vec![id("primary"), id("standby-1"), id("standby-2")]
    );
    assert_eq!(g.leader(), Some(id("primary")));
    assert_eq!(g.protocol(), "wal");
}

/// Runs `call`, asserts it failed with `expected`, and that the probe and
/// summary are unchanged.
fn assert_refused<T: std::fmt::Debug>(
    g: &mut WalShippingGroup,
    expected: GroupError,
    call: impl FnOnce(&mut WalShippingGroup) -> Result<T, GroupError>,
) {
    let (probe, summary) = (g.probe(), g.summary());
    let got = call(g);
    match got {
        Err(err) => assert_eq!(err, expected),
        Ok(v) => panic!("expected {expected}, got Ok({v:?})"),
    }
    assert_eq!(g.probe(), probe, "an error changed the probe ({expected})");
    assert_eq!(g.summary(), summary);
}

#[test]
fn operations_on_unknown_nodes_are_errors_that_change_nothing() {
    let mut g = group_with_sync(&["standby-1"]);
    g.client_write(b("k"), b("v"), AckLevel::Leader).unwrap();
    let ghost = id("ghost");
    let unknown = || GroupError::UnknownNode(id("ghost"));
    assert_refused(&mut g, unknown(), |g| g.crash(&ghost, false));
    assert_refused(&mut g, unknown(), |g| g.restart(&ghost));
    assert_refused(&mut g, unknown(), |g| g.isolate(&ghost));
    assert_refused(&mut g, unknown(), |g| g.heal(&ghost));
    assert_refused(&mut g, unknown(), |g| g.fsync(&ghost));
    assert_refused(&mut g, unknown(), |g| g.promote(&ghost));
    assert_refused(&mut g, unknown(), |g| g.failover(Some(&ghost)));
    assert_refused(&mut g, unknown(), |g| g.deliver_raw(&ghost, b"x"));
    assert_refused(&mut g, unknown(), |g| {
        g.write_at(&ghost, b("k"), b("v"), AckLevel::Leader)
    });
    assert_refused(&mut g, unknown(), |g| {
        g.client_read(b"k", ReadLevel::Local, Some(&ghost))
    });
}

#[test]
fn operations_needing_a_live_node_fail_on_a_crashed_one() {
    let mut g = group_with_sync(&[]);
    let s = id("standby-1");
    g.crash(&s, false).unwrap();
    let down = || GroupError::NodeDown(id("standby-1"));
    assert_refused(&mut g, down(), |g| g.crash(&s, true));
    assert_refused(&mut g, down(), |g| g.fsync(&s));
    assert_refused(&mut g, down(), |g| g.promote(&s));
    assert_refused(&mut g, down(), |g| g.deliver_raw(&s, b"x"));
    assert_refused(&mut g, down(), |g| {
        g.client_read(b"k", ReadLevel::Local, Some(&s))
    });
    assert_refused(&mut g, GroupError::AlreadyRunning(id("standby-2")), |g| {
        g.restart(&id("standby-2"))
    });

    g.crash(&id("primary"), false).unwrap();
    let primary_down = || GroupError::NodeDown(id("primary"));
    assert_eq!(g.leader(), None);
    assert_refused(&mut g, primary_down(), |g| {
        g.client_write(b("k"), b("v"), AckLevel::Leader)
    });
    assert_refused(&mut g, primary_down(), |g| {
        g.client_read(b"k", ReadLevel::Leader, None)
    });
    assert_refused(&mut g, primary_down(), |g| {
        g.client_read(b"k", ReadLevel::Local, None)
    });

    g.crash(&id("standby-2"), false).unwrap();
    let none_alive = GroupError::NoLeader("no alive standby to promote".into());
    assert_refused(&mut g, none_alive, |g| g.failover(None));
}

#[test]
fn refused_roles_and_levels_are_errors_that_change_nothing() {
    let mut g = group_with_sync(&[]);
    let primary = id("primary");
    let standby = id("standby-1");
    assert_refused(
        &mut g,
        GroupError::not_permitted(&primary, "already the primary"),
        |g| g.promote(&primary),
    );
    assert_refused(
        &mut g,
        GroupError::not_permitted(&standby, "not a primary: standbys are read-only"),
        |g| g.write_at(&standby, b("k"), b("v"), AckLevel::Leader),
    );
    assert_refused(
        &mut g,
        GroupError::not_permitted(&primary, "a primary does not receive WAL"),
        |g| g.deliver_raw(&primary, b"x"),
    );
    for level in [AckLevel::None, AckLevel::AllIsr] {
        assert_refused(
            &mut g,
            GroupError::UnsupportedAck {
                protocol: "wal",
                level,
            },
            |g| g.write_at(&primary, b("k"), b("v"), level),
        );
    }
    assert_refused(
        &mut g,
        GroupError::UnsupportedRead {
            protocol: "wal",
            level: ReadLevel::Linearizable,
        },
        |g| g.client_read(b"k", ReadLevel::Linearizable, Some(&id("ghost"))),
    );
}

#[test]
fn run_until_idle_reports_exhaustion_instead_of_spinning() {
    let mut g = group_with_sync(&[]);
    g.client_write(b("k"), b("v"), AckLevel::Leader).unwrap();
    match g.run_until_idle(0) {
        Err(GroupError::NotIdle { ticks, waiting_for }) => {
            assert_eq!(ticks, 0);
            assert!(waiting_for.contains("in flight"), "{waiting_for}");
        }
        other => panic!("expected NotIdle, got {other:?}"),
    }
    assert_eq!(g.run_until_idle(10), Ok(1));
    assert_eq!(g.run_until_idle(0), Ok(0), "an idle group needs no ticks");
}
