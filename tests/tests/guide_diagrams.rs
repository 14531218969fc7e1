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
        .collect();
    files.sort();
    let mut listed: Vec<String> = GUIDE_DIAGRAMS.iter().map(|d| d.0.to_owned()).collect();
    listed.sort();
    assert_eq!(files, listed);
}
