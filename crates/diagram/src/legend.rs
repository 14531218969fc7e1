//! The legend under the picture: one sample of every mark with its meaning.

use super::classify::Tone;
use super::mark::halo;
use super::palette::{
    CRASHED, DROP, INK, ISOLATED, MUTED, REJECT, ROLE, STATE_LINE as STATE_LINE_INK, tone_colour,
};
use super::svg::{El, Svg};
use super::text::{num, text_width};

/// The kinds of sample a legend entry shows.
#[derive(Debug, Clone, Copy)]
enum Sample {
    Arrow,
    Dropped,
    Rejected,
    Crashed,
    Isolated,
    Role,
    Op(Tone),
    Stale,
    Violating,
    StateLine,
    Fault,
    Dot,
    Break,
}

/// Every entry but the violating mark's, which shows only when an
/// operation is marked.
const ENTRIES: [(Sample, &str); 13] = [
    (
        Sample::Arrow,
        "message send → delivery, labelled with its kind",
    ),
    (Sample::Dropped, "dropped message (reason)"),
    (Sample::Rejected, "delivered but rejected / fenced (reason)"),
    (Sample::Crashed, "node down: crashed → restarted"),
    (Sample::Isolated, "node isolated → healed"),
    (Sample::Role, "role / epoch / term / timeline"),
    (Sample::Op(Tone::Ok), "client op done ✓ / acked"),
    (Sample::Op(Tone::Bad), "client op failed ✗ / refused"),
    (Sample::Op(Tone::Unknown), "client op outcome unknown ?"),
    (Sample::Op(Tone::Info), "client write sent / op open"),
    (
        Sample::Stale,
        "stale read: older than a write acked before it",
    ),
    (Sample::Dot, "other event (hover: trace line)"),
    (Sample::Break, "≈ N idle ticks compressed"),
];

const SAMPLE_W: f64 = 34.0;
const LINE_H: f64 = 22.0;
const FONT: f64 = 11.0;

/// Where each entry goes.
#[derive(Debug, Clone)]
pub(super) struct Legend {
    entries: Vec<(Sample, &'static str)>,
    top: f64,
    places: Vec<(f64, f64)>,
    /// First `y` below the legend.
    pub bottom: f64,
}

/// The violating mark's entry.
const VIOLATING: (Sample, &str) = (
    Sample::Violating,
    "◆ op marked violating (e.g. not linearizable); ◆ by the tick it completed",
);

/// The state notes' entry.
const STATE_LINE: (Sample, &str) = (
    Sample::StateLine,
    "protocol state changed (hover: the node's state line)",
);

/// The fault ticks' entry.
const FAULT: (Sample, &str) = (
    Sample::Fault,
    "tick at which a fault was injected (hover: which)",
);

/// Flows the entries into lines no wider than `width`, from `top` down;
/// with `violating`, the violating mark's entry too; with `state`, the
/// state notes' entry; with `faults`, the fault ticks' entry.
pub(super) fn layout(width: f64, top: f64, violating: bool, state: bool, faults: bool) -> Legend {
    let mut entries = ENTRIES.to_vec();
    if state {
        entries.insert(6, STATE_LINE);
    }
    if violating {
        entries.insert(entries.len() - 2, VIOLATING);
    }
    if faults {
        entries.insert(5, FAULT);
    }
    let (mut x, mut y) = (16.0, top + 30.0);
    let mut places = Vec::with_capacity(entries.len());
    for &(_, text) in &entries {
        let w = SAMPLE_W + 8.0 + text_width(text, FONT) + 22.0;
        if x + w > width - 12.0 && x > 16.0 {
            x = 16.0;
            y += LINE_H;
        }
        places.push((x, y));
        x += w;
    }
    Legend {
        entries,
        top,
        places,
        bottom: y + LINE_H / 2.0,
    }
}

fn sample(svg: &mut Svg, kind: Sample, x: f64, y: f64) {
    let line = |x1: f64, y1: f64, x2: f64, y2: f64, stroke: &str, w: &str| {
        El::new("line")
            .num("x1", x1)
            .num("y1", y1)
            .num("x2", x2)
            .num("y2", y2)
            .attr("stroke", stroke)
            .attr("stroke-width", w)
    };
    let x2 = x + SAMPLE_W;
    match kind {
        Sample::Arrow => {
            svg.leaf(line(x, y - 5.0, x2 - 8.0, y + 3.0, "#2b6cb0", "1.4"));
            let points = [(x2, y + 5.0), (x2 - 10.0, y + 6.0), (x2 - 7.0, y - 1.0)]
                .map(|(px, py)| format!("{},{}", num(px), num(py)))
                .join(" ");
            svg.leaf(
                El::new("polygon")
                    .attr("points", &points)
                    .attr("fill", "#2b6cb0"),
            );
        }
        Sample::Dropped => {
            svg.leaf(line(x, y, x2 - 6.0, y, "#2b6cb0", "1.4").attr("stroke-dasharray", "5 3"));
            svg.leaf(line(x2 - 11.0, y - 5.0, x2 - 1.0, y + 5.0, DROP, "2.2"));
            svg.leaf(line(x2 - 11.0, y + 5.0, x2 - 1.0, y - 5.0, DROP, "2.2"));
        }
        Sample::Rejected => {
            svg.leaf(line(x, y, x2 - 2.0, y, REJECT, "1.4"));
            svg.leaf(line(x2 - 2.0, y - 8.0, x2 - 2.0, y + 8.0, REJECT, "3.5"));
        }
        Sample::Crashed => {
            let mid = x + SAMPLE_W / 2.0;
            svg.leaf(
                line(mid, y - 9.0, mid, y + 9.0, CRASHED, "2").attr("stroke-dasharray", "5 4"),
            );
        }
        Sample::Isolated => {
            let mid = x + SAMPLE_W / 2.0;
            svg.leaf(
                El::new("rect")
                    .num("x", mid - 10.0)
                    .num("y", y - 9.0)
                    .num("width", 20.0)
                    .num("height", 18.0)
                    .attr("fill", ISOLATED)
                    .attr("fill-opacity", "0.6"),
            );
            svg.leaf(line(mid, y - 9.0, mid, y + 9.0, INK, "1.5"));
        }
        Sample::Role => {
            svg.text(
                El::new("text")
                    .num("x", x)
                    .num("y", y + 4.0)
                    .attr("fill", ROLE)
                    .attr("font-style", "italic"),
                "leader",
            );
        }
        Sample::Op(tone) => {
            svg.leaf(
                El::new("rect")
                    .num("x", x + SAMPLE_W / 2.0 - 3.5)
                    .num("y", y - 9.0)
                    .num("width", 7.0)
                    .num("height", 18.0)
                    .attr("rx", "2")
                    .attr("fill", tone_colour(tone)),
            );
        }
        Sample::Stale => {
            let colour = tone_colour(Tone::Bad);
            svg.leaf(
                El::new("rect")
                    .num("x", x + SAMPLE_W / 2.0 - 3.5)
                    .num("y", y - 9.0)
                    .num("width", 7.0)
                    .num("height", 18.0)
                    .attr("rx", "2")
                    .attr("fill", colour)
                    .attr("fill-opacity", "0.35")
                    .attr("stroke", colour)
                    .attr("stroke-width", "1.2"),
            );
        }
        Sample::Violating => {
            let bar_x = x + SAMPLE_W / 2.0 - 3.5;
            svg.leaf(
                El::new("rect")
                    .num("x", bar_x)
                    .num("y", y - 8.0)
                    .num("width", 7.0)
                    .num("height", 16.0)
                    .attr("rx", "2")
                    .attr("fill", tone_colour(Tone::Bad)),
            );
            svg.leaf(halo(bar_x, y - 8.0, 7.0, 16.0));
        }
        Sample::Fault => {
            svg.text(
                El::new("text")
                    .num("x", x + 8.0)
                    .num("y", y + 4.0)
                    .attr("fill", DROP),
                super::scene::FAULT_MARK,
            );
        }
        Sample::StateLine => {
            svg.text(
                El::new("text")
                    .num("x", x)
                    .num("y", y + 4.0)
                    .attr("fill", STATE_LINE_INK),
                "HW 2",
            );
        }
        Sample::Dot => {
            svg.leaf(
                El::new("circle")
                    .num("cx", x + SAMPLE_W / 2.0)
                    .num("cy", y)
                    .num("r", 2.5)
                    .attr("fill", CRASHED),
            );
        }
        Sample::Break => {
            let mid = x + SAMPLE_W / 2.0;
            for dy in [-3.0, 3.0] {
                svg.leaf(line(
                    mid - 7.0,
                    y + dy + 3.0,
                    mid + 7.0,
                    y + dy - 3.0,
                    INK,
                    "1.2",
                ));
            }
        }
    }
}

/// Draws the legend laid out by [`layout`].
pub(super) fn draw(svg: &mut Svg, legend: &Legend) {
    svg.open(El::new("g").class("legend"));
    svg.text(
        El::new("text")
            .num("x", 16.0)
            .num("y", legend.top + 8.0)
            .attr("font-family", "sans-serif")
            .attr("font-size", "12")
            .attr("font-weight", "bold")
            .attr("fill", MUTED),
        "legend",
    );
    for ((kind, text), &(x, y)) in legend.entries.iter().zip(&legend.places) {
        sample(svg, *kind, x, y);
        svg.text(
            El::new("text")
                .num("x", x + SAMPLE_W + 8.0)
                .num("y", y + 4.0)
                .attr("font-size", "11")
                .attr("fill", INK),
            text,
        );
    }
    svg.close("g");
}
