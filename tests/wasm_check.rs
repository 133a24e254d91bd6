//! The static checks compiled to wasm and run in headless Chromium: the reference passes, the starter
//! fails the kind's item, and a diff response reads back, exactly as natively. Also prints how long the
//! static rubric of an `n = 200` solution takes in the browser (for BENCHMARKS; never asserted).
//!
//! Run with `cargo test --release --target wasm32-unknown-unknown --test check_wasm -- --nocapture`.

#![cfg(target_arch = "wasm32")]

use cabrito::check::response::parse_response;
use cabrito::check::rubric::{static_checks, TaskRef};
use cabrito::{generate, Axis, Domain, Kind, TaskSpec};
use wasm_bindgen_test::{console_log, wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).expect("a browser window with performance").now()
}

fn starter_item(kind: Kind) -> &'static str {
    match kind {
        Kind::DeadCode => "function_existence",
        Kind::AddParameter | Kind::CacheFunction => "required_parameter",
        Kind::AddReturnValue | Kind::ExtractHelper => "return_annotations",
        Kind::VariableRenaming => "renames",
        Kind::MergeCodebases => "difference_blocks",
    }
}

#[wasm_bindgen_test]
fn static_checks_in_the_browser() {
    for &kind in Kind::ALL {
        for (axis, n) in [(Axis::Traversal, 200u32), (Axis::Search, 200), (Axis::Comment, 200)] {
            let spec = TaskSpec::new(kind, Domain::Math, axis, n, 1);
            if spec.validate().is_err() {
                continue;
            }
            let t = generate(&spec).unwrap();
            let task = TaskRef::of(&t);
            let diff = similar::TextDiff::from_lines(&t.starter_code, &t.solution_code).unified_diff().to_string();
            let reps = 10;
            let start = now_ms();
            for _ in 0..reps {
                let c = parse_response(&diff, &t.starter_code).unwrap();
                assert_eq!(c.code, t.solution_code);
                assert!(static_checks(&task, &c.code).passed());
            }
            let ms = (now_ms() - start) / reps as f64;
            console_log!("wasm: {} math {} n={n}: diff read + static rubric {ms:.2} ms", kind.as_str(), axis.as_str());
            let s = static_checks(&task, &t.starter_code);
            assert!(!s.item(starter_item(kind)).unwrap().passed);
            if axis == Axis::Comment {
                assert!(!s.item("comment_copy").unwrap().passed);
            }
        }
    }
}

#[wasm_bindgen_test]
fn constraint_structure_in_the_browser() {
    // Instruction following at K = 200: the reference passes constraint_structure, the starter fails it;
    // the rubric's time is printed for BENCHMARKS.
    for &kind in Kind::ALL.iter().filter(|k| k.def().axes().allows(&Axis::Instructions)) {
        let t = generate(&TaskSpec::new(kind, Domain::Math, Axis::Instructions, 200, 1)).unwrap();
        let task = TaskRef::of(&t);
        let reps = 5;
        let start = now_ms();
        for _ in 0..reps {
            let r = static_checks(&task, &t.solution_code);
            assert!(r.passed() && r.item("constraint_structure").is_some_and(|i| i.passed));
        }
        let ms = (now_ms() - start) / reps as f64;
        console_log!("wasm: {} math instructions K=200: static rubric {ms:.2} ms", kind.as_str());
        let s = static_checks(&task, &t.starter_code);
        assert!(!s.item("constraint_structure").unwrap().passed);
    }
}
