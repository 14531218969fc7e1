//! The whole document: title, subtitle, time axis, breaks and run
//! sections; lanes, arrows, the clients band and the legend are drawn by
//! their own modules, placed by [`Geometry`].

use std::collections::BTreeMap;

use sim_core::Trace;

use super::arrows;
use super::band;
use super::classify::Tone;
use super::geometry::{AXIS_W, Geometry, HEADER_Y, TOP};
use super::lanes;
use super::legend;
use super::options::DiagramOptions;
use super::palette::{DROP, FAINT, INK, MUTED, tone_colour};
use super::place::{Occupancy, Rect};
use super::scene::{FAULT_MARK, MsgEnd, Scene};
use super::svg::{El, Svg};
use super::text::{num, text_width};
use super::timeline::{BREAK, ROW, Timeline, layout};

fn subtitle(scene: &Scene, trace: &Trace) -> String {
    let dropped = scene
        .messages
        .iter()
        .filter(|m| matches!(m.end, MsgEnd::Dropped { .. }))
        .count();
    let rejected = scene
        .messages
        .iter()
        .filter(|m| m.rejection.is_some())
        .count();
    let ticks = match (trace.events().next(), trace.events().last()) {
        (Some(a), Some(b)) => format!(" · ticks {}–{}", a.tick, b.tick),
        _ => String::new(),
    };
    format!(
        "{} events{ticks} · {} nodes · {} messages ({dropped} dropped, {rejected} rejected or fenced) · time flows down",
        trace.len(),
        scene.lanes.len(),
        scene.messages.len()
    )
}

/// The `y` of each `(section, tick)`'s label: its first row's.
fn label_ys(scene: &Scene, tl: &Timeline) -> BTreeMap<(usize, u64), f64> {
    let mut ys = BTreeMap::new();
    for (i, row) in scene.rows.iter().enumerate() {
        ys.entry((row.section, row.tick)).or_insert_with(|| tl.y(i));
    }
    ys
}

/// Marks left of the tick labels: `⚡` at a tick at which a fault was
/// injected (hover: which), `◆` at the tick an operation marked violating
/// completed (or was submitted, if it never completed). Each its own
/// `<text>`, so a label's text stays `t=N`.
fn draw_tick_marks(svg: &mut Svg, scene: &Scene, tl: &Timeline) {
    let ys = label_ys(scene, tl);
    let mut faults: BTreeMap<(usize, u64), Vec<&str>> = BTreeMap::new();
    for (section, tick, line) in &scene.faults {
        faults.entry((*section, *tick)).or_default().push(line);
    }
    // Right-aligned before the label `t=N` (at `AXIS_W - 8`).
    let left_of_label = |tick: u64, slot: f64| {
        AXIS_W - 8.0 - text_width(&format!("t={tick}"), 10.0) - 4.0 - 12.0 * slot
    };
    for (at, lines) in &faults {
        let Some(&y) = ys.get(at) else { continue };
        svg.open(El::new("g").class("fault-tick"));
        svg.title(&format!(
            "fault injected at tick {}:\n{}",
            at.1,
            lines.join("\n")
        ));
        svg.text(
            El::new("text")
                .num("x", left_of_label(at.1, 1.0))
                .num("y", y + 4.0)
                .attr("fill", DROP)
                .attr("font-size", "12"),
            FAULT_MARK,
        );
        svg.close("g");
    }
    let mut violating: Vec<(usize, u64)> = scene
        .band
        .iter()
        .filter(|item| item.violating)
        .filter_map(|item| scene.rows.get(item.to_row).map(|r| (r.section, r.tick)))
        .collect();
    violating.dedup();
    for at in violating {
        let Some(&y) = ys.get(&at) else { continue };
        svg.open(El::new("g").class("violating-tick"));
        svg.title(&format!(
            "tick {}: an operation marked violating completed",
            at.1
        ));
        let slot = if faults.contains_key(&at) { 2.0 } else { 1.0 };
        svg.text(
            El::new("text")
                .num("x", left_of_label(at.1, slot))
                .num("y", y + 4.0)
                .attr("fill", tone_colour(Tone::Bad))
                .attr("font-size", "12"),
            "◆",
        );
        svg.close("g");
    }
}

fn draw_axis(svg: &mut Svg, tl: &Timeline, geo: &Geometry) {
    svg.open(El::new("g").class("axis"));
    svg.text(
        El::new("text")
            .num("x", AXIS_W - 8.0)
            .num("y", HEADER_Y + 4.0)
            .attr("text-anchor", "end")
            .attr("fill", MUTED),
        "tick",
    );
    for &(y, tick) in &tl.tick_labels {
        let above = y - ROW / 2.0 - 3.0;
        svg.leaf(
            El::new("line")
                .num("x1", AXIS_W)
                .num("y1", above)
                .num("x2", geo.width - 12.0)
                .num("y2", above)
                .attr("stroke", FAINT)
                .attr("stroke-width", "1"),
        );
        svg.text(
            El::new("text")
                .num("x", AXIS_W - 8.0)
                .num("y", y + 3.5)
                .attr("text-anchor", "end")
                .attr("fill", MUTED)
                .attr("font-size", "10"),
            &format!("t={tick}"),
        );
    }
    for b in &tl.breaks {
        svg.open(El::new("g").class("break"));
        svg.title(&format!("{} idle ticks compressed", b.ticks));
        svg.leaf(
            El::new("rect")
                .num("x", 8.0)
                .num("y", b.y - BREAK / 2.0 + 4.0)
                .num("width", geo.width - 20.0)
                .num("height", BREAK - 8.0)
                .attr("fill", "#f7fafc"),
        );
        svg.text(
            El::new("text")
                .num("x", 10.0)
                .num("y", b.y + 3.5)
                .attr("fill", MUTED)
                .attr("font-size", "10"),
            &format!("≈ {} ticks", b.ticks),
        );
        svg.close("g");
    }
    for &y in &tl.dividers {
        svg.leaf(
            El::new("line")
                .num("x1", 8.0)
                .num("y1", y)
                .num("x2", geo.width - 12.0)
                .num("y2", y)
                .attr("stroke", MUTED)
                .attr("stroke-width", "1.5"),
        );
    }
    svg.close("g");
}

/// The whole document.
pub(super) fn render(scene: &Scene, options: &DiagramOptions, trace: &Trace) -> String {
    let tl = layout(&scene.rows, TOP);
    let packing = band::pack(scene, &tl);
    let geo = Geometry::new(scene.lanes.len(), packing.columns);
    let bottom = tl.bottom + 12.0;
    let repeat_names = tl.bottom > 900.0;

    // The body first: the page is as wide as its widest label.
    let mut body = Svg::fragment(1);
    draw_axis(&mut body, &tl, &geo);
    draw_tick_marks(&mut body, scene, &tl);
    for (row, name) in &scene.sections {
        body.text(
            El::new("text")
                .class("section")
                .num("x", geo.band_x)
                .num("y", tl.y(*row) + 4.0)
                .attr("font-weight", "bold")
                .attr("fill", INK),
            &format!("run: {name}"),
        );
    }
    lanes::draw_lanes(&mut body, scene, &tl, &geo, bottom);
    band::draw_connectors(&mut body, scene, &tl, &geo, &packing);
    arrows::draw_lines(&mut body, scene, &tl, &geo);
    let mut taken = Occupancy::default();
    for i in 0..scene.lanes.len() {
        taken.take(Rect {
            x: geo.lane_x(i) - 4.0,
            y: TOP - ROW,
            w: 8.0,
            h: bottom - TOP + ROW,
        });
    }
    arrows::reserve_tips(scene, &tl, &geo, &mut taken);
    lanes::draw_notes(&mut body, scene, &tl, &geo, &mut taken);
    band::draw(&mut body, scene, &tl, &geo, &packing, HEADER_Y);
    arrows::draw_labels(&mut body, scene, &tl, &geo, &mut taken);
    let names_bottom = if repeat_names {
        for (i, name) in scene.lanes.iter().enumerate() {
            lanes::lane_name(&mut body, geo.lane_x(i), bottom + 14.0, name);
        }
        bottom + 26.0
    } else {
        bottom
    };

    let width = geo.width.max(taken.right_edge() + 16.0).ceil();
    let marked = scene.band.iter().any(|item| item.violating);
    let noted = scene
        .notes
        .iter()
        .any(|n| n.style == super::scene::NoteStyle::StateLine);
    let faulted = !scene.faults.is_empty();
    let legend = legend::layout(width, names_bottom + 22.0, marked, noted, faulted);
    let height = (legend.bottom + 14.0).ceil();
    let title = options
        .title
        .clone()
        .unwrap_or_else(|| "space-time diagram".to_owned());
    let mut svg = Svg::new();
    svg.open(
        El::new("svg")
            .attr("xmlns", "http://www.w3.org/2000/svg")
            .attr("version", "1.1")
            .num("width", width)
            .num("height", height)
            .attr("viewBox", &format!("0 0 {} {}", num(width), num(height)))
            .attr("font-family", "monospace")
            .attr("font-size", "10.5"),
    );
    svg.title(&title);
    svg.leaf(
        El::new("rect")
            .num("x", 0.0)
            .num("y", 0.0)
            .num("width", width)
            .num("height", height)
            .attr("fill", "#ffffff"),
    );
    svg.text(
        El::new("text")
            .class("title")
            .num("x", 16.0)
            .num("y", 26.0)
            .attr("font-family", "sans-serif")
            .attr("font-size", "17")
            .attr("font-weight", "bold")
            .attr("fill", INK),
        &title,
    );
    svg.text(
        El::new("text")
            .class("subtitle")
            .num("x", 16.0)
            .num("y", 46.0)
            .attr("font-family", "sans-serif")
            .attr("font-size", "12")
            .attr("fill", MUTED),
        &subtitle(scene, trace),
    );
    svg.append(body);
    legend::draw(&mut svg, &legend);
    svg.close("svg");
    svg.finish()
}
