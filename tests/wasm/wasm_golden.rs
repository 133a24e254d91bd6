//! Native == wasm, byte for byte: the generator compiled to wasm and run in headless Chromium must
//! give the golden hashes that the native test (tests/gen/golden.rs) checks. Also measures how long an
//! `n = 200` task takes to generate in the browser (printed for BENCHMARKS; never asserted).
//!
//! Run with `cargo test --target wasm32-unknown-unknown --test wasm wasm_golden:: -- --nocapture`.

#![cfg(target_arch = "wasm32")]

use cabrito_gen::task::{generate, task_hash};
use cabrito_gen::TaskSpec;
use wasm_bindgen_test::{console_log, wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

const SPECS: &str = include_str!("../golden/specs.txt");
const HASHES: &str = include_str!("../golden/hashes.tsv");

fn spec(query: &str) -> TaskSpec {
    let pairs = query.split('&').map(|p| p.split_once('=').unwrap_or((p, "")));
    TaskSpec::from_pairs(pairs).unwrap_or_else(|e| panic!("golden spec '{query}' is invalid: {e}"))
}

fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).expect("a browser window with performance").now()
}

#[wasm_bindgen_test]
fn golden_hashes_match_native() {
    let expected: Vec<(&str, &str)> = HASHES
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split_once('\t').unwrap_or_else(|| panic!("hashes.tsv line without a tab: {l}")))
        .collect();
    let specs: Vec<&str> = SPECS.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    assert!(!specs.is_empty(), "tests/golden/specs.txt lists no specs");
    let mut mismatches = Vec::new();
    for query in &specs {
        let hash = match expected.iter().find(|(q, _)| q == query) {
            Some((_, h)) => *h,
            None => panic!("no golden hash for '{query}' in tests/golden/hashes.tsv (bless it natively first)"),
        };
        let task = generate(&spec(query)).unwrap_or_else(|e| panic!("'{query}' does not generate: {e}"));
        let got = task_hash(&task);
        if got != hash {
            mismatches.push(format!("{query}: wasm {got}, native {hash}"));
        }
    }
    assert!(mismatches.is_empty(), "wasm output differs from native:\n{}", mismatches.join("\n"));
    console_log!("wasm golden: {} specs give the native hashes", specs.len());
}

#[wasm_bindgen_test]
fn time_to_generate_n200_in_the_browser() {
    // A measurement for BENCHMARKS.md, not a timed test: it only prints.
    let mut report = Vec::new();
    for kind in ["dead_code", "add_parameter", "add_return_value", "cache_function", "extract_helper"] {
        for axis in ["traversal", "search"] {
            let s = spec(&format!("v=1&kind={kind}&domain=math&axis={axis}&n=200&seed=1"));
            let _warm = generate(&s).expect("generates");
            let mut times = Vec::new();
            for _ in 0..5 {
                let t0 = now_ms();
                let task = generate(&s).expect("generates");
                times.push(now_ms() - t0);
                assert!(task.sizes.functions >= 200, "{kind}/{axis}: n=200 gave {} functions", task.sizes.functions);
            }
            times.sort_by(|a, b| a.total_cmp(b));
            report.push(format!("{kind:>16} {axis:>9}: median {:6.1} ms  min {:6.1} ms", times[2], times[0]));
        }
    }
    for n in [200, 1000] {
        let s = spec(&format!("v=1&kind=merge_codebases&n={n}&seed=1"));
        let _warm = generate(&s).expect("generates");
        let mut times = Vec::new();
        for _ in 0..5 {
            let t0 = now_ms();
            let task = generate(&s).expect("generates");
            times.push(now_ms() - t0);
            assert!(task.starter_code.contains("class CalculateB(Calculate):"));
        }
        times.sort_by(|a, b| a.total_cmp(b));
        report.push(format!(
            "{:>16} {:>9}: median {:6.1} ms  min {:6.1} ms",
            "merge_codebases",
            format!("L={n}"),
            times[2],
            times[0]
        ));
    }
    console_log!("n=200 generation in the browser (math, seed 1, 5 runs each):\n{}", report.join("\n"));
}

#[wasm_bindgen_test]
fn time_to_generate_runtime_tasks_in_the_browser() {
    // A measurement for BENCHMARKS.md (the runtime axis at the paper's largest H and at 10,000 hops),
    // not a timed test: it only prints.
    let mut report = Vec::new();
    for hops in [200, 10_000] {
        for kind in ["dead_code", "add_parameter", "add_return_value", "cache_function", "extract_helper"] {
            let s = spec(&format!("v=1&kind={kind}&domain=math&axis=runtime&n={hops}&seed=1"));
            let _warm = generate(&s).expect("generates");
            let mut times = Vec::new();
            for _ in 0..5 {
                let t0 = now_ms();
                let task = generate(&s).expect("generates");
                times.push(now_ms() - t0);
                assert!(task.runtime.is_some(), "{kind}: a runtime task records its branches");
            }
            times.sort_by(|a, b| a.total_cmp(b));
            report.push(format!("H={hops:>6} {kind:>16}: median {:7.1} ms  min {:7.1} ms", times[2], times[0]));
        }
    }
    console_log!("runtime generation in the browser (math, seed 1, 5 runs each):\n{}", report.join("\n"));
}

#[wasm_bindgen_test]
fn time_to_generate_instructions_tasks_in_the_browser() {
    // A measurement for BENCHMARKS.md (instruction following at the paper's largest K), not a timed
    // test: it only prints.
    let mut report = Vec::new();
    for kind in ["add_parameter", "add_return_value", "cache_function", "extract_helper"] {
        for domain in ["math", "string", "array"] {
            let s = spec(&format!("v=1&kind={kind}&domain={domain}&axis=instructions&n=200&seed=1"));
            let _warm = generate(&s).expect("generates");
            let mut times = Vec::new();
            for _ in 0..5 {
                let t0 = now_ms();
                let task = generate(&s).expect("generates");
                times.push(now_ms() - t0);
                assert_eq!(task.metadata["num_constraint_rules"], 200, "{kind}/{domain}: K = 200 requirements");
            }
            times.sort_by(|a, b| a.total_cmp(b));
            report.push(format!("{kind:>16} {domain:>6}: median {:6.1} ms  min {:6.1} ms", times[2], times[0]));
        }
    }
    console_log!("instructions generation at K=200 in the browser (seed 1, 5 runs each):\n{}", report.join("\n"));
}
