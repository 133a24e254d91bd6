//! `cargo bench --bench merge`: Merge Codebases, natively. Prints generation times (one task, and the
//! reference's own measure: 20 examples at L = 200), the paper's merge grid (300 tasks) on all cores,
//! and grading times (one response with 20 vectors, cold and with the reference's outputs cached; a
//! batch on all cores).

use cabrito_check::grade::GradeTask;
use cabrito_gen::{Kind, TaskSpec};
use cabrito_native::runner::{grade, isolation, GradeOptions};
use rayon::prelude::*;
use std::time::Instant;

fn spec(n: u32, seed: u64) -> TaskSpec {
    TaskSpec { kind: Kind::MergeCodebases, n, seed, ..TaskSpec::default() }
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    xs[xs.len() / 2]
}

fn main() {
    println!("| L | d | one task, median ms | min ms | max ms |");
    println!("|---|---|---|---|---|");
    for (n, d, runs) in [(5u32, 1u32, 50u64), (25, 1, 50), (200, 1, 20), (200, 10, 20), (1000, 1, 10), (1000, 10, 10)] {
        let times: Vec<f64> = (0..runs)
            .map(|seed| {
                let s = TaskSpec { d, ..spec(n, seed) };
                let t = Instant::now();
                std::hint::black_box(cabrito_gen::generate(&s).expect("generates"));
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        let (lo, hi) = (times.iter().cloned().fold(f64::MAX, f64::min), times.iter().cloned().fold(0.0, f64::max));
        println!("| {n} | {d} | {:.1} | {lo:.1} | {hi:.1} |", median(times));
    }
    // The reference's measure: 20 examples at L = 200 one after the other (it took 17 s here).
    let t = Instant::now();
    for seed in 42..62 {
        std::hint::black_box(cabrito_gen::generate(&spec(200, seed)).expect("generates"));
    }
    println!("\n20 examples at L = 200, one thread: {:.3} s", t.elapsed().as_secs_f64());
    // The paper's merge grid: L 5…200, 50 examples each, on every core.
    let t = Instant::now();
    let specs: Vec<TaskSpec> =
        [5, 10, 25, 50, 100, 200].iter().flat_map(|&n| (0..50).map(move |s| spec(n, s))).collect();
    let made: usize = specs.par_iter().map(|s| cabrito_gen::generate(s).expect("generates").starter_code.len()).sum();
    println!(
        "the merge grid (300 tasks) on {} threads: {:.2} s ({made} bytes of starters)",
        rayon::current_num_threads(),
        t.elapsed().as_secs_f64()
    );

    // Grading: the reference solution as the response, 20 vectors (the reference scorer's number).
    eprintln!("isolation: {}", isolation().describe());
    println!("\n| L | cold s (reference + candidate runs) | warm s (candidate run; reference cached) |");
    println!("|---|---|---|");
    let opts = GradeOptions { trials: 20, ..Default::default() };
    for n in [25u32, 200, 1000] {
        let (mut cold, mut warm) = (Vec::new(), Vec::new());
        for seed in 0..5 {
            let task = cabrito_gen::generate(&spec(n, 500 + seed)).expect("generates");
            let gt = GradeTask::from_task(&task);
            let t = Instant::now();
            let v = grade(&gt, &task.solution_code, &opts, &|_, _| {});
            cold.push(t.elapsed().as_secs_f64());
            assert!(v.passed, "{}", v.message);
            let t = Instant::now();
            let v = grade(&gt, &task.starter_code, &opts, &|_, _| {});
            warm.push(t.elapsed().as_secs_f64());
            assert!(!v.passed);
        }
        println!("| {n} | {:.3} | {:.3} |", median(cold), median(warm));
    }
    // A batch: the merge grid's 300 reference solutions (20 vectors each) on every core.
    let tasks: Vec<_> = specs.iter().map(|s| cabrito_gen::generate(s).expect("generates")).collect();
    let t = Instant::now();
    let passed = tasks
        .par_iter()
        .filter(|task| grade(&GradeTask::from_task(task), &task.solution_code, &opts, &|_, _| {}).passed)
        .count();
    let secs = t.elapsed().as_secs_f64();
    println!(
        "\nbatch: {passed}/{} references of the merge grid graded in {secs:.1} s on {} threads ({:.3} s per response)",
        tasks.len(),
        rayon::current_num_threads(),
        secs / tasks.len() as f64
    );
}
