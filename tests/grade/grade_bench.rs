//! Grading benchmarks, run on demand (they are measurements, not tests):
//!
//!     cargo test --release --test grade grade_bench:: -- --ignored --nocapture --test-threads 1
//!
//! Prints: seconds to grade one task (n = 25 and 200, 50 trials, reference solution as the
//! candidate, cold and warm reference cache, memoisation on and off); tasks per second for a grid
//! of reference solutions on all cores; and the cost of starting a sandboxed process versus the
//! tests themselves.
#![cfg(not(target_arch = "wasm32"))]

use cabrito_check::{grade, grade::GradeTask};
use cabrito_gen::{Axis, Domain, Kind, TaskSpec};
use cabrito_native::{
    runner,
    runner::{grade as grade_one, isolation, GradeOptions, Limits},
};
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
                        let t = cabrito_gen::generate(&TaskSpec::new(kind, domain, axis, n, 100 + seed)).unwrap();
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
    let tasks: Vec<_> = specs.iter().map(|s| cabrito_gen::generate(s).unwrap()).collect();
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
    let time = |script: &str| {
        median(
            (0..15)
                .map(|_| {
                    let s = Instant::now();
                    let r = runner::run_raw(iso, b"", script, &limits, wall);
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
        runner::run_raw(&plain, b"", "pass", &limits, wall);
    }
    println!("same without namespaces or uid switch: {:.1} ms", s.elapsed().as_secs_f64() / 15.0 * 1e3);
    for (domain, n) in [(Domain::Math, 25), (Domain::Array, 25), (Domain::Math, 200), (Domain::Array, 200)] {
        let t = cabrito_gen::generate(&TaskSpec::new(Kind::AddParameter, domain, Axis::Traversal, n, 7)).unwrap();
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

/// The reference's own records (D11) as grading tasks: (label, task, solution) for every record of
/// a fixture bucket.
fn fixture_tasks(bucket: &str) -> Vec<(String, GradeTask, String)> {
    use std::io::Read;
    let base = std::env::var_os("CABRITO_FIXTURES").map(std::path::PathBuf::from).unwrap_or_else(|| {
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/cabra-reference")
    });
    let mut out = Vec::new();
    let Ok(sets) = std::fs::read_dir(base.join(bucket).join("tasks")) else { return out };
    let mut sets: Vec<_> = sets.map(|e| e.unwrap().path()).collect();
    sets.sort();
    for set in sets {
        let set_name = set.file_name().unwrap().to_string_lossy().to_string();
        let Ok(domain) = cabrito_gen::axes::domain_of_task_set(&set_name) else { continue };
        let mut files: Vec<_> = std::fs::read_dir(&set).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        for f in files {
            let ty = f.file_name().unwrap().to_string_lossy().trim_end_matches(".json.gz").to_string();
            let Some(kind) = Kind::parse(&ty) else { continue };
            let mut text = String::new();
            flate2::read::GzDecoder::new(std::fs::File::open(&f).unwrap()).read_to_string(&mut text).unwrap();
            let records: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
            for r in records {
                let s = |k: &str| r[k].as_str().unwrap().to_string();
                let gt = GradeTask {
                    kind,
                    domain,
                    // The bucket is named like its run (`runtime_resolution_…`): its axis adds its checks.
                    axis: cabrito_native::records::axis_of_run(bucket).unwrap_or(Axis::ALL[0]),
                    starter: s("starter_code"),
                    reference: s("solution_code"),
                    key: s("dag_id"),
                    metadata: r.get("metadata").cloned().unwrap_or_default(),
                };
                out.push((format!("{set_name}/{ty}"), gt, s("solution_code")));
            }
        }
    }
    out
}

/// Seconds per task on a fixture bucket: the reference solution graded as the candidate, one task
/// at a time in one process, cold (the reference's outputs not cached: both programs run) and warm
/// (cached: only the candidate runs).
fn per_task(tasks: &[(String, GradeTask, String)], o: &GradeOptions) -> (f64, f64, usize) {
    let (mut cold, mut warm, mut passed) = (0.0, 0.0, 0);
    for (_, gt, sol) in tasks {
        runner::forget_expected();
        let s = Instant::now();
        let v = grade_one(gt, sol, o, &|_, _| {});
        cold += s.elapsed().as_secs_f64();
        let s = Instant::now();
        let w = grade_one(gt, sol, o, &|_, _| {});
        warm += s.elapsed().as_secs_f64();
        passed += usize::from(v.passed && w.passed);
    }
    let n = tasks.len().max(1) as f64;
    (cold / n, warm / n, passed)
}

/// `cargo test --release --test grade grade_bench::bench_fixture_buckets -- --ignored --nocapture`
/// (`GRADE_BENCH_ROWS=pool` for the default configuration only)
#[test]
#[ignore]
fn bench_fixture_buckets() {
    eprintln!("isolation: {}", isolation().describe());
    println!("| bucket | tasks | trials | inputs | pool | cold s/task | warm s/task | passed |");
    println!("|---|---|---|---|---|---|---|---|");
    for bucket in
        ["function_traversal_en25", "function_search_cn200", "runtime_resolution_ifhops200", "add_instructions_nc200"]
    {
        let tasks = fixture_tasks(bucket);
        if tasks.is_empty() {
            println!("| {bucket} | not gradable by this build | | | | | | |");
            continue;
        }
        // Warm the pool (its start-up is paid once per process, not per task).
        let o = GradeOptions::default();
        let _ = grade_one(&tasks[0].1, &tasks[0].2, &o, &|_, _| {});
        for trials in [5, 50] {
            // GRADE_BENCH_ROWS=pool: only the default configuration (per-trial inputs, the pool).
            let pool_only = std::env::var("GRADE_BENCH_ROWS").is_ok_and(|v| v == "pool");
            for (inputs, pool) in [
                (grade::InputScheme::PerTrial, true),
                (grade::InputScheme::PerTrial, false),
                (grade::InputScheme::PerFunction, false),
            ]
            .into_iter()
            .take(if pool_only { 1 } else { 3 })
            {
                let o = GradeOptions { trials, inputs, pool, ..Default::default() };
                let (cold, warm, passed) = per_task(&tasks, &o);
                println!(
                    "| {bucket} | {} | {trials} | {} | {} | {cold:.3} | {warm:.3} | {passed} |",
                    tasks.len(),
                    inputs.as_str(),
                    if pool { "yes" } else { "no" }
                );
            }
        }
    }
}

/// `cargo test --release --test grade grade_bench::bench_grading_against_n -- --ignored --nocapture`:
/// seconds to grade one reference solution at 50 trials, cold and warm, for n = 25 … 2,000, each
/// kind (math domain, traversal axis), plus the string and array domains for add_parameter.
#[test]
#[ignore]
fn bench_grading_against_n() {
    eprintln!("isolation: {}", isolation().describe());
    let sizes: Vec<u32> = std::env::var("GRADE_BENCH_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![25, 200, 1000, 2000]);
    println!("| kind | domain | axis | n | functions | calls | cold s | warm s |");
    println!("|---|---|---|---|---|---|---|---|");
    let mut cases: Vec<(Kind, Domain)> = Kind::ALL.iter().map(|&k| (k, Domain::Math)).collect();
    cases.push((Kind::AddParameter, Domain::String));
    cases.push((Kind::AddParameter, Domain::Array));
    let o = GradeOptions { trials: 50, ..Default::default() };
    for axis in [Axis::Traversal, Axis::Search] {
        for &(kind, domain) in &cases {
            for &n in &sizes {
                let t = match cabrito_gen::generate(&TaskSpec::new(kind, domain, axis, n, 11)) {
                    Ok(t) => t,
                    Err(e) => {
                        println!("| {kind} | {domain} | {axis} | {n} | cannot generate: {e} | | | |");
                        continue;
                    }
                };
                let gt = GradeTask::from_task(&t);
                runner::forget_expected();
                let s = Instant::now();
                let v = grade_one(&gt, &t.solution_code, &o, &|_, _| {});
                let cold = s.elapsed().as_secs_f64();
                assert!(v.passed, "{kind} {domain} {axis} {n}: {}", v.message);
                let s = Instant::now();
                let v = grade_one(&gt, &t.solution_code, &o, &|_, _| {});
                let warm = s.elapsed().as_secs_f64();
                assert!(v.passed);
                let prep = grade::prepare(&gt, 50).unwrap();
                let calls: usize = prep.plan.trials.iter().map(|t| t.calls.len()).sum();
                println!(
                    "| {kind} | {domain} | {axis} | {n} | {} | {calls} | {cold:.2} | {warm:.2} |",
                    prep.plan.functions.len()
                );
            }
        }
    }
}

/// `cargo test --release --test grade grade_bench::dump_requests -- --ignored --nocapture`: writes the
/// harness requests of a few tasks (reference program) to `GRADE_BENCH_DUMP` (default
/// `target/grade-requests`), for `benches/profile_harness.py`.
#[test]
#[ignore]
fn dump_requests() {
    let dir = std::env::var_os("GRADE_BENCH_DUMP")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/grade-requests"));
    std::fs::create_dir_all(&dir).unwrap();
    let mut picks: Vec<(String, GradeTask)> = Vec::new();
    for bucket in ["function_traversal_en25", "function_search_cn200"] {
        for (label, gt, _) in
            fixture_tasks(bucket).into_iter().filter(|(l, ..)| l.ends_with("add_parameter")).step_by(2)
        {
            picks.push((format!("{bucket}-{}", label.replace('/', "-")), gt));
        }
    }
    for n in [200, 1000] {
        let t =
            cabrito_gen::generate(&TaskSpec::new(Kind::AddParameter, Domain::Math, Axis::Traversal, n, 11)).unwrap();
        picks.push((format!("generated-traversal-math-add_parameter-n{n}"), GradeTask::from_task(&t)));
    }
    for (name, gt) in picks {
        for (trials, inputs) in [
            (5, grade::InputScheme::PerFunction),
            (50, grade::InputScheme::PerFunction),
            (50, grade::InputScheme::PerTrial),
        ] {
            let prep = grade::prepare_with(&gt, trials, inputs).unwrap();
            let req =
                grade::request(&prep.plan, &prep.reference_program, &prep.reference_defs, None, &Default::default());
            let path = dir.join(format!("{name}-{trials}-{}.json", inputs.as_str()));
            std::fs::write(&path, serde_json::to_vec(&req).unwrap()).unwrap();
            println!("{} ({} bytes)", path.display(), std::fs::metadata(&path).unwrap().len());
        }
    }
}
