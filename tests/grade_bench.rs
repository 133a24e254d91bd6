//! Grading benchmarks, run on demand (they are measurements, not tests):
//!
//!     cargo test --release --test grade_bench -- --ignored --nocapture --test-threads 1
//!
//! Prints: seconds to grade one task (n = 25 and 200, 50 trials, reference solution as the
//! candidate, cold and warm reference cache, memoisation on and off); tasks per second for a grid
//! of reference solutions on all cores; and the cost of starting a sandboxed process versus the
//! tests themselves.
#![cfg(not(target_arch = "wasm32"))]

use cabrito::grade::{self, GradeTask};
use cabrito::native::runner::{self, grade as grade_one, isolation, GradeOptions, Limits};
use cabrito::{Axis, Domain, Kind, TaskSpec};
use rayon::prelude::*;
use std::time::{Duration, Instant};

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    xs[xs.len() / 2]
}

#[test]
#[ignore]
fn bench_one_task() {
    eprintln!("isolation: {}", isolation().describe());
    println!("| kind | domain | axis | n | functions | memo | cold s (ref + cand) | warm s (cand) |");
    println!("|---|---|---|---|---|---|---|---|");
    for (axis, n) in [(Axis::Traversal, 25), (Axis::Traversal, 200), (Axis::Search, 25), (Axis::Search, 200)] {
        for &domain in Domain::ALL {
            for kind in [Kind::AddParameter] {
                for memo in [true, false] {
                    let mut cold = Vec::new();
                    let mut warm = Vec::new();
                    let mut functions = 0;
                    for seed in 0..1 {
                        let t = cabrito::generate(&TaskSpec::new(kind, domain, axis, n, 100 + seed)).unwrap();
                        functions = t.sizes.functions;
                        let gt = GradeTask::from_task(&t);
                        let mut o = GradeOptions { trials: 50, ..Default::default() };
                        o.harness.memoize = memo;
                        let s = Instant::now();
                        let v = grade_one(&gt, &t.solution_code, &o, &|_, _| {});
                        cold.push(s.elapsed().as_secs_f64());
                        assert!(v.passed, "{}", v.message);
                        let s = Instant::now();
                        let v = grade_one(&gt, &t.solution_code, &o, &|_, _| {});
                        warm.push(s.elapsed().as_secs_f64());
                        assert!(v.passed);
                    }
                    println!(
                        "| {kind} | {domain} | {axis} | {n} | {functions} | {memo} | {:.2} | {:.2} |",
                        median(cold),
                        median(warm)
                    );
                }
            }
        }
    }
}

#[test]
#[ignore]
fn bench_grid_throughput() {
    let mut specs = Vec::new();
    for &axis in Axis::ALL {
        for &domain in Domain::ALL {
            for &kind in Kind::ALL {
                for n in [5, 25] {
                    for seed in 0..1 {
                        let spec = TaskSpec::new(kind, domain, axis, n, 500 + seed);
                        if spec.validate().is_ok() {
                            specs.push(spec);
                        }
                    }
                }
            }
        }
    }
    let tasks: Vec<_> = specs.iter().map(|s| cabrito::generate(s).unwrap()).collect();
    let o = GradeOptions { trials: 50, ..Default::default() };
    let s = Instant::now();
    let passed: usize = tasks
        .par_iter()
        .map(|t| usize::from(grade_one(&GradeTask::from_task(t), &t.solution_code, &o, &|_, _| {}).passed))
        .sum();
    let secs = s.elapsed().as_secs_f64();
    println!(
        "grid of {} reference solutions (5 kinds × 3 domains × 2 axes × n ∈ {{5, 25}} × 1 seed), 50 trials, {} threads: {secs:.1} s, {:.2} tasks/s, {passed} passed",
        tasks.len(),
        rayon::current_num_threads(),
        tasks.len() as f64 / secs
    );
    assert_eq!(passed, tasks.len());
}

#[test]
#[ignore]
fn bench_startup_vs_tests() {
    let iso = isolation();
    let limits = Limits::default();
    let wall = Duration::from_secs(30);
    let prefix = python_prefix();
    let time = |script: &str| {
        median(
            (0..15)
                .map(|_| {
                    let s = Instant::now();
                    let r = runner::run_raw(iso, &prefix, b"", script, &limits, wall);
                    assert!(r.spawn_error.is_none());
                    s.elapsed().as_secs_f64()
                })
                .collect(),
        )
    };
    let bare = time("pass");
    let np = time("import sys\nsys.path.append(sys.argv[1])\nimport numpy");
    println!("sandboxed python3 -I -S, empty script: {:.1} ms; importing numpy: {:.1} ms", bare * 1e3, np * 1e3);
    let plain =
        runner::Isolation { new_uid_per_run: false, network_namespace: false, mount_namespace: false, ..iso.clone() };
    let s = Instant::now();
    for _ in 0..15 {
        runner::run_raw(&plain, &prefix, b"", "pass", &limits, wall);
    }
    println!("same without namespaces or uid switch: {:.1} ms", s.elapsed().as_secs_f64() / 15.0 * 1e3);
    for (domain, n) in [(Domain::Math, 25), (Domain::Array, 25), (Domain::Math, 200), (Domain::Array, 200)] {
        let t = cabrito::generate(&TaskSpec::new(Kind::AddParameter, domain, Axis::Traversal, n, 7)).unwrap();
        let gt = GradeTask::from_task(&t);
        for trials in [1, 50] {
            let o = GradeOptions { trials, ..Default::default() };
            let prep = grade::prepare(&gt, trials).unwrap();
            let run = median(
                (0..5)
                    .map(|_| {
                        let out = runner::run_program(&prep, &prep.reference_program, &prep.reference_defs, None, &o);
                        assert_eq!(out.status, grade::RunStatus::Completed);
                        out.seconds
                    })
                    .collect(),
            );
            let calls: usize = prep.plan.trials.iter().map(|t| t.calls.len()).sum();
            println!("{domain} n={n}: one reference run, {trials} trials ({calls} calls): {:.1} ms", run * 1e3);
        }
    }
}

fn python_prefix() -> std::path::PathBuf {
    let out = std::process::Command::new("python3")
        .args(["-I", "-c", "import os, sys; print(os.path.realpath(sys.base_prefix))"])
        .output()
        .unwrap();
    std::path::PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}
