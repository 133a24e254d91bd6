//! Merge Codebases through the `cabrito` binary: a record in the reference's merge format plus
//! Cabrito's fields, links with the merge knobs, `grid --axes merge` in the reference's run-file layout,
//! and one-line usage errors (exit 2) for knobs that do not apply or do not fit.
#![cfg(not(target_arch = "wasm32"))]

use serde_json::Value;
use std::process::{Command, Output};

fn cabrito(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cabrito")).args(args).output().expect("the binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

#[test]
fn generate_prints_a_merge_record() {
    let o = cabrito(&["generate", "--kind", "merge_codebases", "--n", "30", "--d", "2", "--seed", "4", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    let keys: Vec<&str> = r.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "input",
            "input_with_space",
            "prompt",
            "solution",
            "allowed_transformations",
            "allowed_perturbations",
            "spec",
            "link",
            "sizes"
        ]
    );
    assert_eq!(r["link"], "#/task?v=1&kind=merge_codebases&n=30&seed=4&d=2");
    assert_eq!(r["allowed_transformations"][0], "rename_variables");
    assert_eq!(r["allowed_perturbations"].as_array().unwrap().len(), 4);
    assert_eq!(r["solution"].as_str().unwrap().matches("def custom_compute_").count(), 6);
    // The spec in the record regenerates the same task.
    let spec: cabrito_gen::TaskSpec = serde_json::from_value(r["spec"].clone()).unwrap();
    let t = cabrito_gen::generate(&spec).unwrap();
    assert_eq!(r["input"], t.starter_code);
    let link = cabrito(&["link", "--kind", "merge_codebases", "--n", "30", "--d", "2", "--seed", "4", "--base", ""]);
    assert_eq!(String::from_utf8_lossy(&link.stdout).trim(), "#/task?v=1&kind=merge_codebases&n=30&seed=4&d=2");

    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t");
    let o = cabrito(&[
        "generate",
        "--kind",
        "merge_codebases",
        "--n",
        "12",
        "--transformations",
        "reorder,rename_variables",
        "--perturbations",
        "flip_sign",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    for f in ["solution.py", "reference.py", "prompt.md", "llm_prompt.md", "task.json"] {
        assert!(out.join(f).is_file(), "{f}");
    }
    let r: Value = serde_json::from_str(&std::fs::read_to_string(out.join("task.json")).unwrap()).unwrap();
    assert_eq!(r["allowed_transformations"], serde_json::json!(["rename_variables", "reorder"]));
    assert_eq!(r["allowed_perturbations"], serde_json::json!(["flip_sign"]));
}

#[test]
fn usage_errors_say_what_is_allowed() {
    let cases: &[(&[&str], &str)] = &[
        (&["--domain", "string"], "'domain' does not apply to merge_codebases"),
        (&["--axis", "search"], "'axis' does not apply to merge_codebases"),
        (&["--d", "11"], "d must be an integer from 1 to 10"),
        (&["--n", "5", "--d", "4"], "needs n of at least (d+1)·min_block = 10"),
        (&["--perturbations", "none"], "perturbations must name at least 1"),
        (&["--transformations", "shuffle"], "unknown item 'shuffle'"),
    ];
    for (args, says) in cases {
        let mut all = vec!["generate", "--kind", "merge_codebases"];
        all.extend_from_slice(args);
        let o = cabrito(&all);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let e = stderr(&o);
        assert!(e.contains(says) && e.lines().count() == 1, "{args:?}: {e}");
    }
    let o = cabrito(&["generate", "--kind", "dead_code", "--d", "2"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("'d' does not apply to dead_code (only merge_codebases has it)"));
}

#[test]
fn grid_writes_the_merge_run_files() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let o = cabrito(&["grid", "--axes", "merge", "--sizes", "5,12", "--samples", "3", "--seed", "10", "--out", out]);
    assert!(o.status.success(), "{}", stderr(&o));
    for n in [5, 12] {
        let run = dir.path().join("tasks").join(format!("merge_codebases_n={n}_d=1_p=10_b=2_seed=10_tf=0.json"));
        let text = std::fs::read_to_string(&run).unwrap_or_else(|e| panic!("{}: {e}", run.display()));
        assert!(!text.contains('\n'), "a run file is one unindented JSON list");
        let records: Vec<Value> = serde_json::from_str(&text).unwrap();
        assert_eq!(records.len(), 3);
        // Record i is the task of seed 10 + i, in the reference's six fields.
        for (i, r) in records.iter().enumerate() {
            assert_eq!(r.as_object().unwrap().len(), 6);
            let spec =
                cabrito_native::records::merge_spec_of_run(run.file_stem().unwrap().to_str().unwrap(), i).unwrap();
            assert_eq!(spec.seed, 10 + i as u64);
            assert_eq!(r["solution"], cabrito_gen::generate(&spec).unwrap().solution_code);
        }
    }
    let jsonl = std::fs::read_to_string(dir.path().join("tasks.jsonl")).unwrap();
    assert_eq!(jsonl.lines().count(), 6);
    let first: Value = serde_json::from_str(jsonl.lines().next().unwrap()).unwrap();
    assert!(first.get("spec").is_some() && first.get("input").is_some());
    // The merge grid is only made when asked for by name.
    let o = cabrito(&["grid", "--kinds", "merge_codebases", "--out", out]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--axes merge"), "{}", stderr(&o));
    let o = cabrito(&["grid", "--axes", "merges", "--out", out]);
    assert_eq!(o.status.code(), Some(2));
    // The axes, then the kinds' own grids.
    let names = format!("{}, merge, renaming", cabrito_gen::Axis::NAMES.join(", "));
    assert!(stderr(&o).contains(&names), "{}", stderr(&o));
}
