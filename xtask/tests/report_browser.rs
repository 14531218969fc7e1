//! The report in a real browser: headless Chromium loads the index, the
//! experiment 3 ISR run page and a counterexample page with lincheck's
//! picture of a violation from the file system, lincheck's own page of a
//! violated history and a `report --scenario` part page (its state panel
//! opened at the tick its link names), dumps the DOM and takes a
//! screenshot of each.
//!
//! Ignored by default (it needs Chromium); `.ci/run` installs Chromium and
//! runs it with `cargo test -p xtask --test report_browser -- --ignored`.
//! `MINIDIST_REPORT_DIR` points it at a report already built (otherwise it
//! builds one in a temporary directory); `CHROMIUM` names the browser
//! binary (default: `chromium`, then `chromium-browser`).

mod cdp;
mod http;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How long one browser run may take before it is killed.
const BROWSER_TIMEOUT: Duration = Duration::from_secs(120);

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("minidist-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// The report to load: `MINIDIST_REPORT_DIR`, or one built on first use.
fn site() -> PathBuf {
    static SITE: OnceLock<PathBuf> = OnceLock::new();
    SITE.get_or_init(build_site).clone()
}

fn build_site() -> PathBuf {
    if let Some(dir) = std::env::var_os("MINIDIST_REPORT_DIR") {
        let dir = PathBuf::from(dir);
        assert!(
            dir.join("index.html").is_file(),
            "MINIDIST_REPORT_DIR={} has no index.html",
            dir.display()
        );
        return std::fs::canonicalize(dir).expect("report dir");
    }
    let dir = temp_dir("report-browser-site");
    let out = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .env("MINIDIST_REEXEC", "0")
        .args(["report", "--schedules", "12", "--out"])
        .arg(&dir)
        .env_remove("RUST_LOG")
        .output()
        .expect("xtask runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir
}

use cdp::chromium;

/// Runs headless Chromium on `page` with `extra` arguments and a fresh
/// profile, killing it after [`BROWSER_TIMEOUT`].
fn browse(page: &Path, extra: &[String]) -> Output {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let profile = temp_dir(&format!(
        "chromium-profile-{}",
        RUNS.fetch_add(1, Ordering::Relaxed)
    ));
    let mut child = Command::new(chromium())
        .args(cdp::HEADLESS)
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("chromium starts");
    let start = Instant::now();
    // Read stdout on a thread so a large DOM cannot fill the pipe.
    let mut stdout = child.stdout.take().expect("piped stdout");
    let reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = std::io::Read::read_to_end(&mut stdout, &mut text);
        text
    });
    loop {
        if child.try_wait().expect("wait for chromium").is_some() {
            break;
        }
        if start.elapsed() > BROWSER_TIMEOUT {
            let _ = child.kill();
            panic!(
                "chromium did not finish {} in {BROWSER_TIMEOUT:?}",
                page.display()
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let mut output = child.wait_with_output().expect("chromium output");
    output.stdout = reader.join().expect("reader thread");
    let _ = std::fs::remove_dir_all(&profile);
    output
}

/// The page's DOM after load, as Chromium serializes it.
fn dump_dom(page: &Path) -> String {
    let out = browse(page, &["--dump-dom".to_owned()]);
    assert!(
        out.status.success(),
        "chromium --dump-dom {} failed: {}",
        page.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A screenshot of the page's first 1400×1000 pixels, decoded to RGBA.
fn screenshot(page: &Path, name: &str) -> (u32, u32, Vec<u8>) {
    screenshot_with(page, name, &[])
}

/// [`screenshot`] with `extra` browser arguments.
fn screenshot_with(page: &Path, name: &str, extra: &[&str]) -> (u32, u32, Vec<u8>) {
    let file = std::env::temp_dir().join(format!("minidist-{name}-{}.png", std::process::id()));
    let _ = std::fs::remove_file(&file);
    let mut args = vec![
        format!("--screenshot={}", file.display()),
        "--window-size=1400,1000".to_owned(),
    ];
    args.extend(extra.iter().map(|a| (*a).to_owned()));
    let out = browse(page, &args);
    assert!(
        out.status.success() && file.is_file(),
        "chromium --screenshot {} failed: {}",
        page.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let mut decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(&file).expect("screenshot"),
    ));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("buffer size")];
    let info = reader.next_frame(&mut buf).expect("a PNG frame");
    buf.truncate(info.buffer_size());
    let channels = info.color_type.samples();
    let rgba: Vec<u8> = buf
        .chunks(channels)
        .flat_map(|px| match px {
            [g] => [*g, *g, *g, 255],
            [g, a] => [*g, *g, *g, *a],
            [r, g, b] => [*r, *g, *b, 255],
            [r, g, b, a] => [*r, *g, *b, *a],
            _ => unreachable!("1 to 4 samples per pixel"),
        })
        .collect();
    println!("screenshot of {}: {}", page.display(), file.display());
    (info.width, info.height, rgba)
}

/// Fails if the picture is blank: one colour, or nearly all one colour.
fn assert_not_blank(name: &str, (width, height, rgba): &(u32, u32, Vec<u8>)) {
    assert_eq!((*width, *height), (1400, 1000), "{name}: screenshot size");
    let mut counts = std::collections::BTreeMap::new();
    for px in rgba.chunks(4) {
        *counts.entry([px[0], px[1], px[2]]).or_insert(0usize) += 1;
    }
    let total = rgba.len() / 4;
    let most = counts.values().copied().max().unwrap_or(0);
    assert!(
        counts.len() >= 16,
        "{name}: only {} colours in the screenshot",
        counts.len()
    );
    assert!(
        most * 100 < total * 97,
        "{name}: {most} of {total} pixels are one colour"
    );
}

/// The text of the page's body, tags removed.
fn body_text(dom: &str) -> String {
    let body = dom.split_once("<body").map_or("", |(_, b)| b);
    let mut text = String::new();
    let mut in_tag = false;
    for c in body.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => text.push(c),
            _ => {}
        }
    }
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Every `href` / `src` of the DOM resolves to a file of the site.
fn assert_links_resolve(page: &Path, dom: &str) {
    let dir = page.parent().expect("page dir");
    let mut checked = 0;
    for attr in [" href=\"", " src=\""] {
        for piece in dom.split(attr).skip(1) {
            let link = piece.split('"').next().unwrap_or_default();
            assert!(
                !link.contains("://") && !link.starts_with('/'),
                "{}: {link} is not a relative link",
                page.display()
            );
            let file = link.split('#').next().unwrap_or_default();
            if !file.is_empty() {
                assert!(
                    dir.join(file).is_file(),
                    "{}: broken link {link}",
                    page.display()
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 0, "{}: no links", page.display());
}

#[test]
#[ignore = "needs Chromium; run with --ignored (CI does)"]
fn chromium_renders_the_index_with_its_matrix_and_working_links() {
    let site = site();
    let index = site.join("index.html");
    let dom = dump_dom(&index);
    assert!(
        body_text(&dom).len() > 2000,
        "the index is (nearly) blank: {}",
        body_text(&dom)
    );
    assert!(
        dom.contains("<table class=\"matrix\" id=\"matrix\">"),
        "no matrix table"
    );
    assert!(
        dom.contains("id=\"guarantees-table\""),
        "no guarantees table"
    );
    assert!(
        dom.matches("href=\"runs/").count() >= 28,
        "the matrix cells do not link to their runs"
    );
    assert_links_resolve(&index, &dom);
    assert_not_blank("index", &screenshot(&index, "report-index"));
}

#[test]
#[ignore = "needs Chromium; run with --ignored (CI does)"]
fn chromium_renders_the_exp3_isr_page_with_its_diagram() {
    let site = site();
    let page = site.join("runs").join("exp3-isr-default.html");
    let dom = dump_dom(&page);
    assert!(
        body_text(&dom).len() > 2000,
        "the run page is (nearly) blank"
    );
    let svg = dom
        .split_once("<svg")
        .map(|(_, rest)| rest.split_once("</svg>").map_or(rest, |(s, _)| s))
        .expect("the page has an SVG diagram");
    assert_eq!(
        svg.matches("class=\"lane\"").count(),
        3,
        "one lane per node"
    );
    assert!(svg.contains("class=\"msg"), "no message arrows");
    assert!(svg.contains("class=\"reject"), "no fenced message marked");
    // The filter script ran: it un-hides the form.
    let form = dom
        .split_once("id=\"trace-filter\"")
        .map(|(before, after)| {
            let start = before.rfind('<').unwrap_or(0);
            format!(
                "{}{}",
                &before[start..],
                after.split('>').next().unwrap_or("")
            )
        })
        .expect("the trace filter");
    assert!(
        !form.contains("hidden"),
        "the filter script did not run: {form}"
    );
    assert_links_resolve(&page, &dom);
    assert_not_blank("exp3 isr", &screenshot(&page, "report-exp3-isr"));
}

/// The elements of `dom` whose `class` attribute is exactly `class`.
fn count_class(dom: &str, class: &str) -> usize {
    dom.matches(&format!("class=\"{class}\"")).count()
}

#[test]
#[ignore = "needs Chromium; run with --ignored (CI does)"]
fn chromium_renders_a_counterexample_with_lincheck_s_picture_of_the_violation() {
    let site = site();
    let mut pages: Vec<PathBuf> = std::fs::read_dir(site.join("counterexamples"))
        .expect("counterexamples")
        .map(|e| e.expect("entry").path())
        .filter(|p| {
            std::fs::read_to_string(p).is_ok_and(|t| t.contains("class=\"lc-op lc-stuck\""))
        })
        .collect();
    pages.sort();
    let page = pages
        .first()
        .expect("a counterexample page drawing a linearizability violation");
    let dom = dump_dom(page);
    let picture = dom
        .split_once("<div class=\"lincheck\">")
        .map(|(_, rest)| rest)
        .expect("the lincheck picture");
    assert!(picture.contains("<svg"), "no SVG in the picture");
    assert_eq!(
        count_class(picture, "lc-op lc-stuck"),
        1,
        "one stuck operation"
    );
    assert!(count_class(picture, "lc-client") >= 2, "client lanes");
    assert!(
        picture.contains("<details class=\"lc-partition\" open="),
        "the violated key is open"
    );
    assert_links_resolve(page, &dom);
    assert_not_blank("counterexample", &screenshot(page, "report-counterexample"));
}

#[test]
#[ignore = "needs Chromium; run with --ignored (CI does)"]
fn chromium_renders_lincheck_s_own_page_of_a_violated_history() {
    use lincheck::synthetic::{PartitionsShape, partitions_history};
    // Ten keys: the expensive one, eight linearizable ones, one refuted.
    let shape = PartitionsShape {
        hard_ops: 60,
        hard_clients: 4,
        ops: 600,
        ..PartitionsShape::default()
    };
    let history = partitions_history(1, shape);
    let options = lincheck::CheckOptions::default().with_witness(true);
    let result = lincheck::check(&lincheck::KvModel, &history, &options).expect("a valid history");
    assert!(result.violation().is_some(), "{}", result.verdict);
    let page = temp_dir("lincheck-page").join("violation.html");
    let html =
        lincheck::html::history_page(&lincheck::KvModel, &history, Some(&result), "a violation");
    std::fs::write(&page, html).expect("page written");
    let dom = dump_dom(&page);
    assert_eq!(count_class(&dom, "lc-partition"), 10, "one section per key");
    assert_eq!(
        count_class(&dom, "lc-op lc-stuck"),
        1,
        "one stuck operation"
    );
    assert!(count_class(&dom, "lc-point") > 10, "linearization points");
    assert!(body_text(&dom).contains("not linearizable"), "the verdict");
    assert_not_blank("lincheck page", &screenshot(&page, "lincheck-violation"));
}

/// A page that loads the experiment 3 ISR run page in a frame, clicks the
/// diagram's tick label `t=77` (the tick the old leader's appends are
/// fenced at) and then the state panel's button for tick 76, and writes
/// what the panel showed after each click into `#out`:
/// `shown=T body=B rows=node|role|…;…` (file pages may read each other
/// with `--allow-file-access-from-files`).
fn click_harness(run_page: &Path) -> PathBuf {
    let page = temp_dir("state-click").join("click.html");
    let html = format!(
        r###"<!DOCTYPE html><html><body><pre id="out">not run</pre>
<iframe id="f" src="file://{}" width="1380" height="940"></iframe>
<script>
function panel(d) {{
  var p = d.getElementById("state-panel");
  var body = d.querySelector("#state-table tbody:not([hidden])");
  var rows = Array.prototype.slice.call(body.rows).map(function (r) {{
    return Array.prototype.slice.call(r.cells).map(function (c) {{
      return c.textContent + (c.className === "changed" ? "*" : "");
    }}).join("|");
  }});
  return "shown=" + p.getAttribute("data-shown-tick") + " body=" + body.getAttribute("data-tick") +
    " caption=" + d.getElementById("state-caption").textContent.replace(/ /g, "_") + " rows=" + rows.join(";");
}}
document.getElementById("f").addEventListener("load", function () {{
  var out = document.getElementById("out");
  try {{
    var d = document.getElementById("f").contentDocument;
    var label = Array.prototype.slice.call(d.querySelectorAll(".diagram svg .axis text"))
      .filter(function (t) {{ return t.textContent === "t=77"; }})[0];
    label.dispatchEvent(new MouseEvent("click", {{bubbles: true}}));
    var first = panel(d);
    d.querySelector("#state-ticks button[data-tick='76']").click();
    var second = panel(d);
    d.querySelector("#state-ticks button[data-tick='77']").click();
    d.getElementById("state").scrollIntoView();
    out.textContent = first + "\n" + second + "\n";
  }} catch (e) {{ out.textContent = "error " + e; }}
}});
</script></body></html>"###,
        run_page.display()
    );
    std::fs::write(&page, html).expect("harness written");
    page
}

#[test]
#[ignore = "needs Chromium; run with --ignored (CI does)"]
fn clicking_a_tick_of_the_exp3_isr_page_shows_every_node_s_hw_and_isr_at_that_tick() {
    let site = site();
    let run_page = site.join("runs").join("exp3-isr-default.html");
    let harness = click_harness(&run_page);
    let out = browse(
        &harness,
        &[
            "--allow-file-access-from-files".to_owned(),
            "--dump-dom".to_owned(),
        ],
    );
    let dom = String::from_utf8_lossy(&out.stdout).into_owned();
    let text = dom
        .split_once("<pre id=\"out\">")
        .and_then(|(_, rest)| rest.split_once("</pre>"))
        .map(|(t, _)| t.to_owned())
        .expect("the harness output");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    // Clicked t=77 on the diagram: the old leader node-1, fenced and
    // truncated, is a follower of epoch 2 with HW 2, back in the ISR.
    let at_77 = lines[0];
    assert!(
        at_77.starts_with("shown=77 body=77 caption=state_at_tick_77 "),
        "{at_77}"
    );
    let rows = at_77.split_once("rows=").map_or("", |(_, r)| r);
    let rows: Vec<Vec<&str>> = rows.split(';').map(|r| r.split('|').collect()).collect();
    assert_eq!(rows.len(), 3, "{at_77}");
    // node | role | epoch | LEO | HW | ISR | durable | catch-up
    assert_eq!(
        rows[0][..6],
        ["node-1", "follower", "2", "2", "2*", ""],
        "{at_77}"
    );
    assert_eq!(
        rows[1][..6],
        ["node-2", "leader", "2", "2", "2", "{node-1,node-2,node-3}*"],
        "{at_77}"
    );
    assert_eq!(
        rows[2][..5],
        ["node-3", "follower", "2", "2", "2"],
        "{at_77}"
    );
    // Clicked the button of tick 76: node-1 has learned epoch 2 but its HW
    // is still 1, and the ISR is the new leader's two.
    let at_76 = lines[1];
    assert!(at_76.contains("shown=76 body=76"), "{at_76}");
    assert!(at_76.contains("node-1|follower*|2*|2|1|"), "{at_76}");
    assert!(
        at_76.contains("node-2|leader|2|2|2|{node-2,node-3}|"),
        "{at_76}"
    );
    // The same clicks, then the frame scrolled to the panel at tick 77.
    let shot = screenshot_with(
        &harness,
        "report-exp3-isr-state",
        &["--allow-file-access-from-files"],
    );
    assert_not_blank("exp3 isr state panel", &shot);
    // The panel is in view: the selected tick button's teal is on screen.
    let teal = shot
        .2
        .chunks(4)
        .filter(|px| px[..3] == [0x2c, 0x7a, 0x7b])
        .count();
    assert!(
        teal > 200,
        "the selected tick button is not in view ({teal} px)"
    );
}

#[test]
#[ignore = "needs Chromium; run with --ignored (CI does)"]
fn a_scenario_report_page_opens_its_state_panel_at_the_tick_its_link_names() {
    // `report --scenario` needs no sweep: build it here.
    let dir = temp_dir("report-scenario-browser");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .current_dir(&root)
        .args([
            "report",
            "--scenario",
            "docs/exercises/isr-min-insync.txt",
            "--out",
        ])
        .arg(&dir)
        .env_remove("RUST_LOG")
        .output()
        .expect("xtask runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Part 1 at tick 0, before the slow followers left the ISR (without
    // the script the last state, tick 1's, would show).
    let page = dir.join("parts").join("part1-isr.html#tick=0");
    let dom = dump_dom(&page);
    assert!(dom.contains(r#"data-shown-tick="0""#), "{dom}");
    let shown = dom
        .split("<tbody data-tick=")
        .skip(1)
        .find(|b| !b.split('>').next().unwrap_or("").contains("hidden"))
        .expect("one state body shown");
    assert!(shown.starts_with("\"0\""), "{shown}");
    let row = shown
        .split("<tr data-node=\"node-1\">")
        .nth(1)
        .and_then(|r| r.split("</tr>").next())
        .expect("node-1's row");
    assert!(
        row.contains(">leader<") && row.contains("{node-1,node-2,node-3}"),
        "{row}"
    );
    assert!(
        body_text(&dom).contains("refused (ALL_ISR)"),
        "the part's output"
    );
}

#[test]
#[ignore = "needs Chromium; run with --ignored (CI does)"]
fn at_1366_by_768_no_page_scrolls_sideways_and_the_first_lane_shows_on_the_first_screen() {
    let site = site();
    let mut counterexamples: Vec<PathBuf> = std::fs::read_dir(site.join("counterexamples"))
        .expect("counterexamples")
        .map(|e| e.expect("entry").path())
        .collect();
    counterexamples.sort();
    let mut browser = cdp::Browser::start(1366, 768);
    let mut pages = vec![
        site.join("index.html"),
        site.join("runs").join("exp3-isr-default.html"),
    ];
    pages.extend(counterexamples.iter().take(3).cloned());
    for page in &pages {
        let url = format!("file://{}", page.display());
        browser.open(&url, "document.readyState === 'complete'");
        let (scroll, inner) = (
            browser.eval("document.documentElement.scrollWidth"),
            browser.eval("window.innerWidth"),
        );
        assert!(
            scroll.as_u64() <= inner.as_u64(),
            "{} is {scroll} px wide in a {inner} px window",
            page.display()
        );
    }
    browser.open(
        &format!(
            "file://{}",
            site.join("runs").join("exp3-isr-default.html").display()
        ),
        "document.readyState === 'complete'",
    );
    // The first lane's header, on the first screen and not under the
    // state panel (folded to its slider).
    let seen = browser.text(
        "(function () { var lane = Array.prototype.slice.call(document.querySelectorAll('.diagram svg text'))\
           .filter(function (t) { return t.textContent === 'node-1'; })[0];\
         var r = lane.getBoundingClientRect();\
         var hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);\
         var panel = document.getElementById('state-panel');\
         return (r.bottom <= window.innerHeight) + ' ' + !panel.contains(hit) + ' ' + panel.getAttribute('data-collapsed'); })()",
    );
    assert_eq!(
        seen, "true true true",
        "on screen, not covered, panel folded"
    );
    browser.screenshot("report-run-page-first-screen");
    // Opening the panel shows the table; folding it again hides it.
    browser.click("#state-toggle");
    assert_eq!(
        browser.text("document.getElementById('state-panel').getAttribute('data-collapsed')"),
        "false"
    );
    assert_eq!(
        browser.eval("document.getElementById('state-table').getBoundingClientRect().height > 0"),
        true
    );
    for page in counterexamples.iter().take(3) {
        browser.open(
            &format!("file://{}", page.display()),
            "document.readyState === 'complete'",
        );
        let (open_at, shown) = (
            browser.text("document.getElementById('state-panel').getAttribute('data-open-at')"),
            browser.text("document.getElementById('state-panel').getAttribute('data-shown-tick')"),
        );
        assert_eq!(open_at, shown, "{} opens where it says", page.display());
    }
    browser.screenshot("report-counterexample-first-screen");
}
