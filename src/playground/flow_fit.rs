//! Merge Codebases' data-flow graph laid out again for the box it is shown in: its layers run top
//! to bottom or left to right, a layer too long for the box wraps onto several rows (or columns),
//! whichever arrangement lets the drawing be largest while it fits. Pure arithmetic; the app
//! (`web/merge.rs`) reads the box and moves the vertices.

/// A vertex's radius and the spacing of the drawing at scale 1 (the same as the generator's).
pub const NODE_R: f64 = 12.0;
const GAP: f64 = 34.0;
const LAYER_GAP: f64 = 46.0;
const MARGIN: f64 = 18.0;
/// The largest scale a fit uses (beyond it the drawing only gets emptier), and the smallest (below
/// it the names are too small to read, so the box scrolls instead).
pub const MAX_SCALE: f64 = 1.6;
pub const MIN_SCALE: f64 = 0.8;

/// Which way the layers run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Parameters on top, each layer a row (wrapped onto more rows when long).
    Down,
    /// Parameters on the left, each layer a column (wrapped onto more columns when tall).
    Right,
}

/// A layout for one box: every vertex's centre in a drawing of `width` × `height` (scale 1), and the
/// scale that shows it in the box.
#[derive(Clone, Debug, PartialEq)]
pub struct Fit {
    pub flow: Flow,
    /// At most this many vertices of a layer side by side.
    pub wrap: usize,
    pub width: f64,
    pub height: f64,
    pub scale: f64,
    pub centres: Vec<(f64, f64)>,
}

impl Fit {
    /// The ends of a line from vertex `u` to vertex `v`, on their circles' rims.
    pub fn line(&self, u: usize, v: usize) -> Option<((f64, f64), (f64, f64))> {
        let (&(x1, y1), &(x2, y2)) = (self.centres.get(u)?, self.centres.get(v)?);
        let (dx, dy) = (x2 - x1, y2 - y1);
        let len = (dx * dx + dy * dy).sqrt();
        if len <= 2.0 * NODE_R {
            return Some(((x1, y1), (x2, y2)));
        }
        let (ux, uy) = (dx / len * NODE_R, dy / len * NODE_R);
        Some(((x1 + ux, y1 + uy), (x2 - ux, y2 - uy)))
    }
}

/// The arrangement of `at` (each vertex's layer and position in it) that shows largest in a box of
/// `w` × `h` pixels, its scale kept within [`MIN_SCALE`]..=[`MAX_SCALE`] (at the smallest the box
/// scrolls). Ties go to fewer wraps, then to top to bottom.
pub fn fit(at: &[(usize, usize)], w: f64, h: f64) -> Fit {
    let layers = at.iter().map(|&(l, _)| l + 1).max().unwrap_or(0);
    let mut sizes = vec![0usize; layers];
    for &(l, p) in at {
        sizes[l] = sizes[l].max(p + 1);
    }
    let widest = sizes.iter().copied().max().unwrap_or(1).max(1);
    let (w, h) = (w.max(1.0), h.max(1.0));
    let mut best: Option<(f64, Fit)> = None;
    for wrap in (1..=widest).rev() {
        for flow in [Flow::Down, Flow::Right] {
            let f = arrange(at, &sizes, wrap, flow);
            let s = (w / f.width).min(h / f.height).min(MAX_SCALE);
            if best.as_ref().is_none_or(|(b, _)| s > *b + 1e-9) {
                best = Some((s, f));
            }
        }
    }
    let (s, mut f) = best.unwrap_or_else(|| (1.0, arrange(at, &sizes, 1, Flow::Down)));
    f.scale = s.max(MIN_SCALE);
    f
}

/// The drawing with layers of `sizes` running `flow`, at most `wrap` vertices side by side.
fn arrange(at: &[(usize, usize)], sizes: &[usize], wrap: usize, flow: Flow) -> Fit {
    // Each layer's first band (row or column) and how many vertices its bands hold.
    let mut first = Vec::with_capacity(sizes.len());
    let mut bands = 0usize;
    for &m in sizes {
        first.push(bands);
        bands += m.div_ceil(wrap).max(1);
    }
    let across = sizes.iter().map(|&m| m.min(wrap)).max().unwrap_or(1).max(1);
    // Bands of one layer sit closer than layers; the gap between layers marks the step.
    let band_at =
        |l: usize, sub: usize| MARGIN + LAYER_GAP / 2.0 + l as f64 * LAYER_GAP + (first[l] - l + sub) as f64 * GAP;
    let long = 2.0 * MARGIN + sizes.len().max(1) as f64 * LAYER_GAP + (bands - sizes.len()) as f64 * GAP;
    let wide = 2.0 * MARGIN + across as f64 * GAP;
    let centres = at
        .iter()
        .map(|&(l, p)| {
            let (sub, i) = (p / wrap, p % wrap);
            let in_band = (sizes[l] - sub * wrap).min(wrap);
            let side = (wide - in_band as f64 * GAP) / 2.0 + (i as f64 + 0.5) * GAP;
            let along = band_at(l, sub);
            match flow {
                Flow::Down => (side, along),
                Flow::Right => (along, side),
            }
        })
        .collect();
    let (width, height) = match flow {
        Flow::Down => (wide, long),
        Flow::Right => (long, wide),
    };
    Fit { flow, wrap, width, height, scale: 1.0, centres }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Layers of these sizes, each vertex's (layer, position).
    fn places(sizes: &[usize]) -> Vec<(usize, usize)> {
        sizes.iter().enumerate().flat_map(|(l, &m)| (0..m).map(move |p| (l, p))).collect()
    }

    /// Every centre inside the drawing (with its circle), no two closer than a vertex's diameter.
    fn check(f: &Fit, n: usize, what: &str) {
        assert_eq!(f.centres.len(), n, "{what}");
        for (i, &(x, y)) in f.centres.iter().enumerate() {
            assert!(
                x >= NODE_R && y >= NODE_R && x + NODE_R <= f.width && y + NODE_R <= f.height,
                "{what}: {i} at {x},{y}"
            );
            for &(x2, y2) in &f.centres[..i] {
                assert!(((x - x2).powi(2) + (y - y2).powi(2)).sqrt() >= 2.0 * NODE_R, "{what}: {i} overlaps");
            }
        }
    }

    #[test]
    fn a_wide_short_box_turns_the_layers_sideways_and_wraps_the_parameters() {
        // n = 25, seed 0: ten parameters, then eight short layers.
        let at = places(&[10, 1, 3, 2, 3, 4, 4, 5, 4]);
        let f = fit(&at, 420.0, 280.0);
        check(&f, at.len(), "420×280");
        assert_eq!(f.flow, Flow::Right);
        assert!(f.wrap < 10, "the parameters wrap: {f:?}");
        assert!(f.width * f.scale <= 420.0 + 1e-6 && f.height * f.scale <= 280.0 + 1e-6);
        assert!(f.scale >= MIN_SCALE, "{}", f.scale);
        // Layers run left to right: a vertex of a later layer is right of every earlier one.
        let x = |l: usize| at.iter().zip(&f.centres).filter(|(a, _)| a.0 == l).map(|(_, c)| c.0).collect::<Vec<_>>();
        for l in 1..9 {
            let before = x(l - 1).into_iter().fold(f64::MIN, f64::max);
            assert!(x(l).into_iter().all(|v| v > before), "layer {l}");
        }
    }

    #[test]
    fn a_tall_box_keeps_the_layers_as_rows() {
        let at = places(&[10, 1, 3, 2, 3, 4, 4, 5, 4]);
        let f = fit(&at, 380.0, 900.0);
        check(&f, at.len(), "380×900");
        assert_eq!(f.flow, Flow::Down);
        assert!(f.width * f.scale <= 380.0 + 1e-6 && f.height * f.scale <= 900.0 + 1e-6);
    }

    #[test]
    fn every_fit_holds_every_vertex_and_fits_unless_it_would_be_unreadable() {
        let shapes: [&[usize]; 5] = [&[10, 1, 2, 1, 2], &[10, 1, 2, 4, 3, 2, 5, 6, 8, 7, 7, 6], &[1], &[3, 40, 2], &[]];
        for sizes in shapes {
            let at = places(sizes);
            for (w, h) in [(420.0, 160.0), (420.0, 300.0), (360.0, 500.0), (1200.0, 560.0), (0.0, 0.0)] {
                let f = fit(&at, w, h);
                let what = format!("{sizes:?} in {w}×{h}");
                check(&f, at.len(), &what);
                assert!((MIN_SCALE..=MAX_SCALE).contains(&f.scale), "{what}: {}", f.scale);
                if f.scale > MIN_SCALE {
                    assert!(
                        f.width * f.scale <= w.max(1.0) + 1e-6 && f.height * f.scale <= h.max(1.0) + 1e-6,
                        "{what}"
                    );
                }
            }
        }
    }

    #[test]
    fn lines_end_on_the_rims() {
        let f = fit(&places(&[2, 1]), 400.0, 400.0);
        let ((x1, y1), (x2, y2)) = f.line(0, 2).unwrap();
        let d = |a: (f64, f64), b: (f64, f64)| ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt();
        assert!((d((x1, y1), f.centres[0]) - NODE_R).abs() < 1e-9);
        assert!((d((x2, y2), f.centres[2]) - NODE_R).abs() < 1e-9);
        assert_eq!(f.line(0, 9), None);
    }
}
