//! Space-time diagrams of the experiment runs (`labs::diagram_of`, drawn
//! by the `diagram` crate): one pinned per protocol, and every run's
//! diagram checked as an XML document.

mod common;

use std::collections::BTreeSet;

use labs::diagram_of;
use roxmltree::{Document, Node};
use sim_core::{Trace, Value};

fn classes<'a>(node: &Node<'a, '_>) -> Vec<&'a str> {
    node.attribute("class")
        .map(|c| c.split_whitespace().collect())
        .unwrap_or_default()
}

fn with_class<'a, 'i>(doc: &'a Document<'i>, class: &str) -> Vec<Node<'a, 'i>> {
    doc.descendants()
        .filter(|n| n.is_element() && classes(n).contains(&class))
        .collect()
}

/// All text under `node` (its `<text>` and `<title>` elements).
fn text_of(node: &Node<'_, '_>) -> String {
    node.descendants()
        .filter(|n| n.is_text())
        .filter_map(|n| n.text())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Every node id named anywhere in the trace.
fn trace_nodes(trace: &Trace) -> BTreeSet<String> {
    fn collect(value: &Value, out: &mut BTreeSet<String>) {
        match value {
            Value::Node(n) => {
                out.insert(n.as_str().to_owned());
            }
            Value::List(items) => items.iter().for_each(|v| collect(v, out)),
            _ => {}
        }
    }
    let mut out = BTreeSet::new();
    for event in trace.events() {
        for (_, value) in event.fields() {
            collect(&value, &mut out);
        }
    }
    out
}

#[test]
fn the_experiment_3_diagram_of_each_protocol_is_pinned() {
    for protocol in labs::BUILTIN {
        let run = common::run(3, protocol, "default");
        insta::assert_snapshot!(format!("diagram_exp3_{protocol}"), diagram_of(run));
    }
}

#[test]
fn every_run_draws_a_well_formed_svg_with_a_lane_per_node_and_an_arrow_per_message() {
    for run in common::runs() {
        let name = format!("exp{} {} {}", run.experiment, run.protocol, run.variant);
        let svg = diagram_of(run);
        let doc = Document::parse(&svg).unwrap_or_else(|e| panic!("{name}: not XML: {e}"));
        let root = doc.root_element();
        assert_eq!(root.tag_name().name(), "svg", "{name}");
        for attr in ["width", "height", "viewBox"] {
            assert!(root.attribute(attr).is_some(), "{name}: no {attr}");
        }
        assert!(
            doc.descendants().all(|n| !matches!(
                n.tag_name().name(),
                "script" | "image" | "foreignObject"
            ) && n.attributes().all(|a| a.name() != "href")),
            "{name}: scripts or external resources"
        );

        let lanes: BTreeSet<String> = with_class(&doc, "lane")
            .iter()
            .filter_map(|lane| lane.children().find(|c| c.has_tag_name("title")))
            .filter_map(|title| title.text().map(str::to_owned))
            .collect();
        assert_eq!(
            with_class(&doc, "lane").len(),
            lanes.len(),
            "{name}: duplicate lanes"
        );
        assert_eq!(lanes, trace_nodes(&run.trace), "{name}: lanes");

        let sent = run.trace.count("message_sent");
        let arrows = with_class(&doc, "msg");
        assert_eq!(arrows.len(), sent, "{name}: one arrow per message");
        if sent > 0 {
            assert!(!arrows.is_empty(), "{name}: no arrow");
        }
        let dropped: BTreeSet<_> = run
            .trace
            .of_kind("message_dropped")
            .map(|e| e.field("id").map(|id| id.to_string()))
            .collect();
        assert_eq!(
            with_class(&doc, "dropped").len(),
            dropped.len(),
            "{name}: drops"
        );
    }
}

#[test]
fn the_isr_minority_leader_diagram_marks_the_fenced_old_epoch_appends() {
    let run = common::run(3, common::ISR, "default");
    let svg = diagram_of(run);
    let doc = Document::parse(&svg).expect("XML");
    let fenced: Vec<_> = with_class(&doc, "reject")
        .into_iter()
        .filter(|n| text_of(n).contains("stale_leader_epoch"))
        .collect();
    assert_eq!(fenced.len(), 2, "both old-epoch appends are marked");
    assert_eq!(with_class(&doc, "rejected").len(), 2);
    let all_text = text_of(&doc.root_element());
    for node in ["node-1", "node-2", "node-3"] {
        assert!(all_text.contains(node), "{node} is named");
    }
    for expected in ["leader (epoch 2)", "isolated", "healed", "W k=minority"] {
        assert!(all_text.contains(expected), "{expected:?} is shown");
    }
}

/// The state-line notes of a diagram: `(tooltip, text)` of each.
fn state_notes(svg: &str) -> Vec<(String, String)> {
    let doc = Document::parse(svg).expect("XML");
    with_class(&doc, "state-line")
        .iter()
        .map(|n| {
            let title = n
                .descendants()
                .find(|d| d.has_tag_name("title"))
                .and_then(|t| t.text())
                .unwrap_or_default()
                .to_owned();
            let text = n
                .descendants()
                .find(|d| d.has_tag_name("text"))
                .map(|t| text_of(&t))
                .unwrap_or_default();
            (title, text)
        })
        .collect()
}

#[test]
fn the_isr_minority_leader_diagram_notes_leo_hw_and_isr_on_the_lanes_as_they_change() {
    let notes = state_notes(&diagram_of(common::run(3, common::ISR, "default")));
    let at = |tick: u64, node: &str| -> Vec<&str> {
        let head = format!("state at tick {tick}: {node} ");
        notes
            .iter()
            .filter(|(title, _)| title.starts_with(&head))
            .map(|(_, text)| text.as_str())
            .collect()
    };
    // The new leader appends the majority write at 33 and its HW follows at
    // 34; the old leader catches up (HW 2) only after the heal, at 77.
    assert_eq!(at(33, "node-2"), ["LEO 2"], "{notes:?}");
    assert_eq!(at(34, "node-2"), ["HW 2"], "{notes:?}");
    assert!(at(1, "node-2")[0].contains("ISR {2,3}"), "{notes:?}");
    assert!(at(77, "node-1")[0].starts_with("HW 2"), "{notes:?}");
    assert_eq!(at(77, "node-2"), ["ISR {1,2,3}"], "{notes:?}");
    let raft = state_notes(&diagram_of(common::run(3, common::RAFT, "default")));
    assert!(
        raft.iter().any(|(_, text)| text.contains("commit 4")),
        "{raft:?}"
    );
}

#[test]
fn a_diagram_is_byte_identical_when_the_run_is_repeated() {
    let again = labs::protocol_runs(common::RAFT).expect("runs");
    for run in again.iter().filter(|r| r.experiment == 3) {
        assert_eq!(
            diagram_of(run),
            diagram_of(common::run(3, common::RAFT, run.variant))
        );
    }
}

#[test]
fn the_committed_isr_diagram_matches_a_fresh_run() {
    let committed = include_str!("../../docs/diagram-exp3-isr.svg");
    assert!(
        committed == diagram_of(common::run(3, common::ISR, "default")),
        "docs/diagram-exp3-isr.svg is stale; regenerate with: \
         cargo xtask diagram --experiment 3 --protocol isr -o docs/diagram-exp3-isr.svg"
    );
}

/// How the diagram shows a value of the trace: printable bytes as text,
/// an absent value as `none`.
fn shown(value: Option<Value>) -> String {
    match value {
        Some(Value::Bytes(b)) if b.iter().all(|c| (0x20..0x7f).contains(c)) => {
            String::from_utf8_lossy(&b).into_owned()
        }
        Some(Value::Absent) | None => "none".to_owned(),
        Some(other) => other.to_string(),
    }
}

/// Field `key` of `event` when it is text.
fn text_field(event: &sim_core::EventRef<'_>, key: &str) -> Option<String> {
    match event.field(key)? {
        Value::Str(s) => Some(s.into_owned()),
        _ => None,
    }
}

#[test]
fn every_served_read_is_drawn_with_the_value_the_trace_says_it_returned() {
    let mut checked = 0;
    for run in common::runs() {
        let name = format!("exp{} {} {}", run.experiment, run.protocol, run.variant);
        let svg = diagram_of(run);
        let doc = Document::parse(&svg).expect("XML");
        let labels: Vec<String> = doc
            .descendants()
            .filter(|n| n.has_tag_name("text"))
            .map(|n| text_of(&n))
            .collect();
        assert!(
            !labels.iter().any(|l| l.contains("→ found")),
            "{name}: a read is drawn as `found`: {labels:?}"
        );
        let reads: BTreeSet<String> = run
            .trace
            .of_kind("client_op_submitted")
            .filter(|e| text_field(e, "kind").as_deref() == Some("read"))
            .filter_map(|e| e.field("op").map(|op| op.to_string()))
            .collect();
        for done in run.trace.of_kind("client_op_completed") {
            let op = done
                .field("op")
                .map(|op| op.to_string())
                .unwrap_or_default();
            let outcome = text_field(&done, "outcome");
            if !reads.contains(&op) || outcome.as_deref() != Some("done") {
                continue;
            }
            let expected = format!("→ {}", shown(done.field("value")));
            let bar = with_class(&doc, "client-op")
                .into_iter()
                .find(|g| {
                    g.children()
                        .find(|c| c.has_tag_name("title"))
                        .and_then(|t| t.text())
                        .is_some_and(|t| t.starts_with(&format!("op {op} ")))
                })
                .unwrap_or_else(|| panic!("{name}: no bar for read op {op}"));
            let label = bar
                .descendants()
                .find(|n| n.has_tag_name("text"))
                .map(|n| text_of(&n))
                .unwrap_or_default();
            assert!(
                label.ends_with(&expected) || label.ends_with(&format!("{expected} (stale)")),
                "{name}: read op {op} is drawn {label:?}, the trace says {expected:?}"
            );
            checked += 1;
        }
    }
    assert!(checked > 50, "only {checked} served reads checked");
}
