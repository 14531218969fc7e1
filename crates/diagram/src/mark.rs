//! The mark of an operation the caller found violating: a diamond, drawn
//! where other marks are dots, and the halo around its bar.

use super::classify::Tone;
use super::palette::tone_colour;
use super::svg::El;
use super::text::num;

/// A filled diamond centred on `(cx, cy)`, `r` from centre to corner.
pub(super) fn diamond(cx: f64, cy: f64, r: f64) -> El {
    let points = [(cx, cy - r), (cx + r, cy), (cx, cy + r), (cx - r, cy)]
        .map(|(x, y)| format!("{},{}", num(x), num(y)))
        .join(" ");
    El::new("polygon")
        .class("violating-mark")
        .attr("points", &points)
        .attr("fill", tone_colour(Tone::Bad))
}

/// An outline around a bar at `(x, y)` of `w` × `h`.
pub(super) fn halo(x: f64, y: f64, w: f64, h: f64) -> El {
    El::new("rect")
        .class("violating-mark")
        .num("x", x - 3.0)
        .num("y", y - 3.0)
        .num("width", w + 6.0)
        .num("height", h + 6.0)
        .attr("rx", "3")
        .attr("fill", "none")
        .attr("stroke", tone_colour(Tone::Bad))
        .attr("stroke-width", "1.5")
}
