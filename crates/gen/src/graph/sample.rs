//! The primitive samplers of the reference (generation.md §1.3–§1.5), on a portable RNG.
//!
//! All float maths goes through `libm`, so native and wasm builds draw identical values.

use crate::rng::Rng;
use rand::RngExt;
use rand_distr::{Distribution, Poisson};

/// Uniform index in `0..n` (n > 0), drawn as u64 so 32- and 64-bit targets agree.
pub fn below(rng: &mut Rng, n: usize) -> usize {
    debug_assert!(n > 0);
    rng.random_range(0..n as u64) as usize
}

/// Uniform integer in `lo..=hi`.
pub fn between(rng: &mut Rng, lo: i64, hi: i64) -> i64 {
    rng.random_range(lo..=hi)
}

/// Uniform real in `[lo, hi)`.
pub fn uniform(rng: &mut Rng, lo: f64, hi: f64) -> f64 {
    lo + (hi - lo) * rng.random::<f64>()
}

/// Fisher–Yates from the end, with portable index draws.
pub fn shuffle<T>(rng: &mut Rng, items: &mut [T]) {
    for i in (1..items.len()).rev() {
        let j = below(rng, i + 1);
        items.swap(i, j);
    }
}

/// `amount` distinct items of `pool`, in draw order.
pub fn sample<T: Clone>(rng: &mut Rng, pool: &[T], amount: usize) -> Vec<T> {
    let mut idx: Vec<usize> = (0..pool.len()).collect();
    let amount = amount.min(pool.len());
    for i in 0..amount {
        let j = i + below(rng, idx.len() - i);
        idx.swap(i, j);
    }
    idx[..amount].iter().map(|&i| pool[i].clone()).collect()
}

/// Geometric(p) on {1, 2, …} with the tail clipped to `max`; consumes nothing when `max <= 1`.
pub fn geometric_offset(rng: &mut Rng, p: f64, max: usize) -> usize {
    if max <= 1 {
        return 1;
    }
    let p = p.clamp(1e-6, 1.0 - 1e-6);
    let u: f64 = rng.random();
    let k = 1.0 + libm::floor(libm::log(1.0 - u) / libm::log(1.0 - p));
    (k.max(1.0) as usize).clamp(1, max)
}

/// floor(x), plus one with probability frac(x).
pub fn expected_count(rng: &mut Rng, x: f64) -> usize {
    if x <= 0.0 {
        return 0;
    }
    let base = libm::floor(x);
    let frac = x - base;
    let extra = if rng.random::<f64>() < frac { 1 } else { 0 };
    base as usize + extra
}

/// A Poisson(λ) draw.
pub fn poisson(rng: &mut Rng, lambda: f64) -> u64 {
    Poisson::new(lambda).map(|d| d.sample(rng) as u64).unwrap_or(1)
}

/// Split `total` into `buckets` positive parts with Poisson sizes (generation.md §1.3).
pub fn poisson_sizes(rng: &mut Rng, total: usize, buckets: usize) -> Vec<usize> {
    let mut out = Vec::with_capacity(buckets);
    let mut remaining = total;
    for b in 0..buckets {
        let left = buckets - b;
        if left == 1 {
            out.push(remaining.max(1));
            break;
        }
        let lambda = (remaining as f64 / left as f64).max(1.0);
        let hi = remaining.saturating_sub(left - 1).max(1);
        let size = (poisson(rng, lambda) as usize).clamp(1, hi);
        out.push(size);
        remaining -= size;
    }
    out
}

/// Python's `round` (half to even) for a non-negative value.
pub fn round_half_even(x: f64) -> usize {
    let f = libm::floor(x);
    let diff = x - f;
    let r = if diff > 0.5 || (diff == 0.5 && (f as u64) % 2 == 1) { f + 1.0 } else { f };
    r as usize
}

/// The number of levels of an `n`-node layered DAG: max(1, round(n^prop)), capped at n.
pub fn depth_for(n: usize, prop: f64) -> usize {
    round_half_even(libm::pow(n as f64, prop)).max(1).min(n.max(1))
}

/// A layered DAG over nodes `0..n`, numbered level by level; edges in insertion order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Layered {
    pub n: usize,
    pub levels: Vec<Vec<usize>>,
    pub edges: Vec<(usize, usize)>,
}

impl Layered {
    pub fn in_degree(&self, v: usize) -> usize {
        self.edges.iter().filter(|e| e.1 == v).count()
    }
    /// The nodes no edge enters, in order (one pass over the edges, not one per node).
    pub fn sources(&self) -> Vec<usize> {
        self.unmarked(|&(_, v)| v)
    }
    /// The nodes no edge leaves, in order.
    pub fn sinks(&self) -> Vec<usize> {
        self.unmarked(|&(u, _)| u)
    }
    /// The nodes that are no edge's `end`.
    fn unmarked(&self, end: fn(&(usize, usize)) -> usize) -> Vec<usize> {
        let mut marked = vec![false; self.n];
        for e in &self.edges {
            marked[end(e)] = true;
        }
        (0..self.n).filter(|&v| !marked[v]).collect()
    }
    pub fn level_of(&self) -> Vec<usize> {
        let mut out = vec![0; self.n];
        for (i, level) in self.levels.iter().enumerate() {
            for &v in level {
                out[v] = i;
            }
        }
        out
    }
}

/// A layered forest (generation.md §1.4): Poisson level widths, one parent per non-root node at a
/// geometric level offset.
pub fn random_dag(rng: &mut Rng, n: usize, prop: f64, p_same: f64) -> Layered {
    let depth = depth_for(n, prop);
    let widths = poisson_sizes(rng, n, depth);
    let mut levels = Vec::with_capacity(depth);
    let mut next = 0;
    for w in widths {
        levels.push((next..next + w).collect::<Vec<_>>());
        next += w;
    }
    let mut edges = Vec::new();
    for j in 1..levels.len() {
        for idx in 0..levels[j].len() {
            let v = levels[j][idx];
            let d = geometric_offset(rng, p_same, j);
            let src = &levels[j - d];
            let u = src[below(rng, src.len())];
            edges.push((u, v));
        }
    }
    Layered { n, levels, edges }
}

/// Extra edges from each node to a later level (generation.md §1.5).
pub fn add_layered_edges(rng: &mut Rng, g: &mut Layered, p_extra: f64, p_same: f64) {
    if p_extra <= 0.0 || g.levels.len() < 2 {
        return;
    }
    // An edge exists if it was there before (looked up in a sorted copy, not scanned for) or is one
    // of the extra edges of `u` already drawn (the last ones pushed: each node is in one level).
    let mut before = g.edges.clone();
    before.sort();
    let last = g.levels.len() - 1;
    for i in 0..last {
        for s in 0..g.levels[i].len() {
            let u = g.levels[i][s];
            let drawn = g.edges.len();
            let count = expected_count(rng, p_extra);
            for _ in 0..count {
                let off = geometric_offset(rng, p_same, last - i);
                let dst = &g.levels[i + off];
                let v = dst[below(rng, dst.len())];
                if before.binary_search(&(u, v)).is_err() && !g.edges[drawn..].contains(&(u, v)) {
                    g.edges.push((u, v));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    #[test]
    fn round_is_half_even() {
        assert_eq!(round_half_even(2.5), 2);
        assert_eq!(round_half_even(3.5), 4);
        assert_eq!(round_half_even(1.37), 1);
        assert_eq!(depth_for(5, 0.5), 2);
        assert_eq!(depth_for(1, 0.5), 1);
    }

    #[test]
    fn poisson_sizes_sum() {
        let mut rng = stream("t", "p");
        for total in 1..60 {
            for buckets in 1..=total.min(12) {
                let s = poisson_sizes(&mut rng, total, buckets);
                assert_eq!(s.len(), buckets);
                assert_eq!(s.iter().sum::<usize>(), total);
                assert!(s.iter().all(|&x| x >= 1));
            }
        }
    }

    #[test]
    fn geometric_is_mostly_one() {
        let mut rng = stream("t", "g");
        let ones = (0..10_000).filter(|_| geometric_offset(&mut rng, 0.9, 10) == 1).count();
        assert!((8_800..9_200).contains(&ones), "{ones}");
    }
}
