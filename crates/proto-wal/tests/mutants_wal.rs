//! Behaviour pinned because a mutation of it survived every other test
//! (`cargo xtask mutants --package proto-wal`, issue #19).

mod common;

use common::b;
use proto_wal::{AckLevel, ReplicationGroup, WalConfig, WalShippingGroup};

#[test]
fn debug_output_names_the_live_primary_and_the_timeline() {
    let mut g = WalShippingGroup::new(WalConfig::default()).expect("valid config");
    g.client_write(b("k"), b("v"), AckLevel::Leader).unwrap();
    let text = format!("{g:?}");
    assert!(text.starts_with("WalShippingGroup"), "{text}");
    assert!(
        text.contains(r#"leader: Some("primary")"#),
        "the live primary is named: {text}"
    );
    assert!(text.contains("timeline: 1"), "{text}");
    assert!(text.contains("nodes: 3"), "{text}");
}

#[test]
fn config_returns_the_configuration_the_group_was_built_with() {
    let config = WalConfig::default().with_retention(7).with_seed(42);
    let g = WalShippingGroup::new(config.clone()).expect("valid config");
    assert_eq!(g.config(), &config);
    assert_eq!(g.config().retention, 7);
}
