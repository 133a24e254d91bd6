//! CPython runs every generated program: for a large sample of tasks, starter and reference
//! compile, load with the `mylibrary` stubs, and `main()` runs on random inputs. Where the kind's
//! refactoring preserves behaviour (dead code, cache, DRY), starter and reference agree exactly.
#![cfg(not(target_arch = "wasm32"))]

use cabrito_gen::domain::stubs::{block, block_count, library_source, Library, STROPS_SOURCE};
use cabrito_gen::graph::sample::{below, uniform};
use cabrito_gen::rng::stream;
use cabrito_gen::spec::{Axis, Domain, Kind, TaskSpec};
use cabrito_gen::task::generate;
use serde_json::{json, Value};
use std::io::Write;
use std::process::{Command, Stdio};

fn inputs(domain: Domain, seed: u64) -> Vec<Value> {
    let mut rng = stream(&format!("python-run-{seed}"), "inputs");
    (0..6)
        .map(|i| match domain {
            Domain::Math => json!(if i == 5 { 7.25 } else { uniform(&mut rng, -1.0, 1.0) }),
            Domain::String => {
                let len = 1 + below(&mut rng, 10);
                let alphabet: &[u8] = if i % 2 == 0 { b"0123456789" } else { b"abcXYZ019qrs" };
                json!((0..len).map(|_| alphabet[below(&mut rng, alphabet.len())] as char).collect::<String>())
            }
            Domain::Array => {
                let len = 1 + below(&mut rng, 5);
                json!((0..len).map(|_| uniform(&mut rng, -1.0, 1.0)).collect::<Vec<f64>>())
            }
        })
        .collect()
}

/// Exceptions a numeric program may legitimately raise on some input (e.g. `round(inf)`).
fn arithmetic(outcome: &Value) -> bool {
    let t = outcome[1].as_str().unwrap_or("");
    matches!(t, "OverflowError" | "ZeroDivisionError")
        || (t == "ValueError" && outcome[2].as_str().unwrap_or("").contains("math"))
}

#[test]
fn cpython_runs_every_generated_program() {
    let mut cases = Vec::new();
    let mut specs = Vec::new();
    // The call-graph kinds (merge's programs run in tests/gen/merge_props.rs).
    for &kind in Kind::ALL.iter().filter(|k| k.def().graph().is_some()) {
        for &domain in Domain::ALL {
            for &axis in Axis::ALL {
                if !kind.def().axes().allows(&axis) {
                    continue;
                }
                let library = if axis.def().instructions() { Library::Indexed } else { Library::Plain };
                for &n in &[kind.min_edit(), 5, 25, 100] {
                    for seed in 0..3u64 {
                        let spec = TaskSpec::new(kind, domain, axis, n, seed * 1009 + n as u64);
                        if spec.validate().is_err() {
                            continue;
                        }
                        let task = generate(&spec).expect("generates");
                        let b = below(&mut stream(&spec.canonical(), "stub-block"), block_count(domain));
                        cases.push(json!({
                            "id": cases.len(),
                            "kind": kind.as_str(),
                            "domain": domain.as_str(),
                            "starter": task.starter_code,
                            "reference": task.solution_code,
                            "stubs": library_source(domain, library, block(domain, b)),
                            "strops": STROPS_SOURCE,
                            "inputs": inputs(domain, seed),
                        }));
                        specs.push(spec);
                    }
                }
            }
        }
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/run_programs.py");
    let mut child = Command::new("python3")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("python3 runs (the setup command installs it with numpy)");
    let payload = serde_json::to_vec(&cases).unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&payload));
    let out = child.wait_with_output().expect("python3 finishes");
    writer.join().unwrap().unwrap();
    assert!(out.status.success(), "the driver failed");
    let results: Vec<Value> = serde_json::from_slice(&out.stdout).expect("driver output is JSON");
    assert_eq!(results.len(), specs.len());

    let (mut ok, mut arith) = (0usize, 0usize);
    for (r, spec) in results.iter().zip(&specs) {
        let ctx = spec.canonical();
        let (st, re) = (r["starter"].as_array().unwrap(), r["reference"].as_array().unwrap());
        for (side, outcomes) in [("starter", st), ("reference", re)] {
            for o in outcomes {
                match o[0].as_str().unwrap() {
                    "ok" => ok += 1,
                    "error" if arithmetic(o) => arith += 1,
                    // The add-return-value starter is broken on purpose: external() now returns a pair.
                    "error" if side == "starter" && spec.kind == Kind::AddReturnValue => {}
                    _ => panic!("{ctx}: {side} failed: {o}"),
                }
            }
        }
        if matches!(spec.kind, Kind::DeadCode | Kind::CacheFunction | Kind::ExtractHelper) {
            assert_eq!(st, re, "{ctx}: the refactoring must not change main()'s result");
        }
        if spec.kind == Kind::AddParameter {
            assert!(re.iter().any(|o| o[0] == "ok"), "{ctx}: the reference never ran");
        }
    }
    assert!(arith * 50 < ok, "too many arithmetic errors: {arith} vs {ok} successful runs");
    eprintln!("{} programs × 6 inputs: {ok} runs ok, {arith} arithmetic errors", specs.len() * 2);
}
