//! The Kafka ladder: each rung's counterexample, found and
//! shrunk by the explorer, pinned by its replay id and run on every rung's
//! row — the table of docs/kafka-ladder.md. Schedules are drawn from the
//! protocol's knobs and transport, which every fetch row shares, so one id
//! names one schedule on each of them.

use explore::{Property, ReplayId};

/// The counterexamples, by the rung whose row found them.
const HW: &str = "isr.all_isr.linearizable.fetch_hw-s192-16.17.21.35.42";
const KIP101: &str = "isr.all_isr.linearizable.fetch_kip101-s8-0.1.6.7";
const KIP279: &str = "isr.all_isr.linearizable.fetch_kip279-s2634-4.6.7.14.20.22.25.26.32.33.39.40.41.43.51.52.61.64.67.70.72.73.85.86.91.93.97.101.102";
const LAST_REPLICA: &str =
    "isr.all_isr.linearizable.fetch_kip320_one_power_loss-s114-0.25.26.27.34";

const ROWS: [&str; 7] = [
    "fetch_hw",
    "fetch_kip101",
    "fetch_kip279",
    "fetch_kip320",
    "fetch_elr",
    "fetch_kip320_one_power_loss",
    "fetch_elr_one_power_loss",
];

/// Which of durable, linearizable, invariants the schedule of `id` breaks
/// on the row `setting`, as `D`, `L`, `I` (`-` for none).
fn broken_on(id: &str, setting: &str) -> String {
    let mut id: ReplayId = id.parse().expect("replay id");
    let row = id.config.rsplit_once('.').expect("a setting").0.to_owned();
    id.config = format!("{row}.{setting}");
    let config = labs::explore_configs()
        .into_iter()
        .find(|c| c.key() == id.config)
        .unwrap_or_else(|| panic!("no configuration {}", id.config));
    let (_, report) = explore::replay(&config, &id).expect("replays");
    let mut out = String::new();
    for (p, letter) in [
        (Property::Durable, 'D'),
        (Property::Linearizable, 'L'),
        (Property::Invariants, 'I'),
    ] {
        if report.check(p).is_violated() {
            out.push(letter);
        }
    }
    if out.is_empty() {
        out.push('-');
    }
    out
}

fn table(id: &str) -> Vec<String> {
    ROWS.iter().map(|row| broken_on(id, row)).collect()
}

#[test]
fn truncating_to_the_own_high_watermark_loses_an_acknowledged_record_on_the_hw_rung_only() {
    // A follower becoming follower truncates to its own HW, below the
    // leader's: the acknowledged record is gone once the leader fails.
    assert_eq!(table(HW), ["DLI", "-", "-", "-", "-", "-", "-"]);
}

#[test]
fn the_fast_leader_change_diverges_the_logs_on_kip101_only() {
    // KAFKA-6361: the leader re-elected without appending answers its log
    // end for an epoch it never had; the follower keeps a divergent record
    // below HW. KIP-279's epoch in the answer repairs it.
    assert_eq!(table(KIP101), ["-", "I", "-", "-", "-", "-", "-"]);
}

#[test]
fn a_stale_fetch_raises_hw_above_a_follower_below_kip320() {
    // KAFKA-6880's class: a fetch sent in an old epoch reaches the same
    // broker leading a later one, which takes its offset as the follower's
    // position after the follower truncated. KIP-320 fences it.
    assert_eq!(table(KIP279), ["I", "-", "I", "-", "-", "-", "-"]);
}

#[test]
fn the_last_replica_standing_loses_a_committed_record_without_elr_only() {
    // With a flush per record (the first five rows) the power loss loses
    // nothing; without it, below ELR the last ISR member comes back empty
    // and is elected.
    assert_eq!(table(LAST_REPLICA), ["-", "-", "-", "-", "-", "DL", "-"]);
}
