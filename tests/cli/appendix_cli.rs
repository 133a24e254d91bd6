//! The command line on the appendix tasks (issue 10, item 9): `generate`, `link`, `grid`, `check`
//! and `grade` take the comment axis and the variable_renaming kind like every other axis and kind,
//! and bad values get one-line errors with status 2.
#![cfg(not(target_arch = "wasm32"))]

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

fn cabrito(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cabrito")).args(args).output().expect("the binary runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).to_string()
}

#[test]
fn generate_and_link() {
    let o = cabrito(&["generate", "--kind", "extract_helper", "--axis", "comment", "--n", "7", "--seed", "2"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let t: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(t["link"], "#/task?v=1&kind=extract_helper&axis=comment&n=7&seed=2");
    assert_eq!(t["metadata"]["comment"].as_str().unwrap().split(' ').count(), 7);
    let o = cabrito(&["generate", "--kind", "variable_renaming", "--n", "4", "--chain", "12"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let t: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(t["metadata"]["renames"].as_array().unwrap().len(), 4);
    assert!(t["name"].as_str().unwrap().starts_with("math_function_variable_renaming_"));
    let o = cabrito(&["link", "--kind", "variable_renaming", "--n", "4", "--chain", "12", "--base", "http://x/"]);
    assert_eq!(text(&o.stdout).trim(), "http://x/#/task?v=1&kind=variable_renaming&n=4&chain=12");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t");
    let o = cabrito(&["generate", "--kind", "variable_renaming", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(out.join("solution.py").is_file() && !out.join("dag.dot").exists());
    for (args, want) in [
        (&["generate", "--kind", "dead_code", "--axis", "comment"][..], "dead_code has no comment axis"),
        (&["generate", "--kind", "variable_renaming", "--domain", "array"][..], "domain must be one of math"),
        (
            &["generate", "--kind", "variable_renaming", "--n", "9", "--chain", "8"][..],
            "n must be an integer from 1 to 8",
        ),
        (&["generate", "--chain", "8"][..], "'chain' does not apply to add_parameter"),
        (
            &["link", "--kind", "variable_renaming", "--axis", "comment"][..],
            "'axis' does not apply to variable_renaming",
        ),
    ] {
        let o = cabrito(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let e = text(&o.stderr);
        assert!(e.contains(want) && e.trim().lines().count() == 1, "{args:?}: {e}");
    }
}

/// The reference records of a grid folder: (path, records).
fn records(root: &Path) -> Vec<(std::path::PathBuf, Vec<Value>)> {
    let mut out = Vec::new();
    for run in std::fs::read_dir(root.join("tasks")).unwrap() {
        let run = run.unwrap().path();
        for set in std::fs::read_dir(&run).unwrap() {
            for f in std::fs::read_dir(set.unwrap().path()).unwrap() {
                let f = f.unwrap().path();
                let v: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
                out.push((f, v));
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[test]
fn grid_check_and_grade() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let o = cabrito(&[
        "grid",
        "--out",
        root.to_str().unwrap(),
        "--axes",
        "comment,renaming",
        "--kinds",
        "add_return_value,variable_renaming,dead_code",
        "--domains",
        "math,string",
        "--sizes",
        "3,10",
        "--samples",
        "2",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("skipping dead_code on the comment axis"), "{}", text(&o.stderr));
    let recs = records(root);
    let runs: Vec<String> =
        recs.iter().map(|(p, _)| p.strip_prefix(root.join("tasks")).unwrap().to_string_lossy().into_owned()).collect();
    assert_eq!(runs.len(), 6, "{runs:?}");
    assert!(runs.iter().any(|r| r.starts_with("comment_copying_cn=(10,10)_en=(10,10)_")
        && r.contains("_words=3/string_function/add_return_value.json")));
    assert!(
        runs.contains(&"variable_renaming_chain=200_n=10/math_function/variable_renaming.json".to_string()),
        "{runs:?}"
    );

    // check: a reference-layout record of the comment axis, its axis read from the run folder.
    let (path, list) = recs.iter().find(|(p, _)| p.to_string_lossy().contains("_words=10/math")).unwrap();
    let rec = &list[1];
    let sol = root.join("mutant.py");
    let code = rec["solution_code"].as_str().unwrap();
    std::fs::write(&sol, code.replacen("    # ", "    # extra ", 1)).unwrap();
    let name = rec["name"].as_str().unwrap();
    let o = cabrito(&[
        "check",
        "--task-file",
        path.to_str().unwrap(),
        "--task-name",
        name,
        "--solution",
        sol.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let failed: Vec<&str> = report["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["must_have"] == true && i["passed"] == false)
        .map(|i| i["id"].as_str().unwrap())
        .collect();
    assert_eq!(failed, ["comment_copy"]);
    std::fs::write(&sol, code).unwrap();
    let o = cabrito(&[
        "check",
        "--task-file",
        path.to_str().unwrap(),
        "--task-name",
        name,
        "--solution",
        sol.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stdout));
    // check from spec flags.
    let t: Value =
        serde_json::from_slice(&cabrito(&["generate", "--kind", "variable_renaming", "--n", "3"]).stdout).unwrap();
    std::fs::write(&sol, t["starter_code"].as_str().unwrap()).unwrap();
    let o = cabrito(&["check", "--kind", "variable_renaming", "--n", "3", "--solution", sol.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stdout).contains("FAIL: 1 of") && text(&o.stdout).contains("(renames)"), "{}", text(&o.stdout));

    // grade: every reference passes, every starter fails, the summary has the axis and n.
    let sols = root.join("solutions");
    std::fs::create_dir_all(&sols).unwrap();
    let mut expected = std::collections::BTreeMap::new();
    for (_, list) in &recs {
        for (i, r) in list.iter().enumerate() {
            let code = if i == 0 { &r["solution_code"] } else { &r["starter_code"] };
            // Tasks of one seed share their dag_id across domains: solution files go by name.
            let name = r["name"].as_str().unwrap();
            std::fs::write(sols.join(format!("{name}.py")), code.as_str().unwrap()).unwrap();
            expected.insert(name.to_string(), i == 0);
        }
    }
    let out = root.join("graded");
    let o = cabrito(&[
        "grade",
        "--tasks",
        root.to_str().unwrap(),
        "--solutions",
        sols.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--trials",
        "3",
        "--json",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let summary: Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = summary["rows"].as_array().unwrap();
    assert!(
        rows.iter().any(|r| r["axis"] == "comment" && r["n"] == "3" && r["kind"] == "add_return_value"),
        "{rows:?}"
    );
    assert!(rows.iter().any(|r| r["kind"] == "variable_renaming" && r["n"] == "10"), "{rows:?}");
    assert!(rows.len() == 6 && rows.iter().all(|r| r["passed"] == 1 && r["tasks"] == 2), "{rows:?}");
    let mut seen = 0;
    for f in walk(&out.join("results")) {
        for line in std::fs::read_to_string(&f).unwrap().lines() {
            let r: Value = serde_json::from_str(line).unwrap();
            let name = r["name"].as_str().unwrap();
            assert_eq!(r["score"] == 1, expected[name], "{r}");
            let kinds: Vec<&str> =
                r["results"].as_array().unwrap().iter().map(|c| c["kind"].as_str().unwrap()).collect();
            assert!(kinds.contains(&"comment_copy") || kinds.contains(&"renames"), "{kinds:?}");
            seen += 1;
        }
    }
    assert_eq!(seen, expected.len());
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else if p.extension().is_some_and(|x| x == "jsonl") {
            out.push(p);
        }
    }
    out
}
