//! `counterexamples/ID.html`: one shrunk counterexample, replayed.

use std::fmt::Write as _;

use explore::{Check, Property, Verdict};
use lincheck::{CheckOptions, CheckResult, KvModel};

use super::html::{escape, inline_svg, page as frame};
use super::{state_panel, trace_table};
use crate::explore_cmd::{AFTER_SCHEDULE, Replayed, timeline};

fn check_cell(check: &Check) -> (&'static str, String) {
    match check {
        Check::Holds => ("holds", "holds".to_owned()),
        Check::Violated(why) => ("violated", format!("violated: {why}")),
        Check::Unknown(why) => ("unknown", format!("unknown: {why}")),
        Check::Undecided(why) => ("unknown", format!("undecided: {why}")),
    }
}

/// The trace's op id of each operation of the history, in history order:
/// the `op` of each `client_op_submitted` with the kind and key the history
/// op has (the explorer records an operation exactly when the group
/// accepted its submission); `None` where they do not line up.
fn trace_op_ids(replayed: &Replayed) -> Vec<Option<u64>> {
    let trace = replayed.report.group.trace();
    let submitted: Vec<(u64, String, String)> = trace
        .of_kind("client_op_submitted")
        .filter_map(|e| {
            let Some(sim_core::Value::UInt(op)) = e.field("op") else {
                return None;
            };
            let kind = e.str_field("kind").unwrap_or_default().to_owned();
            let key = e.field("key").map(|k| k.to_string()).unwrap_or_default();
            Some((op, kind, key))
        })
        .collect();
    replayed
        .report
        .history
        .iter()
        .enumerate()
        .map(|(i, op)| {
            let (id, kind, key) = submitted.get(i)?;
            let (want_kind, want_key) = match &op.kind {
                explore::OpKind::Write { key, .. } => ("write", key),
                explore::OpKind::Read { key } => ("read", key),
            };
            let want_key = sim_core::Value::Bytes(want_key.clone()).to_string();
            (kind == want_kind && *key == want_key).then_some(*id)
        })
        .collect()
}

/// The operation lincheck could not place, as the trace numbers it, with
/// its description.
fn violating_op(replayed: &Replayed, result: Option<&CheckResult>) -> Option<(u64, String)> {
    let stuck = &result?.violation()?.unplaceable;
    let index = usize::try_from(stuck.id).ok()?;
    let id = (*trace_op_ids(replayed).get(index)?)?;
    Some((
        id,
        format!(
            "client {}'s {} (op {id} in the trace, op {} in the checker's view)",
            stuck.client, stuck.description, stuck.id
        ),
    ))
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

/// lincheck's check of the replay's history, with a witness.
fn check(replayed: &Replayed) -> Result<CheckResult, String> {
    let ops = explore::lincheck_history(&replayed.report.history);
    let options = CheckOptions::default().with_witness(true);
    lincheck::check(&KvModel, &ops, &options).map_err(|e| e.to_string())
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
        "it breaks {}.</p>\n<p>Again from a terminal: <code>cargo xtask explore --replay {}</code></p>",
        if names.is_empty() {
            "nothing the verdicts cite".to_owned()
        } else {
            names.join(", ")
        },
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
    let checked = check(replayed);
    lincheck_section(&mut body, replayed, &checked);
    let violating = violating_op(replayed, checked.as_ref().ok());
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
    let mut options = diagram::DiagramOptions::titled(format!("counterexample {id}"))
        .with_violating(violating.iter().map(|(op, _)| *op));
    if let Some(log) = report.group.state_log() {
        options = options.with_state_notes(labs::state_notes(log));
    }
    body.push_str(&inline_svg(&diagram::render_svg(trace, &options)));
    body.push_str("\n</div>\n");
    if let Some(log) = report.group.state_log() {
        body.push_str(&state_panel::section(log, trace));
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
