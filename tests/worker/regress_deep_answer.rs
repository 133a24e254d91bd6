//! The bug that started issue 7: a 200 KB answer `x = ` followed by 200,000 `-` and `1`, sent as a
//! grade request for `kind=add_parameter&n=5&seed=1`, killed the whole `cabrito serve` process (a
//! stack overflow while the grading plan dropped the candidate's deep tree), and the same file in
//! `cabrito grade --solutions` aborted the whole batch. Both now answer it with a failing verdict that
//! names the line, and go on.

#![cfg(not(target_arch = "wasm32"))]

use crate::worker_common;

use cabrito_check::protocol::{ClientMessage, ServerMessage};
use cabrito_gen::{Axis, Domain, Kind, TaskSpec};
use serde_json::{json, Value};
use std::time::Duration;
use worker_common::*;

fn answer() -> String {
    format!("x = {}1\n", "-".repeat(200_000))
}

fn spec(seed: u64) -> TaskSpec {
    TaskSpec::new(Kind::AddParameter, Domain::Math, Axis::Traversal, 5, seed)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_worker_answers_the_deep_answer_and_keeps_serving() {
    let mut cfg = config();
    cfg.limits.max_message_bytes = 1 << 20;
    let addr = start(cfg).await;
    let mut c = connect(addr).await;
    c.send(&ClientMessage::grade("deep", &spec(1), answer(), Some(2))).await;
    let last = c.until_final("deep", Duration::from_secs(60)).await.pop().expect("a final reply");
    let ServerMessage::Result(r) = last else { panic!("expected a result, got {last:?}") };
    assert!(!r.passed);
    let comp = r.checks.iter().find(|c| c.id == "compilation").expect("compilation item");
    assert!(!comp.passed && comp.line == Some(1), "{comp:?}");
    assert!(comp.reason.contains("deep") || comp.reason.contains("nest"), "{}", comp.reason);
    // Another client, same server: the reference still passes.
    let mut other = connect(addr).await;
    other.send(&ClientMessage::grade("ref", &spec(1), task(&spec(1)).solution_code, Some(2))).await;
    let last = other.until_final("ref", Duration::from_secs(60)).await.pop().expect("a final reply");
    assert!(matches!(&last, ServerMessage::Result(r) if r.passed), "{last:?}");
}

#[test]
fn the_batch_grader_records_the_deep_answer_and_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let run = "function_traversal_cn=(25,25)_en=(5,5)";
    let (a, b) = (task(&spec(1)), task(&spec(2)));
    let recs: Vec<Value> = [&a, &b]
        .iter()
        .map(|t| json!({"name": t.name, "dag_id": t.dag_id, "starter_code": t.starter_code, "solution_code": t.solution_code}))
        .collect();
    let tasks = dir.path().join("tasks").join(run).join("math_function");
    std::fs::create_dir_all(&tasks).unwrap();
    std::fs::write(tasks.join("add_parameter.json"), serde_json::to_string(&recs).unwrap()).unwrap();
    let sol = dir.path().join("answers");
    std::fs::create_dir_all(&sol).unwrap();
    std::fs::write(sol.join(format!("{}.py", a.dag_id)), answer()).unwrap();
    std::fs::write(sol.join(format!("{}.py", b.dag_id)), &b.solution_code).unwrap();
    let out = dir.path().join("out");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_cabrito"))
        .args(["grade", "--tasks"])
        .arg(dir.path())
        .arg("--solutions")
        .arg(&sol)
        .arg("--out")
        .arg(&out)
        .args(["--trials", "2", "--json"])
        .output()
        .unwrap();
    assert!(o.status.success(), "status {:?}: {}", o.status, String::from_utf8_lossy(&o.stderr));
    let file = out.join("results").join(run).join("math_function/add_parameter/files/answers.jsonl");
    let text = std::fs::read_to_string(&file).unwrap();
    let recs: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(recs.len(), 2, "{text}");
    let deep = recs.iter().find(|r| r["dag_id"] == json!(a.dag_id)).unwrap();
    assert_eq!(deep["score"], json!(0));
    let message = deep["message"].as_str().or(deep["error"].as_str()).unwrap_or("");
    assert!(message.contains("line 1"), "{deep}");
    let good = recs.iter().find(|r| r["dag_id"] == json!(b.dag_id)).unwrap();
    assert_eq!(good["score"], json!(1), "{good}");
}

/// Nested lambda defaults (`lambda a=lambda a=…: 0: 0`) cost ruff's parser seven frames a level: a
/// debug build overflowed a 2 MB thread on a few hundred of them before the parse ran on a stack
/// sized by the scan. Every depth, up to and past what CPython 3.11 accepts, gets a verdict on a
/// thread as small as a test's.
#[test]
fn nested_lambda_defaults_never_overflow_a_small_stack() {
    let t = cabrito_gen::generate(&spec(1)).unwrap();
    let verdicts = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let task = cabrito_check::rubric::TaskRef::of(&t);
            [50usize, 200]
                .into_iter()
                .chain((400..=800).step_by(10))
                .chain([1600, 3200, 6400])
                .map(|k| {
                    // Inside a function and two blocks, as deep as the nesting goes.
                    let src = format!(
                        "{}\ndef g(c):\n    if c:\n        if c:\n            x = {}0{}\n",
                        t.solution_code,
                        "lambda a=".repeat(k),
                        ": 0".repeat(k)
                    );
                    let report = cabrito_check::rubric::static_checks(&task, &src);
                    (k, report.item("compilation").map(|i| i.passed))
                })
                .collect::<Vec<_>>()
        })
        .unwrap()
        .join()
        .expect("no overflow, no panic");
    // Shallow nesting compiles; the deepest is refused (CPython 3.11 refuses it too).
    assert_eq!(verdicts[0], (50, Some(true)), "{verdicts:?}");
    assert_eq!(verdicts.last().unwrap().1, Some(false), "{verdicts:?}");
}
