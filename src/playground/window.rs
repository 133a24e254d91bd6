//! Which lines of a long code block the page renders: the lines in view plus a margin, in whole
//! chunks (so that scrolling a few lines renders nothing new), the rest stood in for by padding of
//! the same height. A block renders every line up to its own limit (`full`): [`FULL_MAX`] for a
//! program (a screenful at its first paint and the rest [`FILL`] lines a task after it),
//! [`COLUMN_FULL_MAX`] for Merge Codebases' class columns. Pure arithmetic; the app
//! (`web/code.rs`) measures the pixels.

/// Programs of at most this many lines render all of them (every `n = 200` task is under it).
pub const FULL_MAX: usize = 3_000;
/// Merge Codebases' two class columns, side by side in boxes a few dozen lines tall, render all
/// their lines up to this many (`n = 200`'s classes have about 190 lines each, `n = 1,000`'s about
/// 860).
pub const COLUMN_FULL_MAX: usize = 400;
/// Window edges fall on multiples of this many lines.
pub const CHUNK: usize = 50;
/// Lines rendered beyond each edge of the view.
pub const MARGIN: usize = 100;
/// The lines rendered before anything is measured (the top of the block): one chunk, about what a
/// box or a page shows at first (at 1280×720 a class column shows about 25 lines, the page about
/// 35), so the first paint lays out as few lines as it can; the margins come once the block is
/// measured, at the next frame.
pub const INITIAL: usize = CHUNK;

/// Lines `[start, end)` to render.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub start: usize,
    pub end: usize,
}

impl Window {
    /// The window of a freshly shown block of `total` lines: all of them when the block has at most
    /// `full`, else its first [`INITIAL`].
    pub fn initial(total: usize, full: usize) -> Window {
        if total <= full {
            Window { start: 0, end: total }
        } else {
            Window::first_paint(total)
        }
    }

    /// The window of a block that fills in after its first paint ([`filled`]): its first
    /// [`INITIAL`] lines, about a screenful.
    pub fn first_paint(total: usize) -> Window {
        Window { start: 0, end: INITIAL.min(total) }
    }

    /// Whether every one of `total` lines is rendered.
    pub fn whole(&self, total: usize) -> bool {
        self.start == 0 && self.end == total
    }

    /// Whether line `i` (0-based) is rendered.
    pub fn contains(&self, i: usize) -> bool {
        self.start <= i && i < self.end
    }

    pub fn len(&self) -> usize {
        self.end - self.start
    }

    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }
}

/// Lines added per task while a block of at most `full` lines fills in after its first paint (the
/// task view's program, [`Window::first_paint`]): a
/// task that lays out a whole `n = 25` program at once blocked a throttled phone's main thread for
/// about 230 ms (Lighthouse mobile); a few dozen lines a task keeps each task short.
pub const FILL: usize = 2 * CHUNK;

/// The next window of a block of at most `full` lines on its way to whole, from the window `now`
/// it renders: [`FILL`] more lines, or `None` once it is whole (or when the block is longer than
/// `full`, whose window follows the view instead).
pub fn filled(now: Window, total: usize, full: usize) -> Option<Window> {
    if total > full || now.whole(total) {
        return None;
    }
    let end = if now.start == 0 && now.end <= total { now.end } else { INITIAL.min(total) };
    Some(Window { start: 0, end: (end + FILL).min(total) })
}

/// The lines `[first, last)` at least partly inside a view that runs from `top` to `bottom` pixels
/// below the first line's top, for lines `line_px` high; `None` when nothing is in view (or the
/// sizes are not known yet).
pub fn visible(top: f64, bottom: f64, line_px: f64, total: usize) -> Option<(usize, usize)> {
    if line_px.is_nan() || line_px <= 0.0 || !top.is_finite() || !bottom.is_finite() || bottom <= top || total == 0 {
        return None;
    }
    let height = line_px * total as f64;
    let (top, bottom) = (top.max(0.0), bottom.min(height));
    if bottom <= top {
        return None;
    }
    let first = (top / line_px).floor() as usize;
    let last = ((bottom / line_px).ceil() as usize).min(total);
    (first < last).then_some((first.min(total - 1), last))
}

/// The window for lines `[first, last)` in view of a block of `total` lines: those lines plus
/// [`MARGIN`] on each side, widened to whole [`CHUNK`]s and clipped to the block. A block of at
/// most `full` lines is always rendered whole.
pub fn around(first: usize, last: usize, total: usize, full: usize) -> Window {
    if total <= full {
        return Window { start: 0, end: total };
    }
    let last = last.max(first + 1).min(total);
    let first = first.min(last - 1);
    let start = first.saturating_sub(MARGIN) / CHUNK * CHUNK;
    let end = (last + MARGIN).div_ceil(CHUNK).saturating_mul(CHUNK).min(total);
    Window { start, end }
}

/// The window that shows line `i` near the top of the view (a line link's target), assuming a
/// view of `rows` lines.
pub fn showing(i: usize, rows: usize, total: usize, full: usize) -> Window {
    let i = i.min(total.saturating_sub(1));
    around(i.saturating_sub(4), i + rows.max(1), total, full)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn short_blocks_fill_in_to_every_line() {
        for full in [COLUMN_FULL_MAX, FULL_MAX] {
            for total in [0, 1, INITIAL - 1, INITIAL, INITIAL + 1, 200, full] {
                // A screenful first, then FILL lines a step until whole, then nothing more.
                assert_eq!(Window::initial(total, full), Window { start: 0, end: total });
                let mut w = Window::first_paint(total);
                assert_eq!(w, Window { start: 0, end: INITIAL.min(total) });
                let mut steps = 0;
                while let Some(next) = filled(w, total, full) {
                    assert!(
                        next.start == 0 && next.end > w.end && next.end - w.end <= FILL,
                        "{total}: {w:?} -> {next:?}"
                    );
                    (w, steps) = (next, steps + 1);
                }
                assert!(w.whole(total), "{total}: {w:?}");
                assert_eq!(steps, total.saturating_sub(INITIAL).div_ceil(FILL), "{total}");
                assert_eq!(around(0, 10.min(total), total, full), Window { start: 0, end: total });
            }
            // A window left from another block starts again from the top.
            assert_eq!(filled(Window { start: 0, end: 900 }, 120, full), Some(Window { start: 0, end: 120 }));
            assert_eq!(
                filled(Window { start: 50, end: 100 }, 400, full),
                Some(Window { start: 0, end: INITIAL + FILL })
            );
            // A block over its limit never fills: its window follows the view.
            assert_eq!(Window::initial(full + 1, full), Window { start: 0, end: INITIAL });
            assert_eq!(filled(Window::initial(full + 1, full), full + 1, full), None);
            // The first measure of a view of up to a chunk at the top keeps those lines and adds the
            // margin below.
            for seen in 1..=CHUNK {
                let w = around(0, seen, full + 1000, full);
                assert!(w.start == 0 && w.end == CHUNK + MARGIN, "{seen}: {w:?}");
            }
        }
        // A column over its limit is windowed where a program of its length is not.
        assert_eq!(around(500, 530, 860, COLUMN_FULL_MAX), Window { start: 400, end: 650 });
        assert_eq!(around(500, 530, 860, FULL_MAX), Window { start: 0, end: 860 });
    }

    #[test]
    fn visible_lines_from_pixels() {
        // 20 px lines; the view shows pixels 100 to 300 of a 1,000-line block: lines 5 to 14.
        assert_eq!(visible(100.0, 300.0, 20.0, 1000), Some((5, 15)));
        // Partly visible lines count.
        assert_eq!(visible(110.0, 301.0, 20.0, 1000), Some((5, 16)));
        // A view above the block, below it, empty, or not measured: nothing.
        assert_eq!(visible(-300.0, -10.0, 20.0, 1000), None);
        assert_eq!(visible(20_000.0, 20_500.0, 20.0, 1000), None);
        assert_eq!(visible(100.0, 100.0, 20.0, 1000), None);
        assert_eq!(visible(0.0, 100.0, 0.0, 1000), None);
        assert_eq!(visible(0.0, 100.0, f64::NAN, 1000), None);
        // A view larger than the block: all of it.
        assert_eq!(visible(-50.0, 1e9, 20.0, 10), Some((0, 10)));
    }

    #[test]
    fn a_link_to_the_last_line_shows_it() {
        let total = 8_697;
        let w = showing(total - 1, 40, total, FULL_MAX);
        assert!(w.contains(total - 1) && w.end == total);
        let w = showing(4_000, 40, total, FULL_MAX);
        assert!(w.contains(3_996) && w.contains(4_039));
    }

    proptest! {
        /// The window holds the view, stays in the block, is bounded, and falls on chunks.
        #[test]
        fn window_covers_the_view(extra in 1usize..40_000, column in any::<bool>(), a in 0usize..40_000, rows in 1usize..200) {
            let full = if column { COLUMN_FULL_MAX } else { FULL_MAX };
            let total = full + extra;
            let first = a % total;
            let last = (first + rows).min(total);
            let w = around(first, last, total, full);
            prop_assert!(w.start <= first && last <= w.end && w.end <= total);
            prop_assert!(w.len() <= rows + 2 * MARGIN + 2 * CHUNK);
            prop_assert!(w.start.is_multiple_of(CHUNK));
            prop_assert!(w.end == total || w.end.is_multiple_of(CHUNK));
            // Scrolling by less than the margin's slack keeps the same window when still covered.
            let again = around(first, last, total, full);
            prop_assert_eq!(w, again);
        }

        /// Pixels to lines and back: every line whose pixels meet the view is in the answer.
        #[test]
        fn visible_is_exact(top in 0.0f64..100_000.0, span in 1.0f64..2_000.0, px in 10.0f64..40.0, total in 1usize..10_000) {
            if let Some((first, last)) = visible(top, top + span, px, total) {
                prop_assert!(first < last && last <= total);
                for i in [first, last - 1] {
                    let (a, b) = (i as f64 * px, (i + 1) as f64 * px);
                    prop_assert!(b > top && a < top + span, "line {} at {}..{} outside {}..{}", i, a, b, top, top + span);
                }
                if first > 0 {
                    prop_assert!((first as f64) * px <= top);
                }
            } else {
                prop_assert!(top >= px * total as f64);
            }
        }
    }
}
