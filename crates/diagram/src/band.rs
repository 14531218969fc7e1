//! The clients band, left of the lanes: client operations as bars from
//! submit to completion, packed greedily into as few columns as overlap
//! needs, and client-facing events that name no node as one-row markers.

use super::classify::Tone;
use super::geometry::{BAND_COL, Geometry};
use super::label::backed_text;
use super::mark::{diamond, halo};
use super::palette::{INK, MUTED, tone_colour};
use super::place::Rect;
use super::scene::{BandItem, Scene};
use super::svg::{El, Svg};
use super::text::{LABEL_FONT, text_width, truncate};
use super::timeline::{ROW, Timeline};

/// Which column each band item went to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Packing {
    pub columns: usize,
    pub column_of: Vec<usize>,
}

/// Vertical extent of an item, its label included.
fn extent(item: &BandItem, tl: &Timeline) -> (f64, f64) {
    let top = tl.y(item.from_row) - ROW / 2.0;
    let bottom = tl.y(item.to_row).max(tl.y(item.from_row)) + ROW / 2.0;
    (top, bottom)
}

/// Greedy interval packing, in submit order: each item takes the first
/// column free at its start.
pub(super) fn pack(scene: &Scene, tl: &Timeline) -> Packing {
    let mut ends: Vec<f64> = Vec::new();
    let mut column_of = Vec::with_capacity(scene.band.len());
    for item in &scene.band {
        let (top, bottom) = extent(item, tl);
        let column = match ends.iter().position(|&end| end <= top + 0.01) {
            Some(c) => c,
            None => {
                ends.push(f64::MIN);
                ends.len() - 1
            }
        };
        ends[column] = bottom;
        column_of.push(column);
    }
    Packing {
        columns: ends.len(),
        column_of,
    }
}

fn column_x(geo: &Geometry, column: usize) -> f64 {
    geo.band_x + column as f64 * BAND_COL + 6.0
}

fn op_class(item: &BandItem) -> String {
    let outcome = match item.tone {
        Tone::Ok => "client-op done",
        Tone::Bad => "client-op failed",
        Tone::Unknown => "client-op unknown",
        Tone::Info => "client-op open",
    };
    let stale = if item.stale { " stale" } else { "" };
    let violating = if item.violating { " violating" } else { "" };
    format!("{outcome}{stale}{violating}")
}

fn marker_class(tone: Tone) -> &'static str {
    match tone {
        Tone::Ok => "client-marker ok",
        Tone::Bad => "client-marker bad",
        _ => "client-marker info",
    }
}

/// Dotted lines from each operation to the lane it was sent to and from
/// the lane that answered (drawn under the lanes' arrows).
pub(super) fn draw_connectors(
    svg: &mut Svg,
    scene: &Scene,
    tl: &Timeline,
    geo: &Geometry,
    packing: &Packing,
) {
    for (item, &column) in scene.band.iter().zip(&packing.column_of) {
        let x = column_x(geo, column) + 7.0;
        let ends = [(item.target, item.from_row), (item.server, item.to_row)];
        for (lane, row) in ends {
            let Some(lane) = lane else { continue };
            svg.leaf(
                El::new("line")
                    .class("client-link")
                    .num("x1", x)
                    .num("y1", tl.y(row))
                    .num("x2", geo.lane_x(lane))
                    .num("y2", tl.y(row))
                    .attr("stroke", tone_colour(item.drawn_tone()))
                    .attr("stroke-opacity", "0.45")
                    .attr("stroke-width", "1")
                    .attr("stroke-dasharray", "1 3"),
            );
        }
    }
}

/// The band's header, bars and markers.
pub(super) fn draw(
    svg: &mut Svg,
    scene: &Scene,
    tl: &Timeline,
    geo: &Geometry,
    packing: &Packing,
    header_y: f64,
) {
    if packing.columns == 0 {
        return;
    }
    svg.open(El::new("g").class("band clients"));
    svg.text(
        El::new("text")
            .num("x", geo.band_x + 6.0)
            .num("y", header_y + 4.0)
            .attr("font-size", "12")
            .attr("font-weight", "bold")
            .attr("fill", MUTED),
        "clients",
    );
    let right = geo.band_x + packing.columns as f64 * BAND_COL;
    svg.leaf(
        El::new("line")
            .num("x1", right)
            .num("y1", header_y - 10.0)
            .num("x2", right)
            .num("y2", tl.bottom)
            .attr("stroke", "#cbd5e0")
            .attr("stroke-width", "1")
            .attr("stroke-dasharray", "3 3"),
    );
    let max_chars = ((BAND_COL - 24.0) / text_width("x", LABEL_FONT)) as usize;
    for (item, &column) in scene.band.iter().zip(&packing.column_of) {
        let x = column_x(geo, column);
        let (y1, y2) = (tl.y(item.from_row), tl.y(item.to_row));
        let fill = tone_colour(item.drawn_tone());
        let class = if item.is_op {
            op_class(item)
        } else {
            marker_class(item.tone).to_owned()
        };
        svg.open(El::new("g").class(&class));
        svg.title(&item.title);
        if item.is_op {
            let (y, h) = (y1 - 6.0, (y2 - y1).max(0.0) + 12.0);
            let bar = El::new("rect")
                .num("x", x)
                .num("y", y)
                .num("width", 7.0)
                .num("height", h)
                .attr("rx", "2")
                .attr("fill", fill);
            // A stale read is a pale bar with a bad outline: served, but
            // with an old value.
            svg.leaf(match item.stale && !item.violating {
                true => bar
                    .attr("fill-opacity", "0.35")
                    .attr("stroke", fill)
                    .attr("stroke-width", "1.2"),
                false => bar,
            });
            if item.violating {
                svg.leaf(halo(x, y, 7.0, h));
            }
        } else if item.violating {
            svg.leaf(diamond(x + 3.5, y1, 5.0));
        } else {
            svg.leaf(
                El::new("circle")
                    .num("cx", x + 3.5)
                    .num("cy", y1)
                    .num("r", 3.5)
                    .attr("fill", fill),
            );
        }
        let text = truncate(&item.label, max_chars);
        let r = Rect {
            x: x + 10.0,
            y: y1 - 7.5,
            w: text_width(&text, LABEL_FONT) + 6.0,
            h: 15.0,
        };
        let weight = if item.is_op { "bold" } else { "normal" };
        let ink = if item.tone == Tone::Info && !item.is_op {
            INK
        } else {
            fill
        };
        backed_text(svg, r, &text, ink, &[("font-weight", weight)]);
        svg.close("g");
    }
    svg.close("g");
}
