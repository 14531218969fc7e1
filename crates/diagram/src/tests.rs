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

/// What a reader sees: the content of every `<text>` element (tooltips,
/// which hold whole trace lines, left out).
fn visible_text(svg: &str) -> Vec<&str> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| Some(&t[t.find('>')? + 1..t.find("</text>")?]))
        .collect()
}

/// The `<g>` element whose class attribute is exactly `class`, with its
/// content up to its closing tag (the band's groups do not nest).
fn group<'a>(svg: &'a str, class: &str) -> Vec<&'a str> {
    let open = format!(r#"<g class="{class}">"#);
    svg.match_indices(&open)
        .map(|(at, _)| {
            let end = svg[at..].find("</g>").expect("a group closes") + at;
            &svg[at..end]
        })
        .collect()
}

/// A write of `k=v1` acknowledged, then reads of `k`: op 2 (LOCAL, at
/// `n2`) returns nothing, op 3 (LEADER, at `n1`) returns `v1`. The lane
/// events are shaped as the protocols record them: Raft's
/// `raft_read_served` carries `value` (absent when nothing was found),
/// Redis-shaped `async_read_served` only `found`.
fn reads_trace() -> Trace {
    let (n1, n2, _) = nodes();
    let nothing: Option<Bytes> = None;
    let mut t = Trace::new();
    record!(
        t,
        0,
        "demo_group_started",
        nodes = vec![n1.clone(), n2.clone()],
        leader = &n1
    );
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
        1,
        "client_op_completed",
        op = 1u64,
        outcome = "done",
        node = &n1,
        offset = 1u64
    );
    record!(
        t,
        2,
        "client_op_submitted",
        op = 2u64,
        kind = "read",
        key = b("k"),
        value = nothing.clone(),
        level = "LOCAL",
        node = &n2
    );
    record!(
        t,
        2,
        "raft_read_served",
        node = &n2,
        level = "LOCAL",
        key = b("k"),
        value = nothing.clone(),
        applied = 0u64
    );
    record!(
        t,
        2,
        "client_op_completed",
        op = 2u64,
        outcome = "done",
        node = &n2,
        offset = 0u64,
        value = nothing.clone()
    );
    record!(
        t,
        3,
        "client_op_submitted",
        op = 3u64,
        kind = "read",
        key = b("k"),
        value = nothing.clone(),
        level = "LEADER",
        node = &n1
    );
    record!(
        t,
        3,
        "async_read_served",
        node = &n1,
        level = "LEADER",
        key = b("k"),
        offset = 1u64,
        found = true
    );
    record!(
        t,
        3,
        "client_op_completed",
        op = 3u64,
        outcome = "done",
        node = &n1,
        offset = 1u64,
        value = b("v1")
    );
    t
}

#[test]
fn a_read_that_returned_nothing_says_none_and_never_found() {
    let svg = render_svg(&reads_trace(), &DiagramOptions::default());
    let said = visible_text(&svg);
    assert!(!said.iter().any(|t| t.contains("found")), "{said:?}");
    assert!(svg.contains(">R k → none (LOCAL"), "{svg}");
    // `found = true` alone does not say what was found: the client's
    // completion does.
    assert!(svg.contains(">R k → v1 (LEADER)<"), "{svg}");

    let mut t = Trace::new();
    let n1 = NodeId::new("n1");
    record!(
        t,
        0,
        "async_read_served",
        node = &n1,
        level = "LOCAL",
        key = b("k"),
        offset = 0u64,
        found = false
    );
    let svg = render_svg(&t, &DiagramOptions::default());
    assert!(svg.contains(">R k → none (LOCAL)<"), "{svg}");
    let said = visible_text(&svg);
    assert!(!said.iter().any(|t| t.contains("found")), "{said:?}");
}

#[test]
fn a_read_older_than_a_write_acked_before_it_is_not_drawn_green() {
    let svg = render_svg(&reads_trace(), &DiagramOptions::default());
    let ok_green = super::palette::tone_colour(super::classify::Tone::Ok);
    let stale = group(&svg, "client-op done stale");
    assert_eq!(stale.len(), 1, "{svg}");
    assert!(stale[0].contains(">R k → none (stale)<"), "{}", stale[0]);
    assert!(!stale[0].contains(ok_green), "{}", stale[0]);
    assert!(
        stale[0].contains("op 1"),
        "the tooltip names the acked write"
    );
    // The fresh read stays green.
    let fresh = group(&svg, "client-op done");
    assert_eq!(fresh.len(), 2, "the write and the fresh read");
    assert!(fresh.iter().any(|g| g.contains(">R k → v1<")));
    // On the lane too.
    let stale_note = group(&svg, "marker stale");
    assert_eq!(stale_note.len(), 1, "{svg}");
    assert!(stale_note[0].contains("R k → none (LOCAL, stale)"));
    assert!(!stale_note[0].contains(ok_green));
}

#[test]
fn an_operation_marked_violating_is_drawn_bad_with_a_diamond_and_a_legend_entry() {
    let plain = render_svg(&reads_trace(), &DiagramOptions::default());
    assert!(!plain.contains("violating"), "nothing is marked by default");

    let options = DiagramOptions::titled("marked").with_violating([3]);
    let svg = render_svg(&reads_trace(), &options);
    let bad = super::palette::tone_colour(super::classify::Tone::Bad);
    let ok_green = super::palette::tone_colour(super::classify::Tone::Ok);
    // The fresh-looking read op 3 is the marked one: bad, not green, with
    // its halo and the mark in its label.
    let marked = group(&svg, "client-op done violating");
    assert_eq!(marked.len(), 1, "{svg}");
    assert!(
        marked[0].contains(">R k → v1 ◆ violating<"),
        "{}",
        marked[0]
    );
    assert!(marked[0].contains(r#"class="violating-mark""#));
    assert!(marked[0].contains(bad) && !marked[0].contains(ok_green));
    // The serving node's note has the diamond instead of a dot.
    let note = group(&svg, "marker violating");
    assert_eq!(note.len(), 1, "{svg}");
    assert!(note[0].contains("R k → v1 (LEADER) ◆ violating"));
    assert!(note[0].contains("<polygon"), "{}", note[0]);
    // The stale read stays stale, the legend explains the mark.
    assert_eq!(group(&svg, "client-op done stale").len(), 1);
    assert!(svg.contains("◆ op marked violating"));
    // An id no operation has marks nothing.
    let svg = render_svg(
        &reads_trace(),
        &DiagramOptions::default().with_violating([99]),
    );
    assert!(!svg.contains("violating"));
}

#[test]
fn fault_ticks_are_marked_on_the_axis_with_what_was_injected() {
    let (n1, n2, _) = nodes();
    let mut t = reads_trace();
    record!(t, 4, "node_crashed", node = &n2, lose_unfsynced = false);
    record!(t, 4, "node_isolated", node = &n1);
    record!(t, 6, "node_restarted", node = &n2);
    let svg = render_svg(&t, &DiagramOptions::default());
    let marks = group(&svg, "fault-tick");
    assert_eq!(marks.len(), 2, "ticks 4 and 6: {svg}");
    assert!(
        marks[0].contains("fault injected at tick 4:\nnode_crashed node=n2")
            && marks[0].contains("node_isolated node=n1"),
        "{}",
        marks[0]
    );
    assert!(marks[1].contains("node_restarted node=n2"), "{}", marks[1]);
    assert!(marks.iter().all(|m| m.contains(">⚡</text>")));
    assert!(svg.contains("tick at which a fault was injected"));
    // A tick label keeps its text (the report's state panel reads `t=N`).
    assert!(visible_text(&svg).contains(&"t=4"));
    // No fault, no mark and no legend entry.
    let plain = render_svg(&reads_trace(), &DiagramOptions::default());
    assert!(group(&plain, "fault-tick").is_empty());
    assert!(!plain.contains("fault was injected"));
}

#[test]
fn the_tick_a_violating_operation_completed_is_marked_on_the_axis() {
    let svg = render_svg(
        &reads_trace(),
        &DiagramOptions::default().with_violating([3]),
    );
    let marks = group(&svg, "violating-tick");
    assert_eq!(marks.len(), 1, "{svg}");
    assert!(marks[0].contains("tick 3: an operation marked violating completed"));
    assert!(marks[0].contains(">◆</text>"));
    let plain = render_svg(&reads_trace(), &DiagramOptions::default());
    assert!(group(&plain, "violating-tick").is_empty());
}
