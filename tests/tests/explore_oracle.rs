//! The explorer alone as a test: every verdict status of
//! `docs/guarantees.md` (the first table: holds / violated / unknown per
//! row and property) must come out of a fresh sweep unchanged.
//!
//! This is the test command `cargo xtask mutants --oracle explore` gives
//! cargo-mutants, so a mutant counts as caught only when the explorer's own
//! verdicts tell it from the original — a property that held breaks (a
//! lost write, a stale read, a broken invariant, a stall), or one that was
//! violated no longer is. Counts (`violated in K of N`) are not compared: a
//! mutant that only moves timing is not caught by a different count.
//!
//! It is `#[ignore]`d (a sweep of every row is a release-build job, not a
//! debug unit test); run it with
//!
//! ```text
//! MINIDIST_ORACLE_PROTOCOL=raft cargo test --profile oracle -p tests --test explore_oracle -- --ignored
//! ```
//!
//! `MINIDIST_ORACLE_PROTOCOL` (`async`, `wal`, `isr`, `raft`; unset: all)
//! picks the rows; `MINIDIST_ORACLE_SCHEDULES` (default 2000, CI's count)
//! the schedules per row, each row's own floor honoured.

use std::collections::BTreeMap;

use explore::{Property, Status, SweepOptions, sweep};

/// Schedules of each row in the oracle's first pass.
const PROBE: u64 = 100;

/// The statuses of one row, in [`Property::ALL`] order.
type Row = [Status; 5];

/// The first table of `docs/guarantees.md`, by configuration key
/// (`raft.quorum.linearizable.default`).
fn pinned() -> BTreeMap<String, Row> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/guarantees.md");
    let text = std::fs::read_to_string(path).expect("docs/guarantees.md is readable");
    let table = text.split("\n## ").next().unwrap_or_default();
    let mut rows = BTreeMap::new();
    for line in table.lines().filter(|l| l.starts_with("| ")) {
        let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
        if cells.len() != 4 + Property::ALL.len() || cells[0] == "protocol" {
            continue;
        }
        let status = |cell: &str| {
            let first = cell.split_whitespace().next().unwrap_or_default();
            Status::from_name(first).unwrap_or_else(|| panic!("{line}: a cell starting {first:?}"))
        };
        let row: Row = std::array::from_fn(|i| status(cells[4 + i]));
        rows.insert(cells[..4].join("."), row);
    }
    rows
}

#[test]
fn the_pinned_table_names_every_configuration() {
    let pinned = pinned();
    for config in labs::explore_configs() {
        assert!(
            pinned.contains_key(&config.key()),
            "{} has no row in docs/guarantees.md",
            config.key()
        );
    }
    assert_eq!(pinned.len(), labs::explore_configs().len());
}

#[test]
#[ignore = "the explorer as mutation oracle: a release-build sweep, run by `cargo xtask mutants --oracle explore`"]
fn explorer_verdicts_match_the_pinned_table() {
    let protocol = std::env::var("MINIDIST_ORACLE_PROTOCOL").ok();
    let schedules = std::env::var("MINIDIST_ORACLE_SCHEDULES")
        .ok()
        .map(|s| {
            s.parse::<u64>()
                .expect("MINIDIST_ORACLE_SCHEDULES is a number")
        })
        .unwrap_or(2000);
    let pinned = pinned();
    let options = SweepOptions {
        schedules,
        jobs: 2,
        shrink: false,
        ..SweepOptions::default()
    };
    let configs: Vec<_> = labs::explore_configs()
        .into_iter()
        .filter(|c| protocol.as_deref().is_none_or(|p| p == c.protocol))
        .collect();
    let want_of = |key: &str| {
        *pinned
            .get(key)
            .unwrap_or_else(|| panic!("{key} has no row in docs/guarantees.md"))
    };
    // A first pass over each row's first schedules (the same seeds the
    // full sweep starts with): a verdict pinned `holds` that breaks there
    // fails at once. A mutant that stalls every run (each wait then lasts
    // its whole bound, 500 times a healthy run's ticks) breaks `recovers`
    // in most schedules, and is caught here in seconds instead of running
    // the full sweeps past cargo-mutants' timeout.
    let probe = SweepOptions {
        schedules: PROBE.min(schedules),
        floors: false,
        ..options
    };
    for config in &configs {
        let want = want_of(&config.key());
        for v in sweep(config, &probe).unwrap_or_default() {
            assert!(
                !(want[v.property.index()] == Status::Holds && v.status == Status::Violated),
                "the explorer's verdicts changed:\n{} {}: pinned holds, violated in {} of the first {} schedules",
                config.key(),
                v.property,
                v.violations,
                v.schedules
            );
        }
    }
    let mut changed = Vec::new();
    let mut rows = 0;
    for config in &configs {
        rows += 1;
        let want = want_of(&config.key());
        let verdicts = match sweep(config, &options) {
            Ok(v) => v,
            Err(e) => {
                changed.push(format!("{}: the sweep failed: {e}", config.key()));
                continue;
            }
        };
        for v in verdicts {
            let pinned = want[v.property.index()];
            if v.status != pinned {
                changed.push(format!(
                    "{} {}: pinned {}, now {} ({} of {} violated)",
                    config.key(),
                    v.property,
                    pinned.name(),
                    v.status.name(),
                    v.violations,
                    v.schedules
                ));
            }
        }
    }
    assert!(rows > 0, "no configuration of protocol {protocol:?}");
    assert!(
        changed.is_empty(),
        "the explorer's verdicts changed:\n{}",
        changed.join("\n")
    );
}
