//! The static checks compiled to wasm and run in headless Chromium: the reference passes, the starter
//! fails the kind's item, and a diff response reads back, exactly as natively. Also prints how long the
//! static rubric of an `n = 200` solution takes in the browser (for BENCHMARKS; never asserted).
//!
//! Run with `cargo test --release --target wasm32-unknown-unknown --test wasm wasm_check:: -- --nocapture`.

#![cfg(target_arch = "wasm32")]

use cabrito_check::response::parse_response;
use cabrito_check::rubric::{static_checks, TaskRef};
use cabrito_gen::{generate, Axis, Domain, Kind, TaskSpec};
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

/// Median milliseconds of `f` over `reps` runs (the median, since the machine is shared).
fn time(reps: u32, mut f: impl FnMut()) -> f64 {
    let mut ms: Vec<f64> = (0..reps)
        .map(|_| {
            let start = now_ms();
            f();
            now_ms() - start
        })
        .collect();
    ms.sort_by(f64::total_cmp);
    ms[ms.len() / 2]
}

/// The browser's structured clone (what postMessage does to a message).
fn structured_clone(v: &wasm_bindgen::JsValue) -> wasm_bindgen::JsValue {
    use wasm_bindgen::JsCast;
    let f = js_sys::Reflect::get(&js_sys::global(), &"structuredClone".into()).expect("structuredClone");
    f.dyn_into::<js_sys::Function>().expect("a function").call1(&wasm_bindgen::JsValue::NULL, v).expect("cloned")
}

/// Where the checker worker's time goes on an `n = 200` answer (medians, printed for BENCHMARKS;
/// never asserted): reading the response, parsing each of the three programs, the rubric's own work, and
/// the message passing both ways, as JSON text (before) and as structured values (now).
#[wasm_bindgen_test]
fn where_the_checkers_time_goes() {
    use cabrito::web::checker::{answer_value, read_reply, to_value};
    use cabrito_check::program::Program;
    use cabrito_check::protocol::checker::{answer, Reply, Request};
    // A debug build (scripts/test.sh) runs it once on one kind, within the runner's time limit; the
    // figures come from `--release`.
    let (kinds, reps) = if cfg!(debug_assertions) { (&[Kind::AddParameter][..], 1) } else { (Kind::ALL, 31) };
    for &kind in kinds {
        let t = generate(&TaskSpec::new(kind, Domain::Math, Axis::Traversal, 200, 11)).unwrap();
        let task = TaskRef::of(&t);
        let read = time(reps, || assert!(parse_response(&t.solution_code, &t.starter_code).is_ok()));
        let parse = time(reps, || assert!(Program::parse(&t.solution_code).is_ok()));
        let rubric = time(reps, || assert!(static_checks(&task, &t.solution_code).passed()));
        let req = Request::for_task(1, &t, &t.solution_code);
        let answer_only = time(reps, || assert!(matches!(answer(&req), Reply::Verdict { .. })));
        let json = time(reps, || {
            let text = serde_json::to_string(&req).unwrap();
            let back: Request = serde_json::from_str(&text).unwrap();
            let reply = serde_json::to_string(&answer(&back)).unwrap();
            assert!(matches!(serde_json::from_str::<Reply>(&reply).unwrap(), Reply::Verdict { .. }));
        });
        let values = time(reps, || {
            let msg = structured_clone(&to_value(&req));
            let reply = structured_clone(&answer_value(msg, &|| None));
            assert!(matches!(read_reply(reply), Reply::Verdict { .. }));
        });
        console_log!(
            "wasm checker {} n=200 ({} lines): read {read:.2} ms, one parse {parse:.2} ms, rubric (3 parses) {rubric:.2} ms, answer {answer_only:.2} ms; with messages: JSON {json:.2} ms, structured {values:.2} ms",
            kind.as_str(),
            t.solution_code.lines().count()
        );
    }
}
