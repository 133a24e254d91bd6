//! `cabrito check` end to end: spec flags and task files (Cabrito tasks and reference records), text and
//! JSON output, exit statuses, and bad input.

#![cfg(not(target_arch = "wasm32"))]

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

use crate::guard;
use guard::fixtures;

fn cabrito(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cabrito")).args(args).output().expect("cabrito runs")
}

fn code(o: &Output) -> i32 {
    o.status.code().expect("exited")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

struct Dir(tempfile::TempDir);

impl Dir {
    fn new() -> Dir {
        Dir(tempfile::tempdir().unwrap())
    }
    fn write(&self, name: &str, content: impl AsRef<[u8]>) -> String {
        let p = self.0.path().join(name);
        std::fs::write(&p, content).unwrap();
        p.to_string_lossy().to_string()
    }
    fn path(&self, name: &str) -> PathBuf {
        self.0.path().join(name)
    }
}

const SPEC: [&str; 8] = ["--kind", "cache_function", "--domain", "string", "--n", "10", "--seed", "4"];

fn generated(dir: &Dir) -> (String, String, String) {
    let out = dir.path("task");
    let o = cabrito(&[&["generate"], &SPEC[..], &["--out", out.to_str().unwrap()]].concat());
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let p = |n: &str| out.join(n).to_string_lossy().to_string();
    (p("task.json"), p("solution.py"), p("reference.py"))
}

#[test]
fn spec_flags_and_task_file_agree() {
    let d = Dir::new();
    let (task, starter, reference) = generated(&d);
    let by_spec = cabrito(&[&["check"], &SPEC[..], &["--solution", &reference, "--json"]].concat());
    assert_eq!(code(&by_spec), 0, "{}", stderr(&by_spec));
    let by_file = cabrito(&["check", "--task-file", &task, "--solution", &reference, "--json"]);
    assert_eq!(code(&by_file), 0, "{}", stderr(&by_file));
    let a: Value = serde_json::from_str(&stdout(&by_spec)).unwrap();
    let b: Value = serde_json::from_str(&stdout(&by_file)).unwrap();
    assert_eq!(a["items"], b["items"]);
    assert_eq!(a["passed"], true);
    assert_eq!(a["task"]["kind"], "cache_function");

    let st = cabrito(&["check", "--task-file", &task, "--solution", &starter, "--json"]);
    assert_eq!(code(&st), 1);
    let v: Value = serde_json::from_str(&stdout(&st)).unwrap();
    assert_eq!(v["passed"], false);
    let failed: Vec<&str> = v["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["must_have"] == true && i["passed"] == false)
        .map(|i| i["id"].as_str().unwrap())
        .collect();
    assert_eq!(failed, ["required_parameter", "parameter_passed", "library_calls"]);

    let text = cabrito(&["check", "--task-file", &task, "--solution", &starter]);
    let t = stdout(&text);
    assert!(t.contains("✗ must  required_parameter") && t.contains("FAIL: 3 of"), "{t}");
}

#[test]
fn responses_in_every_format() {
    let d = Dir::new();
    let (task, starter, reference) = generated(&d);
    let (s, r) = (std::fs::read_to_string(&starter).unwrap(), std::fs::read_to_string(&reference).unwrap());
    let diff = similar::TextDiff::from_lines(&s, &r).unified_diff().header("solution.py", "solution.py").to_string();
    for (name, body) in [
        (
            "block.txt",
            format!("<thought>ok</thought>\n<solution>\n# === solution.py ===\n```python\n{r}```\n</solution>\n"),
        ),
        ("patch.diff", diff),
    ] {
        let f = d.write(name, body);
        let o = cabrito(&["check", "--task-file", &task, "--solution", &f, "--json"]);
        assert_eq!(code(&o), 0, "{name}: {}\n{}", stderr(&o), stdout(&o));
    }
    let empty_block = d.write("empty.txt", "<solution>\n# === solution.py ===\n</solution>\n");
    let o = cabrito(&["check", "--task-file", &task, "--solution", &empty_block]);
    assert_eq!(code(&o), 1);
    assert!(stdout(&o).contains("line 2:") && stdout(&o).contains("no code"), "{}", stdout(&o));
    let o = cabrito(&["check", "--task-file", &task, "--solution", &empty_block, "--json"]);
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["response"]["ok"], false);
    assert_eq!(v["response"]["error"]["line"], 2);
}

#[test]
fn reference_records() {
    let file = fixtures().join("function_traversal_en25/tasks/math_function/dead_code.json.gz");
    if !guard::fixture(&file) {
        return;
    }
    let f = file.to_str().unwrap();
    let d = Dir::new();
    // Two records: a name is needed.
    let o = cabrito(&["check", "--task-file", f, "--solution", "/dev/null"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("--task-name"), "{}", stderr(&o));
    let text = {
        use std::io::Read;
        let mut s = String::new();
        flate2::read::GzDecoder::new(std::fs::File::open(&file).unwrap()).read_to_string(&mut s).unwrap();
        s
    };
    let records: Vec<Value> = serde_json::from_str(&text).unwrap();
    for rec in &records {
        let name = rec["name"].as_str().unwrap();
        let sol = d.write("ref.py", rec["solution_code"].as_str().unwrap());
        let o = cabrito(&["check", "--task-file", f, "--task-name", name, "--solution", &sol, "--json"]);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
        assert_eq!(v["task"]["kind"], "dead_code");
        assert_eq!(v["task"]["domain"], "math");
        assert_eq!(v["task"]["source"], "reference task record");
        let st = d.write("st.py", rec["starter_code"].as_str().unwrap());
        let o =
            cabrito(&["check", "--task-file", f, "--task-name", rec["dag_id"].as_str().unwrap(), "--solution", &st]);
        assert_eq!(code(&o), 1);
        assert!(stdout(&o).contains("✗ must  function_existence"), "{}", stdout(&o));
    }
    // A single record without a recognisable name needs --kind/--domain.
    let mut rec = records[0].clone();
    rec["name"] = Value::String("mystery".into());
    let one = d.write("one.json", rec.to_string());
    let sol = d.write("ref.py", rec["solution_code"].as_str().unwrap());
    let o = cabrito(&["check", "--task-file", &one, "--solution", &sol]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("--kind"), "{}", stderr(&o));
    let o = cabrito(&["check", "--task-file", &one, "--kind", "dead_code", "--domain", "math", "--solution", &sol]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}

#[test]
fn bad_input() {
    let d = Dir::new();
    let (task, _, reference) = generated(&d);
    // 50 MB.
    let big = d.write("big.py", vec![b'#'; 50 * 1024 * 1024]);
    let o = cabrito(&["check", "--task-file", &task, "--solution", &big]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("2 MB"), "{}", stderr(&o));
    // Binary: invalid UTF-8, and valid UTF-8 with NULs.
    let bin = d.write("bin.py", [b'x', b'=', b'1', b'\n', 0xff, 0xfe, 0, 1]);
    let o = cabrito(&["check", "--task-file", &task, "--solution", &bin]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("not UTF-8"), "{}", stderr(&o));
    let nul = d.write("nul.py", "x = 1\n\0\0\0\n");
    let o = cabrito(&["check", "--task-file", &task, "--solution", &nul]);
    assert_eq!(code(&o), 1);
    assert!(stdout(&o).contains("line 2") && stdout(&o).contains("NUL"), "{}", stdout(&o));
    // A syntax error on line 3.
    let syn = d.write("syn.py", "import math\nx = 1\ndef f(:\n    pass\n");
    let o = cabrito(&["check", "--task-file", &task, "--solution", &syn]);
    assert_eq!(code(&o), 1);
    assert!(stdout(&o).contains("line 3: syntax error"), "{}", stdout(&o));
    // Usage errors: exit 2.
    for args in [
        vec!["check", "--solution", "/nonexistent/file.py"],
        vec!["check", "--task-file", "/nonexistent.json", "--solution", &reference],
        vec!["check", "--task-file", &task, "--n", "5", "--solution", &reference],
        vec!["check", "--kind", "nope", "--solution", &reference],
        vec!["check", "--task-file", &task],
        vec!["check", "--task-name", "x", "--solution", &reference],
    ] {
        let o = cabrito(&args);
        assert_eq!(code(&o), 2, "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).is_empty());
    }
    // Records with missing fields and non-JSON task files.
    let no_ref = d.write("noref.json", r#"{"name": "math_function_dead_code_x", "starter_code": "x = 1"}"#);
    let o = cabrito(&["check", "--task-file", &no_ref, "--solution", &reference]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("solution_code"), "{}", stderr(&o));
    let junk = d.write("junk.json", "not json at all");
    let o = cabrito(&["check", "--task-file", &junk, "--solution", &reference]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("not valid JSON"), "{}", stderr(&o));
}
