//! The runtime axis through the command line and the worker (issue 8, item 7): `generate`, `link`,
//! `check`, `grid --axes runtime` (one DAG bucket across hops, the reference's run names), `grade` on
//! that grid (reference layout, axis from the run name) and a `/ws` grade; bad knob values get one
//! line naming what is allowed.
#![cfg(not(target_arch = "wasm32"))]

use crate::worker_common;

use cabrito_check::protocol::{ClientMessage, ErrorCode, ServerMessage};
use cabrito_gen::{Axis, Domain, Kind, TaskSpec};
use cabrito_native::grade::{grade_dirs, GradeArgs};
use cabrito_native::runner::GradeOptions;
use serde_json::{json, Value};
use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;
use worker_common::{config, connect, start};

fn cabrito(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cabrito")).args(args).output().expect("the binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

#[test]
fn generate_link_and_check_take_the_runtime_knobs() {
    let flags = ["--kind", "cache_function", "--axis", "runtime", "--n", "64", "--branches", "4", "--ratio", "0.5"];
    let o = cabrito(&[&["generate", "--json"][..], &flags].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    let t: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(t["spec"]["branches"], 4);
    assert_eq!(t["spec"]["ratio"], "0.5");
    assert_eq!(t["runtime"]["breadth"], 8); // q = 1: √64
    assert_eq!(t["runtime"]["functions"][0]["guards"].as_array().unwrap().len(), 3);
    assert!(t["starter_code"].as_str().unwrap().contains(" ^ check("));
    assert!(t["link"].as_str().unwrap().ends_with("axis=runtime&n=64&branches=4&ratio=0.5"));

    let o = cabrito(&[&["link"][..], &flags].concat());
    assert!(String::from_utf8_lossy(&o.stdout)
        .trim()
        .ends_with("#/task?v=1&kind=cache_function&axis=runtime&n=64&branches=4&ratio=0.5"));

    let dir = tempfile::tempdir().unwrap();
    let reference = dir.path().join("reference.py");
    std::fs::write(&reference, t["solution_code"].as_str().unwrap()).unwrap();
    let o = cabrito(&[&["check", "--json", "--solution", reference.to_str().unwrap()][..], &flags].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(r["items"].as_array().unwrap().iter().any(|i| i["id"] == "branch_placement" && i["passed"] == true));
    // The starter fails branch placement (and the rest), with status 1.
    let starter = dir.path().join("starter.py");
    std::fs::write(&starter, t["starter_code"].as_str().unwrap()).unwrap();
    let o = cabrito(&[&["check", "--json", "--solution", starter.to_str().unwrap()][..], &flags].concat());
    assert_eq!(o.status.code(), Some(1));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    let bp = r["items"].as_array().unwrap().iter().find(|i| i["id"] == "branch_placement").unwrap().clone();
    assert_eq!(bp["passed"], false);
    assert!(
        bp["line"].as_u64().is_some() && bp["reason"].as_str().unwrap().contains("the reference changes it"),
        "{bp}"
    );
    // A task file on the runtime axis: the axis comes from the record's spec.
    let file = dir.path().join("task.json");
    std::fs::write(&file, serde_json::to_string(&t).unwrap()).unwrap();
    let o =
        cabrito(&["check", "--json", "--task-file", file.to_str().unwrap(), "--solution", starter.to_str().unwrap()]);
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(r["items"].as_array().unwrap().iter().any(|i| i["id"] == "branch_placement" && i["passed"] == false));
}

const RUN5: &str = "runtime_resolution_n=(10,10)_prop=(0.45,0.55)_psame=(0.9,0.9)_ce=(0.3,0.3)_ee=(0.3,0.3)_attach=(0.3,0.3)_centry=(1,1)_eentry=(1,1)_ifhops=5";

/// The kinds built along the runtime axis (variable_renaming and merge_codebases have grids of their own).
fn runtime_kinds() -> Vec<&'static str> {
    Kind::ALL.iter().filter(|k| k.def().axes().allows(&Axis::Runtime)).map(|k| k.as_str()).collect()
}

fn records(path: &Path) -> Vec<Value> {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn the_runtime_grid_reuses_one_dag_bucket_and_grades() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let o = cabrito(&["grid", "--out", out, "--axes", "runtime", "--samples", "2", "--sizes", "5,200"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let tasks = dir.path().join("tasks");
    let run200 = RUN5.replace("_ifhops=5", "_ifhops=200");
    for set in ["math_function", "string_function", "array_function"] {
        for kind in runtime_kinds() {
            let a = records(&tasks.join(RUN5).join(set).join(format!("{kind}.json")));
            let b = records(&tasks.join(&run200).join(set).join(format!("{kind}.json")));
            assert_eq!(a.len(), 2);
            // One DAG bucket across hops: the same dag_ids and names, different guards.
            let ids = |r: &[Value]| r.iter().map(|x| x["dag_id"].clone()).collect::<Vec<_>>();
            assert_eq!(ids(&a), ids(&b));
            assert!(a[0]["starter_code"].as_str().unwrap().contains("num_steps=5)"));
            assert!(b[0]["starter_code"].as_str().unwrap().contains("num_steps=200)"));
            // The reference's record fields only.
            let keys: Vec<&String> = a[0].as_object().unwrap().keys().collect();
            assert_eq!(keys, ["name", "dag_id", "prompt", "starter_code", "solution_code", "metadata"]);
        }
    }
    let jsonl = std::fs::read_to_string(dir.path().join("tasks.jsonl")).unwrap();
    assert_eq!(jsonl.lines().count(), 2 * 2 * 15);

    // Grade the hops-5 bucket: the reference of each record, and the starter of each record.
    let responses = dir.path().join("responses").join(RUN5);
    for set in ["math_function", "string_function", "array_function"] {
        for kind in runtime_kinds() {
            let recs = records(&tasks.join(RUN5).join(set).join(format!("{kind}.json")));
            let d = responses.join(set).join(kind).join("code");
            std::fs::create_dir_all(&d).unwrap();
            for which in ["solution_code", "starter_code"] {
                let lines: Vec<String> = recs
                    .iter()
                    .map(|r| {
                        json!({"name": r["name"], "dag_id": r["dag_id"], "output": format!("# === solution.py ===\n{}", r[which].as_str().unwrap()), "metadata": {}})
                            .to_string()
                    })
                    .collect();
                std::fs::write(d.join(format!("{which}.jsonl")), lines.join("\n") + "\n").unwrap();
            }
        }
    }
    // Only the hops-5 bucket has responses; move the other away so every task file has some.
    std::fs::remove_dir_all(tasks.join(&run200)).unwrap();
    let results = dir.path().join("graded");
    let args = GradeArgs {
        tasks: dir.path().to_path_buf(),
        responses: Some(dir.path().to_path_buf()),
        solutions: None,
        out: results.clone(),
        opts: GradeOptions { trials: 3, ..Default::default() },
        shard: (1, 1),
        jobs: None,
        progress: false,
    };
    let summary = grade_dirs(&args).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(summary.problems, 0);
    let mut seen = 0;
    for set in ["math_function", "string_function", "array_function"] {
        for kind in runtime_kinds() {
            let d = results.join("results").join(RUN5).join(set).join(kind).join("code");
            for (which, score) in [("solution_code", 1), ("starter_code", 0)] {
                for line in std::fs::read_to_string(d.join(format!("{which}.jsonl"))).unwrap().lines() {
                    let r: Value = serde_json::from_str(line).unwrap();
                    assert_eq!(r["score"], score, "{set} {kind} {which}: {}", r["message"]);
                    let bp = r["results"].as_array().unwrap().iter().find(|c| c["kind"] == "branch_placement");
                    let want = if score == 1 { "pass" } else { "fail" };
                    assert_eq!(bp.map(|c| c["type"].clone()), Some(json!(want)), "{set} {kind} {which}");
                    seen += 1;
                }
            }
        }
    }
    assert_eq!(seen, 2 * 2 * 15);
}

const T: Duration = Duration::from_secs(60);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_worker_grades_runtime_tasks_and_names_allowed_values() {
    let addr = start(config()).await;
    let mut c = connect(addr).await;
    let spec = TaskSpec::from_pairs([
        ("kind", "extract_helper"),
        ("domain", "string"),
        ("axis", "runtime"),
        ("n", "50"),
        ("branches", "4"),
        ("ratio", "0.7"),
        ("seed", "5"),
    ])
    .unwrap();
    let t = cabrito_gen::generate(&spec).unwrap();
    c.send(&ClientMessage::grade("ref", &spec, t.solution_code.clone(), Some(2))).await;
    let Some(ServerMessage::Result(r)) = c.until_final("ref", T).await.pop() else { panic!("a result") };
    assert!(r.passed, "{}", r.message);
    assert!(r.checks.iter().any(|c| c.id == "branch_placement" && c.passed));
    c.send(&ClientMessage::grade("starter", &spec, t.starter_code.clone(), Some(2))).await;
    let Some(ServerMessage::Result(r)) = c.until_final("starter", T).await.pop() else { panic!("a result") };
    assert!(!r.passed);
    assert!(r.checks.iter().any(|c| c.id == "branch_placement" && !c.passed && c.line.is_some()));
    // Bad knob values: one line naming what is allowed.
    for (spec, says) in [
        (r#"{"axis":"runtime","branches":3}"#, "branches must be one of 2, 4, 8"),
        (r#"{"axis":"runtime","ratio":"2.0"}"#, "ratio must be one of 0.0, 0.1"),
        (r#"{"branches":"4"}"#, "does not apply to the traversal axis"),
        (r#"{"axis":"runtime","n":20000}"#, "from 1 to 10000"),
    ] {
        c.send_text(format!(r#"{{"v":1,"type":"grade","id":"bad","spec":{spec},"solution":"x"}}"#)).await;
        let ServerMessage::Error(e) = c.recv(T).await else { panic!("{spec}: an error") };
        assert_eq!(e.code, ErrorCode::BadRequest, "{spec}");
        assert!(e.message.contains(says) && !e.message.contains('\n'), "{spec}: {}", e.message);
    }
    // The default domain and kind on the runtime axis also grade.
    let plain = TaskSpec::new(Kind::DeadCode, Domain::Math, Axis::Runtime, 5, 1);
    let t = cabrito_gen::generate(&plain).unwrap();
    c.send(&ClientMessage::grade("dead", &plain, t.solution_code.clone(), Some(2))).await;
    let Some(ServerMessage::Result(r)) = c.until_final("dead", T).await.pop() else { panic!("a result") };
    assert!(r.passed, "{}", r.message);
}
