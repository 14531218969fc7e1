//! `counterexamples/ID.html`: one shrunk counterexample, replayed.

use std::fmt::Write as _;

use explore::{Check, Property, Verdict};
use lincheck::{CheckResult, KvModel};

use super::html::{escape, inline_svg, page as frame};
use super::{state_panel, trace_table};
use crate::explore_cmd::{AFTER_SCHEDULE, Replayed, timeline};
use crate::replay_diagram;

fn check_cell(check: &Check) -> (&'static str, String) {
    match check {
        Check::Holds => ("holds", "holds".to_owned()),
        Check::Violated(why) => ("violated", format!("violated: {why}")),
        Check::Unknown(why) => ("unknown", format!("unknown: {why}")),
        Check::Undecided(why) => ("unknown", format!("undecided: {why}")),
    }
}

/// The history as lincheck checked it, drawn by lincheck: the stuck point
/// of a violated key, the linearization of the others.
fn lincheck_section(body: &mut String, replayed: &Replayed, checked: &Result<CheckResult, String>) {
    let ops = explore::lincheck_history(&replayed.report.history);
    let _ = writeln!(
        body,
        "<h2 id=\"lincheck\">The linearizability checker's view</h2>\n<p>The history as \
         <code>lincheck</code> checks it: one lane per client, one section per key. Times are \
         the explorer's logical clock (one step per submission and per completion observed); \
         failed operations are left out, and so are reads with no answer. A violated key shows \
         the longest prefix the search could linearize (numbered points, in order) and the \
         operation it could not place next (red), with the time by which it had to take \
         effect; a linearizable key shows one linearization.</p>"
    );
    match checked {
        Ok(result) => body.push_str(&lincheck::html::history_fragment(
            &KvModel,
            &ops,
            Some(result),
        )),
        Err(e) => {
            let _ = writeln!(body, "<p>lincheck refused the history: {}</p>", escape(e));
        }
    }
}

/// The page of `replayed`; `cited` are the verdicts whose counterexample it
/// is.
pub fn page(replayed: &Replayed, cited: &[&Verdict]) -> String {
    let id = replayed.id.to_string();
    let report = &replayed.report;
    let mut body = String::new();
    body.push_str("<p class=\"lead\">The shrunk schedule the explorer found, run again: ");
    let names: Vec<String> = cited
        .iter()
        .map(|v| {
            format!(
                "<strong>{}</strong> of {}.{}.{}.{}",
                escape(v.property.name()),
                escape(v.protocol),
                escape(v.ack),
                escape(v.read),
                escape(v.config)
            )
        })
        .collect();
    let _ = writeln!(
        body,
        "it breaks {}.</p>\n<p>Again from a terminal: <code>{} explore --replay {}</code></p>",
        if names.is_empty() {
            "nothing the verdicts cite".to_owned()
        } else {
            names.join(", ")
        },
        escape(explore::command()),
        escape(&id)
    );
    let _ = writeln!(
        body,
        "<p>Step through it in the debugger — its steps as recorded, opened at the one that \
         broke a property; branch off anywhere, choosing each delivery and fault: \
         <code>{} debug --replay {}</code></p>",
        escape(explore::command()),
        escape(&id)
    );
    let _ = writeln!(
        body,
        "<h2 id=\"schedule\">Minimal schedule ({} steps)</h2>\n<ol class=\"schedule\">",
        replayed.schedule.steps.len()
    );
    for line in &report.log {
        let _ = writeln!(body, "<li>{}</li>", escape(line));
    }
    let _ = writeln!(body, "</ol>\n<p>{}</p>", escape(AFTER_SCHEDULE));
    body.push_str(
        "<h2 id=\"verdict\">Checks on this run</h2>\n<table class=\"checks\">\n<thead><tr><th>property</th><th>result</th></tr></thead>\n<tbody>\n",
    );
    for p in Property::ALL {
        let (class, text) = check_cell(report.check(p));
        let _ = writeln!(
            body,
            "<tr><td>{}</td><td class=\"{class}\">{}</td></tr>",
            escape(p.name()),
            escape(&text)
        );
    }
    body.push_str("</tbody>\n</table>\n");
    let _ = writeln!(
        body,
        "<h2 id=\"history\">History</h2>\n<p>One row per client operation over the ticks the \
         history spans: <code>[</code> submitted, <code>]</code> completed, <code>?</code> \
         unknown, <code>x</code> failed.</p>\n<pre class=\"timeline\">{}</pre>",
        escape(&timeline(&report.history))
    );
    let checked = replay_diagram::check(report);
    lincheck_section(&mut body, replayed, &checked);
    let violating = replay_diagram::violating_op(report, checked.as_ref().ok());
    body.push_str(
        "<h2 id=\"diagram\">Space-time diagram</h2>\n<p>Client operations are the bars left of \
         the lanes; hover an element for its trace lines.",
    );
    if let Some((_, what)) = &violating {
        let _ = write!(
            body,
            " The operation the linearizability checker could not place — <strong \
             id=\"violating-op\">{}</strong> — is drawn in red and marked ◆.",
            escape(what)
        );
    }
    body.push_str("</p>\n<div class=\"diagram\">\n");
    let trace = report.group.trace();
    let options = replay_diagram::options(
        format!("counterexample {id}"),
        report,
        violating.as_ref().map(|(op, _)| *op),
    );
    body.push_str(&inline_svg(&diagram::render_svg(trace, &options)));
    body.push_str("\n</div>\n");
    if let Some(log) = report.group.state_log() {
        let open_at = violation_tick(report, violating.as_ref().map(|(op, _)| *op));
        body.push_str(&state_panel::section(log, trace, open_at));
    }
    let _ = writeln!(
        body,
        "<h2 id=\"trace\">Trace</h2>\n<p>{} events.</p>",
        trace.len()
    );
    body.push_str(&trace_table::section(trace));
    frame(
        &format!("Counterexample {id}"),
        "../",
        &[("guarantees", "../index.html#guarantees".to_owned())],
        &body,
    )
}

/// The tick the first broken property points at: where an invariant broke
/// (`after tick N: …`), else the tick the operation the linearizability
/// checker could not place (`op`, its trace id) completed at; `None` when
/// neither says (a lost write shows only at the final read).
fn violation_tick(report: &explore::RunReport, op: Option<u64>) -> Option<u64> {
    if let Check::Violated(why) = report.check(explore::Property::Invariants)
        && let Some((_, rest)) = why.split_once("tick ")
    {
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        if let Ok(tick) = digits.parse() {
            return Some(tick);
        }
    }
    let op = op?;
    report.group.trace().events().find_map(|e| {
        (e.kind == "client_op_completed" && e.uint("op").ok() == Some(op)).then_some(e.tick)
    })
}
