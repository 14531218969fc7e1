//! A label that stays readable over lanes and arrows: text on a white
//! backing.

use super::place::Rect;
use super::svg::{El, Svg};

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
