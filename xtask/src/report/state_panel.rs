//! The state panel of a run or counterexample page: every node's state
//! line at a tick, one column per field, chosen with a slider, a tick
//! button, a tick label (`t=…`) of the diagram or a trace row. Ticks at
//! which a fault was injected (the nemesis' steps: crash, restart,
//! isolate, heal, link cuts, slowness) are marked ⚡ with the fault.
//!
//! The table holds one `<tbody data-tick="T">` per tick at which some line
//! changed (changed cells marked); the script shows the last one at or
//! before the chosen tick and keeps the choice in the URL fragment
//! (`#tick=T`), so a link or a reload opens the panel at that tick.
//! Without the script the state at the last tick shows.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use replication::{NodeState, StateLog};
use sim_core::Trace;

use super::html::escape;

/// The fault events a nemesis injects, as the harness records them.
const FAULT_KINDS: [&str; 8] = [
    "node_crashed",
    "node_restarted",
    "node_isolated",
    "node_healed",
    "link_cut",
    "link_restored",
    "all_healed",
    "node_slow",
];

/// The faults of `trace` by tick: their trace lines (without `#seq`).
fn faults(trace: &Trace) -> BTreeMap<u64, Vec<String>> {
    let mut out: BTreeMap<u64, Vec<String>> = BTreeMap::new();
    for e in trace.events().filter(|e| FAULT_KINDS.contains(&e.kind)) {
        let fields: Vec<String> = e.fields().map(|(k, v)| format!("{k}={v}")).collect();
        out.entry(e.tick)
            .or_default()
            .push(format!("{} {}", e.kind, fields.join(" ")));
    }
    out
}

/// Every field label of `log`, in order of first appearance.
fn labels(log: &StateLog) -> Vec<&'static str> {
    let mut labels: Vec<&'static str> = Vec::new();
    for change in log.changes() {
        for f in &change.state.fields {
            if !labels.contains(&f.label) {
                labels.push(f.label);
            }
        }
    }
    labels
}

/// A `<td>`, marked `changed` when it differs from the tick before.
fn cell(out: &mut String, now: Option<&str>, then: Option<Option<&str>>) {
    let changed = then.is_some_and(|t| t != now);
    let _ = write!(
        out,
        "<td{}>{}</td>",
        if changed { " class=\"changed\"" } else { "" },
        escape(now.unwrap_or(""))
    );
}

fn row(out: &mut String, state: &NodeState, before: Option<&NodeState>, labels: &[&str]) {
    let _ = write!(
        out,
        "<tr data-node=\"{}\"><th>{}</th>",
        escape(state.node.as_str()),
        escape(state.node.as_str())
    );
    let role = state.shown_role();
    let old_role = before.map(NodeState::shown_role);
    cell(out, Some(&role), before.map(|_| old_role.as_deref()));
    for label in labels {
        cell(out, state.field(label), before.map(|b| b.field(label)));
    }
    out.push_str("</tr>\n");
}

/// The panel's section (an `<h2 id="state">` and the panel), or nothing
/// when `log` is empty. `end` is the run's last tick.
pub fn section(log: &StateLog, trace: &Trace, open_at: Option<u64>) -> String {
    if log.is_empty() {
        return String::new();
    }
    let labels = labels(log);
    let faults = faults(trace);
    let end = trace
        .events()
        .last()
        .map_or(0, |e| e.tick)
        .max(log.ticks().last().copied().unwrap_or(0));
    let start = open_at.map_or(end, |t| t.min(end));
    let mut ticks: Vec<u64> = log.ticks();
    ticks.extend(faults.keys().copied());
    ticks.sort_unstable();
    ticks.dedup();

    let mut out = String::new();
    out.push_str(
        "<h2 id=\"state\">Node state</h2>\n<p>Every node's protocol state at one tick — what \
         it believes (a cut-off old leader still says leader): drag the slider, click a tick \
         below, a tick label (<code>t=…</code>) of the diagram or a row of the trace. Values \
         that changed at the tick shown are highlighted; ⚡ marks a tick at which a fault was \
         injected (the nemesis' steps). The panel stays at the bottom of the window, folded \
         to its slider until you open it.</p>\n",
    );
    let _ = writeln!(
        out,
        "<div class=\"state-panel\" id=\"state-panel\" data-open-at=\"{start}\"{}>\n<p class=\"state-controls\" \
         id=\"state-controls\" hidden=\"hidden\"><label>tick <input type=\"range\" \
         id=\"state-tick\" min=\"0\" max=\"{end}\" value=\"{start}\" step=\"1\"/></label> \
         <output id=\"state-tick-value\">{start}</output>{}<button type=\"button\" \
         class=\"state-toggle\" id=\"state-toggle\">show the state</button></p>\n<div class=\"state-body\">",
        if open_at.is_some() {
            " data-violation=\"true\""
        } else {
            ""
        },
        if open_at.is_some() {
            " <span class=\"state-note\">· the tick the check failed at</span>"
        } else {
            ""
        }
    );
    out.push_str("<p class=\"state-ticks\" id=\"state-ticks\">");
    for tick in &ticks {
        match faults.get(tick) {
            Some(lines) => {
                let _ = write!(
                    out,
                    "<button type=\"button\" class=\"nemesis\" data-tick=\"{tick}\" \
                     title=\"{}\">{tick} ⚡</button> ",
                    escape(&lines.join("\n"))
                );
            }
            None => {
                let _ = write!(
                    out,
                    "<button type=\"button\" data-tick=\"{tick}\">{tick}</button> "
                );
            }
        }
    }
    out.push_str("</p>\n");
    let _ = writeln!(
        out,
        "<p class=\"state-caption\" id=\"state-caption\">state at tick {start}</p>"
    );
    out.push_str(
        "<table class=\"state\" id=\"state-table\">\n<thead><tr><th>node</th><th>role</th>",
    );
    for label in &labels {
        let _ = write!(out, "<th>{}</th>", escape(label));
    }
    out.push_str("</tr></thead>\n");
    let rows = log.per_tick();
    // The body shown before the script runs: the one in force at `start`.
    let last = rows
        .iter()
        .rposition(|(tick, _)| *tick <= start)
        .unwrap_or(0);
    let mut before: Vec<NodeState> = Vec::new();
    for (i, (tick, states)) in rows.iter().enumerate() {
        let _ = writeln!(
            out,
            "<tbody data-tick=\"{tick}\"{}>",
            if i == last { "" } else { " hidden=\"hidden\"" }
        );
        for r in states {
            let old = (i > 0)
                .then(|| before.iter().find(|b| b.node == r.state.node))
                .flatten();
            row(&mut out, &r.state, old, &labels);
        }
        out.push_str("</tbody>\n");
        before = states.iter().map(|r| r.state.clone()).collect();
    }
    out.push_str("</table>\n</div>\n");
    let _ = writeln!(out, "<script>{STATE_SCRIPT}</script>\n</div>");
    out
}

/// Shows the state at the chosen tick. Written without `<` and `&` so the
/// page stays well-formed XML.
pub const STATE_SCRIPT: &str = r##"
(function () {
  var panel = document.getElementById("state-panel");
  var slider = document.getElementById("state-tick");
  var value = document.getElementById("state-tick-value");
  var caption = document.getElementById("state-caption");
  var bodies = Array.prototype.slice.call(panel.querySelectorAll("#state-table tbody"));
  var buttons = Array.prototype.slice.call(panel.querySelectorAll("#state-ticks button"));
  var toggle = document.getElementById("state-toggle");
  function fold(collapsed) {
    panel.setAttribute("data-collapsed", collapsed ? "true" : "false");
    toggle.textContent = collapsed ? "show the state" : "fold";
    toggle.setAttribute("aria-expanded", collapsed ? "false" : "true");
  }
  toggle.addEventListener("click", function () {
    fold(panel.getAttribute("data-collapsed") !== "true");
  });
  function show(tick, keep) {
    var t = Math.max(0, Math.min(Number(slider.max), Math.floor(Number(tick))));
    if (isNaN(t)) { return; }
    var shown = bodies[0];
    bodies.forEach(function (b) {
      if (!(Number(b.getAttribute("data-tick")) > t)) { shown = b; }
    });
    bodies.forEach(function (b) { b.hidden = b !== shown; });
    slider.value = String(t);
    value.textContent = String(t);
    var from = shown.getAttribute("data-tick");
    caption.textContent = "state at tick " + t +
      (Number(from) === t ? "" : " (unchanged since tick " + from + ")");
    buttons.forEach(function (b) {
      b.classList.toggle("selected", Number(b.getAttribute("data-tick")) === t);
    });
    panel.setAttribute("data-shown-tick", String(t));
    if (keep) { history.replaceState(null, "", "#tick=" + t); }
  }
  slider.addEventListener("input", function () { show(slider.value, true); });
  buttons.forEach(function (b) {
    b.addEventListener("click", function () { show(b.getAttribute("data-tick"), true); });
  });
  Array.prototype.slice.call(document.querySelectorAll(".diagram svg .axis text")).forEach(function (label) {
    var m = /^t=(\d+)$/.exec(label.textContent);
    if (!m) { return; }
    label.style.cursor = "pointer";
    label.addEventListener("click", function () {
      show(m[1], true);
      fold(false);
      panel.scrollIntoView({block: "nearest"});
    });
  });
  Array.prototype.slice.call(document.querySelectorAll("#trace-table tbody tr")).forEach(function (row) {
    var cell = row.children[1];
    if (!cell) { return; }
    cell.style.cursor = "pointer";
    cell.title = "show the state at this tick";
    cell.addEventListener("click", function () {
      show(cell.textContent, true);
      fold(false);
      panel.scrollIntoView({block: "nearest"});
    });
  });
  document.getElementById("state-controls").hidden = false;
  var hash = /tick=(\d+)/.exec(location.hash);
  // Folded unless the address names a tick: the panel never covers the
  // diagram or the history on a page's first screen.
  fold(!hash);
  show(hash ? hash[1] : panel.getAttribute("data-open-at"), false);
})();
"##;

#[cfg(test)]
mod tests {
    use super::*;
    use replication::{NodeId, StateField};
    use sim_core::record;

    #[test]
    fn the_state_script_has_no_character_that_breaks_xml() {
        assert!(!STATE_SCRIPT.contains('<') && !STATE_SCRIPT.contains('&'));
    }

    #[test]
    fn the_panel_has_a_body_per_changed_tick_marks_changes_and_faults() {
        let a = NodeId::new("a");
        let line = |hw: u64, isr: &[NodeId]| {
            NodeState::new(a.clone(), true, "leader")
                .with("HW", hw)
                .with_field(StateField::set("ISR", isr))
        };
        let mut log = StateLog::new();
        log.note(0, vec![line(0, std::slice::from_ref(&a))]);
        log.note(3, vec![line(2, std::slice::from_ref(&a))]);
        let mut trace = Trace::new();
        record!(trace, 2, "node_isolated", node = &a);
        record!(trace, 5, "node_healed", node = &a);
        let html = section(&log, &trace, None);
        assert!(
            html.contains("<tbody data-tick=\"0\" hidden=\"hidden\">"),
            "{html}"
        );
        assert!(html.contains("<tbody data-tick=\"3\">"), "{html}");
        assert!(
            html.contains("<td class=\"changed\">2</td><td>{a}</td>"),
            "{html}"
        );
        assert!(
            html.contains("class=\"nemesis\" data-tick=\"2\" title=\"node_isolated node=a\""),
            "{html}"
        );
        assert!(html.contains("max=\"5\""), "{html}");
        assert!(section(&StateLog::new(), &trace, None).is_empty());
    }

    #[test]
    fn a_counterexample_panel_opens_at_the_tick_the_check_failed_at() {
        let a = NodeId::new("a");
        let mut log = StateLog::new();
        log.note(
            0,
            vec![NodeState::new(a.clone(), true, "leader").with("HW", 0)],
        );
        log.note(
            3,
            vec![NodeState::new(a.clone(), true, "leader").with("HW", 1)],
        );
        log.note(9, vec![NodeState::new(a, true, "leader").with("HW", 2)]);
        let html = section(&log, &Trace::new(), Some(4));
        assert!(
            html.contains("data-open-at=\"4\" data-violation=\"true\""),
            "{html}"
        );
        assert!(html.contains("value=\"4\""), "{html}");
        assert!(html.contains("state at tick 4"), "{html}");
        assert!(
            html.contains("<tbody data-tick=\"3\">"),
            "in force at 4: {html}"
        );
        assert!(
            html.contains("<tbody data-tick=\"9\" hidden=\"hidden\">"),
            "{html}"
        );
    }
}
