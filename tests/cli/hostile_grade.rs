//! `cabrito grade` (the real binary) on one batch holding the whole hostile corpus: every entry is a
//! model's response to task A, followed by that model's correct response to task B, and a last model
//! answers task A correctly. The batch writes a record for every response, each hostile one with a
//! reason, and the correct ones still score 1.
#![cfg(not(target_arch = "wasm32"))]

use crate::hostile;

use cabrito_gen::{Axis, Domain, Kind, TaskSpec};
use serde_json::{json, Value};
use std::path::Path;
use std::time::Instant;

const RUN: &str = "function_traversal_cn=(25,25)_en=(5,5)";

/// A JSON string of raw bytes: escaped as JSON needs, bytes above 0x7f left as they are (so a response
/// that is not UTF-8 stays not UTF-8 in its JSONL line).
fn json_bytes(b: &[u8]) -> Vec<u8> {
    let mut out = vec![b'"'];
    for &c in b {
        match c {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0..=0x1f => out.extend_from_slice(format!("\\u{c:04x}").as_bytes()),
            _ => out.push(c),
        }
    }
    out.push(b'"');
    out
}

fn line(t: &cabrito_gen::Task, output: &[u8]) -> Vec<u8> {
    let mut l = format!("{{\"name\": \"{}\", \"dag_id\": \"{}\", \"output\": ", t.name, t.dag_id).into_bytes();
    l.extend(json_bytes(output));
    l.extend_from_slice(b"}\n");
    l
}

fn records(out: &Path, model: &str) -> Vec<Value> {
    let p = out.join("results").join(RUN).join("math_function/add_parameter").join(format!("{model}.jsonl"));
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn one_batch_grades_the_whole_corpus_and_the_references_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let spec = |seed| TaskSpec::new(Kind::AddParameter, Domain::Math, Axis::Traversal, 5, seed);
    let (a, b) = (cabrito_gen::generate(&spec(1)).unwrap(), cabrito_gen::generate(&spec(2)).unwrap());
    let tasks: Vec<Value> = [&a, &b]
        .iter()
        .map(|t| json!({"name": t.name, "dag_id": t.dag_id, "starter_code": t.starter_code, "solution_code": t.solution_code}))
        .collect();
    let td = root.join("tasks").join(RUN).join("math_function");
    std::fs::create_dir_all(&td).unwrap();
    std::fs::write(td.join("add_parameter.json"), serde_json::to_string(&tasks).unwrap()).unwrap();
    let rd = root.join("responses").join(RUN).join("math_function/add_parameter");
    std::fs::create_dir_all(rd.join("hostile")).unwrap();
    std::fs::create_dir_all(rd.join("zz")).unwrap();
    let cases = hostile::corpus();
    for c in &cases {
        let mut text = line(&a, &c.bytes);
        text.extend(line(&b, b.solution_code.as_bytes()));
        std::fs::write(rd.join("hostile").join(format!("{}.jsonl", c.name)), text).unwrap();
    }
    std::fs::write(rd.join("zz/reference.jsonl"), line(&a, a.solution_code.as_bytes())).unwrap();

    let started = Instant::now();
    let out = root.join("out");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_cabrito"))
        .args(["grade", "--tasks"])
        .arg(root)
        .arg("--responses")
        .arg(root)
        .arg("--out")
        .arg(&out)
        .args(["--trials", "2", "--jobs", "2", "--json"])
        .output()
        .unwrap();
    eprintln!("graded {} responses in {:.1} s", 2 * cases.len() + 1, started.elapsed().as_secs_f64());
    assert!(o.status.success(), "status {:?}: {}", o.status, String::from_utf8_lossy(&o.stderr));
    let mut wrong = Vec::new();
    for c in &cases {
        let recs = records(&out, &format!("hostile/{}", c.name));
        let hostile = recs.iter().find(|r| r["dag_id"] == json!(a.dag_id));
        let after = recs.iter().find(|r| r["dag_id"] == json!(b.dag_id));
        let reason = hostile
            .map(|r| r["message"].as_str().or(r["error"].as_str()).unwrap_or("").to_string())
            .unwrap_or_default();
        eprintln!("{:32} {}", c.name, reason.chars().take(110).collect::<String>());
        match (hostile, after) {
            (Some(h), Some(n)) => {
                if h["score"] != json!(0) || reason.is_empty() {
                    wrong.push(format!("{}: {h}", c.name));
                }
                if n["score"] != json!(1) {
                    wrong.push(format!("{}: the response after it did not score 1: {n}", c.name));
                }
            }
            _ => wrong.push(format!("{}: {} records: {recs:?}", c.name, recs.len())),
        }
    }
    let last = records(&out, "zz/reference");
    assert_eq!(last[0]["score"], json!(1), "{}", last[0]);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    let summary: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(summary["graded"], json!(2 * cases.len() + 1));
}
