//! `cabrito agent` through the real binary: one task from its spec and a grid from `cabrito grid`;
//! its responses graded by `cabrito grade` (CPython) and its traces read by `cabrito traces`.
#![cfg(not(target_arch = "wasm32"))]

use crate::run_support::ok;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

fn cabrito(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cabrito")).args(args).output().expect("run cabrito")
}

fn files(dir: &Path, ext: &str) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.to_string_lossy().ends_with(ext) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn one_task_from_its_spec_is_answered_graded_and_traced() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let o = out.to_str().unwrap();
    let stdout = ok(
        &cabrito(&[
            "agent",
            "--strategy",
            "reader",
            "--kind",
            "add_return_value",
            "--domain",
            "string",
            "--n",
            "10",
            "--seed",
            "4",
            "--out",
            o,
            "--window",
            "60",
        ]),
        "agent",
    );
    assert!(
        stdout.contains("reader: axis") && stdout.contains("add_return_value") && stdout.contains("1/1"),
        "{stdout}"
    );
    let responses = files(&out.join("responses"), ".jsonl");
    assert_eq!(responses.len(), 1);
    assert!(responses[0].ends_with("add_return_value/scripted/reader.jsonl"), "{}", responses[0].display());
    let rec: Value =
        serde_json::from_str(std::fs::read_to_string(&responses[0]).unwrap().lines().next().unwrap()).unwrap();
    assert!(rec["output"].as_str().unwrap().starts_with("# === solution.py ===\n"));
    let md = &rec["metadata"];
    assert_eq!(md["model"], "scripted/reader");
    assert_eq!(md["settings"]["window"], 60);
    assert!(md["tool_calls"].as_u64().unwrap() > 3);
    let trace = out.join(md["trace_path"].as_str().unwrap());
    let text = std::fs::read_to_string(&trace).unwrap();
    let header: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(header["session_id"], md["session_id"]);
    assert_eq!(header["task"]["dag_id"], rec["dag_id"]);
    assert!(header["task"]["link"].as_str().unwrap().starts_with("#/task?v=1&kind=add_return_value"));
    assert_eq!(text.lines().count() as u64, 1 + md["tool_calls"].as_u64().unwrap());
    // Every view showed at most 60 lines.
    for l in text.lines().skip(1) {
        let c: Value = serde_json::from_str(l).unwrap();
        if c["tool"] == "view" {
            let shown = c["output"]
                .as_str()
                .unwrap()
                .lines()
                .filter(|l| l.split_once(": ").is_some_and(|(n, _)| n.parse::<u32>().is_ok()))
                .count();
            assert!(shown <= 60, "{shown}");
        }
    }
    // cabrito grade runs the hidden tests on the answer.
    let graded = tmp.path().join("graded");
    let g = ok(
        &cabrito(&["grade", "--tasks", o, "--responses", o, "--out", graded.to_str().unwrap(), "--trials", "5"]),
        "grade",
    );
    assert!(g.contains("scripted/reader") && g.contains("1.000"), "{g}");
    // cabrito traces labels its calls and places the session on its axis.
    let labels = tmp.path().join("labels");
    let t = cabrito(&[
        "traces",
        "--traces",
        out.join("traces").to_str().unwrap(),
        "--tasks",
        o,
        "--out",
        labels.to_str().unwrap(),
    ]);
    ok(&t, "traces");
    let table2 = std::fs::read_to_string(labels.join("table2.csv")).unwrap();
    assert!(table2.contains("scripted/reader,traversal,1,"), "{table2}");
}

#[test]
fn a_grid_is_answered_in_parallel_and_graded() {
    let tmp = tempfile::tempdir().unwrap();
    let grid = tmp.path().join("grid");
    let g = grid.to_str().unwrap();
    ok(
        &cabrito(&["grid", "--out", g, "--sizes", "5", "--samples", "2", "--domains", "math", "--axes", "search"]),
        "grid",
    );
    let out = tmp.path().join("run");
    let o = out.to_str().unwrap();
    let s = ok(&cabrito(&["agent", "--strategy", "navigator", "--tasks", g, "--out", o, "--jobs", "2"]), "agent");
    assert!(s.contains("10/10") || s.lines().filter(|l| l.contains("2/2")).count() == 5, "{s}");
    let responses = files(&out.join("responses"), ".jsonl");
    assert_eq!(responses.len(), 5);
    assert_eq!(files(&out.join("traces"), ".jsonl").len(), 10);
    assert!(!out.join("tasks").exists(), "tasks from a folder are not copied");
    let graded = tmp.path().join("graded");
    let gr = ok(
        &cabrito(&[
            "grade",
            "--tasks",
            g,
            "--responses",
            o,
            "--out",
            graded.to_str().unwrap(),
            "--trials",
            "3",
            "--json",
        ]),
        "grade",
    );
    let summary: Value = serde_json::from_str(&gr).unwrap();
    let rows = summary["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 5, "{summary}");
    for r in rows {
        assert_eq!(r["passed"], r["tasks"], "{r}");
    }
}

#[test]
fn usage_errors_are_one_line_and_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let o = tmp.path().to_str().unwrap();
    for (args, want) in [
        (vec!["agent", "--strategy", "wizard", "--out", o], "strategies: reader, navigator, myopic"),
        (
            vec!["agent", "--strategy", "reader", "--window", "0", "--out", o],
            "window must be a whole number from 1 to 2000",
        ),
        (vec!["agent", "--strategy", "reader", "--lint-gate", "sometimes", "--out", o], "on or off"),
        (vec!["agent", "--strategy", "reader", "--n", "5", "--tasks", o, "--out", o], "not both"),
        (vec!["agent", "--strategy", "reader", "--tasks", o, "--out", o], "no task under"),
        (vec!["agent", "--strategy", "reader", "--kind", "nope", "--out", o], "kind"),
        (vec!["agent", "--strategy", "reader", "--prices", "1,2", "--out", o], "input,cached_input,output"),
    ] {
        let r = cabrito(&args);
        let err = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
    }
}

/// The runtime, instructions and merge axes: a grid's answers (the branch that runs, found by
/// running `check` from its text; the numbered requirements; the merged classes, their differing
/// lines found by running code through the `run` tool in the sandbox) pass the hidden tests.
#[test]
fn runtime_instructions_and_merge_grids_are_answered_and_graded() {
    let tmp = tempfile::tempdir().unwrap();
    let grid = tmp.path().join("grid");
    let g = grid.to_str().unwrap();
    ok(
        &cabrito(&[
            "grid",
            "--out",
            g,
            "--sizes",
            "5",
            "--samples",
            "1",
            "--domains",
            "math",
            "--axes",
            "runtime,instructions,merge",
        ]),
        "grid",
    );
    let out = tmp.path().join("run");
    let o = out.to_str().unwrap();
    let s = ok(&cabrito(&["agent", "--strategy", "reader", "--tasks", g, "--out", o]), "agent");
    assert_eq!(s.lines().filter(|l| l.contains("runtime") && l.contains("1/1")).count(), 5, "{s}");
    assert_eq!(s.lines().filter(|l| l.contains("instruction") && l.contains("1/1")).count(), 4, "{s}");
    assert!(s.lines().any(|l| l.contains("merge") && l.contains("1/1")), "{s}");
    let graded = tmp.path().join("graded");
    let gr = ok(
        &cabrito(&[
            "grade",
            "--tasks",
            g,
            "--responses",
            o,
            "--out",
            graded.to_str().unwrap(),
            "--trials",
            "3",
            "--json",
        ]),
        "grade",
    );
    let summary: Value = serde_json::from_str(&gr).unwrap();
    let rows = summary["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 10, "{summary}");
    for r in rows {
        assert_eq!(r["passed"], r["tasks"], "{r}");
    }
    // The merge answer came through `run`: the trace holds the analysis and the check of the result.
    let merge_trace = files(&out.join("traces"), ".jsonl")
        .into_iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .find(|t| t.lines().next().is_some_and(|h| h.contains("merge_codebases")))
        .expect("a merge trace");
    let runs: Vec<Value> = merge_trace
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|c| c["tool"] == "run")
        .collect();
    assert_eq!(runs.len(), 2, "{merge_trace}");
    assert!(runs[1]["output"].as_str().unwrap().contains("same results"), "{}", runs[1]);
}
