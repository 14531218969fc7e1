//! A trace as a table, with a small script that filters it by node and by
//! event kind. Without the script the whole table shows and the filter
//! stays hidden.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use sim_core::{Trace, Value};

use super::html::escape;

/// The node ids a value names (lists included).
fn nodes_in(value: &Value, out: &mut BTreeSet<String>) {
    match value {
        Value::Node(node) => {
            out.insert(node.to_string());
        }
        Value::List(items) => items.iter().for_each(|v| nodes_in(v, out)),
        _ => {}
    }
}

/// A row class from the event kind, for colour only.
fn row_class(kind: &str) -> &'static str {
    if kind.starts_with("message_") {
        "msg"
    } else if kind.starts_with("client_op") {
        "client"
    } else if ["_rejected", "_fenced", "_refused", "_ignored"]
        .iter()
        .any(|s| kind.ends_with(s))
    {
        "rejected"
    } else {
        "event"
    }
}

/// The trace section: the filter form (hidden until the script shows it),
/// the table, and the script.
pub fn section(trace: &Trace) -> String {
    let mut all_nodes = BTreeSet::new();
    let mut kinds = BTreeSet::new();
    let mut rows = String::new();
    for event in trace.events() {
        let mut nodes = BTreeSet::new();
        let mut fields = String::new();
        for (key, value) in event.fields() {
            nodes_in(&value, &mut nodes);
            if !fields.is_empty() {
                fields.push(' ');
            }
            let _ = write!(fields, "{key}={value}");
        }
        kinds.insert(event.kind.to_owned());
        let node_list = nodes.iter().cloned().collect::<Vec<_>>().join(" ");
        let _ = writeln!(
            rows,
            "<tr class=\"{}\" data-kind=\"{}\" data-nodes=\"{}\"><td>{}</td><td>{}</td><td class=\"kind\">{}</td><td>{}</td></tr>",
            row_class(event.kind),
            escape(event.kind),
            escape(&node_list),
            event.seq,
            event.tick,
            escape(event.kind),
            escape(&fields)
        );
        all_nodes.extend(nodes);
    }
    let mut out = String::new();
    out.push_str(
        "<form class=\"filter\" id=\"trace-filter\" hidden=\"hidden\">\n\
         <label>node <select id=\"filter-node\"><option value=\"\">any</option>",
    );
    for node in &all_nodes {
        let _ = write!(out, "<option>{}</option>", escape(node));
    }
    out.push_str(
        "</select></label>\n<label>event kind <select id=\"filter-kind\"><option value=\"\">any</option>",
    );
    for kind in &kinds {
        let _ = write!(out, "<option>{}</option>", escape(kind));
    }
    let _ = writeln!(
        out,
        "</select></label>\n<span id=\"filter-count\">{} events</span>\n</form>",
        trace.len()
    );
    let _ = writeln!(
        out,
        "<table class=\"trace\" id=\"trace-table\">\n<thead><tr><th>#</th><th>tick</th><th>kind</th><th>fields</th></tr></thead>\n<tbody>\n{rows}</tbody>\n</table>"
    );
    let _ = writeln!(out, "<script>{FILTER_SCRIPT}</script>");
    out
}

/// Shows the filter and hides the rows that do not match it. Written
/// without `<` and `&` so the page stays well-formed XML.
pub const FILTER_SCRIPT: &str = r##"
(function () {
  var form = document.getElementById("trace-filter");
  var node = document.getElementById("filter-node");
  var kind = document.getElementById("filter-kind");
  var count = document.getElementById("filter-count");
  var rows = Array.prototype.slice.call(document.querySelectorAll("#trace-table tbody tr"));
  function matches(row) {
    var nodes = row.getAttribute("data-nodes").split(" ");
    var nodeOk = node.value === "" || nodes.indexOf(node.value) !== -1;
    var kindOk = kind.value === "" || row.getAttribute("data-kind") === kind.value;
    return [nodeOk, kindOk].every(Boolean);
  }
  function apply() {
    var shown = 0;
    rows.forEach(function (row) {
      var show = matches(row);
      row.hidden = !show;
      shown += show ? 1 : 0;
    });
    count.textContent = shown + " of " + rows.length + " events";
  }
  node.addEventListener("change", apply);
  kind.addEventListener("change", apply);
  form.hidden = false;
})();
"##;

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::{NodeId, record};

    #[test]
    fn the_filter_script_has_no_character_that_breaks_xml() {
        assert!(!FILTER_SCRIPT.contains('<') && !FILTER_SCRIPT.contains('&'));
    }

    #[test]
    fn each_row_names_every_node_its_event_mentions() {
        let (a, b) = (NodeId::new("a"), NodeId::new("b"));
        let mut trace = Trace::new();
        record!(
            trace,
            3,
            "message_sent",
            id = 0u64,
            src = &a,
            dst = &b,
            msg = "ping"
        );
        let html = section(&trace);
        assert!(
            html.contains(r#"<tr class="msg" data-kind="message_sent" data-nodes="a b">"#),
            "{html}"
        );
        assert!(
            html.contains("<option>a</option><option>b</option>"),
            "{html}"
        );
    }
}
