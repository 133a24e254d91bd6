//! `cargo bench --bench runtime`: the runtime-resolution axis (issue 8). Prints
//!
//! 1. the time to generate one runtime task natively, per kind, at H = 200 and H = 10,000 hops;
//! 2. the time to generate the axis's whole grid in memory on all cores (6 hop counts × 20 samples × 15
//!    kind-domain pairs = 1,800 tasks; `cabrito grid --axes runtime` adds writing the files);
//! 3. the time to grade one runtime task at 50 trials (reference as the candidate, cold and warm
//!    reference cache), per hop count, with the isolation this machine gives.
//!
//! Medians; the machine may be loaded, so say so when quoting them. `cargo bench --bench runtime -- --test`
//! is a quick run (one seed per row, one grid run, grading at 5 trials) that only shows the bench works.

use cabrito_check::grade::GradeTask;
use cabrito_gen::spec::{Axis, Domain, Kind, TaskSpec};
use cabrito_native::runner::{grade, isolation, GradeOptions};
use rayon::prelude::*;
use std::time::Instant;

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    xs[xs.len() / 2]
}

fn main() {
    // `cargo bench` passes `--bench`; `-- --test` asks for the quick run.
    let quick = std::env::args().any(|a| a == "--test");
    let (seeds_200, seeds_10k, grid_runs, trials) = if quick { (1, 1, 1, 5) } else { (21, 7, 3, 50) };
    println!("## Generation, one task (math, median over seeds)\n");
    println!("| kind | H = 200 ms | H = 10,000 ms |");
    println!("|---|---|---|");
    for &kind in Kind::ALL.iter().filter(|k| k.def().axes().allows(&Axis::Runtime)) {
        let time = |hops: u32, runs: u64| {
            median(
                (0..runs)
                    .map(|seed| {
                        let spec = TaskSpec::new(kind, Domain::Math, Axis::Runtime, hops, seed);
                        let start = Instant::now();
                        std::hint::black_box(cabrito_gen::generate(&spec).expect("generates"));
                        start.elapsed().as_secs_f64() * 1e3
                    })
                    .collect(),
            )
        };
        println!("| {} | {:.2} | {:.1} |", kind.as_str(), time(200, seeds_200), time(10_000, seeds_10k));
    }

    println!("\n## The runtime grid in memory (1,800 tasks, {} threads)\n", rayon::current_num_threads());
    let mut specs = Vec::new();
    for &n in Axis::Runtime.def().paper_sizes() {
        for &domain in Domain::ALL {
            for &kind in Kind::ALL.iter().filter(|k| k.def().axes().allows(&Axis::Runtime)) {
                for seed in 0..20 {
                    specs.push(TaskSpec::new(kind, domain, Axis::Runtime, n, seed));
                }
            }
        }
    }
    let mut runs = Vec::new();
    for _ in 0..grid_runs {
        let start = Instant::now();
        let bytes: usize =
            specs.par_iter().map(|s| cabrito_gen::generate(s).expect("generates").starter_code.len()).sum();
        runs.push(start.elapsed().as_secs_f64());
        std::hint::black_box(bytes);
    }
    println!("{} tasks: median {:.2} s over {grid_runs} runs", specs.len(), median(runs));

    println!("\n## Grading one task at {trials} trials (add_parameter, math; isolation: {})\n", isolation().describe());
    println!("| H | functions | cold s (reference + candidate) | warm s (candidate) |");
    println!("|---|---|---|---|");
    for hops in [5u32, 200, 10_000] {
        let t =
            cabrito_gen::generate(&TaskSpec::new(Kind::AddParameter, Domain::Math, Axis::Runtime, hops, 1)).unwrap();
        let gt = GradeTask::from_task(&t);
        let o = GradeOptions { trials, ..Default::default() };
        let s = Instant::now();
        let v = grade(&gt, &t.solution_code, &o, &|_, _| {});
        let cold = s.elapsed().as_secs_f64();
        assert!(v.passed, "{}", v.message);
        let s = Instant::now();
        let v = grade(&gt, &t.solution_code, &o, &|_, _| {});
        let warm = s.elapsed().as_secs_f64();
        assert!(v.passed, "{}", v.message);
        println!("| {hops} | {} | {cold:.2} | {warm:.2} |", t.sizes.functions);
    }
}
