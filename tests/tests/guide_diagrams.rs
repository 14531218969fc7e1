//! The space-time diagrams embedded in the guide (`docs/img/*.svg`) are
//! exactly what `cargo xtask diagram` draws from a fresh run today.

mod common;

use labs::Protocol;
use labs::diagram_of;

/// Every diagram the guide embeds: file under `docs/img/`, experiment,
/// protocol, variant.
const GUIDE_DIAGRAMS: [(&str, u8, Protocol, &str); 8] = [
    ("exp1-wal-quorum.svg", 1, common::WAL, "quorum"),
    ("exp2-async-default.svg", 2, common::ASYNC, "default"),
    ("exp2-raft-default.svg", 2, common::RAFT, "default"),
    ("exp3-wal-default.svg", 3, common::WAL, "default"),
    ("exp4-isr-min_insync_3.svg", 4, common::ISR, "min_insync_3"),
    ("exp5-async-default.svg", 5, common::ASYNC, "default"),
    ("exp6-isr-default.svg", 6, common::ISR, "default"),
    ("exp7-isr-default.svg", 7, common::ISR, "default"),
];

/// The counterexample diagrams of the Kafka ladder page: file under
/// `docs/img/`, replay id (drawn as `cargo xtask explore --replay ID
/// --diagram FILE` draws them).
const COUNTEREXAMPLE_DIAGRAMS: [(&str, &str); 3] = [
    (
        "ladder-hw.svg",
        "isr.all_isr.linearizable.fetch_hw-s192-16.17.21.35.42",
    ),
    (
        "ladder-kip101.svg",
        "isr.all_isr.linearizable.fetch_kip101-s8-0.1.6.7",
    ),
    (
        "ladder-last-replica.svg",
        "isr.all_isr.linearizable.fetch_kip320_one_power_loss-s114-0.25.26.27.34",
    ),
];

#[test]
fn every_counterexample_diagram_of_the_guide_matches_a_fresh_replay() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/img");
    let mut stale = Vec::new();
    for (file, id) in COUNTEREXAMPLE_DIAGRAMS {
        let committed = std::fs::read_to_string(dir.join(file))
            .unwrap_or_else(|e| panic!("docs/img/{file}: {e}"));
        let replay: explore::ReplayId = id.parse().expect("replay id");
        let config = labs::explore_configs()
            .into_iter()
            .find(|c| c.key() == replay.config)
            .expect("the id's configuration");
        let (_, report) = explore::replay(&config, &replay).expect("replays");
        let fresh = diagram::render_svg(
            report.group.trace(),
            &diagram::DiagramOptions::titled(format!("counterexample {id}")),
        );
        if committed != fresh {
            stale.push(format!(
                "cargo xtask explore --replay {id} --diagram docs/img/{file}"
            ));
        }
    }
    assert!(
        stale.is_empty(),
        "stale counterexample diagrams; regenerate with:\n{}",
        stale.join("\n")
    );
}

#[test]
fn every_diagram_embedded_in_the_guide_matches_a_fresh_run() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/img");
    let mut stale = Vec::new();
    for (file, experiment, protocol, variant) in GUIDE_DIAGRAMS {
        let committed = std::fs::read_to_string(dir.join(file))
            .unwrap_or_else(|e| panic!("docs/img/{file}: {e}"));
        if committed != diagram_of(common::run(experiment, protocol, variant)) {
            stale.push(format!(
                "cargo xtask diagram --experiment {experiment} --protocol {protocol} \
                 --variant {variant} -o docs/img/{file}"
            ));
        }
    }
    assert!(
        stale.is_empty(),
        "stale guide diagrams; regenerate with:\n{}",
        stale.join("\n")
    );
}

#[test]
fn every_svg_under_docs_img_is_checked_by_this_test() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/img");
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .expect("docs/img exists")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        // The PNGs are screenshots of the debugger (the browser test
        // takes them again, into target/browser-shots).
        .filter(|name| name.ends_with(".svg"))
        .collect();
    files.sort();
    let mut listed: Vec<String> = GUIDE_DIAGRAMS
        .iter()
        .map(|d| d.0.to_owned())
        .chain(COUNTEREXAMPLE_DIAGRAMS.iter().map(|d| d.0.to_owned()))
        .collect();
    listed.sort();
    assert_eq!(files, listed);
}
