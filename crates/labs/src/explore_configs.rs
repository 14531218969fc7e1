//! The configurations the explorer checks: every registered protocol's
//! explorer rows ([`Registration::explorer_rows`]), each with a factory
//! that builds the row's group through the registration.
//!
//! [`Registration::explorer_rows`]: replication::Registration::explorer_rows

use explore::{Build, Configuration};
use replication::{Registry, ReplicationGroup};

use crate::protocol::registry;

/// Every configuration of the verdict table for the built-in protocols, in
/// table order: protocol, then the protocol's own row order.
pub fn explore_configs() -> Vec<Configuration> {
    explore_configs_in(&registry())
}

/// Every configuration of the protocols of `registry`, in table order.
pub fn explore_configs_in(registry: &Registry) -> Vec<Configuration> {
    let mut configs = Vec::new();
    for &protocol in registry.protocols() {
        let registration = protocol.registration();
        for row in registration.explorer_rows() {
            let settings = row.settings.clone();
            let config = Configuration::new(
                protocol.name(),
                row.ack,
                row.read,
                row.setting,
                move |build: &Build| {
                    let mut settings = settings.clone().with_seed(build.seed);
                    if let Some(n) = build.nodes {
                        settings.set("nodes", n.to_string());
                    }
                    for (knob, value) in &build.knobs {
                        // The row's own settings win over a drawn knob.
                        if settings.get(knob).is_none() {
                            settings.set(*knob, value.clone());
                        }
                    }
                    let group: Box<dyn ReplicationGroup> = registration.build(&settings)?;
                    Ok(group)
                },
            );
            configs.push(
                config
                    .with_min_schedules(row.min_schedules)
                    .with_transport(registration.transport())
                    .with_node_counts(registration.node_counts())
                    .with_knobs(registration.explorer_knobs()),
            );
        }
    }
    configs
}
