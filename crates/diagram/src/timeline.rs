//! Time → position: each drawn event gets a row, in trace order; ticks are
//! separated by a small gap, a few idle ticks by a little more, and a long
//! idle stretch by one fixed-size break marked `≈ N ticks`, so a run of
//! 300 events stays readable whatever its tick numbers.

use super::scene::Row;

/// Height of a row holding a drawn event.
pub(super) const ROW: f64 = 19.0;
/// Height of a row holding an unrecognised event (a dot).
pub(super) const MINOR_ROW: f64 = 11.0;
/// Extra space before the first row of the next tick.
pub(super) const TICK_GAP: f64 = 7.0;
/// Extra space per idle tick, for gaps of up to [`SPELLED_IDLE`] ticks.
pub(super) const IDLE_TICK: f64 = 5.0;
/// Longest idle stretch drawn tick by tick; longer ones become a break.
pub(super) const SPELLED_IDLE: u64 = 3;
/// Space a compressed idle stretch takes, however long.
pub(super) const BREAK: f64 = 30.0;
/// Space before a new `run_started` section.
pub(super) const SECTION_GAP: f64 = 40.0;

/// A compressed idle stretch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Break {
    /// Middle of the break.
    pub y: f64,
    /// Idle ticks left out.
    pub ticks: u64,
}

/// The vertical layout of the rows.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Timeline {
    /// Centre of each row.
    pub ys: Vec<f64>,
    /// `(y, tick)` at the first row of each tick.
    pub tick_labels: Vec<(f64, u64)>,
    pub breaks: Vec<Break>,
    /// `y` of the line above each section after the first.
    pub dividers: Vec<f64>,
    /// First `y` below the last row.
    pub bottom: f64,
}

impl Timeline {
    /// Centre of row `row`.
    pub(super) fn y(&self, row: usize) -> f64 {
        self.ys.get(row).copied().unwrap_or(self.bottom)
    }
}

/// Lays the rows out from `top` down.
pub(super) fn layout(rows: &[Row], top: f64) -> Timeline {
    let mut t = Timeline::default();
    let mut cursor = top;
    let mut previous: Option<Row> = None;
    for row in rows {
        let new_tick = match previous {
            None => true,
            Some(p) if p.section != row.section => {
                cursor += SECTION_GAP / 2.0;
                t.dividers.push(cursor);
                cursor += SECTION_GAP / 2.0;
                true
            }
            Some(p) if p.tick != row.tick => {
                let idle = row.tick.saturating_sub(p.tick).saturating_sub(1);
                if idle > SPELLED_IDLE {
                    t.breaks.push(Break {
                        y: cursor + BREAK / 2.0,
                        ticks: idle,
                    });
                    cursor += BREAK;
                } else {
                    cursor += TICK_GAP + idle as f64 * IDLE_TICK;
                }
                true
            }
            Some(_) => false,
        };
        let height = if row.minor { MINOR_ROW } else { ROW };
        if new_tick {
            t.tick_labels.push((cursor + height / 2.0, row.tick));
        }
        t.ys.push(cursor + height / 2.0);
        cursor += height;
        previous = Some(*row);
    }
    t.bottom = cursor;
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(ticks: &[u64]) -> Vec<Row> {
        ticks
            .iter()
            .map(|&tick| Row {
                tick,
                section: 0,
                minor: false,
            })
            .collect()
    }

    #[test]
    fn a_thousand_idle_ticks_take_no_more_room_than_one_break() {
        let adjacent = layout(&rows(&[0, 1]), 0.0);
        let far = layout(&rows(&[0, 1001]), 0.0);
        let far_gap = far.ys[1] - far.ys[0];
        assert!(far_gap <= ROW + BREAK, "gap {far_gap}");
        assert!(far.bottom - adjacent.bottom <= BREAK);
        assert_eq!(
            far.breaks,
            vec![Break {
                y: ROW + BREAK / 2.0,
                ticks: 1000
            }]
        );
    }

    #[test]
    fn a_long_gap_takes_the_same_room_as_a_short_break() {
        let four = layout(&rows(&[0, 5]), 0.0);
        let million = layout(&rows(&[0, 1_000_001]), 0.0);
        assert_eq!(four.bottom, million.bottom);
    }

    #[test]
    fn a_few_idle_ticks_are_spelled_out_and_grow_with_the_gap() {
        let one = layout(&rows(&[0, 1]), 0.0);
        let three = layout(&rows(&[0, 4]), 0.0);
        assert!(three.breaks.is_empty());
        assert_eq!(three.bottom - one.bottom, 3.0 * IDLE_TICK);
    }

    #[test]
    fn events_of_one_tick_get_rows_in_order_without_overlap() {
        let t = layout(&rows(&[7, 7, 7]), 0.0);
        assert_eq!(t.ys, vec![ROW / 2.0, ROW * 1.5, ROW * 2.5]);
        assert_eq!(t.tick_labels, vec![(ROW / 2.0, 7)]);
    }
}
