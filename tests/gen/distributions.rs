//! Distribution tests (decision D2): over 1,000 graphs per size, level counts, level widths, parent
//! offsets and extra edges match what the sampling algorithm implies.

use cabrito_gen::graph::sample::{add_layered_edges, depth_for, random_dag, round_half_even};
use cabrito_gen::graph::{build, PROP_RANGE, P_EXTRA, P_SAME};
use cabrito_gen::rng::stream;
use cabrito_gen::spec::{Axis, Domain, Kind, TaskSpec, PAPER_SIZES};

const SAMPLES: u64 = 1000;

/// P(depth = d) when depth = round(n^h), h ~ U(0.45, 0.55), by a fine grid over h.
fn depth_distribution(n: usize) -> Vec<(usize, f64)> {
    let steps = 20_000;
    let mut counts = std::collections::BTreeMap::new();
    for i in 0..steps {
        let h = PROP_RANGE.0 + (PROP_RANGE.1 - PROP_RANGE.0) * (i as f64 + 0.5) / steps as f64;
        let d = round_half_even((n as f64).powf(h)).max(1).min(n);
        *counts.entry(d).or_insert(0usize) += 1;
    }
    counts.into_iter().map(|(d, c)| (d, c as f64 / steps as f64)).collect()
}

/// E[clip(Poisson(λ), 1, hi)].
fn clipped_poisson_mean(lambda: f64, hi: usize) -> f64 {
    let mut pmf = (-lambda).exp();
    let mut mean = 0.0;
    let mut mass = 0.0;
    for k in 0..hi {
        mean += pmf * (k.max(1)) as f64;
        mass += pmf;
        pmf *= lambda / (k + 1) as f64;
    }
    mean + (1.0 - mass) * hi as f64
}

#[test]
fn level_counts_and_widths_match_the_sampler() {
    for &n in PAPER_SIZES {
        let mut depth_counts = std::collections::BTreeMap::new();
        let (mut first_sum, mut first_expected) = (0.0, 0.0);
        for seed in 0..SAMPLES {
            // The search axis grows C_init, whose levels the joined graph keeps (wrapper level first).
            let g =
                build(&TaskSpec::new(Kind::AddParameter, Domain::Math, Axis::Search, n, seed)).expect("a call graph");
            let levels = &g.main_levels[1..];
            assert_eq!(levels.iter().map(Vec::len).sum::<usize>(), n as usize);
            assert!(levels.iter().all(|l| !l.is_empty()));
            let d = levels.len();
            *depth_counts.entry(d).or_insert(0u64) += 1;
            first_sum += levels[0].len() as f64;
            let lambda = (n as f64 / d as f64).max(1.0);
            first_expected += clipped_poisson_mean(lambda, n as usize - (d - 1));
        }
        for (d, p) in depth_distribution(n as usize) {
            let seen = *depth_counts.get(&d).unwrap_or(&0) as f64 / SAMPLES as f64;
            let tol = 4.0 * (p * (1.0 - p) / SAMPLES as f64).sqrt() + 0.01;
            assert!((seen - p).abs() <= tol, "n={n}: P(depth={d}) = {seen:.3}, expected {p:.3}");
        }
        assert!(depth_counts.keys().all(|&d| d >= depth_for(n as usize, 0.45) && d <= depth_for(n as usize, 0.55)));
        let (mean, expected) = (first_sum / SAMPLES as f64, first_expected / SAMPLES as f64);
        let tol = 4.0 * (expected.max(1.0) / SAMPLES as f64).sqrt() + 0.05;
        assert!((mean - expected).abs() <= tol, "n={n}: mean first width {mean:.2}, expected {expected:.2}");
    }
}

#[test]
fn parent_offsets_are_geometric_and_extra_edges_near_rate() {
    let (mut one, mut total) = (0u64, 0u64);
    let (mut extra, mut sources) = (0usize, 0usize);
    for seed in 0..SAMPLES {
        let mut rng = stream(&format!("dist-{seed}"), "graph");
        let mut g = random_dag(&mut rng, 200, 0.5, P_SAME);
        let level = g.level_of();
        for &(u, v) in &g.edges {
            if level[v] >= 2 {
                total += 1;
                one += (level[v] - level[u] == 1) as u64;
            }
        }
        // A forest: every node but the roots has exactly one parent.
        for (v, &l) in level.iter().enumerate() {
            assert_eq!(g.in_degree(v), (l > 0) as usize);
        }
        let before = g.edges.len();
        add_layered_edges(&mut rng, &mut g, P_EXTRA, P_SAME);
        extra += g.edges.len() - before;
        sources += g.n - g.levels.last().unwrap().len();
        assert!(g.edges.iter().all(|&(u, v)| level[u] < level[v]), "extra edges go down");
    }
    let p = one as f64 / total as f64;
    assert!((p - 0.9).abs() < 0.01, "P(offset = 1) = {p:.4}, expected 0.9");
    let rate = extra as f64 / sources as f64;
    // Each non-last-level node draws Bernoulli(0.3) edges; a few collide with existing ones.
    assert!((0.25..=0.30).contains(&rate), "extra edges per source node {rate:.3}");
}

#[test]
fn cross_edges_follow_beta() {
    // Dead code: each dead function makes Bernoulli(0.3) calls into live code.
    let (mut calls, mut dead) = (0usize, 0usize);
    for seed in 0..SAMPLES {
        let g = build(&TaskSpec::new(Kind::DeadCode, Domain::Math, Axis::Traversal, 25, seed)).expect("a call graph");
        for v in g.edit_side() {
            dead += 1;
            calls += g.children(v).into_iter().filter(|&c| g.part(c) == cabrito_gen::graph::Part::Init).count();
        }
    }
    let rate = calls as f64 / dead as f64;
    assert!((rate - 0.3).abs() < 0.01, "dead-to-live calls per dead function {rate:.3}");
}
