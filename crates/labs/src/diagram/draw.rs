//! The scene drawn: page geometry, title, time axis, lanes and their
//! segments, breaks and notes; arrows, the clients band and the legend are
//! drawn by their own modules.

use sim_core::Trace;

use super::DiagramOptions;
use super::arrows;
use super::band;
use super::classify::Tone;
use super::lanes;
use super::legend;
use super::place::{Occupancy, Rect};
use super::scene::{MsgEnd, Scene};
use super::svg::{El, Svg};
use super::text::num;
use super::timeline::{BREAK, ROW, Timeline, layout};

/// `y` of the first row.
pub(super) const TOP: f64 = 108.0;
/// Width of the tick axis at the left.
const AXIS_W: f64 = 76.0;
/// Width of one column of the clients band.
pub(super) const BAND_COL: f64 = 220.0;
/// Space between the band (or the axis) and the first lane.
const LANE_LEFT: f64 = 70.0;
/// Space between two lanes.
pub(super) const LANE_GAP: f64 = 300.0;
/// Space right of the last lane, for its notes.
const RIGHT: f64 = 300.0;
const MIN_WIDTH: f64 = 980.0;
/// `y` of the lane names at the top.
pub(super) const HEADER_Y: f64 = 80.0;

pub(super) const INK: &str = "#1a202c";
pub(super) const MUTED: &str = "#718096";
pub(super) const FAINT: &str = "#e2e8f0";
pub(super) const ROLE: &str = "#6b46c1";
pub(super) const DROP: &str = "#dd6b20";
pub(super) const REJECT: &str = "#c53030";
pub(super) const CRASHED: &str = "#a0aec0";
pub(super) const ISOLATED: &str = "#fbd38d";

/// The colour of a tone.
pub(super) fn tone_colour(tone: Tone) -> &'static str {
    match tone {
        Tone::Info => "#2b6cb0",
        Tone::Ok => "#2f855a",
        Tone::Bad => "#c53030",
        Tone::Unknown => "#b7791f",
    }
}

/// Where things go horizontally.
#[derive(Debug, Clone, Copy)]
pub(super) struct Geometry {
    /// Left edge of the clients band.
    pub band_x: f64,
    lanes_x0: f64,
    pub width: f64,
}

impl Geometry {
    fn new(lanes: usize, columns: usize) -> Geometry {
        let band_x = AXIS_W + 8.0;
        let lanes_x0 = band_x + columns as f64 * BAND_COL + LANE_LEFT;
        let last = lanes_x0 + lanes.saturating_sub(1) as f64 * LANE_GAP;
        Geometry {
            band_x,
            lanes_x0,
            width: (last + RIGHT).max(MIN_WIDTH),
        }
    }

    /// `x` of lane `lane`.
    pub(super) fn lane_x(&self, lane: usize) -> f64 {
        self.lanes_x0 + lane as f64 * LANE_GAP
    }
}

/// Text with a white backing at the top-left of `r`.
pub(super) fn backed_text(svg: &mut Svg, r: Rect, text: &str, fill: &str, extra: &[(&str, &str)]) {
    svg.leaf(
        El::new("rect")
            .num("x", r.x)
            .num("y", r.y)
            .num("width", r.w)
            .num("height", r.h)
            .attr("fill", "#ffffff")
            .attr("fill-opacity", "0.85"),
    );
    let mut el = El::new("text")
        .num("x", r.x + 3.0)
        .num("y", r.y + r.h - 3.5)
        .attr("fill", fill);
    for (k, v) in extra {
        el = el.attr(k, v);
    }
    svg.text(el, text);
}

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
    let legend = legend::layout(width, names_bottom + 22.0);
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
