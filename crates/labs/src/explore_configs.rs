//! The configurations the explorer checks: every registered protocol's
//! explorer rows ([`Registration::explorer_rows`]), each with a factory
//! that builds the row's group through the registration.
//!
//! [`Registration::explorer_rows`]: replication::Registration::explorer_rows

use explore::{Build, Configuration, read_snake};
use replication::{ExplorerRow, PlantedBug, Protocol, Registry, ReplicationGroup};

use crate::protocol::registry;

thread_local! {
    /// Set while [`recording_states`] runs on this thread.
    static RECORD_STATES: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` with every group an explorer configuration builds on this
/// thread recording its node state lines
/// ([`ReplicationGroup::record_states`]) — for a replayed counterexample's
/// state panel; sweeps, on their own threads, stay unrecorded and keep
/// their speed.
pub fn recording_states<T>(f: impl FnOnce() -> T) -> T {
    struct Reset(bool);
    impl Drop for Reset {
        fn drop(&mut self) {
            RECORD_STATES.with(|r| r.set(self.0));
        }
    }
    let _reset = Reset(RECORD_STATES.with(|r| r.replace(true)));
    f()
}

/// Every configuration of the verdict table for the built-in protocols, in
/// table order: protocol, then the protocol's own row order.
pub fn explore_configs() -> Vec<Configuration> {
    explore_configs_in(&registry())
}

/// Every planted bug of the built-in protocols, with its configuration.
pub fn planted_configs() -> Vec<(PlantedBug, Configuration)> {
    planted_configs_in(&registry())
}

/// Every configuration of the protocols of `registry`, in table order.
pub fn explore_configs_in(registry: &Registry) -> Vec<Configuration> {
    let mut configs = Vec::new();
    for &protocol in registry.protocols() {
        for row in protocol.registration().explorer_rows() {
            configs.push(configuration(protocol, row));
        }
    }
    configs
}

/// Every planted bug of the protocols of `registry`, each with the
/// configuration of its row plus `planted=NAME` (the group builds only when
/// the protocol crate has its `planted` feature).
pub fn planted_configs_in(registry: &Registry) -> Vec<(PlantedBug, Configuration)> {
    let mut out = Vec::new();
    for &protocol in registry.protocols() {
        let registration = protocol.registration();
        for bug in registration.planted_bugs() {
            let Some(mut row) = registration
                .explorer_rows()
                .into_iter()
                .find(|r| (r.ack.snake(), read_snake(r.read), r.setting) == bug.row)
            else {
                continue;
            };
            row.settings.set("planted", bug.name);
            out.push((bug, configuration(protocol, row).with_planted(bug.name)));
        }
    }
    out
}

/// The explorer's configuration of `row` of `protocol`.
fn configuration(protocol: Protocol, row: ExplorerRow) -> Configuration {
    let registration = protocol.registration();
    {
        {
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
                    let mut group: Box<dyn ReplicationGroup> = registration.build(&settings)?;
                    if RECORD_STATES.with(std::cell::Cell::get) {
                        group.record_states();
                    }
                    Ok(group)
                },
            );
            config
                .with_min_schedules(row.min_schedules)
                .with_max_power_losses(row.max_power_losses)
                .with_transport(row.transport.unwrap_or_else(|| registration.transport()))
                .with_node_counts(registration.node_counts())
                .with_knobs(
                    registration
                        .explorer_knobs()
                        .into_iter()
                        .filter(|k| row.settings.get(k.name).is_none())
                        .collect(),
                )
        }
    }
}
