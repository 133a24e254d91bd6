//! Static-check time of large solutions (run with `cargo test --release --test check check_timing:: -- --ignored
//! --nocapture`); the non-ignored test keeps a loose bound so a quadratic slip shows up in CI.

#![cfg(not(target_arch = "wasm32"))]

use cabrito_check::response::parse_response;
use cabrito_check::rubric::{static_checks, TaskRef};
use cabrito_gen::{generate, Axis, Domain, Kind, TaskSpec};
use std::time::Instant;

fn time_one(kind: Kind, domain: Domain, axis: Axis, n: u32, reps: u32) -> (f64, usize) {
    let t = generate(&TaskSpec::new(kind, domain, axis, n, 1)).unwrap();
    let task = TaskRef::of(&t);
    let diff = similar::TextDiff::from_lines(&t.starter_code, &t.solution_code).unified_diff().to_string();
    let start = Instant::now();
    for _ in 0..reps {
        let c = parse_response(&diff, &t.starter_code).unwrap();
        assert!(static_checks(&task, &c.code).passed());
    }
    (start.elapsed().as_secs_f64() * 1000.0 / reps as f64, t.solution_code.lines().count())
}

#[test]
#[ignore]
fn report_n200_times() {
    for &kind in Kind::ALL {
        for &domain in Domain::ALL {
            for &axis in Axis::ALL.iter().filter(|a| kind.def().axes().allows(a)) {
                let (ms, lines) = time_one(kind, domain, axis, 200, 20);
                println!(
                    "{:17} {:6} {:9} n=200: {lines:5} lines, diff read + static rubric {ms:7.2} ms",
                    kind.as_str(),
                    domain.as_str(),
                    axis.as_str()
                );
            }
        }
    }
}

#[test]
fn n200_is_fast_enough() {
    // Generous even for an unoptimised build on a busy machine: a quadratic blow-up would take seconds.
    let (ms, _) = time_one(Kind::AddParameter, Domain::Math, Axis::Traversal, 200, 1);
    assert!(ms < 5000.0, "{ms} ms");
}

#[test]
fn a_2mb_candidate_is_checked_quickly() {
    let t = generate(&TaskSpec::new(Kind::DeadCode, Domain::Math, Axis::Search, 200, 1)).unwrap();
    let task = TaskRef::of(&t);
    // The reference plus tens of thousands of new functions, just under the 2 MB response limit.
    let mut code = t.solution_code.clone();
    let mut i = 0;
    while code.len() < 2 * 1024 * 1024 - 200 {
        code.push_str(&format!("\ndef extra_{i}(val: float) -> float:\n    return abs(val)\n"));
        i += 1;
    }
    let c = parse_response(&code, &t.starter_code).unwrap();
    let start = Instant::now();
    let r = static_checks(&task, &c.code);
    let secs = start.elapsed().as_secs_f64();
    assert!(!r.item("no_new_functions").unwrap().passed);
    assert!(!r.item("function_existence").unwrap().passed);
    assert!(secs < 20.0, "{secs} s for {i} functions");
    println!("{i} extra functions: {secs:.2} s");
}
