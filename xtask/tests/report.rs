//! `cargo xtask report`, built once into a temporary directory: every page
//! is well-formed, every local link resolves, nothing is loaded from
//! elsewhere, and the pages hold what they promise.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// Explorer schedules per configuration: enough to find counterexamples,
/// few enough for a debug build.
const SCHEDULES: &str = "12";

/// The site, built on first use.
fn site() -> &'static Path {
    static SITE: OnceLock<PathBuf> = OnceLock::new();
    SITE.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("minidist-report-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let out = Command::new(env!("CARGO_BIN_EXE_xtask"))
            .env("MINIDIST_REEXEC", "0")
            .args([
                "report",
                "--ignore-floors",
                "--schedules",
                SCHEDULES,
                "--out",
            ])
            .arg(&dir)
            .env_remove("RUST_LOG")
            .output()
            .expect("xtask runs");
        assert!(
            out.status.success(),
            "report failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        dir
    })
}

/// Every file of the site, by path relative to its top (`/`-separated).
fn files(root: &Path) -> BTreeMap<String, PathBuf> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("readable dir") {
            let path = entry.expect("dir entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path
                    .strip_prefix(root)
                    .expect("under root")
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join("/");
                out.insert(rel, path);
            }
        }
    }
    out
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

/// `base/../x.html` → `x.html`; `None` when it leaves the site.
fn resolve(page: &str, target: &str) -> Option<String> {
    let mut parts: Vec<&str> = page.split('/').collect();
    parts.pop();
    for piece in target.split('/') {
        match piece {
            "." | "" => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    Some(parts.join("/"))
}

fn ids(doc: &roxmltree::Document<'_>) -> Vec<String> {
    doc.descendants()
        .filter_map(|n| n.attribute("id"))
        .map(str::to_owned)
        .collect()
}

fn links(doc: &roxmltree::Document<'_>) -> Vec<String> {
    doc.descendants()
        .flat_map(|n| {
            n.attributes()
                .filter(|a| a.name() == "href" || a.name() == "src")
                .map(|a| a.value().to_owned())
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn every_page_is_well_formed_and_every_local_link_resolves() {
    let root = site();
    let files = files(root);
    let pages: BTreeMap<&String, String> = files
        .iter()
        .filter(|(rel, _)| rel.ends_with(".html"))
        .map(|(rel, path)| (rel, std::fs::read_to_string(path).expect("utf-8 page")))
        .collect();
    assert!(pages.len() > 30, "only {} pages", pages.len());
    let mut page_ids: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (rel, text) in &pages {
        let doc = parse(text);
        let html = doc.root_element();
        assert_eq!(html.tag_name().name(), "html", "{rel}");
        let title = html
            .descendants()
            .find(|n| n.has_tag_name("title") && n.parent().is_some_and(|p| p.has_tag_name("head")))
            .and_then(|n| n.text())
            .unwrap_or_default();
        assert!(!title.trim().is_empty(), "{rel}: no title");
        assert!(
            html.descendants().any(|n| n.has_tag_name("h1")),
            "{rel}: no heading"
        );
        let list = ids(&doc);
        let set: BTreeSet<String> = list.iter().cloned().collect();
        assert_eq!(set.len(), list.len(), "{rel}: duplicate ids");
        page_ids.insert((*rel).clone(), set);
        assert!(
            !text.contains(&root.display().to_string()),
            "{rel}: names the absolute output directory"
        );
    }
    for (rel, text) in &pages {
        let doc = parse(text);
        for link in links(&doc) {
            assert!(
                !link.contains("://") && !link.starts_with('/') && !link.starts_with("data:"),
                "{rel}: {link} is not a relative link"
            );
            let (file, fragment) = link.split_once('#').unwrap_or((&link, ""));
            let target = if file.is_empty() {
                (*rel).clone()
            } else {
                resolve(rel, file).unwrap_or_else(|| panic!("{rel}: {link} leaves the site"))
            };
            assert!(
                files.contains_key(&target),
                "{rel}: {link} → {target} is missing"
            );
            if !fragment.is_empty() {
                let ids = page_ids
                    .get(&target)
                    .unwrap_or_else(|| panic!("{rel}: {link}: fragment into a non-page"));
                assert!(ids.contains(fragment), "{rel}: {link}: no id `{fragment}`");
            }
        }
    }
}

#[test]
fn every_matrix_cell_links_to_its_run_page_and_every_counterexample_to_its_page() {
    let root = site();
    let files = files(root);
    let index = std::fs::read_to_string(root.join("index.html")).expect("index");
    let doc = parse(&index);
    let matrix = doc
        .descendants()
        .find(|n| n.has_tag_name("table") && n.attribute("id") == Some("matrix"))
        .expect("the matrix table");
    let mut cells = 0;
    let mut linked = BTreeSet::new();
    for td in matrix.descendants().filter(|n| n.has_tag_name("td")) {
        let is_title = td.prev_sibling_element().is_none()
            || td
                .prev_sibling_element()
                .is_some_and(|p| p.prev_sibling_element().is_none());
        if is_title || td.text() == Some("–") {
            continue;
        }
        cells += 1;
        let hrefs: Vec<&str> = td
            .descendants()
            .filter(|n| n.has_tag_name("a"))
            .filter_map(|a| a.attribute("href"))
            .collect();
        assert!(!hrefs.is_empty(), "a matrix cell without a link");
        for href in hrefs {
            assert!(href.starts_with("runs/"), "{href}");
            linked.insert(href.to_owned());
        }
    }
    assert!(cells >= 28, "only {cells} cells");
    let run_pages: BTreeSet<String> = files
        .keys()
        .filter(|k| k.starts_with("runs/"))
        .cloned()
        .collect();
    assert_eq!(linked, run_pages, "matrix links ≠ run pages");

    let mut violated = 0;
    let mut cited = BTreeSet::new();
    for td in doc
        .descendants()
        .filter(|n| n.has_tag_name("td") && n.attribute("class") == Some("violated"))
    {
        violated += 1;
        let href = td
            .descendants()
            .find(|n| n.has_tag_name("a"))
            .and_then(|a| a.attribute("href"))
            .expect("a violated verdict links to its counterexample");
        assert!(href.starts_with("counterexamples/"), "{href}");
        cited.insert(href.to_owned());
    }
    assert!(violated > 0, "no violated verdict in the guarantees table");
    let cx_pages: BTreeSet<String> = files
        .keys()
        .filter(|k| k.starts_with("counterexamples/"))
        .cloned()
        .collect();
    assert_eq!(
        cited, cx_pages,
        "counterexample links ≠ counterexample pages"
    );
}

#[test]
fn the_durability_cells_of_the_matrix_are_green_when_acked_writes_survived_and_red_when_not() {
    let index = std::fs::read_to_string(site().join("index.html")).expect("index");
    let doc = parse(&index);
    let class_of = |href: &str| {
        doc.descendants()
            .find(|n| n.has_tag_name("a") && n.attribute("href") == Some(href))
            .unwrap_or_else(|| panic!("a matrix link to {href}"))
            .attribute("class")
    };
    // Experiment 2: async loses the acknowledged write, raft keeps it.
    assert_eq!(class_of("runs/exp2-async-default.html"), Some("lost"));
    assert_eq!(class_of("runs/exp2-raft-default.html"), Some("survived"));
    assert_eq!(class_of("runs/exp2-wal-quorum.html"), Some("survived"));
    // Experiment 3: the cut-off async primary acknowledges its write, the
    // cut-off raft leader does not.
    assert_eq!(class_of("runs/exp3-async-default.html"), Some("lost"));
    assert_eq!(class_of("runs/exp3-raft-default.html"), Some("survived"));
    // The other experiments are not coloured.
    assert_eq!(class_of("runs/exp4-isr-default.html"), None);
    assert!(index.contains("Experiments 2 and 3 test durability"));
}

fn xtask_stdout(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .env("MINIDIST_REEXEC", "0")
        .args(args)
        .env_remove("RUST_LOG")
        .output()
        .expect("xtask runs");
    assert!(out.status.success(), "{args:?}");
    String::from_utf8(out.stdout).expect("utf-8")
}

#[test]
fn the_exp3_isr_page_shows_the_diagram_the_observed_values_the_legend_and_the_trace() {
    let root = site();
    let text = std::fs::read_to_string(root.join("runs/exp3-isr-default.html")).expect("page");
    let doc = parse(&text);
    let svg = doc
        .descendants()
        .find(|n| n.has_tag_name("svg"))
        .expect("an inline SVG diagram");
    let classes = |class: &str| {
        svg.descendants()
            .filter(|n| {
                n.attribute("class")
                    .is_some_and(|c| c.split(' ').any(|w| w == class))
            })
            .count()
    };
    assert_eq!(classes("lane"), 3, "one lane per node");
    assert!(
        classes("msg") > 0 && classes("reject") > 0,
        "messages and fenced ones"
    );

    // The observed values are exactly those `matrix --json` prints.
    let json: serde_json::Value = serde_json::from_str(&xtask_stdout(&[
        "matrix",
        "--json",
        "--experiment",
        "3",
        "--protocol",
        "isr",
    ]))
    .expect("json");
    let observed = json["runs"][0]["observed"].as_object().expect("observed");
    let table = doc
        .descendants()
        .find(|n| n.attribute("id") == Some("observed"))
        .expect("observed table");
    let rows: BTreeMap<String, String> = table
        .descendants()
        .filter(|n| n.has_tag_name("tr"))
        .filter_map(|tr| {
            let tds: Vec<_> = tr.children().filter(|c| c.has_tag_name("td")).collect();
            match tds.as_slice() {
                [k, v] => Some((
                    k.text().unwrap_or_default().to_owned(),
                    v.text().unwrap_or_default().to_owned(),
                )),
                _ => None,
            }
        })
        .collect();
    assert_eq!(rows.len(), observed.len());
    assert_eq!(
        rows["fenced_messages"],
        observed["fenced_messages"].to_string()
    );
    assert_eq!(
        rows["old_leader_role_after"],
        observed["old_leader_role_after"]
    );
    assert!(
        text.contains("<dt>fenced: N</dt>"),
        "the legend explains fenced"
    );
    let trace_rows = doc
        .descendants()
        .find(|n| n.attribute("id") == Some("trace-table"))
        .expect("trace table")
        .descendants()
        .filter(|n| n.has_tag_name("tr") && n.attribute("data-kind").is_some())
        .count();
    let trace_lines = xtask_stdout(&["trace", "--experiment", "3", "--protocol", "isr"])
        .lines()
        .count();
    assert_eq!(trace_rows, trace_lines, "one row per trace event");
}

#[test]
fn a_counterexample_page_has_the_schedule_the_history_and_the_diagram() {
    let root = site();
    let files = files(root);
    let (_, path) = files
        .iter()
        .find(|(k, _)| k.starts_with("counterexamples/"))
        .expect("a counterexample page");
    let text = std::fs::read_to_string(path).expect("page");
    let doc = parse(&text);
    for id in ["schedule", "verdict", "history", "diagram", "trace"] {
        assert!(
            doc.descendants().any(|n| n.attribute("id") == Some(id)),
            "no #{id}"
        );
    }
    assert!(
        doc.descendants().any(|n| n.has_tag_name("li")
            && n.parent()
                .is_some_and(|p| p.attribute("class") == Some("schedule"))),
        "an empty schedule"
    );
    let timeline = doc
        .descendants()
        .find(|n| n.attribute("class") == Some("timeline"))
        .and_then(|n| n.text())
        .expect("the history timeline");
    assert!(timeline.contains("ticks:"), "{timeline}");
    assert!(
        doc.descendants().any(|n| n.has_tag_name("svg")
            && n.descendants()
                .any(|d| d.attribute("class") == Some("lane"))),
        "no diagram"
    );
}

#[test]
fn a_counterexample_page_of_a_linearizability_violation_draws_the_stuck_operation() {
    let root = site();
    let files = files(root);
    let mut drawn = 0;
    for (rel, path) in files
        .iter()
        .filter(|(k, _)| k.starts_with("counterexamples/"))
    {
        let text = std::fs::read_to_string(path).expect("page");
        let doc = parse(&text);
        assert!(
            doc.descendants()
                .any(|n| n.attribute("id") == Some("lincheck")),
            "{rel}: no #lincheck section"
        );
        let picture = doc
            .descendants()
            .find(|n| n.attribute("class") == Some("lincheck"))
            .unwrap_or_else(|| panic!("{rel}: no lincheck picture"));
        let violated = picture
            .descendants()
            .any(|n| n.attribute("class") == Some("lc-op lc-stuck"));
        if violated {
            drawn += 1;
            assert!(
                picture.descendants().any(|n| n.has_tag_name("svg")
                    && n.descendants()
                        .any(|d| d.attribute("class") == Some("lc-client"))),
                "{rel}: the picture has no client lanes"
            );
            assert!(
                picture
                    .descendants()
                    .any(|n| n.attribute("class") == Some("lc-explanation")),
                "{rel}: the violation is not explained under the picture"
            );
            // The space-time diagram marks the operation the checker could
            // not place, named above it.
            let named = doc
                .descendants()
                .find(|n| n.attribute("id") == Some("violating-op"))
                .and_then(|n| n.text())
                .unwrap_or_else(|| panic!("{rel}: the violating operation is not named"));
            assert!(named.contains("in the trace"), "{rel}: {named}");
            let diagram = doc
                .descendants()
                .find(|n| n.attribute("class") == Some("diagram"))
                .unwrap_or_else(|| panic!("{rel}: no diagram"));
            assert!(
                diagram.descendants().any(|n| n
                    .attribute("class")
                    .is_some_and(|c| c.split(' ').any(|w| w == "violating"))),
                "{rel}: the diagram does not mark the violating operation"
            );
        }
        assert!(
            doc.descendants()
                .any(|n| n.attribute("id") == Some("state-panel")),
            "{rel}: no state panel"
        );
    }
    assert!(drawn > 0, "no counterexample page draws a violation");
}

#[test]
fn the_exp3_isr_page_has_a_state_panel_with_every_nodes_state_at_each_changed_tick() {
    let text = std::fs::read_to_string(site().join("runs/exp3-isr-default.html")).expect("page");
    let doc = parse(&text);
    let body = doc
        .descendants()
        .find(|n| n.has_tag_name("tbody") && n.attribute("data-tick") == Some("77"))
        .expect("the state at tick 77");
    let rows: Vec<Vec<String>> = body
        .children()
        .filter(|n| n.has_tag_name("tr"))
        .map(|tr| {
            tr.children()
                .filter(|c| c.is_element())
                .map(|c| c.text().unwrap_or("").to_owned())
                .collect()
        })
        .collect();
    // node, role, epoch, LEO, HW, ISR, durable, catch-up
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[0][..5], ["node-1", "follower", "2", "2", "2"]);
    assert_eq!(rows[1][5], "{node-1,node-2,node-3}");
    let nemesis: Vec<&str> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("nemesis"))
        .filter_map(|n| n.attribute("data-tick"))
        .collect();
    assert_eq!(nemesis, ["1", "76"], "the isolation and the heal");
    // The run's whole diagram shows (its legend included), with the panel
    // kept in view at the bottom of the window beside it.
    assert!(
        doc.descendants()
            .any(|n| n.attribute("class") == Some("diagram whole")),
        "the run page's diagram is in a fixed-height box"
    );
    let css = std::fs::read_to_string(site().join("style.css")).expect("style.css");
    assert!(
        css.contains(".diagram.whole { max-height: none; }"),
        "{css}"
    );
    assert!(css.contains("position: sticky; bottom: 0;"), "{css}");
}

#[test]
fn report_refuses_zero_schedules() {
    let out = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .env("MINIDIST_REEXEC", "0")
        .args(["report", "--schedules", "0", "--out"])
        .arg(std::env::temp_dir().join("minidist-report-never-written"))
        .output()
        .expect("xtask runs");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn report_to_a_folder_it_cannot_write_fails_before_running_anything() {
    let file = std::env::temp_dir().join(format!("minidist-report-a-file-{}", std::process::id()));
    std::fs::write(&file, "not a folder").expect("a file");
    let out = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .env("MINIDIST_REEXEC", "0")
        .args(["report", "--schedules", "1", "--out"])
        .arg(file.join("site"))
        .env_remove("RUST_LOG")
        .output()
        .expect("xtask runs");
    let _ = std::fs::remove_file(&file);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot write the report to") && err.contains("(nothing was run)"),
        "{err}"
    );
}
