//! The whole document: title, subtitle, time axis, breaks and run
//! sections; lanes, arrows, the clients band and the legend are drawn by
//! their own modules, placed by [`Geometry`].

use sim_core::Trace;

use super::arrows;
use super::band;
use super::geometry::{AXIS_W, Geometry, HEADER_Y, TOP};
use super::lanes;
use super::legend;
use super::options::DiagramOptions;
use super::palette::{FAINT, INK, MUTED};
use super::place::{Occupancy, Rect};
use super::scene::{MsgEnd, Scene};
use super::svg::{El, Svg};
use super::text::num;
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
    let legend = legend::layout(width, names_bottom + 22.0, marked, noted);
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
