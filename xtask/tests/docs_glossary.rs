//! The guide's glossary: every term a newcomer meets before the page that
//! explains it is defined there, and the start page links it before its
//! legend uses those terms.

use std::path::PathBuf;

fn doc(path: &str) -> String {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn the_glossary_defines_the_terms_the_start_page_and_the_report_use() {
    let glossary = doc("docs/glossary.md");
    let defined: Vec<String> = glossary
        .lines()
        .filter_map(|l| l.strip_prefix("- **"))
        .filter_map(|l| l.split_once("**").map(|(term, _)| term.to_lowercase()))
        .collect();
    for term in [
        "linearizable",
        "nemesis",
        "shrinking",
        "hw (high watermark)",
        "lsn (log sequence number)",
        "psync",
        "read index",
        "installsnapshot",
        "done / failed / unknown",
        "state line",
    ] {
        assert!(
            defined.iter().any(|d| d == term),
            "the glossary does not define {term:?} (defines: {defined:?})"
        );
    }
    let mut sorted = defined.clone();
    sorted.sort();
    assert_eq!(defined, sorted, "the glossary is in alphabetical order");
}

#[test]
fn the_start_page_links_the_glossary_before_its_legend_uses_psync_lsn_or_hw() {
    let start = doc("docs/README.md");
    let link = start
        .find("(glossary.md)")
        .expect("docs/README.md links glossary.md");
    for word in ["PSYNC", "LSN", "HW", "read index", "InstallSnapshot"] {
        let used = start
            .find(word)
            .unwrap_or_else(|| panic!("the start page no longer uses {word}"));
        assert!(link < used, "{word} is used before the glossary is linked");
    }
}
