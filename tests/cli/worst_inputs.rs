//! The newest entry points (`report`, `traces`, `solve`, `agent`, `grid`) given the worst inputs a
//! user can give: an empty folder, a file where a folder is expected, files of NUL bytes, JSON
//! nested 10,000 deep, a folder where a file is expected, names with line breaks. Each is a clear
//! error naming what is wrong, exit status non-zero, no output folder, no panic.
#![cfg(not(target_arch = "wasm32"))]

use std::path::Path;
use std::process::{Command, Output};

fn cabrito(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cabrito")).args(args).output().expect("the binary runs")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The run failed with a message holding `said`, wrote no `out`, and did not panic.
fn refused(o: &Output, out: &Path, said: &str, what: &str) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(matches!(o.status.code(), Some(1 | 2)), "{what}: {:?}\n{err}", o.status);
    assert!(err.contains(said), "{what}: '{said}' not in:\n{err}");
    assert!(!err.contains("panicked") && !err.contains("RUST_BACKTRACE"), "{what}: {err}");
    assert!(!out.exists(), "{what}: wrote {}", out.display());
}

/// A file of each worst kind, under `dir` at `rel`.
fn worst_files(dir: &Path, rel: &str) {
    let nul = dir.join(format!("{rel}/nul.jsonl"));
    std::fs::create_dir_all(nul.parent().unwrap()).unwrap();
    std::fs::write(&nul, vec![0u8; 4096]).unwrap();
    let deep = "[".repeat(10_000) + &"]".repeat(10_000) + "\n";
    std::fs::write(dir.join(format!("{rel}/deep.jsonl")), &deep).unwrap();
    std::fs::write(dir.join(format!("{rel}/deep-in-object.jsonl")), format!("{{\"name\": {deep}}}\n")).unwrap();
    std::fs::write(dir.join(format!("{rel}/empty.jsonl")), "").unwrap();
    std::fs::create_dir_all(dir.join(format!("{rel}/folder.jsonl"))).unwrap();
    std::fs::write(dir.join(format!("{rel}/line\nbreak.jsonl")), "not JSON\n").unwrap();
}

#[test]
fn report_and_traces_refuse_the_worst_inputs() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("out");
    let empty = t.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let file = t.path().join("a-file.jsonl");
    std::fs::write(&file, "{}\n").unwrap();
    let results = t.path().join("results");
    worst_files(&results, "run/math_function/dead_code/code");
    let traces = t.path().join("traces");
    worst_files(&traces, "s1");

    for (args, said) in [
        (vec!["report", "--results", s(&empty)], "no results found"),
        (vec!["report", "--results", s(&file)], "is not a folder"),
        (vec!["report", "--results", s(&results)], "no results found"),
        (vec!["traces", "--traces", s(&empty)], "no traces under"),
        (vec!["traces", "--traces", s(&file)], "is not a folder"),
        (vec!["traces", "--traces", s(&traces)], "no traces under"),
        (vec!["traces", "--traces", s(&traces), "--tasks", s(&file)], "is not a folder"),
    ] {
        let mut args = args.clone();
        args.extend(["--out", s(&out)]);
        refused(&cabrito(&args), &out, said, &args.join(" "));
    }
    // The worst files are each named with what is wrong with them.
    let o = cabrito(&["report", "--results", s(&results), "--out", s(&out)]);
    let err = String::from_utf8_lossy(&o.stderr);
    for name in ["nul.jsonl", "deep.jsonl", "deep-in-object.jsonl"] {
        assert!(err.contains(name), "{name} not named in:\n{err}");
    }
    let o = cabrito(&["traces", "--traces", s(&traces), "--out", s(&out)]);
    let err = String::from_utf8_lossy(&o.stderr);
    for name in ["nul.jsonl", "deep.jsonl", "empty.jsonl"] {
        assert!(err.contains(name), "{name} not named in:\n{err}");
    }
}

/// Puts one worst thing at a path.
type MakeFile = dyn Fn(&Path);

#[test]
fn agent_solve_and_grid_refuse_the_worst_inputs() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("out");
    let empty = t.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let file = t.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    // A task folder whose only task file is each worst thing in turn.
    let tasks = t.path().join("tasks-root");
    let task_file = tasks.join("tasks/function_traversal_cn=(25,25)_en=(5,5)/math_function/dead_code.json");
    std::fs::create_dir_all(task_file.parent().unwrap()).unwrap();
    let endpoint = "http://127.0.0.1:9/v1";
    let bad_files: [(&str, Box<MakeFile>); 4] = [
        ("NUL bytes", Box::new(|p: &Path| std::fs::write(p, vec![0u8; 4096]).unwrap())),
        (
            "nested 10,000 deep",
            Box::new(|p: &Path| std::fs::write(p, "[".repeat(10_000) + &"]".repeat(10_000)).unwrap()),
        ),
        ("empty", Box::new(|p: &Path| std::fs::write(p, "").unwrap())),
        ("a folder", Box::new(|p: &Path| std::fs::create_dir_all(p).unwrap())),
    ];
    for (what, make) in &bad_files {
        let _ = std::fs::remove_file(&task_file);
        let _ = std::fs::remove_dir_all(&task_file);
        make(&task_file);
        let o = cabrito(&["agent", "--strategy", "reader", "--tasks", s(&tasks), "--out", s(&out)]);
        refused(&o, &out, "no task under", &format!("agent, task file of {what}"));
        let o = cabrito(&["solve", "--endpoint", endpoint, "--model", "m", "--tasks", s(&tasks), "--out", s(&out)]);
        refused(&o, &out, "no task under", &format!("solve, task file of {what}"));
    }
    for dir in [&empty, &file] {
        let o = cabrito(&["agent", "--strategy", "reader", "--tasks", s(dir), "--out", s(&out)]);
        refused(&o, &out, s(dir), "agent");
        let o = cabrito(&["solve", "--endpoint", endpoint, "--model", "m", "--tasks", s(dir), "--out", s(&out)]);
        refused(&o, &out, s(dir), "solve");
    }
    // grid: --out naming a file is a usage error that says so.
    let o = cabrito(&["grid", "--out", s(&file), "--samples", "1", "--kinds", "dead_code", "--sizes", "5"]);
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("is a file, not a folder"));
    assert_eq!(std::fs::read(&file).unwrap(), b"x");
}
