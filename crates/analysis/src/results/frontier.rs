//! The capability frontier: per model and axis, a logistic fit of success against `ln n` (maximum
//! likelihood by Newton's method) and the `n` at which the fitted success falls to 50% (`n50`), with
//! a 95% interval from the delta method on `ln n50`. A curve that never crosses 50% inside the sizes
//! tested says so instead of extrapolating.

use super::aggregate::{Point, Series};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The normal quantile of a two-sided 95% interval.
const Z95: f64 = 1.959_963_984_540_054;

/// A logistic fit `P(success) = 1 / (1 + exp(-(intercept + slope · ln n)))`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fit {
    pub intercept: f64,
    pub slope: f64,
    /// The inverse of the Fisher information at the fit: var(intercept), var(slope), their covariance.
    pub var_intercept: f64,
    pub var_slope: f64,
    pub cov: f64,
    /// Newton iterations used.
    pub iterations: usize,
}

impl Fit {
    /// The fitted success rate at `n`.
    pub fn at(&self, n: f64) -> f64 {
        sigmoid(self.intercept + self.slope * libm::log(n))
    }
}

/// Where the fitted success crosses 50%.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Crossing {
    /// Inside the sizes tested: `n50` with its 95% interval.
    At { n50: f64, lo: f64, hi: f64 },
    /// Success stays above 50% at every size tested (the fit crosses beyond them, or never).
    AboveThroughout,
    /// Success is below 50% at every size tested.
    BelowThroughout,
    /// Success does not fall as `n` grows (the fitted slope is not negative).
    NoDecline,
    /// Every task up to `last_solved` was solved and none from `first_failed` on: the logistic fit
    /// has no finite maximum, and the fall lies between these sizes.
    Step { last_solved: f64, first_failed: f64 },
    /// Fewer than two sizes: nothing to fit.
    TooFewSizes,
}

impl Crossing {
    /// One line for tables and the page.
    pub fn describe(&self) -> String {
        match self {
            Crossing::At { n50, lo, hi } => format!("n50 = {} (95% {} to {})", num(*n50), num(*lo), num(*hi)),
            Crossing::AboveThroughout => "never crosses 50%: above it at every n tested".into(),
            Crossing::BelowThroughout => "never crosses 50%: below it at every n tested".into(),
            Crossing::NoDecline => "never crosses 50%: success does not fall as n grows".into(),
            Crossing::Step { last_solved, first_failed } => {
                format!(
                    "falls from all solved to none between n = {} and n = {}",
                    num(*last_solved),
                    num(*first_failed)
                )
            }
            Crossing::TooFewSizes => "fewer than two sizes: no fit".into(),
        }
    }
}

fn num(x: f64) -> String {
    if !x.is_finite() {
        "∞".into()
    } else if x >= 100.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.1}")
    }
}

/// Successes out of tasks at one size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Group {
    pub n: f64,
    pub passed: usize,
    pub tasks: usize,
}

fn sigmoid(t: f64) -> f64 {
    if t >= 0.0 {
        1.0 / (1.0 + libm::exp(-t))
    } else {
        let e = libm::exp(t);
        e / (1.0 + e)
    }
}

fn log_likelihood(groups: &[Group], a: f64, b: f64) -> f64 {
    groups
        .iter()
        .map(|g| {
            let t = a + b * libm::log(g.n);
            // ln p = −ln(1 + e^−t), ln(1 − p) = −ln(1 + e^t), computed without overflow.
            let ln1pe = |x: f64| if x > 0.0 { x + libm::log1p(libm::exp(-x)) } else { libm::log1p(libm::exp(x)) };
            -(g.passed as f64) * ln1pe(-t) - ((g.tasks - g.passed) as f64) * ln1pe(t)
        })
        .sum()
}

/// The maximum-likelihood logistic fit of success against `ln n`, or `None` when it has no finite
/// maximum (all solved, none solved, or sizes that separate the solved from the failed).
pub fn fit(groups: &[Group]) -> Option<Fit> {
    let groups: Vec<Group> = groups.iter().copied().filter(|g| g.tasks > 0 && g.n > 0.0 && g.n.is_finite()).collect();
    let (passed, tasks): (usize, usize) = groups.iter().fold((0, 0), |(p, t), g| (p + g.passed, t + g.tasks));
    if tasks == 0 || passed == 0 || passed == tasks {
        return None;
    }
    let mean = passed as f64 / tasks as f64;
    let (mut a, mut b) = (libm::log(mean / (1.0 - mean)), 0.0);
    let mut ll = log_likelihood(&groups, a, b);
    for iteration in 1..=200 {
        let (mut ga, mut gb, mut iaa, mut iab, mut ibb) = (0.0, 0.0, 0.0, 0.0, 0.0);
        for g in &groups {
            let x = libm::log(g.n);
            let p = sigmoid(a + b * x);
            let m = g.tasks as f64;
            let r = g.passed as f64 - m * p;
            let w = m * p * (1.0 - p);
            ga += r;
            gb += r * x;
            iaa += w;
            iab += w * x;
            ibb += w * x * x;
        }
        let det = iaa * ibb - iab * iab;
        if det.partial_cmp(&1e-12) != Some(core::cmp::Ordering::Greater) {
            return None;
        }
        let (da, db) = ((ibb * ga - iab * gb) / det, (iaa * gb - iab * ga) / det);
        // Step halving keeps every step uphill.
        let mut step = 1.0;
        let (mut na, mut nb, mut nll) = (a + da, b + db, log_likelihood(&groups, a + da, b + db));
        while nll < ll - 1e-12 && step > 1e-6 {
            step /= 2.0;
            (na, nb) = (a + step * da, b + step * db);
            nll = log_likelihood(&groups, na, nb);
        }
        let moved = (na - a).abs().max((nb - b).abs());
        (a, b, ll) = (na, nb, nll);
        if b.abs() > 1e3 || !a.is_finite() || !b.is_finite() {
            return None;
        }
        if moved < 1e-10 {
            let (mut iaa, mut iab, mut ibb) = (0.0, 0.0, 0.0);
            for g in &groups {
                let x = libm::log(g.n);
                let p = sigmoid(a + b * x);
                let w = g.tasks as f64 * p * (1.0 - p);
                iaa += w;
                iab += w * x;
                ibb += w * x * x;
            }
            let det = iaa * ibb - iab * iab;
            if det.partial_cmp(&1e-12) != Some(core::cmp::Ordering::Greater) {
                return None;
            }
            return Some(Fit {
                intercept: a,
                slope: b,
                var_intercept: ibb / det,
                var_slope: iaa / det,
                cov: -iab / det,
                iterations: iteration,
            });
        }
    }
    None
}

/// The crossing of a set of groups (sizes with successes out of tasks).
pub fn crossing(groups: &[Group]) -> (Option<Fit>, Crossing) {
    let groups: Vec<Group> = groups.iter().copied().filter(|g| g.tasks > 0 && g.n > 0.0 && g.n.is_finite()).collect();
    let mut sizes: Vec<f64> = groups.iter().map(|g| g.n).collect();
    sizes.sort_by(f64::total_cmp);
    sizes.dedup();
    let (Some(&min_n), Some(&max_n)) = (sizes.first(), sizes.last()) else { return (None, Crossing::TooFewSizes) };
    if sizes.len() < 2 {
        return (None, Crossing::TooFewSizes);
    }
    let Some(f) = fit(&groups) else {
        let passed: usize = groups.iter().map(|g| g.passed).sum();
        let tasks: usize = groups.iter().map(|g| g.tasks).sum();
        if passed == tasks {
            return (None, Crossing::AboveThroughout);
        }
        if passed == 0 {
            return (None, Crossing::BelowThroughout);
        }
        // Separated: the largest size with a success, the smallest with a failure.
        let last_solved = groups.iter().filter(|g| g.passed > 0).map(|g| g.n).fold(f64::NEG_INFINITY, f64::max);
        let first_failed = groups.iter().filter(|g| g.passed < g.tasks).map(|g| g.n).fold(f64::INFINITY, f64::min);
        return (None, Crossing::Step { last_solved, first_failed });
    };
    if f.slope >= 0.0 {
        return (Some(f), Crossing::NoDecline);
    }
    let ln_n50 = -f.intercept / f.slope;
    let n50 = libm::exp(ln_n50);
    if n50 > max_n {
        return (Some(f), Crossing::AboveThroughout);
    }
    if n50 < min_n {
        return (Some(f), Crossing::BelowThroughout);
    }
    // Delta method: the gradient of −a/b is (−1/b, a/b²).
    let (da, db) = (-1.0 / f.slope, f.intercept / (f.slope * f.slope));
    let var = da * da * f.var_intercept + db * db * f.var_slope + 2.0 * da * db * f.cov;
    let se = libm::sqrt(var.max(0.0));
    (Some(f), Crossing::At { n50, lo: libm::exp(ln_n50 - Z95 * se), hi: libm::exp(ln_n50 + Z95 * se) })
}

/// The frontier of one model on one axis.
#[derive(Clone, Debug, PartialEq)]
pub struct Frontier {
    pub series: Series,
    pub axis: Arc<str>,
    pub groups: Vec<Group>,
    pub fit: Option<Fit>,
    pub crossing: Crossing,
}

/// The frontier of every series on every axis, from accuracy points pooled over kinds and domains
/// ([`super::aggregate::accuracy`] with [`super::Facet::All`]).
pub fn frontiers(points: &[Point]) -> Vec<Frontier> {
    let mut by: BTreeMap<(Series, usize, Arc<str>), Vec<Group>> = BTreeMap::new();
    for p in points {
        let Some(n) = p.n else { continue };
        by.entry((p.series.clone(), super::runs::axis_rank(&p.axis), p.axis.clone())).or_default().push(Group {
            n,
            passed: p.passed,
            tasks: p.tasks,
        });
    }
    by.into_iter()
        .map(|((series, _, axis), groups)| {
            let (fit, crossing) = crossing(&groups);
            Frontier { series, axis, groups, fit, crossing }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(n: f64, passed: usize, tasks: usize) -> Group {
        Group { n, passed, tasks }
    }

    #[test]
    fn two_sizes_fit_exactly_and_cross_at_their_geometric_mean() {
        // 3/4 at n = 10 and 1/4 at n = 100: the saturated fit has logit ±ln 3 there, so the slope is
        // −2 ln 3 / ln 10, the intercept 3 ln 3, and n50 = 10^1.5.
        let (f, c) = crossing(&[g(10.0, 3, 4), g(100.0, 1, 4)]);
        let f = f.expect("a fit");
        let ln3 = libm::log(3.0);
        assert!((f.slope + 2.0 * ln3 / libm::log(10.0)).abs() < 1e-8, "{f:?}");
        assert!((f.intercept - 3.0 * ln3).abs() < 1e-8, "{f:?}");
        let Crossing::At { n50, lo, hi } = c else { panic!("{c:?}") };
        assert!((n50 - libm::pow(10.0, 1.5)).abs() < 1e-6, "{n50}");
        assert!(lo < n50 && n50 < hi);
        assert!((f.at(n50) - 0.5).abs() < 1e-9);
    }

    #[test]
    fn curves_that_never_cross_say_so() {
        assert_eq!(crossing(&[g(5.0, 4, 4), g(10.0, 4, 4)]).1, Crossing::AboveThroughout);
        assert_eq!(crossing(&[g(5.0, 0, 4), g(10.0, 0, 4)]).1, Crossing::BelowThroughout);
        assert_eq!(crossing(&[g(5.0, 1, 4), g(10.0, 3, 4)]).1, Crossing::NoDecline);
        assert_eq!(crossing(&[g(5.0, 3, 4)]).1, Crossing::TooFewSizes);
        assert_eq!(crossing(&[]).1, Crossing::TooFewSizes);
        // Still above half at the largest size: the fit's crossing lies beyond what was tested.
        assert_eq!(crossing(&[g(5.0, 20, 20), g(10.0, 19, 20), g(200.0, 15, 20)]).1, Crossing::AboveThroughout);
        assert_eq!(
            crossing(&[g(5.0, 4, 4), g(10.0, 4, 4), g(25.0, 0, 4), g(50.0, 0, 4)]).1,
            Crossing::Step { last_solved: 10.0, first_failed: 25.0 }
        );
        for c in [Crossing::AboveThroughout, Crossing::Step { last_solved: 10.0, first_failed: 25.0 }] {
            assert!(!c.describe().is_empty());
        }
    }
}
