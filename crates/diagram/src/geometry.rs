//! Where things go horizontally and the fixed measures of the page: the
//! tick axis, the clients band's columns, the lanes and the space for
//! their notes.

/// `y` of the first row.
pub(super) const TOP: f64 = 108.0;
/// Width of the tick axis at the left.
pub(super) const AXIS_W: f64 = 76.0;
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

/// Where things go horizontally.
#[derive(Debug, Clone, Copy)]
pub(super) struct Geometry {
    /// Left edge of the clients band.
    pub band_x: f64,
    lanes_x0: f64,
    pub width: f64,
}

impl Geometry {
    /// The geometry of `lanes` lanes right of a band of `columns` columns.
    pub(super) fn new(lanes: usize, columns: usize) -> Geometry {
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
