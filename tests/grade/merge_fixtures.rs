//! Agreement with the reference on Merge Codebases (D11): `cabrito grade` on the reference's own merge
//! run (../shared/fixtures/cabra-reference/merge_codebases_n200: two records, the reference's
//! solutions and the starters) in the reference's merge layout gives, per task and per check
//! (compilation, behavioral, difference_blocks), the verdicts of its verdicts.json; `cabrito check`
//! reads the run file (records picked by their dag_id) and its static `difference_blocks` agrees.
#![cfg(not(target_arch = "wasm32"))]

use cabrito_native::grade::{grade_dirs, GradeArgs};
use cabrito_native::runner::GradeOptions;
use serde_json::Value;
use std::io::Read;
use std::path::Path;
use std::process::Command;

use crate::guard;
use guard::fixtures;

const BUCKET: &str = "merge_codebases_n200";

fn gunzip(path: &Path) -> String {
    let mut s = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap()).read_to_string(&mut s).unwrap();
    s
}

fn run_name() -> String {
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(fixtures().join("manifest.json")).unwrap()).unwrap();
    manifest[BUCKET]["run_name"].as_str().unwrap().to_string()
}

/// tasks/<run>.json and responses/<run>/code/{solution,starter}.jsonl, as the reference lays them out.
fn layout(root: &Path) -> String {
    let base = fixtures().join(BUCKET);
    let run = run_name();
    std::fs::create_dir_all(root.join("tasks")).unwrap();
    std::fs::copy(base.join("tasks.json.gz"), root.join("tasks").join(format!("{run}.json.gz"))).unwrap();
    let dir = root.join("responses").join(&run).join("code");
    std::fs::create_dir_all(&dir).unwrap();
    for resp in ["solution", "starter"] {
        std::fs::write(
            dir.join(format!("{resp}.jsonl")),
            gunzip(&base.join("responses").join(format!("{resp}.jsonl.gz"))),
        )
        .unwrap();
    }
    run
}

#[test]
fn cabrito_grade_agrees_with_every_reference_verdict() {
    if !guard::fixture(&fixtures().join(BUCKET)) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let run = layout(dir.path());
    let out = dir.path().join("out");
    let args = GradeArgs {
        tasks: dir.path().to_path_buf(),
        responses: Some(dir.path().to_path_buf()),
        solutions: None,
        out: out.clone(),
        // The reference scorer's 20 vectors.
        opts: GradeOptions { trials: 20, ..Default::default() },
        shard: (1, 1),
        jobs: None,
        progress: false,
    };
    grade_dirs(&args).unwrap();
    let verdicts: Value =
        serde_json::from_str(&std::fs::read_to_string(fixtures().join(BUCKET).join("verdicts.json")).unwrap()).unwrap();
    let verdicts = verdicts.as_array().unwrap();
    assert_eq!(verdicts.len(), 4);
    let mut compared = 0;
    for v in verdicts {
        let resp = v["response"].as_str().unwrap();
        let dag = v["dag_id"].as_str().unwrap();
        let text =
            std::fs::read_to_string(out.join("results").join(&run).join("code").join(format!("{resp}.jsonl"))).unwrap();
        let ours: Value = text
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .find(|r| r["dag_id"] == dag)
            .unwrap_or_else(|| panic!("no result for {resp} {dag}"));
        assert_eq!(ours["name"], format!("{run}/{}", &dag["task_".len()..]));
        for (check, expected) in v["results"].as_object().unwrap() {
            assert_eq!(ours["results"][check]["type"], *expected, "{resp} {dag} {check}: {}", ours["results"][check]);
            assert_eq!(ours["summary"][check], v["summary"][check], "{resp} {dag} {check}");
            compared += 1;
        }
        let passes = v["results"]["behavioral"] == "pass" && v["results"]["difference_blocks"] == "pass";
        assert_eq!(ours["score"], u64::from(passes), "{resp} {dag}");
    }
    assert_eq!(compared, 12);
    let meta: Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("results").join(&run).join("code").join("starter.meta.json")).unwrap(),
    )
    .unwrap();
    assert_eq!((meta["run_name"].as_str(), meta["n_scored"].as_u64()), (Some(run.as_str()), Some(2)));
}

#[test]
fn cabrito_check_reads_the_run_file_by_dag_id() {
    if !guard::fixture(&fixtures().join(BUCKET)) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let run = layout(dir.path());
    let file = dir.path().join("tasks").join(format!("{run}.json.gz"));
    let base = fixtures().join(BUCKET).join("responses");
    for (resp, passes) in [("solution", true), ("starter", false)] {
        for (i, line) in gunzip(&base.join(format!("{resp}.jsonl.gz"))).lines().enumerate() {
            let j: Value = serde_json::from_str(line).unwrap();
            let sol = dir.path().join(format!("{resp}{i}.txt"));
            std::fs::write(&sol, j["output"].as_str().unwrap()).unwrap();
            let out = Command::new(env!("CARGO_BIN_EXE_cabrito"))
                .args(["check", "--json", "--task-file"])
                .arg(&file)
                .args(["--task-name", j["dag_id"].as_str().unwrap(), "--solution"])
                .arg(&sol)
                .output()
                .unwrap();
            let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
                panic!("{e}: {}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
            });
            assert_eq!(report["task"]["kind"], "merge_codebases");
            assert_eq!(report["task"]["name"], format!("{run}/{i:05}"));
            let item =
                report["items"].as_array().unwrap().iter().find(|i| i["id"] == "difference_blocks").unwrap().clone();
            assert_eq!(item["passed"], passes, "{resp} {i}: {item}");
            assert_eq!(out.status.code(), Some(if passes { 0 } else { 1 }), "{resp} {i}");
        }
    }
    // A name that is no record says how records are named.
    let out = Command::new(env!("CARGO_BIN_EXE_cabrito"))
        .args(["check", "--task-file"])
        .arg(&file)
        .args(["--task-name", "task_00007", "--solution", "-"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("task_00000 … task_00001"));
}
