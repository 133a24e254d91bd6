//! The `gen` module's hand-over as the browser carries it (issue 14 item 3): the answer crosses as
//! one byte buffer (`playground::tape` on a `Uint8Array`: `handover::answer_tape` in the module,
//! `handover::read_answer_tape` in the app), in headless Chromium. A valid answer reads back as the
//! same value, key order and integer/float distinction included, and as the same task (same hash) for
//! tasks of every part the module makes and for every golden spec (`tests/golden`); damaged tapes
//! (every truncation of a real answer, random byte flips, depth bombs, a length of 2^60, a count past
//! `MAX_VALUES`) are refused with a one-line error at a byte, never a panic or a hang. Also times the
//! hand-over at `n = 2,000` against JSON text (printed for BENCHMARKS; never asserted).
//!
//! Run with `cargo test --target wasm32-unknown-unknown --test wasm wasm_handover:: -- --nocapture` (add
//! `--release` for the times the page sees).

#![cfg(target_arch = "wasm32")]

use cabrito::playground::tape::{decode, encode, MAX_DEPTH, MAX_VALUES};
use cabrito::playground::{handover, handover::Made};
use cabrito_gen::task::{generate_full, task_hash};
use cabrito_gen::{Axis, Domain, Kind, TaskSpec};
use serde_json::{json, Value};
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

/// Across the JS boundary as the page does it: into a `Uint8Array` (the module), back into the
/// wasm's memory (the app).
fn across(tape: &[u8]) -> Vec<u8> {
    js_sys::Uint8Array::from(tape).to_vec()
}

fn answer(spec: &TaskSpec) -> Value {
    handover::answer_of(&Ok(Made::from(generate_full(spec).expect("generates"))))
}

/// The tape of an answer's `Value` as the module writes it: the answer with its task's graph `null`,
/// then the graph.
fn tape_of(v: &Value) -> Vec<u8> {
    let mut bare = v.clone();
    let graph = bare["ok"]["task"]["graph"].take();
    let mut t = encode(&bare);
    t.extend(encode(&graph));
    t
}

/// Read as the page reads it: the answer, then (once idle) the whole record with its graph.
fn read_all(tape: &[u8], spec: &TaskSpec) -> Result<cabrito_gen::task::Task, String> {
    handover::read_answer_tape(across(tape), spec).and_then(|m| m.record())
}

#[wasm_bindgen_test]
fn a_valid_answer_reads_back_as_the_same_task() {
    for spec in specs() {
        let v = answer(&spec);
        // The module writes the tape straight from serde: the same bytes as through the `Value`.
        let made = Ok(Made::from(generate_full(&spec).unwrap()));
        assert!(handover::answer_tape(made) == tape_of(&v), "{}", spec.canonical());
        let back = decode(&across(&encode(&v))).unwrap_or_else(|e| panic!("{}: {e}", spec.canonical()));
        // The same value: key order, and 1 against 1.0, as JSON text would carry them.
        assert_eq!(back.to_string(), v.to_string(), "{}", spec.canonical());
        let made = handover::read_answer_value(back, &spec).unwrap_or_else(|e| panic!("{}: {e}", spec.canonical()));
        let native = generate_full(&spec).unwrap().task;
        assert_eq!(task_hash(&made.task), task_hash(&native), "{}", spec.canonical());
    }
    // Floats, integers, negatives and keys that look like numbers keep what they are, and their order.
    let v = json!({"b": 1, "a": 1.0, "9": -0.0, "": 1e300, "1": [-3, 18446744073709551615u64, -9223372036854775808i64, 0.1, null, true, "名🦀"]});
    assert_eq!(decode(&across(&encode(&v))).unwrap().to_string(), v.to_string());
    // A module error comes through as it was said.
    let e = handover::answer_tape(Err("n must be at most 2000".into()));
    assert_eq!(handover::read_answer_tape(across(&e), &specs()[0]).unwrap_err(), "n must be at most 2000");
}

/// Every golden spec (tests/golden) through the tape, as the module hands it over: the native hash.
#[wasm_bindgen_test]
fn golden_hashes_through_the_tape() {
    let hashes = include_str!("../golden/hashes.tsv");
    let mut checked = 0;
    for query in include_str!("../golden/specs.txt").lines().map(str::trim).filter(|l| !l.is_empty()) {
        let hash = hashes
            .lines()
            .find_map(|l| l.split_once('\t').filter(|(q, _)| *q == query).map(|(_, h)| h))
            .unwrap_or_else(|| panic!("no golden hash for {query}"));
        let made = handover::made_for(query);
        let spec = made.as_ref().map(|m| m.task.spec.clone()).unwrap_or_else(|e| panic!("{query}: {e}"));
        let back = read_all(&handover::answer_tape(made), &spec).unwrap_or_else(|e| panic!("{query}: {e}"));
        assert_eq!(task_hash(&back), hash, "{query}");
        checked += 1;
    }
    assert!(checked >= 20, "{checked}");
    console_log!("{checked} golden specs through the tape give their hashes");
}

// ---- damage -------------------------------------------------------------------------------------

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

fn well_said(e: &str) {
    assert!(e.contains("at byte ") && !e.contains('\n') && e.len() <= 600, "{e}");
}

#[wasm_bindgen_test]
fn a_damaged_tape_is_refused_at_a_byte() {
    let start = now_ms();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut refused = 0;
    for spec in specs() {
        let tape = handover::answer_tape(Ok(Made::from(generate_full(&spec).unwrap())));
        // Cut short anywhere (every cut of the smaller answers, a sample of the larger).
        let step = (tape.len() / 4000).max(1);
        for end in (0..tape.len()).step_by(step) {
            let e = read_all(&tape[..end], &spec).expect_err("a cut tape");
            well_said(&e);
            refused += 1;
        }
        // One to three bytes changed: a task (the reader judges it) or an error, never a panic.
        for _ in 0..200 {
            let mut t = tape.clone();
            for _ in 0..1 + rng.next() % 3 {
                let i = (rng.next() % t.len() as u64) as usize;
                t[i] ^= (rng.next() as u8) | 1;
            }
            if let Err(e) = read_all(&t, &spec) {
                assert!(!e.contains('\n') && e.len() <= 600, "{e}");
            }
        }
    }
    console_log!("{refused} cut tapes refused, 1,200 damaged ones read, in {:.0} ms", now_ms() - start);
}

#[wasm_bindgen_test]
fn hostile_tapes_are_refused() {
    let nested = |depth: usize, inner: &[u8]| {
        let mut t = [7u8, 1].repeat(depth);
        t.extend_from_slice(inner);
        t
    };
    // At the bounds: MAX_DEPTH lists around a number are read, one more is not; a depth bomb of a
    // million lists stops at the first one too many.
    assert!(decode(&across(&nested(MAX_DEPTH, &[3, 1]))).is_ok());
    assert!(decode(&across(&nested(MAX_DEPTH + 1, &[3, 1]))).unwrap_err().contains("nested deeper than"));
    assert!(decode(&across(&nested(1_000_000, &[]))).unwrap_err().contains("nested deeper than"));
    // A length of 2^60 as a text, a list and a map: past the end, nothing reserved.
    for tag in [6u8, 7, 8] {
        let t = [tag, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10];
        assert_eq!(decode(&across(&t)).unwrap_err(), "at byte 1: a length or count runs past the end");
    }
    // MAX_VALUES values in all, and one more.
    let wide = |n: usize| {
        let mut t = vec![7u8];
        let mut k = n as u64 - 1;
        while k >= 0x80 {
            t.push(k as u8 | 0x80);
            k >>= 7;
        }
        t.push(k as u8);
        t.resize(t.len() + n - 1, 2);
        t
    };
    assert!(decode(&across(&wide(MAX_VALUES))).is_ok());
    assert!(decode(&across(&wide(MAX_VALUES + 1))).unwrap_err().contains("more than"));
    // Not an answer: the task reader says so.
    let spec = &specs()[0];
    for v in [json!(null), json!([1, 2]), json!({"ok": 1}), json!({"error": 3}), json!({"ok": {"task": {}}})] {
        let e = handover::read_answer_tape(across(&encode(&v)), spec).unwrap_err();
        assert!(!e.contains('\n'), "{e}");
    }
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
            // The module's side: the answer on its tape, copied out into a `Uint8Array`.
            let tape = handover::answer_tape(made.clone());
            let out = js_sys::Uint8Array::from(tape.as_slice());
            let t2 = now_ms();
            // The app's side: copied in, read.
            let via_tape = handover::read_answer_tape(out.to_vec(), &spec).unwrap();
            let t3 = now_ms();
            assert_eq!(task_hash(&via_text.task), task_hash(&via_tape.record().unwrap()));
            console_log!(
                "{} round {round}: JSON text {:.1} ms ({} B); tape {:.1} ms ({} B; written {:.1} ms, read {:.1} ms)",
                spec.canonical(),
                t1 - t0,
                text.len(),
                t3 - t1,
                tape.len(),
                t2 - t1,
                t3 - t2
            );
        }
    }
}

/// A module's exposed calls are page script's to call with anything: a value that is not text is
/// refused with a thrown error naming the call (wasm-bindgen would otherwise trap inside the module),
/// and the module still answers text afterwards.
#[wasm_bindgen_test]
fn exposed_calls_refuse_arguments_that_are_not_text() {
    use wasm_bindgen::JsValue;
    cabrito::web::lazy::expose_call("cabritoTestModule", "echo", |arg: String| format!("got {}", arg.len()));
    cabrito::web::lazy::expose("cabritoTestMount", |root: web_sys::Element, arg: String| {
        root.set_text_content(Some(&arg))
    });
    let call = js_sys::Function::new_with_args(
        "f, a",
        "try { return 'ok ' + f(a); } catch (e) { return 'threw ' + String(e); }",
    );
    let api = js_sys::Reflect::get(&web_sys::window().unwrap(), &"cabritoTestModule".into()).unwrap();
    let echo = js_sys::Reflect::get(&api, &"echo".into()).unwrap();
    let said = |arg: &JsValue| call.call2(&JsValue::NULL, &echo, arg).unwrap().as_string().unwrap();
    let many = js_sys::Array::new();
    many.push(&JsValue::from(1));
    for bad in [JsValue::from(5), JsValue::UNDEFINED, JsValue::NULL, js_sys::Object::new().into(), many.into()] {
        assert_eq!(said(&bad), "threw echo(arg): arg is not text", "{bad:?}");
    }
    assert_eq!(said(&JsValue::from_str("four")), "ok got 4");
    let mount_api = js_sys::Reflect::get(&web_sys::window().unwrap(), &"cabritoTestMount".into()).unwrap();
    let mount: js_sys::Function = js_sys::Reflect::get(&mount_api, &"mount".into()).unwrap().into();
    let root = web_sys::window().unwrap().document().unwrap().create_element("div").unwrap();
    let try_mount = js_sys::Function::new_with_args(
        "m, r, a",
        "try { m(r, a); return 'ok'; } catch (e) { return 'threw ' + String(e); }",
    );
    let mounted =
        |r: &JsValue, a: &JsValue| try_mount.call3(&JsValue::NULL, &mount, r, a).unwrap().as_string().unwrap();
    assert_eq!(mounted(&JsValue::from(3), &"x".into()), "threw mount(root, arg): root is not an element");
    assert_eq!(mounted(&root, &JsValue::from(3)), "threw mount(root, arg): arg is not text");
    assert_eq!(mounted(&root, &"hello".into()), "ok");
    assert_eq!(root.text_content().as_deref(), Some("hello"));
}
