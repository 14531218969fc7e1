//! The site `cargo xtask report --scenario FILE` writes for any scenario
//! file (a teacher's own): no sweep, no matrix.
//!
//! - `index.html`: the file as `cargo xtask run` prints it (every
//!   directive with each protocol's output), and a table of its parts ×
//!   protocols, each cell linking to that run's page;
//! - `parts/partK-PROTOCOL.html`: one per part a protocol ran — the part's
//!   directives with that protocol's output, the diagram (with state
//!   notes), the state panel (every node's state at a chosen tick), the
//!   trace;
//! - `style.css`.

use std::fmt::Write as _;

use replication::{Protocol, Registry};
use scenario::{Directive, PartRun, Scenario};

use super::Page;
use super::html::{escape, inline_svg, page as frame};
use super::{state_panel, trace_table};
use crate::diagram_cmd::{part_svg, part_title};

/// One protocol's run of one part, with the part's cases (their indices
/// in the file) and that protocol's output lines for each.
struct PartPage<'a> {
    /// From 1, counting only the parts this protocol ran (as `cargo xtask
    /// diagram FILE --part K` counts them).
    number: u32,
    protocol: Protocol,
    cases: Vec<usize>,
    outputs: &'a [Vec<String>],
    run: PartRun,
}

/// A part's page path.
fn part_path(number: u32, protocol: Protocol) -> String {
    format!("parts/part{number}-{}.html", protocol.name())
}

/// The file's parts as ranges of case indices: a part starts at each
/// `config` (the cases before the first one are a part of their own).
fn segments(scenario: &Scenario) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = Vec::new();
    for (i, case) in scenario.cases.iter().enumerate() {
        if matches!(case.directive, Directive::Config(_)) || out.is_empty() {
            out.push(Vec::new());
        }
        if let Some(last) = out.last_mut() {
            last.push(i);
        }
    }
    out
}

/// The part pages of one protocol: the file's parts it ran (their first
/// case printed something), matched in order with the runs it recorded.
fn part_pages<'a>(
    scenario: &Scenario,
    protocol: Protocol,
    outputs: &'a [Vec<String>],
    runs: Vec<PartRun>,
) -> Vec<PartPage<'a>> {
    let ran = segments(scenario)
        .into_iter()
        .filter(|cases| cases.first().is_some_and(|&i| !outputs[i].is_empty()));
    ran.zip(runs)
        .zip(1u32..)
        .map(|((cases, run), number)| PartPage {
            number,
            protocol,
            cases,
            outputs,
            run,
        })
        .collect()
}

/// The part's directives, each with this protocol's output, as the file
/// would hold them.
fn transcript(scenario: &Scenario, part: &PartPage<'_>) -> String {
    let mut text = String::new();
    for &i in &part.cases {
        let case = &scenario.cases[i];
        let _ = writeln!(text, "{}", case.text);
        let lines = &part.outputs[i];
        if !lines.is_empty() {
            text.push_str("----\n");
            for line in lines {
                let _ = writeln!(text, "{line}");
            }
        }
        text.push('\n');
    }
    text
}

fn part_page(name: &str, scenario: &Scenario, part: &PartPage<'_>) -> String {
    let protocol = part.protocol;
    let title = part_title(name, protocol, part.number, &part.run);
    let mut body = String::new();
    let _ = writeln!(
        body,
        "<p class=\"lead\">Part {} of <code>{}</code> on {} (from line {}).</p>",
        part.number,
        escape(name),
        escape(protocol.name()),
        part.cases.first().map_or(0, |&i| scenario.cases[i].line)
    );
    let _ = writeln!(
        body,
        "<p>Again from a terminal: <code>cargo xtask diagram {} --protocol {} --part {}</code></p>",
        escape(name),
        escape(protocol.name()),
        part.number
    );
    body.push_str("<h2 id=\"directives\">Directives and output</h2>\n");
    let _ = writeln!(
        body,
        "<pre class=\"transcript\" id=\"transcript\">{}</pre>",
        escape(&transcript(scenario, part))
    );
    match &part.run.trace {
        Err(why) => {
            let _ = writeln!(
                body,
                "<p class=\"error\" id=\"no-group\">No group: {}</p>",
                escape(why)
            );
        }
        Ok(trace) => {
            body.push_str(
                "<h2 id=\"diagram\">Space-time diagram</h2>\n<p>One lane per node, time \
                 flowing down; arrows are messages (a cross: dropped, a red bar: rejected or \
                 fenced); hover an element for its trace lines.</p>\n<div class=\"diagram whole\">\n",
            );
            body.push_str(&inline_svg(&part_svg(&title, trace, &part.run)));
            body.push_str("\n</div>\n");
            if let Some(states) = &part.run.states {
                body.push_str(&state_panel::section(states, trace, None));
            }
            let _ = writeln!(
                body,
                "<h2 id=\"trace\">Trace</h2>\n<p>{} events.</p>",
                trace.len()
            );
            body.push_str(&trace_table::section(trace));
        }
    }
    frame(
        &title,
        "../",
        &[("scenario", "../index.html".to_owned())],
        &body,
    )
}

fn index_page(
    name: &str,
    scenario: &Scenario,
    rendered: &str,
    pages: &[Vec<PartPage<'_>>],
) -> String {
    let mut body = String::new();
    let _ = writeln!(
        body,
        "<p class=\"lead\">The scenario file <code>{}</code>: each part (from a \
         <code>config</code> to the next) on each protocol that runs it, with its diagram, \
         its nodes' state at every tick and its trace.</p>",
        escape(name)
    );
    body.push_str("<h2 id=\"parts\">Parts</h2>\n<table class=\"parts\" id=\"parts-table\">\n");
    body.push_str("<thead><tr><th>protocol</th><th>part</th><th>from line</th><th>config</th></tr></thead>\n<tbody>\n");
    for part in pages.iter().flatten() {
        let first = part.cases.first().map(|&i| &scenario.cases[i]);
        let config = first
            .filter(|c| matches!(c.directive, Directive::Config(_)))
            .map_or("(defaults)", |c| c.text.as_str());
        let _ = writeln!(
            body,
            "<tr><td>{}</td><td><a href=\"{}\">part {}</a></td><td>{}</td><td><code>{}</code></td></tr>",
            escape(part.protocol.name()),
            escape(&part_path(part.number, part.protocol)),
            part.number,
            first.map_or(0, |c| c.line),
            escape(config)
        );
    }
    body.push_str("</tbody>\n</table>\n");
    body.push_str(
        "<h2 id=\"file\">The file with every protocol's output</h2>\n<p>As <code>cargo xtask \
         run</code> prints it.</p>\n",
    );
    let _ = writeln!(
        body,
        "<pre class=\"transcript\" id=\"rendered\">{}</pre>",
        escape(rendered)
    );
    frame(&format!("Scenario {name}"), "", &[], &body)
}

/// Every page of the site of `scenario` (read from the file `name`) run on
/// each of `protocols`.
pub fn build(
    name: &str,
    scenario: &Scenario,
    protocols: &[Protocol],
    registry: &Registry,
) -> Vec<Page> {
    let runs: Vec<(Protocol, Vec<Vec<String>>, Vec<PartRun>)> = protocols
        .iter()
        .map(|&p| {
            let (outputs, parts) = scenario::run_parts(scenario, p, registry);
            (p, outputs, parts)
        })
        .collect();
    let outputs: scenario::Outputs = runs.iter().map(|(p, o, _)| (*p, o.clone())).collect();
    let rendered = scenario::render(scenario, &outputs, false, registry);
    let pages: Vec<Vec<PartPage<'_>>> = runs
        .iter()
        .map(|(p, o, parts)| part_pages(scenario, *p, o, parts.clone()))
        .collect();
    let mut site = vec![
        Page {
            path: "style.css".to_owned(),
            content: super::html::STYLE.to_owned(),
        },
        Page {
            path: "index.html".to_owned(),
            content: index_page(name, scenario, &rendered, &pages),
        },
    ];
    for part in pages.iter().flatten() {
        site.push(Page {
            path: part_path(part.number, part.protocol),
            content: part_page(name, scenario, part),
        });
    }
    site
}
