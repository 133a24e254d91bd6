//! The `gen` module's hand-over as the browser carries it (issue 14 item 6): the answer crosses as a
//! JS value (`web::jsvalue::to_js` in the module, `web::jsvalue::read` in the app), in headless
//! Chromium. A valid answer reads back as the same value, key order and integer/float distinction
//! included, and as the same task (same hash) for tasks of every part the module makes; damaged JS
//! values (what JSON cannot hold: `undefined`, NaN, functions, symbols, 2^70 as a `BigInt`,
//! non-text map keys; cycles, nesting 100,000 deep, sparse arrays of four billion holes; wrong types
//! where the task wants others) are refused with an error naming the path, never a panic or a hang.
//! Also times the hand-over at `n = 2,000` against JSON text (printed for BENCHMARKS; never asserted).
//!
//! Run with `cargo test --target wasm32-unknown-unknown --test wasm_handover -- --nocapture`.

#![cfg(target_arch = "wasm32")]

use cabrito::playground::handover::{self, Made};
use cabrito::task::{generate_full, task_hash};
use cabrito::web::jsvalue::{read, to_js, MAX_DEPTH, MAX_VALUES};
use cabrito::{Axis, Domain, Kind, TaskSpec};
use serde_json::{json, Value};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::{console_log, wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).expect("a browser window with performance").now()
}

/// A spec of each part the module hands over, and the first download's own kinds.
fn specs() -> Vec<TaskSpec> {
    let mut out = vec![
        TaskSpec::new(Kind::MergeCodebases, Domain::Math, Axis::Traversal, 30, 6),
        TaskSpec::new(Kind::AddParameter, Domain::Math, Axis::Runtime, 10, 4),
        TaskSpec::new(Kind::DeadCode, Domain::Array, Axis::Runtime, 25, 2),
        TaskSpec::new(Kind::CacheFunction, Domain::String, Axis::Instructions, 10, 5),
        TaskSpec::new(Kind::ExtractHelper, Domain::Math, Axis::Traversal, 25, 1),
    ];
    let mut conditional = TaskSpec::new(Kind::AddReturnValue, Domain::Math, Axis::Instructions, 6, 7);
    conditional.conditional = 25;
    out.push(conditional);
    out.retain(|s| s.validate().is_ok());
    assert!(out.len() >= 5, "the specs went invalid");
    out
}

fn answer(spec: &TaskSpec) -> Value {
    handover::answer_of(&Ok(Made::from(generate_full(spec).expect("generates"))))
}

#[wasm_bindgen_test]
fn a_valid_answer_reads_back_as_the_same_task() {
    for spec in specs() {
        let v = answer(&spec);
        let back = read(&to_js(&v)).unwrap_or_else(|e| panic!("{}: {e}", spec.canonical()));
        // The same value: key order, and 1 against 1.0, as JSON text would carry them.
        assert_eq!(back.to_string(), v.to_string(), "{}", spec.canonical());
        let made = handover::read_answer_value(&back, &spec).unwrap_or_else(|e| panic!("{}: {e}", spec.canonical()));
        let native = generate_full(&spec).unwrap().task;
        assert_eq!(task_hash(&made.task), task_hash(&native), "{}", spec.canonical());
    }
    // Floats, integers, negatives and keys that look like numbers keep what they are, and their order.
    let v = json!({"b": 1, "a": 1.0, "9": -0.0, "1": [-3, 18446744073709551615u64, -9223372036854775808i64, 0.1, null, true, ""]});
    assert_eq!(read(&to_js(&v)).unwrap().to_string(), v.to_string());
    // A module error comes through as it was said.
    let e = handover::answer_of(&Err("n must be at most 2000".into()));
    let back = read(&to_js(&e)).unwrap();
    assert_eq!(handover::read_answer_value(&back, &specs()[0]).unwrap_err(), "n must be at most 2000");
}

// ---- damage -------------------------------------------------------------------------------------

#[derive(Clone, Debug)]
enum Step {
    Key(String),
    Index(u32),
}

/// Every path in a value (a map's keys, a list's indices).
fn paths(v: &Value) -> Vec<Vec<Step>> {
    let mut out = Vec::new();
    let mut todo = vec![(v, Vec::new())];
    while let Some((v, here)) = todo.pop() {
        match v {
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    let mut p = here.clone();
                    p.push(Step::Index(i as u32));
                    todo.push((x, p));
                }
            }
            Value::Object(m) => {
                for (k, x) in m {
                    let mut p = here.clone();
                    p.push(Step::Key(k.clone()));
                    todo.push((x, p));
                }
            }
            _ => {}
        }
        out.push(here);
    }
    out
}

/// The JS value at `path` below `root` (maps are `Map`s, lists arrays).
fn at(root: &JsValue, path: &[Step]) -> JsValue {
    let mut v = root.clone();
    for s in path {
        v = match s {
            Step::Key(k) => v.unchecked_into::<js_sys::Map>().get(&JsValue::from_str(k)),
            Step::Index(i) => v.unchecked_into::<js_sys::Array>().get(*i),
        };
    }
    v
}

/// Put `new` at `path` (not the root) below `root`.
fn put(root: &JsValue, path: &[Step], new: &JsValue) {
    let parent = at(root, &path[..path.len() - 1]);
    match &path[path.len() - 1] {
        Step::Key(k) => {
            parent.unchecked_into::<js_sys::Map>().set(&JsValue::from_str(k), new);
        }
        Step::Index(i) => parent.unchecked_into::<js_sys::Array>().set(*i, new.clone()),
    }
}

/// What JSON cannot hold, or what a task cannot be, as JS values.
fn damage(which: u32, root: &JsValue) -> JsValue {
    match which % 12 {
        0 => JsValue::UNDEFINED,
        1 => JsValue::from_f64(f64::NAN),
        2 => js_sys::Function::new_no_args("return 1").into(),
        3 => js_sys::Symbol::for_("cabrito").into(),
        // 2^70: a whole number beyond 64 bits.
        4 => js_sys::BigInt::new(&JsValue::from_str("1180591620717411303424")).map(JsValue::from).unwrap_or_default(),
        5 => {
            // A map whose key is a number.
            let m = js_sys::Map::new();
            m.set(&JsValue::from_f64(1.0), &JsValue::from_str("x"));
            m.into()
        }
        6 => {
            // A cycle: a list that holds itself.
            let a = js_sys::Array::new();
            a.push(&a);
            a.into()
        }
        7 => {
            // A sparse list of four billion holes.
            let a = js_sys::Array::new();
            a.set_length(u32::MAX);
            a.into()
        }
        8 => {
            // Nested 100,000 deep.
            let mut v: JsValue = JsValue::from_f64(1.0);
            for _ in 0..100_000 {
                v = js_sys::Array::of1(&v).into();
            }
            v
        }
        9 => JsValue::from_f64(2.5),
        10 => root.clone(),
        _ => JsValue::from_str("x"),
    }
}

/// A small deterministic generator (xorshift), so a failure names its case.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[wasm_bindgen_test]
fn a_damaged_answer_is_refused_by_path() {
    let start = now_ms();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let specs = specs();
    let answers: Vec<(TaskSpec, Value, Vec<Vec<Step>>)> = specs
        .iter()
        .map(|s| {
            let v = answer(s);
            let p = paths(&v);
            (s.clone(), v, p)
        })
        .collect();
    let mut refused = 0;
    for case in 0..600u32 {
        let (spec, v, all) = &answers[case as usize % answers.len()];
        let path = &all[1 + (rng.next() as usize) % (all.len() - 1)];
        let root = to_js(v);
        let which = (rng.next() % 12) as u32;
        put(&root, path, &damage(which, &root));
        let read_back = read(&root);
        // What JSON cannot hold is refused by the reader, naming the path.
        if which % 12 <= 8 || which % 12 == 10 {
            let e = read_back.expect_err("refused");
            assert!(!e.contains('\n') && e.len() <= 600, "{e}");
            let last = match &path[path.len() - 1] {
                Step::Key(k) => k.clone(),
                Step::Index(i) => format!("[{i}]"),
            };
            assert!(e.contains(&last), "case {case}: {e} does not name {path:?}");
            refused += 1;
        } else if let Ok(back) = read_back {
            // A value JSON can hold in the wrong place: the task reader decides, without a panic.
            let _ = handover::read_answer_value(&back, spec);
        }
    }
    assert!(refused > 300, "{refused}");
    console_log!("600 damaged answers in {:.0} ms", now_ms() - start);
}

#[wasm_bindgen_test]
fn hostile_roots_are_refused() {
    let spec = &specs()[0];
    for which in 0..12 {
        let v = damage(which, &JsValue::NULL);
        match read(&v) {
            Ok(back) => assert!(handover::read_answer_value(&back, spec).is_err()),
            Err(e) => assert!(!e.contains('\n') && e.len() <= 600, "{e}"),
        }
    }
    // A plain object is read like a map; a map whose keys are not text is not.
    let o = js_sys::Object::new();
    js_sys::Reflect::set(&o, &"error".into(), &"stopped".into()).unwrap();
    assert_eq!(handover::read_answer_value(&read(&o.into()).unwrap(), spec).unwrap_err(), "stopped");
    // At the bounds: MAX_DEPTH lists around a number are read, one more is not.
    let mut v: JsValue = JsValue::from_f64(1.0);
    for _ in 0..MAX_DEPTH {
        v = js_sys::Array::of1(&v).into();
    }
    assert!(read(&v).is_ok());
    let v: JsValue = js_sys::Array::of1(&v).into();
    assert!(read(&v).unwrap_err().contains("deeper than"));
    let wide = js_sys::Array::new();
    wide.set_length(MAX_VALUES as u32);
    wide.fill(&JsValue::TRUE, 0, MAX_VALUES as u32);
    assert!(read(&wide.into()).unwrap_err().contains("more than"));
}

// ---- timing ---------------------------------------------------------------------------------------

#[wasm_bindgen_test]
fn hand_over_time_at_n_2000() {
    for spec in [
        TaskSpec::new(Kind::MergeCodebases, Domain::Math, Axis::Traversal, 2000, 1),
        TaskSpec::new(Kind::AddParameter, Domain::Math, Axis::Runtime, 2000, 1),
    ] {
        let made = Ok(Made::from(generate_full(&spec).unwrap()));
        for round in 0..3 {
            let t0 = now_ms();
            let text = handover::answer_of(&made).to_string();
            let via_text = handover::read_answer(&text, &spec).unwrap();
            let t1 = now_ms();
            let js = to_js(&handover::answer_of(&made));
            let t2 = now_ms();
            let via_js = handover::read_answer_value(&read(&js).unwrap(), &spec).unwrap();
            let t3 = now_ms();
            assert_eq!(task_hash(&via_text.task), task_hash(&via_js.task));
            console_log!(
                "{} round {round}: JSON text {:.1} ms ({} B); JS value {:.1} ms (written {:.1} ms, read {:.1} ms)",
                spec.canonical(),
                t1 - t0,
                text.len(),
                t3 - t1,
                t2 - t1,
                t3 - t2
            );
        }
    }
}
