//! A kind is its module plus one registry line: the toy kind (`crates/gen/src/kinds/toy.rs`, the
//! cargo feature `toy-kind`) is generated, checked and graded, and found in the grid, share links,
//! results and the app's kind list, with no other edit. Run it with
//! `cargo test --features toy-kind --test toy_kind`; any table of kinds kept outside the registry
//! fails it (the toy's registry line comes first, so a hand-kept order shows it misplaced).
#![cfg(all(feature = "toy-kind", not(target_arch = "wasm32")))]

#[path = "run_support/mod.rs"]
mod run_support;

use cabrito_gen::spec::{Axis, Domain, Kind, TaskSpec, Values, KNOBS};
use run_support::{column_of, ok};
use serde_json::{json, Value};
use std::process::{Command, Output};

fn cabrito(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cabrito")).args(args).output().expect("cabrito runs")
}

#[test]
fn the_toy_kind_is_in_the_registries_lists() {
    assert_eq!(Kind::ALL[0], Kind::Toy);
    assert_eq!(Kind::parse("toy_kind"), Some(Kind::Toy));
    // The app's kind control and its links.
    let kind_knob = KNOBS.iter().find(|k| k.key == "kind").unwrap();
    assert!(matches!(kind_knob.values, Values::Choice(names) if names.contains(&"toy_kind")));
    let spec = TaskSpec::new(Kind::Toy, Domain::Math, Axis::Search, 7, 3);
    let fragment = cabrito::playground::route::fragment(&spec);
    assert!(fragment.contains("kind=toy_kind"), "{fragment}");
    match cabrito::playground::route::parse(&fragment) {
        cabrito::playground::route::Route::Task(s) => assert_eq!(s, spec),
        other => panic!("{fragment} reads as {other:?}"),
    }
    // Results: its task type, pass rule and facet order.
    use cabrito_analysis::results::runs;
    let task = cabrito_gen::generate(&spec).unwrap();
    assert_eq!(runs::split_task_name(&task.name, &task.dag_id), Some(("math_function".into(), "toy_kind".into())));
    assert_eq!(runs::required_kinds("function_search", "toy_kind"), Some(vec!["behavioral", "function_existence"]));
}

#[test]
fn the_toy_kind_generates_checks_grades_and_reports() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();

    // Generate one, and its link.
    let one = ok(&cabrito(&["generate", "--kind", "toy_kind", "--n", "5", "--json"]), "generate");
    let task: Value = serde_json::from_str(&one).unwrap();
    assert_eq!(task["spec"]["kind"], "toy_kind");
    let link = ok(&cabrito(&["link", "--kind", "toy_kind", "--n", "5"]), "link");
    assert!(link.contains("kind=toy_kind"), "{link}");

    // Check: the reference passes the rubric, the starter fails the toy's own must-have.
    let task_file = root.join("task.json");
    std::fs::write(&task_file, &one).unwrap();
    let (reference, starter) = (root.join("reference.py"), root.join("starter.py"));
    std::fs::write(&reference, task["solution_code"].as_str().unwrap()).unwrap();
    std::fs::write(&starter, task["starter_code"].as_str().unwrap()).unwrap();
    let tf = task_file.to_str().unwrap();
    ok(&cabrito(&["check", "--task-file", tf, "--solution", reference.to_str().unwrap()]), "check the reference");
    let st = cabrito(&["check", "--task-file", tf, "--solution", starter.to_str().unwrap(), "--json"]);
    assert_eq!(st.status.code(), Some(1));
    let rubric: Value = serde_json::from_slice(&st.stdout).unwrap();
    let items = rubric["items"].as_array().expect("rubric items");
    let existence = items.iter().find(|i| i["id"] == "function_existence").expect("the toy's own item");
    assert_eq!((existence["must_have"].as_bool(), existence["passed"].as_bool()), (Some(true), Some(false)));

    // The grid: the toy on the axes it is built for, in the reference layout.
    let grid = root.join("grid");
    let out =
        cabrito(&["grid", "--out", grid.to_str().unwrap(), "--kinds", "toy_kind", "--sizes", "5", "--samples", "2"]);
    ok(&out, "grid");
    let mut files: Vec<String> = Vec::new();
    for run in std::fs::read_dir(grid.join("tasks")).unwrap().flatten().filter(|e| e.path().is_dir()) {
        for set in std::fs::read_dir(run.path()).unwrap().flatten() {
            for f in std::fs::read_dir(set.path()).unwrap().flatten() {
                let rel = f.path().strip_prefix(grid.join("tasks")).unwrap().to_string_lossy().into_owned();
                files.push(rel);
            }
        }
    }
    files.sort();
    assert_eq!(files.len(), 2, "{files:?}");
    assert!(files.iter().all(|f| f.ends_with("/math_function/toy_kind.json")), "{files:?}");
    assert!(files[0].starts_with("function_search_") && files[1].starts_with("function_traversal_"), "{files:?}");

    // Answers: `good` gives the reference, `starter` the starter; graded by CPython.
    for rel in &files {
        let tasks: Vec<Value> =
            serde_json::from_str(&std::fs::read_to_string(grid.join("tasks").join(rel)).unwrap()).unwrap();
        let parts: Vec<&str> = rel.split('/').collect();
        let d = root.join("runs/responses").join(parts[0]).join(parts[1]).join("toy_kind").join("code");
        std::fs::create_dir_all(&d).unwrap();
        for (model, field) in [("good", "solution_code"), ("starter", "starter_code")] {
            let lines: Vec<String> = tasks
                .iter()
                .map(|t| {
                    let output = format!("# === solution.py ===\n{}", t[field].as_str().unwrap());
                    json!({"name": t["name"], "dag_id": t["dag_id"], "output": output, "metadata": {}}).to_string()
                })
                .collect();
            std::fs::write(d.join(format!("{model}.jsonl")), lines.join("\n") + "\n").unwrap();
        }
    }
    let graded = root.join("graded");
    let grade = ok(
        &cabrito(&[
            "grade",
            "--tasks",
            grid.to_str().unwrap(),
            "--responses",
            root.join("runs").to_str().unwrap(),
            "--out",
            graded.to_str().unwrap(),
            "--trials",
            "2",
        ]),
        "grade",
    );
    assert!(grade.contains("toy_kind"), "{grade}");

    // A hand-written result: behaviour passes but the toy's own required check fails, so the task
    // fails by the registry's rule (a separate table that knew nothing of the toy would pass it).
    let run = files[1].split('/').next().unwrap().to_string();
    let by_hand = graded.join("results").join(&run).join("math_function").join("toy_kind").join("code");
    std::fs::create_dir_all(&by_hand).unwrap();
    let summary = json!({
        "behavioral": {"pass": 1, "fail": 0, "error": 0},
        "function_existence": {"pass": 0, "fail": 1, "error": 0},
    });
    let rec = json!({"name": "math_function_toy_kind_by-hand", "dag_id": "by-hand", "summary": summary});
    std::fs::write(by_hand.join("hand.jsonl"), rec.to_string() + "\n").unwrap();
    // And one dead_code result beside it, for the order of kinds.
    let dead = graded.join("results").join(&run).join("math_function").join("dead_code").join("code");
    std::fs::create_dir_all(&dead).unwrap();
    let rec = json!({"name": "math_function_dead_code_x", "dag_id": "x", "summary": {"behavioral": {"pass": 1, "fail": 0, "error": 0}}});
    std::fs::write(dead.join("hand.jsonl"), rec.to_string() + "\n").unwrap();

    // The report reads the toy's results: its kind, axis, n and pass.
    let report = root.join("report");
    ok(&cabrito(&["report", "--results", graded.to_str().unwrap(), "--out", report.to_str().unwrap()]), "report");
    let tasks = std::fs::read_to_string(report.join("tables/tasks.csv")).unwrap();
    let (models, kinds, axes, ns, passed) = (
        column_of(&tasks, "model"),
        column_of(&tasks, "kind"),
        column_of(&tasks, "axis"),
        column_of(&tasks, "n"),
        column_of(&tasks, "passed"),
    );
    assert_eq!(kinds.len(), 10, "{tasks}");
    for i in 0..kinds.len() {
        if kinds[i] == "dead_code" {
            continue;
        }
        assert_eq!(kinds[i], "toy_kind");
        assert!(axes[i] == "search" || axes[i] == "traversal", "{}", axes[i]);
        assert_eq!(ns[i], "5");
        let want = if models[i].ends_with("good") { "1" } else { "0" };
        assert_eq!(passed[i], want, "{}: {tasks}", models[i]);
    }
    assert!(models.iter().any(|m| m.ends_with("hand")));
    // The figure by kind shows the kinds in registry order: the toy before dead_code.
    let by_kind = std::fs::read_to_string(report.join("figures/accuracy_by_kind.svg")).unwrap();
    let (toy, dead) =
        (by_kind.find("toy_kind").expect("the toy's panel"), by_kind.find("dead_code").expect("dead code's"));
    assert!(toy < dead, "the toy's panel comes after dead_code's");
}
