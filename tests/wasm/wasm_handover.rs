//! The `gen` module's answer as the browser carries it: MessagePack of derived serde types
//! (`playground::gen_answer`: `answer_bytes` in the module, `read_answer` in the app) on a
//! `Uint8Array`, in headless Chromium. A valid answer reads back as the same task (same hash) for
//! tasks of every part the module makes and for every golden spec (`tests/golden`), floats and
//! integers kept apart; damaged answers (every cut of a real one, random byte flips, depth bombs, a
//! length of 4 GiB) are refused with a one-line error, never a panic or a hang. Also times the
//! answer at `n = 2,000` against JSON text (printed for BENCHMARKS; never asserted).
//!
//! Run with `cargo test --target wasm32-unknown-unknown --test wasm wasm_handover:: -- --nocapture` (add
//! `--release` for the times the page sees).

#![cfg(target_arch = "wasm32")]

use cabrito::playground::gen_answer::{self, Made};
use cabrito_gen::task::{generate_full, task_hash};
use cabrito_gen::{Axis, Domain, Kind, TaskSpec};
use wasm_bindgen_test::{console_log, wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).expect("a browser window with performance").now()
}

/// A spec of each part the module makes, and the first download's own kinds.
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
fn across(bytes: &[u8]) -> Vec<u8> {
    js_sys::Uint8Array::from(bytes).to_vec()
}

/// Read as the page reads it: the answer, then (once idle) the whole record with its graph.
fn read_all(bytes: &[u8], spec: &TaskSpec) -> Result<cabrito_gen::task::Task, String> {
    gen_answer::read_answer(&across(bytes), spec).and_then(|m| m.record())
}

#[wasm_bindgen_test]
fn a_valid_answer_reads_back_as_the_same_task() {
    for spec in specs() {
        let native = generate_full(&spec).unwrap().task;
        let bytes = gen_answer::answer_bytes(Ok(Made::from(generate_full(&spec).unwrap())));
        let back = read_all(&bytes, &spec).unwrap_or_else(|e| panic!("{}: {e}", spec.canonical()));
        // The same record: key order, and 1 against 1.0, as JSON text would carry them.
        assert_eq!(serde_json::to_string(&back).unwrap(), serde_json::to_string(&native).unwrap());
        assert_eq!(task_hash(&back), task_hash(&native), "{}", spec.canonical());
    }
    // A module error comes through as it was said.
    let e = gen_answer::answer_bytes(Err("n must be at most 2000".into()));
    assert_eq!(gen_answer::read_answer(&across(&e), &specs()[0]).unwrap_err(), "n must be at most 2000");
}

/// Every golden spec (tests/golden) through the answer, as the module sends it: the native hash.
#[wasm_bindgen_test]
fn golden_hashes_through_the_answer() {
    let hashes = include_str!("../golden/hashes.tsv");
    let mut checked = 0;
    for query in include_str!("../golden/specs.txt").lines().map(str::trim).filter(|l| !l.is_empty()) {
        let hash = hashes
            .lines()
            .find_map(|l| l.split_once('\t').filter(|(q, _)| *q == query).map(|(_, h)| h))
            .unwrap_or_else(|| panic!("no golden hash for {query}"));
        let made = gen_answer::made_for(query);
        let spec = made.as_ref().map(|m| m.task.spec.clone()).unwrap_or_else(|e| panic!("{query}: {e}"));
        let back = read_all(&gen_answer::answer_bytes(made), &spec).unwrap_or_else(|e| panic!("{query}: {e}"));
        assert_eq!(task_hash(&back), hash, "{query}");
        checked += 1;
    }
    assert!(checked >= 20, "{checked}");
    console_log!("{checked} golden specs through the answer give their hashes");
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
    assert!(!e.contains('\n') && e.len() <= 600, "{e}");
}

#[wasm_bindgen_test]
fn a_damaged_answer_is_refused() {
    let start = now_ms();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut refused = 0;
    for spec in specs() {
        let bytes = gen_answer::answer_bytes(Ok(Made::from(generate_full(&spec).unwrap())));
        // Cut short anywhere (every cut of the smaller answers, a sample of the larger).
        let step = (bytes.len() / 4000).max(1);
        for end in (0..bytes.len()).step_by(step) {
            let e = read_all(&bytes[..end], &spec).expect_err("a cut answer");
            well_said(&e);
            refused += 1;
        }
        // One to three bytes changed: a task (the reader judges it) or an error, never a panic.
        for _ in 0..200 {
            let mut t = bytes.clone();
            for _ in 0..1 + rng.next() % 3 {
                let i = (rng.next() % t.len() as u64) as usize;
                t[i] ^= (rng.next() as u8) | 1;
            }
            if let Err(e) = read_all(&t, &spec) {
                well_said(&e);
            }
        }
    }
    console_log!("{refused} cut answers refused, 1,200 damaged ones read, in {:.0} ms", now_ms() - start);
}

#[wasm_bindgen_test]
fn hostile_answers_are_refused() {
    let spec = &specs()[0];
    let ok = |rest: &[u8]| [&[0x81, 0xa2, b'o', b'k'][..], rest].concat();
    // A depth bomb of a million lists, maps as deep, a text, a list and a map claiming 4 GiB with
    // nothing after: refused at once, no stack overflow and nothing reserved.
    for bad in [
        ok(&[0x91; 1_000_000]),
        ok(&[0x81, 0xa1, b'a'].repeat(100_000)),
        ok(&[0xdb, 0xff, 0xff, 0xff, 0xff]),
        ok(&[0xdd, 0xff, 0xff, 0xff, 0xff]),
        ok(&[0xdf, 0xff, 0xff, 0xff, 0xff]),
        vec![0x81, 0xa5, b'e', b'r', b'r', b'o', b'r', 0x07],
        vec![0xc0],
        vec![],
    ] {
        let e = gen_answer::read_answer(&across(&bad), spec).unwrap_err();
        assert!(e.starts_with("the generator module's answer cannot be read"), "{e}");
        well_said(&e);
    }
}

// ---- timing ---------------------------------------------------------------------------------------

#[wasm_bindgen_test]
fn answer_time_at_n_2000() {
    for spec in [
        TaskSpec::new(Kind::MergeCodebases, Domain::Math, Axis::Traversal, 2000, 1),
        TaskSpec::new(Kind::AddParameter, Domain::Math, Axis::Runtime, 2000, 1),
    ] {
        let made = Made::from(generate_full(&spec).unwrap());
        for round in 0..3 {
            // JSON text of the record, for comparison.
            let t0 = now_ms();
            let text = serde_json::to_string(&made.task).unwrap();
            let via_text: cabrito_gen::task::Task = serde_json::from_str(&text).unwrap();
            let t1 = now_ms();
            // The module's side: the answer written, copied out into a `Uint8Array`.
            let bytes = gen_answer::answer_bytes(Ok(made.clone()));
            let out = js_sys::Uint8Array::from(bytes.as_slice());
            let t2 = now_ms();
            // The app's side: copied in, read (its graph unread).
            let back = gen_answer::read_answer(&out.to_vec(), &spec).unwrap();
            let t3 = now_ms();
            assert_eq!(task_hash(&via_text), back.hash().unwrap());
            console_log!(
                "{} round {round}: JSON text of the record {:.1} ms ({} B); the answer {:.1} ms ({} B; written {:.1} ms, read {:.1} ms)",
                spec.canonical(),
                t1 - t0,
                text.len(),
                t3 - t1,
                bytes.len(),
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
