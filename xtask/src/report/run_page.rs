//! `runs/expN-PROTOCOL-VARIANT.html`: one experiment run.

use std::fmt::Write as _;

use labs::Run;
use labs::matrix::EXPERIMENTS;
use serde_json::Value as Json;

use super::html::{escape, inline_svg, page as frame};
use super::{legend, run_path, state_panel, trace_table};

/// An observed JSON value as a cell: strings bare, `null` as `none`,
/// booleans as yes / no.
fn value_text(value: &Json) -> String {
    match value {
        Json::Null => "none".to_owned(),
        Json::Bool(true) => "yes".to_owned(),
        Json::Bool(false) => "no".to_owned(),
        Json::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn observed_table(run: &Run) -> String {
    let mut out = String::from(
        "<table class=\"observed\" id=\"observed\">\n<thead><tr><th>field</th><th>value</th></tr></thead>\n<tbody>\n",
    );
    if let Json::Object(fields) = labs::matrix::run_to_json(run)["observed"].clone() {
        for (key, value) in &fields {
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td>{}</td></tr>",
                escape(key),
                escape(&value_text(value))
            );
        }
    }
    out.push_str("</tbody>\n</table>\n");
    out
}

/// A link to a neighbouring run, relative to a run page.
fn neighbour(label: &str, run: Option<&Run>) -> String {
    match run {
        Some(run) => {
            let file = run_path(run);
            let file = file.trim_start_matches("runs/");
            format!(
                "<a href=\"{}\">{label} experiment {} · {} · {}</a>",
                escape(file),
                run.experiment,
                escape(run.protocol.name()),
                escape(run.variant)
            )
        }
        None => String::new(),
    }
}

/// The page of `run`; `previous` / `next` are its neighbours in matrix
/// order.
pub fn page(run: &Run, previous: Option<&Run>, next: Option<&Run>) -> String {
    let title_of = EXPERIMENTS
        .iter()
        .find(|(n, _)| *n == run.experiment)
        .map_or("", |(_, t)| t);
    let title = format!(
        "Experiment {} · {} · {}",
        run.experiment,
        run.protocol.name(),
        run.variant
    );
    let args = format!(
        "--experiment {} --protocol {} --variant {}",
        run.experiment,
        run.protocol.name(),
        run.variant
    );
    let mut body = String::new();
    let _ = writeln!(
        body,
        "<p class=\"lead\">{} — <a href=\"../index.html#matrix-section\">the matrix cell</a> \
         reads:</p>\n<p class=\"cell-text\" id=\"cell\">{}</p>",
        escape(title_of),
        escape(&run.cell())
    );
    let _ = writeln!(
        body,
        "<p class=\"pager\">{}{}</p>",
        neighbour("←", previous),
        neighbour("→", next)
    );
    let _ = writeln!(
        body,
        "<p>Again from a terminal: <code>cargo xtask trace {args}</code> · \
         <code>cargo xtask diagram {args}</code></p>"
    );
    if let Some(protocol) = args
        .split("--protocol ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
    {
        let _ = writeln!(
            body,
            "<p>Choose what happens next yourself, on the same protocol: <code>cargo xtask \
             debug --protocol {protocol}</code> (a steered run of its strongest row; the \
             experiment's script is not replayed there).</p>"
        );
    }
    body.push_str(
        "<h2 id=\"diagram\">Space-time diagram</h2>\n<p>One lane per node, time flowing down; \
         arrows are messages (a cross: dropped, a red bar: rejected or fenced); hover an element \
         for its trace lines.</p>\n<div class=\"diagram whole\">\n",
    );
    body.push_str(&inline_svg(&labs::diagram_of(run)));
    body.push_str("\n</div>\n");
    body.push_str(&state_panel::section(run.states(), &run.trace, None));
    body.push_str("<div class=\"facts\">\n<section>\n");
    body.push_str("<h2 id=\"observed-values\">Observed values</h2>\n");
    body.push_str(&observed_table(run));
    body.push_str("</section>\n<section>\n");
    let _ = writeln!(
        body,
        "<h2 id=\"legend\">Legend</h2>\n<p>The words of experiment {}'s cells \
         (<a href=\"../index.html#legend\">every experiment's legend</a>).</p>",
        run.experiment
    );
    body.push_str(&legend::definition_list(legend::for_experiment(
        run.experiment,
    )));
    body.push_str("</section>\n</div>\n");
    let _ = writeln!(
        body,
        "<h2 id=\"trace\">Trace</h2>\n<p>{} events.</p>",
        run.trace.len()
    );
    body.push_str(&trace_table::section(&run.trace));
    frame(
        &title,
        "../",
        &[("matrix", "../index.html#matrix-section".to_owned())],
        &body,
    )
}
