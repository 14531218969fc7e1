//! `cargo xtask report --scenario FILE`: any scenario file gets a site — an
//! index of its parts × protocols and, per part a protocol ran, the
//! directives with that protocol's output, the diagram, the state panel
//! and the trace. No sweep runs, so this is quick.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("minidist-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn xtask(args: &[&str], out: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .current_dir(root())
        .args(args)
        .arg("--out")
        .arg(out)
        .env("NO_COLOR", "1")
        .output()
        .expect("xtask runs")
}

fn parse(text: &str) -> roxmltree::Document<'_> {
    roxmltree::Document::parse_with_options(
        text,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..roxmltree::ParsingOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("not well-formed: {e}"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The text of the element with id `id`.
fn text_of(doc: &roxmltree::Document<'_>, id: &str) -> String {
    let node = doc
        .descendants()
        .find(|n| n.attribute("id") == Some(id))
        .unwrap_or_else(|| panic!("no #{id}"));
    node.descendants()
        .filter(|n| n.is_text())
        .filter_map(|n| n.text())
        .collect()
}

#[test]
fn a_scenario_file_gets_an_index_and_a_page_per_part_with_diagram_state_and_trace() {
    let out = temp_dir("report-scenario");
    let run = xtask(
        &["report", "--scenario", "docs/exercises/isr-min-insync.txt"],
        &out,
    );
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(stdout.starts_with("wrote 4 files to "), "{stdout}");

    let index = read(&out.join("index.html"));
    let doc = parse(&index);
    let hrefs: Vec<&str> = doc
        .descendants()
        .filter_map(|n| n.attribute("href"))
        .filter(|h| h.starts_with("parts/"))
        .collect();
    assert_eq!(hrefs, ["parts/part1-isr.html", "parts/part2-isr.html"]);
    for href in &hrefs {
        assert!(out.join(href).is_file(), "{href} is written");
    }
    // The index shows the file as `cargo xtask run` prints it.
    let rendered = text_of(&doc, "rendered");
    assert!(
        rendered.contains("isr: unknown offset=1 (ALL_ISR)"),
        "{rendered}"
    );

    let page = read(&out.join("parts/part1-isr.html"));
    let doc = parse(&page);
    let transcript = text_of(&doc, "transcript");
    assert!(
        transcript.starts_with("config protocols=isr lag_timeout=1 min_insync=2\n----\nok\n"),
        "{transcript}"
    );
    assert!(
        transcript.contains("refused (ALL_ISR): refused before append"),
        "{transcript}"
    );
    assert!(
        !transcript.contains("unknown offset=1"),
        "part 2's output is not on part 1's page: {transcript}"
    );
    // The diagram, titled as `cargo xtask diagram FILE --part 1` titles it.
    assert!(
        page.contains("<svg") && page.contains("isr-min-insync.txt · isr · part 1"),
        "no diagram"
    );
    // The state panel: at tick 1 both slow followers have left the ISR.
    let tick1 = doc
        .descendants()
        .find(|n| n.has_tag_name("tbody") && n.attribute("data-tick") == Some("1"))
        .expect("the state table has tick 1");
    let row: Vec<String> = tick1
        .descendants()
        .find(|n| n.has_tag_name("tr") && n.attribute("data-node") == Some("node-1"))
        .expect("node-1's row")
        .children()
        .filter(|c| c.is_element())
        .map(|c| {
            c.descendants()
                .filter(|n| n.is_text())
                .filter_map(|n| n.text())
                .collect()
        })
        .collect();
    assert_eq!(row[..2], ["node-1".to_owned(), "leader".to_owned()]);
    assert!(row.contains(&"{node-1}".to_owned()), "{row:?}");
    assert!(page.contains("id=\"trace\""), "the trace section");
}

#[test]
fn a_scenario_report_of_a_malformed_file_is_a_file_line_error_and_writes_nothing() {
    let out = temp_dir("report-scenario-bad");
    let file = std::env::temp_dir().join(format!("minidist-bad-{}.txt", std::process::id()));
    std::fs::write(&file, "tick\n\nisolate node=nobody\n").expect("written");
    let run = xtask(
        &["report", "--scenario", file.to_str().expect("utf-8 path")],
        &out,
    );
    assert_eq!(run.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains(":3: unknown node `nobody`"), "{stderr}");
    assert!(!out.exists(), "nothing written");
}

#[test]
fn a_scenario_report_takes_no_sweep_options() {
    let out = temp_dir("report-scenario-usage");
    let run = xtask(
        &[
            "report",
            "--scenario",
            "docs/exercises/wal-promote.txt",
            "--schedules",
            "3",
        ],
        &out,
    );
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("cannot be used with"));
}

#[test]
fn every_page_of_a_scenario_site_is_well_formed_and_its_local_links_resolve() {
    // The tour uses every directive, and one part whose isr group cannot
    // be built (its page says why instead of drawing).
    let out = temp_dir("report-scenario-tour");
    let run = xtask(
        &[
            "report",
            "--scenario",
            "crates/labs/scenarios/tour-of-directives.txt",
        ],
        &out,
    );
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let mut pages = vec![out.join("index.html")];
    let mut parts: Vec<PathBuf> = std::fs::read_dir(out.join("parts"))
        .expect("parts/")
        .map(|e| e.expect("entry").path())
        .collect();
    parts.sort();
    assert!(parts.len() >= 8, "{parts:?}");
    pages.extend(parts);
    let mut failed_groups = 0;
    for page in &pages {
        let text = read(page);
        let doc = parse(&text);
        let dir = page.parent().expect("a folder");
        for href in doc.descendants().filter_map(|n| n.attribute("href")) {
            let file = href.split('#').next().unwrap_or("");
            if file.is_empty() || file.contains("://") {
                continue;
            }
            assert!(dir.join(file).is_file(), "{}: {href}", page.display());
        }
        failed_groups += usize::from(text.contains("id=\"no-group\""));
    }
    assert_eq!(failed_groups, 1, "the isr part with min_insync=9");
}
