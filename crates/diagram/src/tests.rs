//! Whole-picture tests on hand-built traces.

use bytes::Bytes;
use sim_core::{NodeId, Trace, record};

use super::{DiagramOptions, render_svg};

fn count(svg: &str, needle: &str) -> usize {
    svg.matches(needle).count()
}

fn nodes() -> (NodeId, NodeId, NodeId) {
    (NodeId::new("n1"), NodeId::new("n2"), NodeId::new("n3"))
}

/// A group of three with one delivered, one dropped and one fenced message.
fn messages_trace() -> Trace {
    let (n1, n2, n3) = nodes();
    let mut t = Trace::new();
    let all = vec![n1.clone(), n2.clone(), n3.clone()];
    record!(
        t,
        0,
        "demo_group_started",
        nodes = all,
        leader = &n1,
        leader_epoch = 1u64
    );
    record!(
        t,
        0,
        "message_sent",
        id = 0u64,
        src = &n1,
        dst = &n2,
        msg = "append"
    );
    record!(
        t,
        0,
        "message_sent",
        id = 1u64,
        src = &n1,
        dst = &n3,
        msg = "append"
    );
    record!(
        t,
        0,
        "message_dropped",
        id = 1u64,
        src = &n1,
        dst = &n3,
        msg = "append",
        reason = "partition"
    );
    record!(
        t,
        1,
        "message_delivered",
        id = 0u64,
        src = &n1,
        dst = &n2,
        msg = "append"
    );
    record!(
        t,
        1,
        "demo_append_rejected",
        node = &n2,
        reason = "stale_leader_epoch",
        packet_epoch = 1u64,
        known_epoch = 2u64
    );
    record!(t, 1, "demo_node_crashed", node = &n3);
    record!(t, 1002, "demo_node_restarted", node = &n3);
    t
}

#[test]
fn messages_drops_and_rejections_are_drawn_with_their_reasons() {
    let svg = render_svg(&messages_trace(), &DiagramOptions::titled("demo <1>"));
    assert_eq!(count(&svg, r#"class="lane""#), 3);
    assert_eq!(count(&svg, r#"class="msg rejected""#), 1);
    assert_eq!(count(&svg, r#"class="msg dropped""#), 1);
    assert!(
        svg.contains("rejected: stale_leader_epoch (epoch 1 &lt; 2)"),
        "{svg}"
    );
    assert!(svg.contains("× partition"));
    assert!(svg.contains("demo &lt;1&gt;"));
    assert_eq!(count(&svg, r#"class="segment crashed""#), 1);
    assert!(svg.contains("≈ 1000 ticks"));
    assert!(svg.contains("leader (epoch 1)"));
}

#[test]
fn the_same_trace_gives_the_same_bytes() {
    let options = DiagramOptions::default();
    assert_eq!(
        render_svg(&messages_trace(), &options),
        render_svg(&messages_trace(), &options)
    );
}

fn b(text: &'static str) -> Bytes {
    Bytes::from_static(text.as_bytes())
}

/// The `client_op_submitted` / `client_op_completed` shape: two overlapping
/// writes, a read served, a read that failed and a write whose outcome is
/// unknown.
fn client_trace() -> Trace {
    let (n1, n2, _) = nodes();
    let none: Option<NodeId> = None;
    let mut t = Trace::new();
    record!(
        t,
        0,
        "client_op_submitted",
        op = 1u64,
        kind = "write",
        key = b("k"),
        value = b("v1"),
        level = "QUORUM",
        node = &n1
    );
    record!(
        t,
        0,
        "client_op_submitted",
        op = 2u64,
        kind = "write",
        key = b("k"),
        value = b("v2"),
        level = "QUORUM",
        node = none.clone()
    );
    record!(
        t,
        2,
        "client_op_completed",
        op = 1u64,
        outcome = "done",
        node = &n1,
        offset = 3u64
    );
    record!(
        t,
        3,
        "client_op_completed",
        op = 2u64,
        outcome = "unknown",
        node = none.clone(),
        reason = "timed out".to_string()
    );
    record!(
        t,
        4,
        "client_op_submitted",
        op = 3u64,
        kind = "read",
        key = b("k"),
        level = "LINEARIZABLE",
        node = &n2
    );
    record!(
        t,
        5,
        "client_op_completed",
        op = 3u64,
        outcome = "done",
        node = &n2,
        offset = 3u64,
        value = b("v1")
    );
    record!(
        t,
        6,
        "client_op_submitted",
        op = 4u64,
        kind = "read",
        key = b("k"),
        level = "LINEARIZABLE",
        node = &n2
    );
    record!(
        t,
        7,
        "client_op_completed",
        op = 4u64,
        outcome = "failed",
        node = &n2,
        reason = "blocked".to_string()
    );
    record!(
        t,
        8,
        "client_op_submitted",
        op = 5u64,
        kind = "write",
        key = b("k\0"),
        value = b("<x>"),
        level = "LEADER"
    );
    t
}

#[test]
fn client_operations_are_bars_labelled_with_their_outcome() {
    let svg = render_svg(&client_trace(), &DiagramOptions::default());
    assert_eq!(count(&svg, r#"class="client-op done""#), 2);
    assert_eq!(count(&svg, r#"class="client-op unknown""#), 1);
    assert_eq!(count(&svg, r#"class="client-op failed""#), 1);
    assert_eq!(count(&svg, r#"class="client-op open""#), 1);
    assert!(svg.contains(">W k=v1 ✓<"), "{svg}");
    assert!(svg.contains(">W k=v2 ?<"));
    assert!(svg.contains(">R k → v1<"));
    assert!(svg.contains(">R k ✗ blocked<"));
    assert!(
        svg.contains(r#">W b&quot;k\x00&quot;=&lt;x&gt; …<"#),
        "{svg}"
    );
}

#[test]
fn overlapping_operations_take_two_columns_and_later_ones_reuse_them() {
    let scene = super::read::build(&client_trace());
    let tl = super::timeline::layout(&scene.rows, 0.0);
    let packing = super::band::pack(&scene, &tl);
    assert_eq!(packing.columns, 2);
    assert_eq!(packing.column_of, vec![0, 1, 0, 0, 0]);
}

#[test]
fn nodes_come_from_the_group_start_then_from_any_node_field() {
    let (n1, n2, n3) = nodes();
    let mut t = Trace::new();
    record!(
        t,
        0,
        "demo_group_created",
        primary = &n3,
        standbys = vec![n2.clone()]
    );
    record!(t, 0, "demo_thing", node = &n1);
    let scene = super::read::build(&t);
    assert_eq!(scene.lanes, vec!["n3", "n2", "n1"]);
    let mut t = Trace::new();
    record!(
        t,
        0,
        "demo_group_started",
        nodes = vec![n2.clone(), n1.clone()],
        leader = &n1
    );
    let scene = super::read::build(&t);
    assert_eq!(scene.lanes, vec!["n2", "n1"]);
}

#[test]
fn a_delivery_dropped_at_the_receiver_ends_in_a_cross_there() {
    let (n1, n2, _) = nodes();
    let mut t = Trace::new();
    record!(
        t,
        0,
        "message_sent",
        id = 0u64,
        src = &n1,
        dst = &n2,
        msg = "keepalive"
    );
    record!(
        t,
        1,
        "message_delivered",
        id = 0u64,
        src = &n1,
        dst = &n2,
        msg = "keepalive"
    );
    record!(
        t,
        1,
        "message_dropped",
        id = 0u64,
        src = &n1,
        dst = &n2,
        msg = "keepalive",
        reason = "receiver_down"
    );
    let scene = super::read::build(&t);
    assert_eq!(scene.rows.len(), 2);
    assert!(matches!(
        scene.messages[0].end,
        super::scene::MsgEnd::Dropped {
            row: 1,
            at_send: false,
            ..
        }
    ));
}

#[test]
fn an_empty_trace_is_still_a_picture() {
    let svg = render_svg(&Trace::new(), &DiagramOptions::default());
    assert!(svg.starts_with("<?xml") && svg.trim_end().ends_with("</svg>"));
    assert_eq!(count(&svg, r#"class="lane""#), 0);
    assert!(svg.contains("legend"));
}

#[test]
fn message_ids_start_again_in_each_appended_run() {
    let (n1, n2, _) = nodes();
    let mut first = Trace::new();
    record!(
        first,
        0,
        "message_sent",
        id = 0u64,
        src = &n1,
        dst = &n2,
        msg = "a"
    );
    let mut second = Trace::new();
    record!(
        second,
        0,
        "message_sent",
        id = 0u64,
        src = &n2,
        dst = &n1,
        msg = "b"
    );
    record!(
        second,
        1,
        "message_delivered",
        id = 0u64,
        src = &n2,
        dst = &n1,
        msg = "b"
    );
    let mut both = Trace::new();
    both.append_run("first", &first);
    both.append_run("second", &second);
    let scene = super::read::build(&both);
    assert_eq!(scene.sections.len(), 2);
    assert!(matches!(
        scene.messages[0].end,
        super::scene::MsgEnd::InFlight(_)
    ));
    assert!(matches!(
        scene.messages[1].end,
        super::scene::MsgEnd::Delivered(_)
    ));
    let svg = render_svg(&both, &DiagramOptions::default());
    assert!(svg.contains("run: first") && svg.contains("run: second"));
    assert_eq!(count(&svg, r#"class="msg in-flight""#), 1);
}

#[test]
fn node_less_ack_markers_give_way_to_client_operations() {
    let mut t = Trace::new();
    record!(t, 1, "demo_write_acknowledged", offset = 1u64);
    let svg = render_svg(&t, &DiagramOptions::default());
    assert!(svg.contains(r#"class="client-marker ok""#));
    assert!(svg.contains("✓ write acked offset 1"));

    let mut t = client_trace();
    record!(t, 9, "demo_write_acknowledged", offset = 1u64);
    let svg = render_svg(&t, &DiagramOptions::default());
    assert!(!svg.contains("client-marker"));
}
