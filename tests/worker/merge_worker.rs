//! A merge task through the grading worker over a real WebSocket: the reference passes (static and
//! hidden), the starter behaves like it but fails `difference_blocks` in both the static rubric and
//! the hidden tests, each naming the class and the line.

#![cfg(not(target_arch = "wasm32"))]

use crate::worker_common;

use cabrito_check::protocol::{CheckSource, ClientMessage, ServerMessage};
use cabrito_gen::{Kind, TaskSpec};
use std::time::Duration;
use worker_common::*;

const T: Duration = Duration::from_secs(30);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_merge_task_is_graded_statically_and_by_running_it() {
    let addr = start(config()).await;
    let mut c = connect(addr).await;
    let spec = TaskSpec { kind: Kind::MergeCodebases, n: 25, d: 2, seed: 4, ..TaskSpec::default() };
    let t = task(&spec);

    c.send(&ClientMessage::grade("ref", &spec, t.solution_code.clone(), Some(5))).await;
    let msgs = c.until_final("ref", T).await;
    let ServerMessage::Accepted(a) = &msgs[0] else { panic!("accepted first: {:?}", msgs[0]) };
    assert_eq!(a.spec, "v=1&kind=merge_codebases&seed=4&d=2");
    let Some(ServerMessage::Result(r)) = msgs.last() else { panic!("result: {:?}", msgs.last()) };
    assert!(r.passed && r.static_passed && r.hidden_passed == Some(true), "{}", r.message);
    assert!(r.checks.iter().any(|c| c.source == CheckSource::Static && c.id == "difference_blocks" && c.passed));
    let names: Vec<&str> = r.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["CalculateA", "CalculateB"]);
    assert!(r.functions.iter().all(|f| f.status == "pass" && f.passed == 5));

    c.send(&ClientMessage::grade("starter", &spec, t.starter_code.clone(), Some(5))).await;
    let Some(ServerMessage::Result(r)) = c.until_final("starter", T).await.pop() else { panic!("result") };
    assert!(!r.passed && !r.static_passed && r.hidden_passed == Some(false));
    let s = r.checks.iter().find(|c| c.source == CheckSource::Static && c.id == "difference_blocks").unwrap();
    let line = t.starter_code[..t.starter_code.find("class CalculateA(").unwrap()].matches('\n').count() + 2;
    assert!(!s.passed && s.line == Some(line), "{s:?}");
    assert!(s.reason.starts_with(&format!("CalculateA.compute (line {line})")), "{}", s.reason);
    let h = r.checks.iter().find(|c| c.id == "hidden_tests").unwrap();
    assert!(!h.passed && h.reason.starts_with("difference_blocks: CalculateA.compute"), "{}", h.reason);
    assert_eq!(h.line, Some(line));
    // The starter behaves like the reference: both classes pass every vector.
    assert!(r.functions.iter().all(|f| f.status == "pass"), "{:?}", r.functions);
}
