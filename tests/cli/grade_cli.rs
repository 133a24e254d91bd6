//! `cabrito grade` end to end: the reference layout with Cabrito tasks, bad input (unparsable
//! lines, missing fields, unknown tasks, binary files), last-line-wins deduplication, resuming,
//! sharding, the folder-of-solutions mode and the exit status of the binary.
#![cfg(not(target_arch = "wasm32"))]

use cabrito_gen::{Axis, Domain, Kind, TaskSpec};
use cabrito_native::grade::{grade_dirs, GradeArgs};
use cabrito_native::runner::GradeOptions;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

const RUN: &str = "function_traversal_cn=(25,25)_en=(5,5)_prop=(0.45,0.55)_psame=(0.9,0.9)_ce=(0.3,0.3)_ee=(0.3,0.3)_attach=(0.3,0.3)_centry=(1,1)_eentry=(1,1)";

struct Setup {
    dir: tempfile::TempDir,
    tasks: Vec<cabrito_gen::Task>,
}

/// Two add_parameter math tasks and one dead_code string task, as reference records.
fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let mut tasks = Vec::new();
    for (kind, domain, seed) in [
        (Kind::AddParameter, Domain::Math, 1),
        (Kind::AddParameter, Domain::Math, 2),
        (Kind::DeadCode, Domain::String, 3),
    ] {
        tasks.push(cabrito_gen::generate(&TaskSpec::new(kind, domain, Axis::Traversal, 5, seed)).unwrap());
    }
    for (set, ty) in [("math_function", "add_parameter"), ("string_function", "dead_code")] {
        let recs: Vec<Value> = tasks
            .iter()
            .filter(|t| t.name.starts_with(&format!("{set}_{ty}")))
            .map(|t| json!({"name": t.name, "dag_id": t.dag_id, "prompt": "", "starter_code": t.starter_code, "solution_code": t.solution_code, "metadata": {}}))
            .collect();
        let d = dir.path().join("tasks").join(RUN).join(set);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join(format!("{ty}.json")), serde_json::to_string_pretty(&recs).unwrap()).unwrap();
    }
    Setup { dir, tasks }
}

fn line(t: &cabrito_gen::Task, code: &str) -> String {
    json!({"name": t.name, "dag_id": t.dag_id, "output": format!("# === solution.py ===\n{code}"), "metadata": {}})
        .to_string()
}

fn write_responses(root: &Path, set: &str, ty: &str, model: &str, lines: &[String]) -> PathBuf {
    let d = root.join("responses").join(RUN).join(set).join(ty).join("code");
    let p = d.join(format!("{model}.jsonl"));
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
    p
}

fn args(root: &Path, shard: (usize, usize)) -> GradeArgs {
    GradeArgs {
        tasks: root.to_path_buf(),
        responses: Some(root.to_path_buf()),
        solutions: None,
        out: root.join("out"),
        opts: GradeOptions { trials: 3, ..Default::default() },
        shard,
        jobs: Some(2),
        progress: false,
    }
}

fn results(root: &Path, set: &str, ty: &str, model: &str) -> Vec<Value> {
    let p = root.join("out/results").join(RUN).join(set).join(ty).join("code").join(format!("{model}.jsonl"));
    std::fs::read_to_string(&p).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn bad_input_gets_a_record_naming_the_problem() {
    let s = setup();
    let (a, b) = (&s.tasks[0], &s.tasks[1]);
    let root = s.dir.path();
    write_responses(
        root,
        "math_function",
        "add_parameter",
        "org/model-x",
        &[
            line(a, &a.starter_code),
            "{not json".into(),
            json!({"name": b.name, "output": "x"}).to_string(),
            json!({"name": b.name, "dag_id": b.dag_id, "output": null, "error": "rate limited"}).to_string(),
            json!({"name": "ghost", "dag_id": "no-such-dag", "output": "# === solution.py ===\npass\n"}).to_string(),
            line(a, &a.solution_code), // the last line for `a` wins
            line(b, "def f(:\n    pass\n"),
        ],
    );
    // A task type with no task file, and a binary response file.
    write_responses(root, "math_function", "cache_function", "m", &[line(a, &a.solution_code)]);
    let bin = root.join("responses").join(RUN).join("math_function/add_parameter/code/binary.jsonl");
    std::fs::write(&bin, [0u8, 159, 146, 150, 255, 0, 10, 1, 2]).unwrap();

    let summary = grade_dirs(&args(root, (1, 1))).expect("grades");
    let recs = results(root, "math_function", "add_parameter", "org/model-x");
    assert_eq!(recs.len(), 5, "{recs:#?}");
    // a: the last line (the reference) won and scored 1, in first-seen position.
    assert_eq!(recs[0]["dag_id"], json!(a.dag_id));
    assert_eq!(recs[0]["score"], json!(1), "{}", recs[0]);
    assert!(
        recs[1]["error"].as_str().unwrap().contains("line 2")
            && recs[1]["error"].as_str().unwrap().contains("not a JSON")
    );
    assert!(recs[2]["error"].as_str().unwrap().contains("'dag_id'"), "{}", recs[2]);
    // b: its last line (a syntax error) won over the earlier no-output line.
    let rb = recs.iter().find(|r| r["dag_id"] == json!(b.dag_id)).unwrap();
    assert_eq!(rb["score"], json!(0));
    let m = rb["message"].as_str().unwrap();
    assert!(m.contains("line 1") && m.contains("syntax error"), "{rb}");
    let ghost = recs.iter().find(|r| r["name"] == json!("ghost")).unwrap();
    assert!(ghost["error"].as_str().unwrap().contains("no task with dag_id 'no-such-dag'"), "{ghost}");
    let missing_file = results(root, "math_function", "cache_function", "m");
    assert!(missing_file[0]["error"].as_str().unwrap().contains("no task file"), "{}", missing_file[0]);
    // A binary file: each line gets its own record naming the line.
    let binary = results(root, "math_function", "add_parameter", "binary");
    assert_eq!(binary.len(), 2);
    assert!(binary[0]["error"].as_str().unwrap().contains("line 1: not UTF-8"), "{}", binary[0]);
    assert!(binary[1]["error"].as_str().unwrap().contains("line 2: not a JSON record"), "{}", binary[1]);
    assert!(summary.problems >= 5);
    // The meta file and the summary exist.
    assert!(root
        .join("out/results")
        .join(RUN)
        .join("math_function/add_parameter/code/org/model-x.meta.json")
        .is_file());
    let sj: Value = serde_json::from_str(&std::fs::read_to_string(root.join("out/summary.json")).unwrap()).unwrap();
    assert!(sj["rows"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["kind"] == "add_parameter" && r["n"] == "5" && r["axis"] == "traversal"));
}

#[test]
fn resume_and_shards() {
    let s = setup();
    let root = s.dir.path();
    let lines: Vec<String> = s.tasks[..2].iter().map(|t| line(t, &t.solution_code)).collect();
    write_responses(root, "math_function", "add_parameter", "m", &lines);
    let dead = &s.tasks[2];
    write_responses(root, "string_function", "dead_code", "m", &[line(dead, &dead.starter_code)]);
    let first = grade_dirs(&args(root, (1, 1))).unwrap();
    assert_eq!((first.graded, first.reused), (3, 0));
    let again = grade_dirs(&args(root, (1, 1))).unwrap();
    assert_eq!((again.graded, again.reused), (0, 3));
    let recs = results(root, "math_function", "add_parameter", "m");
    assert!(recs.iter().all(|r| r["score"] == json!(1)));
    let dead_rec = &results(root, "string_function", "dead_code", "m")[0];
    assert_eq!(dead_rec["score"], json!(0));
    assert_eq!(dead_rec["summary"]["function_existence"]["fail"], json!(1), "{dead_rec}");
    // Shards split the work and together cover it.
    let s1 = grade_dirs(&args(root, (1, 2))).unwrap();
    let s2 = grade_dirs(&args(root, (2, 2))).unwrap();
    assert_eq!(s1.graded + s2.graded, 3);
    assert!(s1.graded > 0 && s2.graded > 0);
}

#[test]
fn folder_of_solutions() {
    let s = setup();
    let root = s.dir.path();
    let sol = root.join("mine");
    std::fs::create_dir_all(&sol).unwrap();
    std::fs::write(sol.join(format!("{}.py", s.tasks[0].dag_id)), &s.tasks[0].solution_code).unwrap();
    std::fs::write(sol.join(format!("{}.py", s.tasks[2].name)), &s.tasks[2].starter_code).unwrap();
    std::fs::write(sol.join("nobody.py"), "pass\n").unwrap();
    let mut a = args(root, (1, 1));
    a.responses = None;
    a.solutions = Some(sol);
    let summary = grade_dirs(&a).unwrap();
    assert_eq!(summary.graded, 3);
    let ok = std::fs::read_to_string(
        root.join("out/results").join(RUN).join("math_function/add_parameter/files/mine.jsonl"),
    )
    .unwrap();
    assert!(ok.contains("\"score\":1"), "{ok}");
    let unmatched =
        std::fs::read_to_string(root.join("out/results/unmatched/unmatched/unmatched/files/mine.jsonl")).unwrap();
    assert!(unmatched.contains("no task has dag_id or name 'nobody'"), "{unmatched}");
}

#[test]
fn the_binary_reports_usage_errors_with_status_2() {
    let exe = env!("CARGO_BIN_EXE_cabrito");
    let out = std::process::Command::new(exe)
        .args(["grade", "--tasks", "/nonexistent", "--responses", "/nonexistent", "--out", "/tmp/x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a folder"));
    let out = std::process::Command::new(exe).args(["grade", "--tasks", "/tmp", "--out", "/tmp/x"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = std::process::Command::new(exe)
        .args(["grade", "--tasks", "/tmp", "--solutions", "/tmp", "--out", "/tmp/x", "--trials", "0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn the_binary_grades_and_prints_a_table() {
    let s = setup();
    let root = s.dir.path();
    let lines: Vec<String> = s.tasks[..2].iter().map(|t| line(t, &t.solution_code)).collect();
    write_responses(root, "math_function", "add_parameter", "m", &lines);
    let exe = env!("CARGO_BIN_EXE_cabrito");
    let r = root.display().to_string();
    let out = std::process::Command::new(exe)
        .args(["grade", "--tasks", &r, "--responses", &r, "--out", &format!("{r}/o"), "--trials", "2", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["rows"][0]["passed"], json!(2));
    assert_eq!(j["rows"][0]["accuracy"], json!(1.0));
}

/// One seed's graph is shared by every kind and domain, so `<dag_id>.py` can name several tasks: that
/// file is not graded, its record lists the tasks, and the other files are graded on. `<name>.py` is exact.
#[test]
fn a_dag_id_shared_by_several_tasks_is_an_error_listing_them() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let mut tasks = Vec::new();
    for (kind, domain) in [(Kind::AddParameter, Domain::Math), (Kind::DeadCode, Domain::String)] {
        let t = cabrito_gen::generate(&TaskSpec::new(kind, domain, Axis::Traversal, 5, 9)).unwrap();
        let set = format!("{}_function", domain.as_str());
        let d = root.join("tasks").join(RUN).join(&set);
        std::fs::create_dir_all(&d).unwrap();
        let rec = json!([{"name": t.name, "dag_id": t.dag_id, "starter_code": t.starter_code, "solution_code": t.solution_code}]);
        std::fs::write(d.join(format!("{}.json", kind.as_str())), rec.to_string()).unwrap();
        tasks.push(t);
    }
    assert_eq!(tasks[0].dag_id, tasks[1].dag_id, "one seed, one graph");
    let sol = root.join("mine");
    std::fs::create_dir_all(&sol).unwrap();
    std::fs::write(sol.join(format!("{}.py", tasks[0].dag_id)), &tasks[0].solution_code).unwrap();
    std::fs::write(sol.join(format!("{}.py", tasks[0].name)), &tasks[0].solution_code).unwrap();
    let mut a = args(root, (1, 1));
    a.responses = None;
    a.solutions = Some(sol);
    let summary = grade_dirs(&a).unwrap();
    assert_eq!(summary.problems, 1);
    let exact = std::fs::read_to_string(
        root.join("out/results").join(RUN).join("math_function/add_parameter/files/mine.jsonl"),
    )
    .unwrap();
    assert!(exact.contains("\"score\":1"), "{exact}");
    let ambiguous =
        std::fs::read_to_string(root.join("out/results/unmatched/unmatched/unmatched/files/mine.jsonl")).unwrap();
    assert!(ambiguous.contains("matches 2 tasks"), "{ambiguous}");
    assert!(ambiguous.contains(&tasks[0].name) && ambiguous.contains(&tasks[1].name), "{ambiguous}");
}
