//! `cargo bench --bench instructions`: the instruction-following axis (issue 9). Prints
//!
//! 1. the time to generate one instructions task natively at K = 200 requirements, per kind × domain;
//! 2. the time to generate the axis's whole grid in memory on all cores (6 sizes × 20 samples × 12
//!    kind-domain pairs = 1,440 tasks; `cabrito grid --axes instructions` adds writing the files);
//! 3. the static check of a K = 200 reference (the rubric with `constraint_structure`), per kind;
//! 4. the time to grade one K = 200 task at 50 trials (reference as the candidate, cold and warm
//!    reference cache) with the indexed `mylibrary` stubs and the isolation this machine gives.
//!
//! Medians; the machine may be loaded, so say so when quoting them. `cargo bench --bench instructions --
//! --test` is a quick run (one seed per row, one grid run, grading at 5 trials) that only shows it works.

use cabrito_check::grade::GradeTask;
use cabrito_check::rubric::TaskRef;
use cabrito_gen::spec::{Axis, Domain, Kind, TaskSpec};
use cabrito_native::runner::{grade, isolation, GradeOptions};
use rayon::prelude::*;
use std::time::Instant;

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    xs[xs.len() / 2]
}

fn kinds() -> Vec<Kind> {
    Kind::ALL.iter().copied().filter(|k| k.def().axes().allows(&Axis::Instructions)).collect()
}

fn main() {
    let quick = std::env::args().any(|a| a == "--test");
    let (seeds, grid_runs, trials) = if quick { (1, 1, 5) } else { (11, 3, 50) };
    println!("## Generation, one task at K = 200 (median over {seeds} seeds, ms)\n");
    println!("| kind | math | string | array |");
    println!("|---|---|---|---|");
    for kind in kinds() {
        let cell = |domain: Domain| {
            median(
                (0..seeds)
                    .map(|seed| {
                        let spec = TaskSpec::new(kind, domain, Axis::Instructions, 200, seed);
                        let start = Instant::now();
                        std::hint::black_box(cabrito_gen::generate(&spec).expect("generates"));
                        start.elapsed().as_secs_f64() * 1e3
                    })
                    .collect(),
            )
        };
        println!(
            "| {} | {:.2} | {:.2} | {:.2} |",
            kind.as_str(),
            cell(Domain::Math),
            cell(Domain::String),
            cell(Domain::Array)
        );
    }

    println!("\n## The instructions grid in memory (1,440 tasks, {} threads)\n", rayon::current_num_threads());
    let mut specs = Vec::new();
    for &n in Axis::Instructions.def().paper_sizes() {
        for &domain in Domain::ALL {
            for kind in kinds() {
                for seed in 0..20 {
                    specs.push(TaskSpec::new(kind, domain, Axis::Instructions, n, seed));
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

    println!("\n## Static check of a K = 200 reference (math, median over {seeds} seeds, ms)\n");
    println!("| kind | rubric ms | constraint_structure |");
    println!("|---|---|---|");
    for kind in kinds() {
        let mut passed = true;
        let ms = median(
            (0..seeds)
                .map(|seed| {
                    let t = cabrito_gen::generate(&TaskSpec::new(kind, Domain::Math, Axis::Instructions, 200, seed))
                        .unwrap();
                    let start = Instant::now();
                    let r = cabrito_check::static_checks(&TaskRef::of(&t), &t.solution_code);
                    let took = start.elapsed().as_secs_f64() * 1e3;
                    passed &= r.item("constraint_structure").is_some_and(|i| i.passed);
                    took
                })
                .collect(),
        );
        println!("| {} | {ms:.1} | {} |", kind.as_str(), if passed { "passes" } else { "FAILS" });
    }

    println!(
        "\n## Grading one K = 200 task at {trials} trials (math, seed 1; isolation: {})\n",
        isolation().describe()
    );
    println!("| kind | functions | cold s (reference + candidate) | warm s (candidate) |");
    println!("|---|---|---|---|");
    for kind in kinds() {
        let t = cabrito_gen::generate(&TaskSpec::new(kind, Domain::Math, Axis::Instructions, 200, 1)).unwrap();
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
        println!("| {} | {} | {cold:.2} | {warm:.2} |", kind.as_str(), t.sizes.functions);
    }
}
