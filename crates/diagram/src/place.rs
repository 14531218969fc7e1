//! Where labels may go: the rectangles already taken, so a new label can
//! try a few places and take the first free one.

/// An axis-aligned rectangle.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Rect {
    /// The rectangle of a label of width `w`, height `h` centred on `(cx, cy)`.
    pub(super) fn centred(cx: f64, cy: f64, w: f64, h: f64) -> Rect {
        Rect {
            x: cx - w / 2.0,
            y: cy - h / 2.0,
            w,
            h,
        }
    }

    fn overlaps(&self, other: &Rect) -> bool {
        self.x < other.x + other.w
            && other.x < self.x + self.w
            && self.y < other.y + other.h
            && other.y < self.y + self.h
    }
}

/// Height of one bucket of the index (px).
const BUCKET: f64 = 40.0;

/// Rectangles taken so far, indexed by vertical bucket.
#[derive(Debug, Default)]
pub(super) struct Occupancy {
    buckets: Vec<Vec<Rect>>,
}

impl Occupancy {
    fn span(r: &Rect) -> std::ops::RangeInclusive<usize> {
        let first = (r.y.max(0.0) / BUCKET) as usize;
        let last = ((r.y + r.h).max(0.0) / BUCKET) as usize;
        first..=last
    }

    /// True when `r` overlaps nothing taken.
    pub(super) fn is_free(&self, r: &Rect) -> bool {
        Self::span(r).all(|b| {
            self.buckets
                .get(b)
                .is_none_or(|rects| rects.iter().all(|o| !o.overlaps(r)))
        })
    }

    /// Marks `r` as taken.
    pub(super) fn take(&mut self, r: Rect) {
        for b in Self::span(&r) {
            if self.buckets.len() <= b {
                self.buckets.resize_with(b + 1, Vec::new);
            }
            self.buckets[b].push(r);
        }
    }

    /// The rightmost edge of anything taken (0 when nothing is).
    pub(super) fn right_edge(&self) -> f64 {
        self.buckets
            .iter()
            .flatten()
            .map(|r| r.x + r.w)
            .fold(0.0, f64::max)
    }

    /// Area of `r` covered by what is taken.
    fn covered(&self, r: &Rect) -> f64 {
        let span = Self::span(r);
        let mut area = 0.0;
        for b in span.clone() {
            for o in self.buckets.get(b).into_iter().flatten() {
                // A rectangle spanning several buckets is counted once: in
                // the first bucket it shares with `r`.
                if b != *Self::span(o).start().max(span.start()) || !o.overlaps(r) {
                    continue;
                }
                let w = (r.x + r.w).min(o.x + o.w) - r.x.max(o.x);
                let h = (r.y + r.h).min(o.y + o.h) - r.y.max(o.y);
                area += w * h;
            }
        }
        area
    }

    /// The first free candidate, or, when none is free, the one least
    /// covered (the first of equals); it is then taken. A label is never
    /// left out.
    pub(super) fn place(&mut self, candidates: &[Rect]) -> Option<Rect> {
        let chosen = match candidates.iter().find(|r| self.is_free(r)) {
            Some(free) => *free,
            None => {
                let mut best: Option<(f64, Rect)> = None;
                for r in candidates {
                    let area = self.covered(r);
                    if best.is_none_or(|(a, _)| area < a) {
                        best = Some((area, *r));
                    }
                }
                best?.1
            }
        };
        self.take(chosen);
        Some(chosen)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_moves_to_the_next_free_place() {
        let mut taken = Occupancy::default();
        taken.take(Rect::centred(50.0, 50.0, 40.0, 12.0));
        let chosen = taken.place(&[
            Rect::centred(60.0, 52.0, 40.0, 12.0),
            Rect::centred(60.0, 70.0, 40.0, 12.0),
        ]);
        assert_eq!(chosen, Some(Rect::centred(60.0, 70.0, 40.0, 12.0)));
        assert!(!taken.is_free(&Rect::centred(60.0, 70.0, 4.0, 4.0)));
    }

    #[test]
    fn with_no_free_place_the_least_covered_one_is_chosen() {
        let mut taken = Occupancy::default();
        taken.take(Rect::centred(50.0, 50.0, 100.0, 12.0));
        let chosen = taken.place(&[
            Rect::centred(50.0, 50.0, 40.0, 12.0),
            Rect::centred(50.0, 60.0, 40.0, 12.0),
        ]);
        assert_eq!(chosen, Some(Rect::centred(50.0, 60.0, 40.0, 12.0)));
    }
}
