//! Explore one configuration — Redis-shaped async replication, writes
//! acknowledged by the primary alone — over 200 seeded fault schedules,
//! then replay the shrunk counterexample.
//!
//! Run: `cargo run -p sim-explore --example explore_one`

use explore::{Configuration, Property, Status, SweepOptions};
use proto_async::{AckLevel, AsyncConfig, AsyncPrimaryGroup, ReadLevel, ReplicationGroup};

fn main() -> Result<(), proto_async::GroupError> {
    let config = Configuration::new(
        "async",
        AckLevel::Leader,
        ReadLevel::Leader,
        "default",
        |build: &explore::Build| {
            AsyncPrimaryGroup::new(AsyncConfig::default().with_seed(build.seed))
                .map(|g| Box::new(g) as Box<dyn ReplicationGroup>)
        },
    )
    .with_transport(replication::Transport::Stream);
    let verdicts = explore::sweep(&config, &SweepOptions::default())?;
    for v in &verdicts {
        println!(
            "{:<13} {} ({} schedules)",
            v.property.name(),
            v.status.name(),
            v.schedules
        );
    }
    let durable = verdicts
        .iter()
        .find(|v| v.property == Property::Durable && v.status == Status::Violated);
    if let Some(cx) = durable.and_then(|v| v.counterexample.as_ref()) {
        println!(
            "\nsmallest schedule that loses an acknowledged write: {}",
            cx.replay
        );
        let (schedule, report) = explore::replay(&config, &cx.replay)?;
        println!("  profile: {}", schedule.profile);
        for step in &schedule.steps {
            println!("  {step}");
        }
        println!("{}", report.check(Property::Durable));
    }
    Ok(())
}
