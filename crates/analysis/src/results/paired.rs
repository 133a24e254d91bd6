//! Paired comparison of two models graded on the same tasks: who solved each task, the counts solved
//! by one only, an exact McNemar test on those discordant tasks, and the accuracy difference with a
//! paired bootstrap interval (tasks resampled with replacement, seeded, so a report is reproducible).

use super::read::Dataset;
use super::Series;
use rand::RngExt;
use std::collections::HashMap;

/// Bootstrap resamples by default.
pub const DEFAULT_RESAMPLES: usize = 10_000;
/// The bootstrap's seed by default.
pub const DEFAULT_SEED: u64 = 0;

/// The comparison of B against A over the tasks both were graded on.
#[derive(Clone, Debug, PartialEq)]
pub struct Paired {
    pub tasks: usize,
    pub both: usize,
    /// Solved by A only.
    pub only_a: usize,
    /// Solved by B only.
    pub only_b: usize,
    pub neither: usize,
    pub accuracy_a: f64,
    pub accuracy_b: f64,
    /// accuracy B − accuracy A.
    pub diff: f64,
    /// The 95% percentile interval of the difference over the resamples.
    pub lo: f64,
    pub hi: f64,
    /// Two-sided exact McNemar p-value (a binomial test of the discordant tasks against ½).
    pub p_value: f64,
    pub resamples: usize,
    pub seed: u64,
}

/// Compare paired outcomes `(a solved, b solved)`, one per task.
pub fn paired(outcomes: &[(bool, bool)], resamples: usize, seed: u64) -> Paired {
    let tasks = outcomes.len();
    let count = |f: fn(&(bool, bool)) -> bool| outcomes.iter().filter(|o| f(o)).count();
    let both = count(|o| o.0 && o.1);
    let only_a = count(|o| o.0 && !o.1);
    let only_b = count(|o| !o.0 && o.1);
    let share = |k: usize| if tasks == 0 { 0.0 } else { k as f64 / tasks as f64 };
    let (accuracy_a, accuracy_b) = (share(both + only_a), share(both + only_b));
    let diff = accuracy_b - accuracy_a;
    let (lo, hi) = bootstrap_interval(outcomes, resamples, seed).unwrap_or((diff, diff));
    Paired {
        tasks,
        both,
        only_a,
        only_b,
        neither: tasks - both - only_a - only_b,
        accuracy_a,
        accuracy_b,
        diff,
        lo,
        hi,
        p_value: mcnemar_exact(only_a, only_b),
        resamples,
        seed,
    }
}

/// The exact (binomial) McNemar test: the two-sided p-value of `b` and `c` discordant tasks under
/// the hypothesis that either model is as likely to be the one that solved each.
pub fn mcnemar_exact(b: usize, c: usize) -> f64 {
    let n = b + c;
    if n == 0 {
        return 1.0;
    }
    let k = b.min(c);
    // P(X <= k) for X ~ Binomial(n, 1/2), summed in log space so large n neither overflows nor underflows.
    let ln_half_n = n as f64 * core::f64::consts::LN_2;
    let ln_choose =
        |i: usize| libm::lgamma(n as f64 + 1.0) - libm::lgamma(i as f64 + 1.0) - libm::lgamma((n - i) as f64 + 1.0);
    let tail: f64 = (0..=k).map(|i| libm::exp(ln_choose(i) - ln_half_n)).sum();
    (2.0 * tail).min(1.0)
}

/// The 2.5% and 97.5% percentiles of B − A over `resamples` resamples of the tasks.
fn bootstrap_interval(outcomes: &[(bool, bool)], resamples: usize, seed: u64) -> Option<(f64, f64)> {
    let n = outcomes.len();
    if n == 0 || resamples == 0 {
        return None;
    }
    // Each task contributes b − a ∈ {−1, 0, 1}.
    let deltas: Vec<i64> = outcomes.iter().map(|&(a, b)| i64::from(b) - i64::from(a)).collect();
    let mut rng = cabrito_gen::rng::stream(&format!("paired bootstrap {seed}"), "resample");
    let mut diffs: Vec<f64> = (0..resamples)
        .map(|_| {
            let sum: i64 = (0..n).map(|_| deltas[rng.random_range(0..n)]).sum();
            sum as f64 / n as f64
        })
        .collect();
    diffs.sort_by(f64::total_cmp);
    Some((percentile(&diffs, 0.025), percentile(&diffs, 0.975)))
}

/// The `q` quantile of sorted values, linearly interpolated (numpy's default).
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let pos = q.clamp(0.0, 1.0) * (sorted.len() - 1) as f64;
    let (i, frac) = (libm::floor(pos) as usize, pos - libm::floor(pos));
    let next = sorted.get(i + 1).copied().unwrap_or(sorted[i]);
    sorted[i] + frac * (next - sorted[i])
}

/// One task both series were graded on.
#[derive(Clone, Debug, PartialEq)]
pub struct PairedTask {
    /// The record of A and of B (indices into [`Dataset::records`]).
    pub a: usize,
    pub b: usize,
}

/// The tasks graded for both A and B (same run, task set, task type and dag_id), in A's order.
pub fn paired_tasks(ds: &Dataset, a: &Series, b: &Series) -> Vec<PairedTask> {
    let bmap: HashMap<_, usize> =
        ds.records.iter().enumerate().filter(|(_, r)| Series::of(r) == *b).map(|(i, r)| (r.task_key(), i)).collect();
    ds.records
        .iter()
        .enumerate()
        .filter(|(_, r)| Series::of(r) == *a)
        .filter_map(|(i, r)| bmap.get(&r.task_key()).map(|&j| PairedTask { a: i, b: j }))
        .collect()
}

/// The paired comparison of B against A over the tasks both were graded on.
pub fn compare_paired(ds: &Dataset, a: &Series, b: &Series, resamples: usize, seed: u64) -> (Paired, Vec<PairedTask>) {
    let tasks = paired_tasks(ds, a, b);
    let outcomes: Vec<(bool, bool)> = tasks.iter().map(|t| (ds.records[t.a].passed, ds.records[t.b].passed)).collect();
    (paired(&outcomes, resamples, seed), tasks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mcnemar_matches_hand_worked_values() {
        // 1 against 6 discordant: 2 · (1 + 7) / 2^7 = 0.125.
        assert!((mcnemar_exact(1, 6) - 0.125).abs() < 1e-12);
        assert!((mcnemar_exact(6, 1) - 0.125).abs() < 1e-12);
        // 0 against 5: 2 / 32.
        assert!((mcnemar_exact(0, 5) - 0.0625).abs() < 1e-12);
        assert_eq!(mcnemar_exact(3, 3), 1.0);
        assert_eq!(mcnemar_exact(0, 0), 1.0);
        // Large counts stay finite: 0 against 2000 is far below any threshold but not NaN.
        let p = mcnemar_exact(0, 2000);
        assert!((0.0..1e-300).contains(&p));
        assert_eq!(mcnemar_exact(1000, 1000), 1.0);
    }

    #[test]
    fn counts_difference_and_a_seeded_interval() {
        let mut o = vec![(true, true); 10];
        o.extend(vec![(false, true); 6]);
        o.extend(vec![(true, false); 1]);
        o.extend(vec![(false, false); 3]);
        let p = paired(&o, 2000, 7);
        assert_eq!((p.tasks, p.both, p.only_a, p.only_b, p.neither), (20, 10, 1, 6, 3));
        assert!((p.accuracy_a - 0.55).abs() < 1e-12 && (p.accuracy_b - 0.8).abs() < 1e-12);
        assert!((p.diff - 0.25).abs() < 1e-12);
        assert!(p.lo < p.diff && p.diff < p.hi && p.lo >= -1.0 && p.hi <= 1.0, "{p:?}");
        assert_eq!(paired(&o, 2000, 7), p, "the same seed gives the same interval");
        assert!((p.p_value - 0.125).abs() < 1e-12);
        let none = paired(&[], 100, 0);
        assert_eq!((none.tasks, none.diff, none.lo, none.hi, none.p_value), (0, 0.0, 0.0, 0.0, 1.0));
    }

    #[test]
    fn percentiles_interpolate_like_numpy() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(percentile(&v, 0.5), 2.5);
        assert_eq!(percentile(&v, 0.0), 1.0);
        assert_eq!(percentile(&v, 1.0), 4.0);
        assert!((percentile(&v, 0.025) - 1.075).abs() < 1e-12);
    }
}
