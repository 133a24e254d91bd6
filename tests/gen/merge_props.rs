//! Property tests of the merge generator over many seeds, sizes and knob settings: the knobs are
//! honoured, no size crashes, and under CPython the starter's classes equal the solution's on random
//! vectors, the two classes differ somewhere, and every rewritten block gives its canonical block's
//! values.
#![cfg(not(target_arch = "wasm32"))]

use cabrito_gen::kinds::merge_codebases::ir::Segment;
use cabrito_gen::kinds::merge_codebases::{make, Perturbations, Transformations};
use cabrito_gen::spec::{Kind, TaskSpec};
use serde_json::{json, Value};
use std::io::Write;
use std::process::{Command, Stdio};

fn spec(n: u32, d: u32, seed: u64) -> TaskSpec {
    TaskSpec { kind: Kind::MergeCodebases, n, d, seed, ..TaskSpec::default() }
}

/// Sizes, knobs and seeds: the paper's sizes, long programs, every d, few and many parameters,
/// single-line blocks, and subsets of the rewrites and perturbations.
fn specs() -> Vec<TaskSpec> {
    let mut out = Vec::new();
    for (i, &n) in [5u32, 10, 25, 50, 100, 200].iter().enumerate() {
        for seed in 0..4u64 {
            out.push(spec(n, 1, seed * 31 + i as u64));
        }
    }
    for d in 1..=10u32 {
        out.push(spec(22 + 7 * d, d, 100 + d as u64));
    }
    out.push(TaskSpec { params: 1, ..spec(12, 2, 5) });
    out.push(TaskSpec { params: 30, ..spec(40, 3, 6) });
    out.push(TaskSpec { min_block: 1, ..spec(5, 4, 7) });
    out.push(TaskSpec { min_block: 5, ..spec(60, 3, 8) });
    for mask in [0u32, 1, 2, 4, 8, 16, 0b00110, 0b11001] {
        out.push(TaskSpec { transformations: Transformations(mask), ..spec(30, 2, 200 + mask as u64) });
    }
    for mask in [1u32, 2, 4, 8, 0b0101] {
        out.push(TaskSpec { perturbations: Perturbations(mask), ..spec(30, 4, 300 + mask as u64) });
    }
    out
}

#[test]
fn knobs_are_honoured_and_no_size_crashes() {
    let mut all = specs();
    for &n in &[5u32, 6, 7, 11, 333, 1000] {
        all.push(spec(n, 1, n as u64));
    }
    // The hardest draws to validate: one perturbation kind and ten differences.
    for mask in [1u32, 2, 4, 8] {
        all.push(TaskSpec { perturbations: Perturbations(mask), ..spec(22, 10, 7 + mask as u64) });
    }
    for s in &all {
        s.validate().unwrap_or_else(|e| panic!("{s}: {e}"));
        let made = make(s).unwrap_or_else(|e| panic!("{s}: {e}"));
        let p = &made.program;
        assert_eq!(p.block_lines(), s.n as usize, "{s}");
        assert_eq!(p.diffs().count(), s.d as usize, "{s}");
        assert_eq!(p.params, s.params as usize, "{s}");
        assert!(p.blocks().all(|b| b.lines.len() >= s.min_block as usize), "{s}");
        for d in p.diffs() {
            assert!(s.perturbations.has(d.how as usize), "{s}: {:?} not allowed", d.how);
        }
        let t = s.transformations;
        for (ci, c) in made.classes.iter().enumerate() {
            let renamed = (0..p.names.len()).filter(|&v| c.names[v] != p.names[v]).count();
            assert_eq!(renamed == p.names.len(), t.has(0), "{s}: class {ci} renaming");
            assert_eq!(c.names.len() > p.names.len(), t.has(2) && c.names.len() > p.names.len(), "{s}");
            if !t.has(2) {
                assert_eq!(c.names.len(), p.names.len(), "{s}: temporaries without multi_lines");
            }
            for (i, item) in p.items.iter().enumerate() {
                if let Segment::Block(b) = item {
                    if t.0 == 0 {
                        assert_eq!(c.items[i], b.lines, "{s}: a block changed with no rewrite allowed");
                    }
                    if !t.has(2) {
                        assert_eq!(c.items[i].len(), b.lines.len(), "{s}: lines folded or split without multi_lines");
                    }
                    if !t.has(1) && !t.has(2) {
                        let targets: Vec<usize> = c.items[i].iter().map(|l| l.target).collect();
                        let canon: Vec<usize> = b.lines.iter().map(|l| l.target).collect();
                        assert_eq!(targets, canon, "{s}: lines moved without shuffle_lines");
                    }
                }
            }
        }
        let signature =
            made.starter.text.lines().find(|l| l.contains("def compute(self, ") && !l.contains("*args")).unwrap();
        assert_eq!(signature.matches(',').count(), s.params as usize, "{s}: {signature}");
        assert_eq!(made.solution.matches("def custom_compute_").count(), 3 * s.d as usize, "{s}");
    }
}

#[test]
fn the_same_spec_gives_the_same_task_and_the_program_ignores_the_rewrites() {
    let s = spec(60, 2, 9);
    assert_eq!(cabrito_gen::generate(&s).unwrap(), cabrito_gen::generate(&s).unwrap());
    // An ablation keeps the canonical program (the reference solution) and changes the classes.
    let plain = TaskSpec { transformations: Transformations(0), ..s.clone() };
    let (a, b) = (make(&s).unwrap(), make(&plain).unwrap());
    if a.attempt == b.attempt {
        assert_eq!(a.solution, b.solution);
        assert_ne!(a.starter.text, b.starter.text);
    }
}

#[test]
fn cpython_agrees_with_the_generator() {
    let mut cases = Vec::new();
    for (id, s) in specs().into_iter().chain([spec(1000, 1, 1), spec(400, 10, 2)]).enumerate() {
        let made = make(&s).unwrap();
        let t = cabrito_gen::generate(&s).unwrap();
        let p = &made.program;
        let names = |v: usize| {
            [&p.names[v], &made.classes[0].names[v], &made.classes[1].names[v]].map(|x| Value::String(x.clone()))
        };
        let blocks: Vec<Value> = p
            .blocks()
            .map(|b| {
                json!({
                    "inputs": b.inputs.iter().map(|&v| names(v)).collect::<Vec<_>>(),
                    "live_out": b.live_out.iter().map(|&v| names(v)).collect::<Vec<_>>(),
                })
            })
            .collect();
        let mut rng = cabrito_gen::rng::stream(&s.canonical(), "test-vectors");
        let mut vectors = vec![(1..=s.params as i64).collect::<Vec<_>>()];
        for _ in 0..12 {
            vectors.push((0..s.params).map(|_| cabrito_gen::graph::sample::between(&mut rng, -5, 5)).collect());
        }
        cases.push(json!({
            "id": id, "input": t.starter_code, "input_with_space": t.metadata["input_with_space"],
            "solution": t.solution_code, "params": s.params, "vectors": vectors, "blocks": blocks, "spec": s.canonical(),
        }));
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/merge_check.py");
    let mut child = Command::new("python3")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("python3 runs");
    let body = serde_json::to_vec(&cases).unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&body).unwrap());
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(out.status.success(), "merge_check.py failed");
    let reports: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(reports.len(), cases.len());
    let mut bad = Vec::new();
    for (r, c) in reports.iter().zip(&cases) {
        if !r["problems"].as_array().unwrap().is_empty() {
            bad.push(format!("{}: {}", c["spec"], r["problems"]));
        }
        if r["differ"] != true {
            bad.push(format!("{}: CalculateA and CalculateB never differ", c["spec"]));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
