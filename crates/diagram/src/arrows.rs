//! Messages as arrows: from the sender's lane at the send row to the
//! receiver's lane at the delivery row; a dropped one ends in a cross, a
//! rejected one in a red bar, one still in flight fades out dashed.

use super::geometry::Geometry;
use super::label::backed_text;
use super::palette::{DROP, REJECT};
use super::place::{Occupancy, Rect};
use super::scene::{Message, MsgEnd, Scene};
use super::svg::{El, Svg};
use super::text::{LABEL_FONT, text_width};
use super::timeline::{ROW, Timeline};

/// Arrow colours, chosen per message kind.
const PALETTE: [&str; 6] = [
    "#2b6cb0", "#2c7a7b", "#6b46c1", "#b83280", "#975a16", "#4a5568",
];

/// Length of an arrowhead.
const HEAD: f64 = 9.0;
/// Font size of message labels.
const MSG_FONT: f64 = 10.0;

/// The colour of message kind `msg` (FNV-1a, so it is the same everywhere).
fn colour(msg: &str) -> &'static str {
    let hash = msg.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    PALETTE[(hash % PALETTE.len() as u64) as usize]
}

/// How an arrow ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tip {
    Head,
    Bar,
    Cross,
    Open,
}

/// An arrow's two ends.
struct Path {
    x1: f64,
    y1: f64,
    x2: f64,
    y2: f64,
    tip: Tip,
}

fn path(m: &Message, tl: &Timeline, geo: &Geometry) -> Path {
    let (x1, y1) = (geo.lane_x(m.src), tl.y(m.send_row));
    let mut xd = geo.lane_x(m.dst);
    if m.src == m.dst {
        xd += 60.0;
    }
    let toward = |f: f64| x1 + f * (xd - x1);
    let (x2, y2, tip) = match &m.end {
        MsgEnd::Delivered(row) if m.rejection.is_some() => (xd, tl.y(*row), Tip::Bar),
        MsgEnd::Delivered(row) => (xd, tl.y(*row), Tip::Head),
        MsgEnd::Dropped {
            at_send: true, row, ..
        } => (toward(0.3), tl.y(*row), Tip::Cross),
        MsgEnd::Dropped { row, .. } => (toward(0.85), tl.y(*row), Tip::Cross),
        MsgEnd::InFlight(row) => (toward(0.5), tl.y(*row) + ROW / 2.0, Tip::Open),
    };
    Path {
        x1,
        y1,
        x2,
        y2,
        tip,
    }
}

fn class(m: &Message) -> &'static str {
    match (&m.end, &m.rejection) {
        (MsgEnd::Dropped { .. }, _) => "msg dropped",
        (MsgEnd::InFlight(_), _) => "msg in-flight",
        (_, Some(_)) => "msg rejected",
        _ => "msg",
    }
}

fn line((x1, y1, x2, y2): (f64, f64, f64, f64), stroke: &str, width: &str) -> El {
    El::new("line")
        .num("x1", x1)
        .num("y1", y1)
        .num("x2", x2)
        .num("y2", y2)
        .attr("stroke", stroke)
        .attr("stroke-width", width)
}

/// Every arrow's line and tip (labels come later, above every line).
pub(super) fn draw_lines(svg: &mut Svg, scene: &Scene, tl: &Timeline, geo: &Geometry) {
    for m in &scene.messages {
        let p = path(m, tl, geo);
        let stroke = if m.rejection.is_some() {
            REJECT
        } else {
            colour(&m.msg)
        };
        let (dx, dy) = (p.x2 - p.x1, p.y2 - p.y1);
        let len = (dx * dx + dy * dy).sqrt().max(1.0);
        let (ux, uy) = (dx / len, dy / len);
        let back = if p.tip == Tip::Head { HEAD } else { 0.0 };
        svg.open(El::new("g").class(class(m)));
        svg.title(&m.title);
        let mut body = line(
            (p.x1, p.y1, p.x2 - ux * back, p.y2 - uy * back),
            stroke,
            "1.4",
        );
        match p.tip {
            Tip::Cross => body = body.attr("stroke-dasharray", "5 3"),
            Tip::Open => body = body.attr("stroke-dasharray", "2 3"),
            _ => {}
        }
        svg.leaf(body);
        match p.tip {
            Tip::Head => {
                let (bx, by) = (p.x2 - ux * HEAD, p.y2 - uy * HEAD);
                let (px, py) = (-uy * 3.8, ux * 3.8);
                let points = format!(
                    "{},{} {},{} {},{}",
                    super::text::num(p.x2),
                    super::text::num(p.y2),
                    super::text::num(bx + px),
                    super::text::num(by + py),
                    super::text::num(bx - px),
                    super::text::num(by - py)
                );
                svg.leaf(
                    El::new("polygon")
                        .attr("points", &points)
                        .attr("fill", stroke),
                );
            }
            Tip::Bar => {
                let (px, py) = (-uy * 8.0, ux * 8.0);
                let bar = line((p.x2 + px, p.y2 + py, p.x2 - px, p.y2 - py), REJECT, "3.5");
                svg.leaf(bar);
            }
            Tip::Cross => {
                for (sx, sy) in [(1.0, 1.0), (1.0, -1.0)] {
                    let cross = line(
                        (
                            p.x2 - 5.0 * sx,
                            p.y2 - 5.0 * sy,
                            p.x2 + 5.0 * sx,
                            p.y2 + 5.0 * sy,
                        ),
                        DROP,
                        "2.2",
                    );
                    svg.leaf(cross);
                }
            }
            Tip::Open => {}
        }
        svg.close("g");
    }
}

/// Marks every arrow's tip as taken, so no label hides where a message
/// arrived or died, and every flat arrow (dropped as sent) whole, so no
/// other label sits on it.
pub(super) fn reserve_tips(scene: &Scene, tl: &Timeline, geo: &Geometry, taken: &mut Occupancy) {
    for m in &scene.messages {
        let p = path(m, tl, geo);
        if p.tip != Tip::Open {
            taken.take(Rect::centred(p.x2, p.y2, 16.0, 14.0));
        }
        if (p.y2 - p.y1).abs() < 8.0 {
            taken.take(Rect {
                x: p.x1.min(p.x2),
                y: p.y1.min(p.y2) - 2.0,
                w: (p.x2 - p.x1).abs(),
                h: (p.y2 - p.y1).abs() + 4.0,
            });
        }
    }
}

/// Candidate label boxes along an arrow, middle first; for a flat arrow
/// (a message dropped as it was sent), above the line, then below it, then
/// starting right at the sender's lane.
fn along(p: &Path, w: f64, h: f64) -> Vec<Rect> {
    const T: [f64; 7] = [0.5, 0.4, 0.6, 0.3, 0.7, 0.22, 0.78];
    let flat = (p.y2 - p.y1).abs() < 8.0;
    let offsets: &[f64] = if flat { &[-8.0, 8.0] } else { &[0.0] };
    let mut out: Vec<Rect> = offsets
        .iter()
        .flat_map(|dy| {
            T.iter().map(move |t| {
                let cx = p.x1 + t * (p.x2 - p.x1);
                let cy = p.y1 + t * (p.y2 - p.y1) + dy;
                Rect::centred(cx, cy, w, h)
            })
        })
        .collect();
    if flat {
        let x = if p.x2 >= p.x1 {
            p.x1 + 5.0
        } else {
            p.x1 - 5.0 - w
        };
        for dy in [8.0, -8.0] {
            out.push(Rect::centred(x + w / 2.0, p.y1 + dy, w, h));
        }
    }
    out
}

/// Boxes beside a point: on the `right` side first, then below, above and
/// on the other side.
fn beside(x: f64, y: f64, w: f64, h: f64, right: bool) -> Vec<Rect> {
    let (near, far) = if right {
        (x + 9.0, x - 9.0 - w)
    } else {
        (x - 9.0 - w, x + 9.0)
    };
    [
        (near, y),
        (near, y + h),
        (near, y - h),
        (far, y),
        (near, y + 2.0 * h),
    ]
    .iter()
    .map(|&(rx, ry)| Rect {
        x: rx,
        y: ry - h / 2.0,
        w,
        h,
    })
    .collect()
}

/// Message, drop and rejection labels, each in the first free place.
pub(super) fn draw_labels(
    svg: &mut Svg,
    scene: &Scene,
    tl: &Timeline,
    geo: &Geometry,
    taken: &mut Occupancy,
) {
    // Rejections first: they are what a reader looks for.
    for m in &scene.messages {
        let Some(reason) = &m.rejection else { continue };
        let p = path(m, tl, geo);
        let text = format!("⊣ {reason}");
        let w = text_width(&text, LABEL_FONT) + 6.0;
        let from_left = p.x1 <= p.x2;
        let right = from_left || m.dst == 0;
        let Some(r) = taken.place(&beside(p.x2, p.y2, w, 15.0, right)) else {
            continue;
        };
        svg.open(El::new("g").class("reject"));
        svg.title(&m.title);
        backed_text(svg, r, &text, REJECT, &[("font-weight", "bold")]);
        svg.close("g");
    }
    for m in &scene.messages {
        let p = path(m, tl, geo);
        if let MsgEnd::Dropped { reason, .. } = &m.end {
            let text = format!("× {reason}");
            let w = text_width(&text, MSG_FONT) + 6.0;
            if let Some(r) = taken.place(&beside(p.x2, p.y2, w, 13.0, p.x1 <= p.x2)) {
                svg.open(El::new("g").class("drop"));
                svg.title(&m.title);
                backed_text(
                    svg,
                    r,
                    &text,
                    DROP,
                    &[("font-size", "10"), ("font-style", "italic")],
                );
                svg.close("g");
            }
        }
        let w = text_width(&m.msg, MSG_FONT) + 6.0;
        if let Some(r) = taken.place(&along(&p, w, 13.0)) {
            svg.open(El::new("g").class("msg-label"));
            svg.title(&m.title);
            let fill = if m.rejection.is_some() {
                REJECT
            } else {
                colour(&m.msg)
            };
            backed_text(svg, r, &m.msg, fill, &[("font-size", "10")]);
            svg.close("g");
        }
    }
}
