//! `index.html`: the matrix, the read levels, the guarantees, and the
//! legend.

use std::fmt::Write as _;

use explore::{Status, Verdict};
use labs::Run;
use labs::matrix::{EXPERIMENTS, Matrix};

use super::html::{block_markdown, escape, inline_markdown, page as frame};
use super::{Inputs, counterexample_path, legend, run_path};
use crate::explore_cmd::DEFINITIONS;
use explore::table::{cell, rows};

/// The run a matrix cell part stands for.
fn find_run<'a>(runs: &'a [Run], experiment: u8, protocol: &str, variant: &str) -> Option<&'a Run> {
    runs.iter().find(|r| {
        r.experiment == experiment && r.protocol.name() == protocol && r.variant == variant
    })
}

fn matrix_table(runs: &[Run]) -> String {
    let matrix = Matrix::from_runs(runs);
    let mut out = String::from(
        "<table class=\"matrix\" id=\"matrix\">\n<thead><tr><th>#</th><th>experiment</th>",
    );
    for p in &matrix.protocols {
        let _ = write!(out, "<th>{}</th>", escape(p.name()));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for row in &matrix.rows {
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td>",
            row.experiment,
            escape(row.title)
        );
        for (protocol, parts) in matrix.protocols.iter().zip(&row.cells) {
            out.push_str("<td>");
            if parts.is_empty() {
                out.push('–');
            }
            for part in parts {
                let variant = part.variant.unwrap_or("default");
                let label = part
                    .variant
                    .map(|v| format!("<span class=\"variant\">{}</span>: ", escape(v)))
                    .unwrap_or_default();
                match find_run(runs, row.experiment, protocol.name(), variant) {
                    Some(run) => {
                        let class = match run.observed.acked_writes_survived() {
                            Some(true) => " class=\"survived\"",
                            Some(false) => " class=\"lost\"",
                            None => "",
                        };
                        let _ = write!(
                            out,
                            "<a href=\"{}\"{class}>{label}{}</a>",
                            escape(&run_path(run)),
                            escape(&part.text)
                        );
                    }
                    None => {
                        let _ = write!(out, "<span>{label}{}</span>", escape(&part.text));
                    }
                }
            }
            out.push_str("</td>");
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
    out
}

fn read_levels_table(runs: &[Run]) -> String {
    let reads = labs::matrix::read_matrix(runs);
    if reads.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "<h2 id=\"read-levels\">Read levels (experiment 6)</h2>\n<table class=\"reads\">\n\
         <thead><tr><th>protocol</th><th>LOCAL</th><th>LEADER</th><th>LINEARIZABLE</th></tr></thead>\n<tbody>\n",
    );
    for (protocol, levels) in &reads {
        let link = runs
            .iter()
            .find(|r| r.experiment == 6 && r.protocol == *protocol)
            .map(run_path);
        let name = match link {
            Some(href) => format!(
                "<a href=\"{}\">{}</a>",
                escape(&href),
                escape(protocol.name())
            ),
            None => escape(protocol.name()),
        };
        let _ = write!(out, "<tr><td>{name}</td>");
        for (_, outcome) in levels {
            let _ = write!(
                out,
                "<td class=\"outcome-{outcome}\">{}</td>",
                escape(outcome)
            );
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
    out
}

/// One verdict cell: the counterexample linked to its page.
fn verdict_cell(v: &Verdict) -> String {
    let class = v.status.name();
    match (&v.status, &v.counterexample) {
        (Status::Violated, Some(cx)) => {
            let id = cx.replay.to_string();
            format!(
                "<td class=\"{class}\"><a href=\"{}\" title=\"{}\">violated in {} of {}: {} steps</a><br/><code class=\"replay-id\">{}</code></td>",
                escape(&counterexample_path(&id)),
                escape(&cx.reason),
                v.violations,
                v.schedules,
                cx.steps,
                escape(&id)
            )
        }
        _ => format!("<td class=\"{class}\">{}</td>", inline_markdown(&cell(v))),
    }
}

fn guarantees_table(verdicts: &[Verdict]) -> String {
    let mut out = String::from(
        "<table class=\"guarantees\" id=\"guarantees-table\">\n<thead><tr><th>protocol</th><th>ack</th>\
         <th>read</th><th>setting</th><th>durable</th><th>linearizable</th><th>invariants</th>\
         <th>recovers</th><th>available</th></tr></thead>\n<tbody>\n",
    );
    for (name, three) in rows(verdicts) {
        out.push_str("<tr>");
        for part in name.split(" | ") {
            let _ = write!(out, "<td>{}</td>", escape(part));
        }
        for v in three {
            out.push_str(&verdict_cell(v));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
    out
}

fn counterexample_list(verdicts: &[Verdict]) -> String {
    let mut out = String::new();
    for v in verdicts {
        if let Some(cx) = &v.counterexample {
            let id = cx.replay.to_string();
            let _ = writeln!(
                out,
                "<li><a href=\"{}\"><strong>{}.{}.{}.{} — {}</strong></a>: {}</li>",
                escape(&counterexample_path(&id)),
                escape(v.protocol),
                escape(v.ack),
                escape(v.read),
                escape(v.config),
                escape(v.property.name()),
                escape(&cx.reason)
            );
        }
        if let Some(note) = &v.note {
            let _ = writeln!(
                out,
                "<li><strong>{}.{}.{}.{} — {} unknown</strong>: {}</li>",
                escape(v.protocol),
                escape(v.ack),
                escape(v.read),
                escape(v.config),
                escape(v.property.name()),
                escape(note)
            );
        }
    }
    if out.is_empty() {
        return out;
    }
    format!("<h3 id=\"counterexamples\">What the counterexamples show</h3>\n<ul>\n{out}</ul>\n")
}

/// The index page.
pub fn page(inputs: &Inputs<'_>) -> String {
    let mut body = String::new();
    let _ = writeln!(
        body,
        "<p class=\"lead\">MiniDist drives four replication protocols — asynchronous primary / \
         replica (Redis), WAL shipping (PostgreSQL), in-sync replicas (Kafka) and Raft — through \
         seven scripted experiments, then checks their guarantees over seeded fault schedules. \
         Every page here was generated by <code>cargo xtask report</code> from deterministic runs; \
         click a matrix cell for its run (diagram, observed values, trace) and a counterexample \
         for its replay.</p>"
    );
    body.push_str(
        "<p class=\"toc\"><a href=\"#matrix-section\">Matrix</a><a href=\"#read-levels\">Read levels</a>\
         <a href=\"#guarantees\">Guarantees</a><a href=\"#legend\">Legend</a></p>\n",
    );
    let _ = writeln!(
        body,
        "<h2 id=\"matrix-section\">Experiments × protocols</h2>\n<p>{}</p>",
        inline_markdown(labs::matrix::GENERATED_NOTE)
    );
    body.push_str(
        "<p class=\"matrix-key\">Experiments 2 and 3 test durability: a cell is \
         <span class=\"survived\">green</span> when every acknowledged write survived, \
         <span class=\"lost\">red</span> when one was lost (a write acknowledged before the \
         crash gone, or one acknowledged by the cut-off old leader discarded). The other \
         experiments' cells are trade-offs, so they are not coloured.</p>\n",
    );
    body.push_str(&matrix_table(inputs.runs));
    body.push_str(&read_levels_table(inputs.runs));
    let sweep = inputs.sweep;
    let _ = writeln!(
        body,
        "<h2 id=\"guarantees\">Guarantees over seeded fault schedules</h2>\n<p>{} schedules per \
         configuration from seed {}, each drawing its own profile (<code>cargo xtask explore --schedules {}</code>). \
         <code>holds (N)</code>: no schedule of N broke it; <code>violated in K of N</code>: the \
         shortest shrunk counterexample, linked to its replay; <code>unknown</code>: some \
         schedules could not decide.</p>",
        sweep.schedules, sweep.first_seed, sweep.schedules
    );
    body.push_str(&guarantees_table(inputs.verdicts));
    body.push_str(&block_markdown(DEFINITIONS));
    body.push_str(&counterexample_list(inputs.verdicts));
    body.push_str(
        "<h2 id=\"legend\">Legend: the words in the matrix cells</h2>\n<p>Each cell is computed \
         from the run's observed values alone; these are the words it can contain.</p>\n",
    );
    body.push_str(&legend::all(&EXPERIMENTS));
    frame("MiniDist report", "", &[], &body)
}
