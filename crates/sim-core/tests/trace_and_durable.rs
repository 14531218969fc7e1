//! Trace rendering, JSON round trip, recording switch; durable images.

use bytes::Bytes;
use sim_core::{DurableImages, NetConfig, NodeId, Payload, Rng, SimNet, Trace, Value, record};

struct Hello;
impl Payload for Hello {
    fn label(&self) -> &'static str {
        "hello"
    }
}

fn small_scripted_simulation(trace: &mut Trace) {
    let (a, b) = (NodeId::new("n1"), NodeId::new("n2"));
    let mut net = SimNet::new(NetConfig::default().with_delay_range(1, 2)).expect("valid");
    let mut rng = Rng::new(7);
    record!(
        trace,
        net.now(),
        "run_started",
        seed = 7u64,
        nodes = vec![a.clone(), b.clone()]
    );
    net.send(&a, &b, Hello, &mut rng, trace);
    net.send(&b, &a, Hello, &mut rng, trace);
    net.advance();
    net.partition(&b, &a);
    for _ in 0..2 {
        while let Some(env) = net.next_delivery(trace) {
            record!(
                trace,
                net.now(),
                "greeted",
                node = &env.dst,
                value = Bytes::from_static(b"Mini\"Dist\n")
            );
        }
        net.advance();
    }
    record!(
        trace,
        net.now(),
        "finished",
        leader = None::<NodeId>,
        delta = -3i64,
        ok = true,
        note = "all done",
        raw = Bytes::from_static(&[0, 255])
    );
}

#[test]
fn small_scripted_simulation_trace_text_is_pinned() {
    let mut trace = Trace::new();
    small_scripted_simulation(&mut trace);
    insta::assert_snapshot!("small_scripted_simulation", trace.to_text());
}

#[test]
fn json_lines_parse_back_to_the_same_events() {
    let mut trace = Trace::new();
    small_scripted_simulation(&mut trace);
    let text = trace.to_jsonl();
    assert_eq!(text.lines().count(), trace.len());
    let parsed = Trace::parse_jsonl(&text).expect("parses");
    assert_eq!(parsed, trace.to_events());
}

#[test]
fn json_lines_write_node_ids_as_plain_strings_and_name_the_node_fields() {
    let mut trace = Trace::new();
    small_scripted_simulation(&mut trace);
    let text = trace.to_jsonl();
    for line in text.lines() {
        let event: serde_json::Value = serde_json::from_str(line).expect("json");
        let fields = event["fields"].as_object().expect("fields");
        assert!(
            fields.values().all(|v| v.get("node").is_none()),
            "no tagged node ids: {line}"
        );
    }
    let first: serde_json::Value =
        serde_json::from_str(text.lines().next().expect("a line")).expect("json");
    assert_eq!(first["fields"]["nodes"], serde_json::json!(["n1", "n2"]));
    assert_eq!(first["nodes"], serde_json::json!(["nodes"]));
    let greeted = text
        .lines()
        .find(|l| l.contains("\"greeted\""))
        .expect("a greeted line");
    let greeted: serde_json::Value = serde_json::from_str(greeted).expect("json");
    assert_eq!(greeted["fields"]["node"], "n2");
    assert_eq!(greeted["nodes"], serde_json::json!(["node"]));
    // A text field that looks like a node id stays text on the way back.
    let mut t = Trace::new();
    record!(
        t,
        0,
        "x",
        node = &NodeId::new("n1"),
        why = "n1",
        none = None::<NodeId>
    );
    let line = t.to_jsonl();
    assert_eq!(
        line,
        "{\"seq\":0,\"tick\":0,\"kind\":\"x\",\"fields\":{\"node\":\"n1\",\"why\":\"n1\",\"none\":null},\"nodes\":[\"node\"]}\n"
    );
    assert_eq!(Trace::parse_jsonl(&line).expect("parses"), t.to_events());
    // The tagged form of older lines still parses.
    let old =
        r#"{"seq":0,"tick":0,"kind":"x","fields":{"node":{"node":"n1"},"why":"n1","none":null}}"#;
    assert_eq!(Trace::parse_jsonl(old).expect("parses"), t.to_events());
}

#[test]
fn malformed_json_lines_are_errors_naming_the_line() {
    let err = Trace::parse_jsonl("{\"seq\":0,\"tick\":0,\"kind\":\"x\",\"fields\":{}}\nnot json")
        .unwrap_err();
    assert!(err.to_string().contains("line 2"), "{err}");
    assert!(Trace::parse_jsonl("{\"seq\":0}").is_err());
    assert!(
        Trace::parse_jsonl(r#"{"seq":0,"tick":0,"kind":"x","fields":{"v":{"bytes_hex":"zz"}}}"#)
            .is_err()
    );
    assert!(Trace::parse_jsonl(r#"{"seq":0,"tick":0,"kind":"x","fields":{"v":1.5}}"#).is_err());
}

#[test]
fn byte_strings_render_escaped() {
    let mut trace = Trace::new();
    record!(
        trace,
        0,
        "x",
        v = Bytes::from_static(b"MiniDist"),
        w = Bytes::from_static(b"a\"\x00")
    );
    assert_eq!(
        trace.to_text(),
        "#0 @0 x v=b\"MiniDist\" w=b\"a\\\"\\x00\"\n"
    );
}

#[test]
fn switching_recording_off_keeps_nothing_and_changes_no_behaviour() {
    let mut on = Trace::new();
    let mut off = Trace::new();
    off.set_enabled(false);
    small_scripted_simulation(&mut on);
    small_scripted_simulation(&mut off);
    assert!(off.is_empty());
    assert!(!on.is_empty());
    off.set_enabled(true);
    record!(off, 9, "back_on");
    assert_eq!(off.get(0).map(|e| e.seq), Some(0));
}

#[test]
fn append_run_renumbers_and_marks_the_boundary() {
    let mut first = Trace::new();
    record!(first, 1, "a");
    let mut second = Trace::new();
    record!(second, 4, "b");
    first.append_run("second", &second);
    assert_eq!(
        first.to_text(),
        "#0 @1 a\n#1 @4 run_started name=\"second\"\n#2 @4 b\n"
    );
}

#[test]
fn value_conversions_are_canonical() {
    assert_eq!(Value::from(5i64), Value::UInt(5));
    assert_eq!(Value::from(-5i64), Value::Int(-5));
    assert_eq!(Value::from(None::<u64>), Value::Absent);
    assert_eq!(Value::from(vec![1u64, 2]).to_string(), "[1, 2]");
}

/// A toy node that persists a counter: the way protocols use DurableImages.
struct Counter {
    live: u64,
}

#[test]
fn ordinary_crash_keeps_state_while_lose_unfsynced_restores_exactly_the_last_fsync() {
    let node = NodeId::new("n1");
    let mut disk = DurableImages::new();
    let mut c = Counter { live: 0 };
    c.live = 3;
    disk.fsync(&node, c.live);
    c.live = 5;
    // Ordinary crash: the process restarts with its persisted state.
    let after_crash = c.live;
    assert_eq!(after_crash, 5);
    // Power loss: exactly the last fsynced image comes back.
    c.live = disk.image(&node).copied().unwrap_or(0);
    assert_eq!(c.live, 3);
    // A node that never fsynced has no image.
    assert_eq!(disk.image(&NodeId::new("n2")), None);
    if let Some(image) = disk.image_mut(&node) {
        *image = 2;
    }
    assert_eq!(disk.image(&node), Some(&2));
}

#[test]
fn node_ids_are_recorded_by_name_even_when_their_memory_is_reused() {
    let mut trace = Trace::new();
    for i in 0..300 {
        // Each id is dropped right after recording, so addresses get reused.
        let node = NodeId::new(format!("n{i}"));
        record!(trace, i, "seen", node = &node, again = vec![node.clone()]);
    }
    for (i, event) in trace.events().enumerate() {
        let expected = NodeId::new(format!("n{i}"));
        assert_eq!(event.field("node"), Some(Value::Node(expected.clone())));
        assert_eq!(
            event.field("again"),
            Some(Value::List(vec![Value::Node(expected)]))
        );
    }
}

#[test]
fn every_value_kind_survives_the_compact_store() {
    let values = vec![
        Value::UInt(0),
        Value::UInt(u64::MAX),
        Value::Int(i64::MIN),
        Value::Int(-1),
        Value::Bool(true),
        Value::Bool(false),
        Value::from("static text"),
        Value::from(String::from("owned text")),
        Value::Node(NodeId::new("n1")),
        Value::Bytes(Bytes::from_static(&[0, 1, 255])),
        Value::Bytes(Bytes::new()),
        Value::List(vec![Value::UInt(1), Value::List(vec![Value::Absent])]),
        Value::Absent,
    ];
    let mut trace = Trace::new();
    for value in &values {
        trace.push(
            1,
            "v",
            [(std::borrow::Cow::Borrowed("value"), value.clone())],
        );
    }
    let stored: Vec<Value> = trace.events().filter_map(|e| e.field("value")).collect();
    assert_eq!(stored, values);
    let owned_key = trace.to_events();
    let mut copy = Trace::new();
    let mut other = Trace::new();
    for event in &owned_key {
        other.push(event.tick, "v", event.fields.clone());
    }
    copy.append_run("copy", &other);
    assert_eq!(copy.len(), values.len() + 1);
    assert_eq!(
        copy.get(1).and_then(|e| e.field("value")),
        Some(Value::UInt(0))
    );
    assert_eq!(
        trace.get(6).and_then(|e| e.str_field("value")),
        Some("static text")
    );
    assert_eq!(
        trace.get(7).and_then(|e| e.str_field("value")),
        Some("owned text")
    );
    assert_eq!(trace.get(0).and_then(|e| e.str_field("value")), None);
}

/// `of_kind` and `count` match a kind by its interned ids: one kind held
/// both as static text and as owned text (what `append_run` copies in) is
/// found under both, in order.
#[test]
fn of_kind_and_count_find_a_kind_under_every_id_it_is_interned_as() {
    let mut inner = Trace::new();
    sim_core::record!(inner, 1, "tick_done", n = 1u64);
    let mut outer = Trace::new();
    sim_core::record!(outer, 0, "tick_done", n = 0u64);
    outer.append_run("inner", &inner);
    sim_core::record!(outer, 2, "other", n = 9u64);
    sim_core::record!(outer, 3, "tick_done", n = 2u64);
    assert_eq!(outer.count("tick_done"), 3);
    assert_eq!(outer.count("missing"), 0);
    let seen: Vec<(u64, Option<sim_core::Value>)> = outer
        .of_kind("tick_done")
        .map(|e| (e.seq, e.field("n")))
        .collect();
    assert_eq!(
        seen,
        vec![
            (0, Some(sim_core::Value::UInt(0))),
            (2, Some(sim_core::Value::UInt(1))),
            (4, Some(sim_core::Value::UInt(2))),
        ]
    );
}
