//! Drawing one partition's picture as SVG.

use std::fmt::Write as _;

use super::escape;
use super::layout::{Kind, PartitionPicture};

/// Height of one row of a lane, and of an operation's bar in it (at the
/// row's top; linearization points sit on the bar's lower edge, below the
/// text).
const ROW: usize = 30;
const BAR: usize = 18;
const BAR_TOP: usize = 3;
/// Room for the client names on the left, the tick labels on top, and the
/// tail of operations that never returned on the right.
const LEFT: usize = 96;
const TOP: usize = 30;
const RIGHT: usize = 40;
const BOTTOM: usize = 10;

/// The left edge of column `col`, `width` pixels a column.
fn x(col: usize, width: usize) -> usize {
    LEFT + col * width
}

/// The top of row `row`.
fn y(row: usize) -> usize {
    TOP + row * ROW
}

/// The partition's picture: a standalone `<svg>` element.
pub(crate) fn draw(p: &PartitionPicture) -> String {
    let width = x(p.ticks.len(), p.col_width) + RIGHT;
    let height = y(p.rows.max(1)) + BOTTOM;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"lc-svg\" width=\"{width}\" \
         height=\"{height}\" viewBox=\"0 0 {width} {height}\" role=\"img\">"
    );
    let _ = writeln!(out, "<title>{}</title>", escape(&p.summary));
    lanes(&mut out, p, width);
    ticks(&mut out, p, height);
    for op in &p.ops {
        let class = if op.stuck {
            "lc-stuck"
        } else {
            match op.kind {
                Kind::Answered => "lc-answered",
                Kind::Unanswered => "lc-unanswered",
                Kind::Pending => "lc-pending",
                Kind::Dropped => "lc-dropped",
            }
        };
        let col = p.col_width;
        let left = x(op.call_col, col) + 2;
        let right = op.ret_col.map_or(width - 4, |c| x(c, col) + col - 2);
        let (w, top) = (right.saturating_sub(left).max(4), y(op.row) + BAR_TOP);
        let title = format!("op {} (client {}): {}", op.id, op.client, op.label);
        let _ = writeln!(
            out,
            "<g class=\"lc-op {class}\"><title>{}</title>\
             <rect x=\"{left}\" y=\"{top}\" width=\"{w}\" height=\"{BAR}\" rx=\"3\"/>\
             <svg x=\"{left}\" y=\"{top}\" width=\"{w}\" height=\"{BAR}\">\
             <text x=\"4\" y=\"13\">{}</text></svg></g>",
            escape(&title),
            escape(&op.label)
        );
    }
    if let Some(col) = p.stuck_col {
        let at = x(col, p.col_width) + p.col_width - 2;
        let _ = writeln!(
            out,
            "<line class=\"lc-stuck-line\" x1=\"{at}\" y1=\"{}\" x2=\"{at}\" y2=\"{}\"/>",
            TOP - 6,
            height - BOTTOM / 2
        );
    }
    points(&mut out, p);
    out.push_str("</svg>");
    out
}

fn lanes(out: &mut String, p: &PartitionPicture, width: usize) {
    for (n, lane) in p.lanes.iter().enumerate() {
        let top = y(lane.first_row);
        let _ = writeln!(
            out,
            "<rect class=\"lc-lane{}\" x=\"0\" y=\"{top}\" width=\"{width}\" height=\"{}\"/>\
             <text class=\"lc-client\" x=\"8\" y=\"{}\">client {}</text>",
            if n % 2 == 1 { " lc-lane-odd" } else { "" },
            lane.rows * ROW,
            top + ROW / 2 + 4,
            lane.client
        );
    }
}

fn ticks(out: &mut String, p: &PartitionPicture, height: usize) {
    // Label every column whose label fits; a long tick (nanoseconds)
    // labels fewer.
    let widest = p
        .ticks
        .iter()
        .map(|t| t.to_string().len())
        .max()
        .unwrap_or(1);
    let col = p.col_width;
    let every = (widest * 7 + 8).div_ceil(col).max(1);
    for (c, tick) in p.ticks.iter().enumerate().step_by(every) {
        let _ = writeln!(
            out,
            "<line class=\"lc-grid\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\
             <text class=\"lc-tick\" x=\"{3}\" y=\"{4}\">{tick}</text>",
            x(c, col),
            TOP - 4,
            height - BOTTOM,
            x(c, col) + 3,
            TOP - 10
        );
    }
}

fn points(out: &mut String, p: &PartitionPicture) {
    let at = |point: &super::layout::Point| {
        let cx = x(point.col, p.col_width) + p.col_width * (point.slot + 1) / (point.of + 1);
        let cy = y(p.ops[point.op].row) + BAR_TOP + BAR;
        (cx, cy)
    };
    if p.points.len() > 1 {
        let path: Vec<String> = p
            .points
            .iter()
            .map(|point| {
                let (cx, cy) = at(point);
                format!("{cx},{cy}")
            })
            .collect();
        let _ = writeln!(
            out,
            "<polyline class=\"lc-order\" points=\"{}\"/>",
            path.join(" ")
        );
    }
    for point in &p.points {
        let (cx, cy) = at(point);
        let _ = writeln!(
            out,
            "<g class=\"lc-point\"><title>linearized {}: op {}</title>\
             <circle cx=\"{cx}\" cy=\"{cy}\" r=\"6.5\"/>\
             <text x=\"{cx}\" y=\"{}\">{}</text></g>",
            point.order,
            p.ops[point.op].id,
            cy + 3,
            point.order
        );
    }
}
