//! Lanes: a vertical line per node with its name, crashed stretches dashed
//! grey, isolated ones shaded, break marks where idle ticks are left out,
//! and the notes and dots of the lane's own events.

use super::classify::Tone;
use super::geometry::{Geometry, HEADER_Y, LANE_GAP};
use super::label::backed_text;
use super::mark::diamond;
use super::palette::{CRASHED, INK, ISOLATED, REJECT, ROLE, STATE_LINE, tone_colour};
use super::place::{Occupancy, Rect};
use super::scene::{NoteStyle, Scene, SegmentKind};
use super::svg::{El, Svg};
use super::text::{LABEL_FONT, text_width, truncate};
use super::timeline::{ROW, Timeline};

pub(super) fn lane_name(svg: &mut Svg, x: f64, y: f64, name: &str) {
    let w = text_width(name, 12.0) + 16.0;
    svg.leaf(
        El::new("rect")
            .num("x", x - w / 2.0)
            .num("y", y - 12.0)
            .num("width", w)
            .num("height", 22.0)
            .attr("rx", "4")
            .attr("fill", "#edf2f7")
            .attr("stroke", INK)
            .attr("stroke-width", "1"),
    );
    svg.text(
        El::new("text")
            .num("x", x)
            .num("y", y + 4.0)
            .attr("text-anchor", "middle")
            .attr("font-size", "12")
            .attr("font-weight", "bold")
            .attr("fill", INK),
        name,
    );
}

pub(super) fn draw_lanes(svg: &mut Svg, scene: &Scene, tl: &Timeline, geo: &Geometry, bottom: f64) {
    // A segment still open when the trace ends runs to the lanes' end; one
    // open when its section ends, to that section's last row.
    let last_row = scene.rows.len().saturating_sub(1);
    let span = |from: usize, to: usize, open: bool| {
        let y2 = match open {
            true if to == last_row => bottom,
            true => tl.y(to) + ROW / 2.0,
            false => tl.y(to),
        };
        (tl.y(from), y2)
    };
    for s in scene
        .segments
        .iter()
        .filter(|s| s.kind == SegmentKind::Isolated)
    {
        let (y1, y2) = span(s.from_row, s.to_row, s.open_end);
        svg.open(El::new("g").class("segment isolated"));
        svg.title(&format!("{} isolated", scene.lanes[s.lane]));
        svg.leaf(
            El::new("rect")
                .num("x", geo.lane_x(s.lane) - 10.0)
                .num("y", y1)
                .num("width", 20.0)
                .num("height", y2 - y1)
                .attr("fill", ISOLATED)
                .attr("fill-opacity", "0.6"),
        );
        svg.close("g");
    }
    for (i, name) in scene.lanes.iter().enumerate() {
        let x = geo.lane_x(i);
        svg.open(El::new("g").class("lane").attr("id", &format!("lane-{i}")));
        svg.title(name);
        lane_name(svg, x, HEADER_Y, name);
        svg.leaf(
            El::new("line")
                .num("x1", x)
                .num("y1", HEADER_Y + 10.0)
                .num("x2", x)
                .num("y2", bottom)
                .attr("stroke", INK)
                .attr("stroke-width", "1.5"),
        );
        svg.close("g");
    }
    for s in scene
        .segments
        .iter()
        .filter(|s| s.kind == SegmentKind::Crashed)
    {
        let (y1, y2) = span(s.from_row, s.to_row, s.open_end);
        let x = geo.lane_x(s.lane);
        svg.open(El::new("g").class("segment crashed"));
        svg.title(&format!("{} down", scene.lanes[s.lane]));
        svg.leaf(
            El::new("rect")
                .num("x", x - 6.0)
                .num("y", y1)
                .num("width", 12.0)
                .num("height", y2 - y1)
                .attr("fill", "#edf2f7"),
        );
        svg.leaf(
            El::new("line")
                .num("x1", x)
                .num("y1", y1)
                .num("x2", x)
                .num("y2", y2)
                .attr("stroke", CRASHED)
                .attr("stroke-width", "2")
                .attr("stroke-dasharray", "5 4"),
        );
        svg.close("g");
    }
    for b in &tl.breaks {
        for i in 0..scene.lanes.len() {
            let x = geo.lane_x(i);
            svg.leaf(
                El::new("rect")
                    .num("x", x - 6.0)
                    .num("y", b.y - 5.0)
                    .num("width", 12.0)
                    .num("height", 10.0)
                    .attr("fill", "#f7fafc"),
            );
            for dy in [-3.0, 3.0] {
                svg.leaf(
                    El::new("line")
                        .num("x1", x - 7.0)
                        .num("y1", b.y + dy + 3.0)
                        .num("x2", x + 7.0)
                        .num("y2", b.y + dy - 3.0)
                        .attr("stroke", INK)
                        .attr("stroke-width", "1.2"),
                );
            }
        }
    }
}

fn note_look(style: NoteStyle) -> (&'static str, &'static str, &'static str) {
    match style {
        NoteStyle::Role => ("note role", ROLE, "italic"),
        NoteStyle::State => ("note state", INK, "bold"),
        NoteStyle::Reject => ("note reject", REJECT, "bold"),
        NoteStyle::Marker(Tone::Ok) => ("marker ok", tone_colour(Tone::Ok), "normal"),
        NoteStyle::Marker(Tone::Bad) => ("marker bad", tone_colour(Tone::Bad), "bold"),
        NoteStyle::Marker(tone) => ("marker info", tone_colour(tone), "normal"),
        NoteStyle::Stale => ("marker stale", tone_colour(Tone::Bad), "bold"),
        NoteStyle::Violating => ("marker violating", tone_colour(Tone::Bad), "bold"),
        NoteStyle::StateLine => ("note state-line", STATE_LINE, "normal"),
    }
}

/// Longest note right of the last lane, where nothing follows.
const LAST_LANE_CHARS: usize = 72;

/// Lane notes: right of the lane, in the row of their event; cut to fit
/// before the next lane (the whole text is the note's tooltip).
pub(super) fn draw_notes(
    svg: &mut Svg,
    scene: &Scene,
    tl: &Timeline,
    geo: &Geometry,
    taken: &mut Occupancy,
) {
    let max_chars = ((LANE_GAP - 24.0) / text_width("x", LABEL_FONT)) as usize;
    let last = scene.lanes.len().saturating_sub(1);
    for note in &scene.notes {
        let (class, fill, style) = note_look(note.style);
        let fits = if note.lane == last {
            LAST_LANE_CHARS
        } else {
            max_chars
        };
        let text = truncate(&note.text, fits);
        let w = text_width(&text, LABEL_FONT) + 6.0;
        let r = Rect {
            x: geo.lane_x(note.lane) + 7.0,
            y: tl.y(note.row) - 7.5,
            w,
            h: 15.0,
        };
        taken.take(r);
        svg.open(El::new("g").class(class));
        svg.title(&note.title);
        let weight = if style == "bold" { "bold" } else { "normal" };
        let slant = if style == "italic" {
            "italic"
        } else {
            "normal"
        };
        let (cx, cy) = (geo.lane_x(note.lane), tl.y(note.row));
        if note.style == NoteStyle::Violating {
            svg.leaf(diamond(cx, cy, 5.0));
        } else {
            svg.leaf(
                El::new("circle")
                    .num("cx", cx)
                    .num("cy", cy)
                    .num("r", 3.0)
                    .attr("fill", fill),
            );
        }
        backed_text(
            svg,
            r,
            &text,
            fill,
            &[("font-weight", weight), ("font-style", slant)],
        );
        svg.close("g");
    }
    for dot in &scene.dots {
        svg.open(El::new("g").class("event"));
        svg.title(&dot.title);
        svg.leaf(
            El::new("circle")
                .num("cx", geo.lane_x(dot.lane))
                .num("cy", tl.y(dot.row))
                .num("r", 2.5)
                .attr("fill", CRASHED),
        );
        svg.close("g");
    }
}
