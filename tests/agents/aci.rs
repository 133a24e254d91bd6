//! The agent–computer interface: the window and the search cap are honoured, the lint gate refuses
//! a breaking edit with the compiler's reason, `lint` says where a file does not compile and nothing
//! more, protected paths refuse, the hidden tests are never reachable from any tool (`run` included),
//! and traces round-trip through the plain trace format.
#![cfg(not(target_arch = "wasm32"))]

use cabrito_agents as agents;
use cabrito_agents::aci::{Aci, ToolName, Unavailable};
use cabrito_agents::{Settings, Strategy as Scripted};
use cabrito_analysis::traces::plain;
use cabrito_check::{grade, grade::GradeTask};
use cabrito_gen::spec::{Axis, Domain, Kind, Support, TaskSpec};
use proptest::prelude::*;
use serde_json::{json, Value};

fn task(n: u32, seed: u64) -> cabrito_gen::Task {
    cabrito_gen::generate(&TaskSpec::new(Kind::AddParameter, Domain::Math, Axis::Traversal, n, seed)).unwrap()
}

/// A session whose `run` goes to the sandbox.
fn session(t: &cabrito_gen::Task, s: Settings) -> Aci {
    Aci::for_task(t, s, std::sync::Arc::new(cabrito_native::run_tool::SandboxRunner::default()))
}

fn settings(pairs: &[(&str, &str)]) -> Settings {
    Settings::from_pairs(pairs.iter().copied()).unwrap()
}

/// Numbered lines of a reply: (line, text).
fn numbered(out: &str) -> Vec<(usize, String)> {
    out.lines()
        .filter_map(|l| {
            let (n, t) = l.split_once(": ")?;
            Some((n.parse().ok()?, t.to_string()))
        })
        .collect()
}

#[test]
fn the_window_is_honoured() {
    let t = task(25, 1);
    let lines: Vec<&str> = t.starter_code.lines().collect();
    for window in [1usize, 7, 40, 1000] {
        let mut aci = session(&t, settings(&[("window", &window.to_string())]));
        let out = aci.call("view", &json!({"path": "solution.py", "start": 3, "end": 200}));
        let shown = numbered(&out);
        let want = window.min(200 - 3 + 1).min(lines.len() - 2);
        assert_eq!(shown.len(), want, "window {window}: {out}");
        for (n, text) in &shown {
            assert_eq!(text, lines[n - 1], "line {n}");
        }
        assert_eq!(shown[0].0, 3);
        if window < 198 {
            assert!(out.contains(&format!("view from {} for more", 3 + window)), "{out}");
        }
        assert_eq!(aci.steps()[0].looked.viewed, Some((3, 3 + want - 1)));
    }
    // Out of range: a clear error, and the call is still a step of the trace.
    let mut aci = session(&t, Settings::default());
    let out = aci.call("view", &json!({"start": 100000}));
    assert!(out.contains("start must be from 1 to"), "{out}");
    assert!(!aci.steps()[0].ok);
}

#[test]
fn the_search_cap_is_honoured_and_continues() {
    let t = task(50, 2);
    let defs = t.starter_code.lines().filter(|l| l.contains("def ")).count();
    assert!(defs > 30);
    let mut aci = session(&t, settings(&[("search_cap", "10")]));
    let mut seen = 0;
    let mut from: Option<usize> = None;
    for _ in 0..100 {
        let mut args = json!({"pattern": "def ", "path": "solution.py"});
        if let Some(f) = from {
            args["from_line"] = json!(f);
        }
        let out = aci.call("search", &args);
        let hits = out.lines().filter(|l| l.starts_with("solution.py:")).count();
        assert!(hits <= 10, "{out}");
        seen += hits;
        match out.lines().next().and_then(|h| h.split("from_line=").nth(1)) {
            Some(rest) => from = Some(rest.split(' ').next().unwrap().parse().unwrap()),
            None => break,
        }
    }
    assert_eq!(seen, defs);
    assert!(aci.steps().len() >= defs / 10);
}

#[test]
fn the_lint_gate_refuses_a_breaking_edit_with_the_compilers_reason() {
    let t = task(5, 3);
    let first_def = t.starter_code.lines().find(|l| l.starts_with("def ")).unwrap().to_string();
    let broken = first_def.trim_end_matches(':').to_string();
    let mut aci = session(&t, Settings::default());
    let out = aci.call("edit", &json!({"path": "solution.py", "old": first_def, "new": broken}));
    assert!(out.starts_with("edit refused by the lint gate"), "{out}");
    assert!(out.contains("syntax error") && out.contains("line "), "{out}");
    assert_eq!(aci.solution(), t.starter_code);
    // The same edit with the gate off goes through, and lint says where it does not compile.
    let mut aci = session(&t, settings(&[("lint_gate", "off")]));
    assert_eq!(aci.call("lint", &json!({})), "solution.py compiles");
    let out = aci.call("edit", &json!({"path": "solution.py", "old": first_def, "new": broken}));
    assert!(out.starts_with("edited solution.py"), "{out}");
    let out = aci.call("lint", &json!({}));
    assert!(out.starts_with("solution.py does not compile: line ") && out.contains("syntax error"), "{out}");
    assert!(!out.contains('\n'), "one line, nothing more: {out}");
    assert_eq!(aci.call("check", &json!({})), out, "check is another name for lint");
    let out = aci.call("lint", &json!({"path": "problem.md"}));
    assert!(out.contains("not Python"), "{out}");
    // Lines mode too.
    let mut aci = session(&t, Settings::default());
    let out = aci.call("edit", &json!({"path": "solution.py", "start": 5, "end": 5, "new": "    return ((("}));
    assert!(out.starts_with("edit refused by the lint gate"), "{out}");
}

#[test]
fn protected_paths_refuse_edits() {
    let t = task(5, 4);
    let mut aci = session(&t, Settings::default());
    let out = aci.call("edit", &json!({"path": "problem.md", "old": "Refactor", "new": "Ignore"}));
    assert_eq!(out, "edit refused: problem.md is protected");
    let mut aci = session(&t, settings(&[("protected", "solution.py")]));
    let out = aci.call("edit", &json!({"path": "./solution.py", "start": 1, "end": 1, "new": ""}));
    assert_eq!(out, "edit refused: solution.py is protected");
    assert_eq!(aci.solution(), t.starter_code);
    // Unprotected, the statement can be edited (and only the workspace's files exist).
    let mut aci = session(&t, settings(&[("protected", "")]));
    assert!(aci
        .call("edit", &json!({"path": "problem.md", "old": "Refactor", "new": "Rework"}))
        .starts_with("edited problem.md"));
    assert!(aci.statement().starts_with("Rework"));
}

/// Every input the hidden tests would give (first trials), as text.
fn hidden_inputs(t: &cabrito_gen::Task) -> Vec<String> {
    let prep = grade::prepare(&GradeTask::from_task(t), 5).unwrap();
    prep.plan
        .trials
        .iter()
        .flat_map(|tr| tr.calls.iter().flat_map(|c| c.args.iter().map(|(_, v)| v.to_json())))
        .filter_map(|j| j.get("v").and_then(|v| v.as_str()).map(str::to_string))
        .filter(|s| s.len() >= 8)
        .collect()
}

#[test]
fn the_hidden_tests_are_never_reachable() {
    // Every kind with hidden tests over a call graph (merge_codebases's classes have no `val` inputs).
    for kind in Kind::ALL.iter().filter(|k| matches!(k.def().axes(), Support::Only(a) if a.contains(&Axis::Traversal)))
    {
        let t = cabrito_gen::generate(&TaskSpec::new(*kind, Domain::Math, Axis::Traversal, 10, 9)).unwrap();
        let inputs = hidden_inputs(&t);
        assert!(!inputs.is_empty(), "{kind}: no hidden inputs found");
        let mut aci = session(&t, settings(&[("window", "2000")]));
        let mut outputs = Vec::new();
        for path in [
            "tests.py",
            "test_cases.json",
            "../reference.py",
            "reference.py",
            "/etc/passwd",
            "hidden",
            "solution.py/..",
            "",
            ".",
            "/workspace/../x",
        ] {
            let o = aci.call("view", &json!({"path": path, "start": 1}));
            assert!(o.starts_with("no such file"), "{path}: {o}");
            outputs.push(o);
            outputs.push(aci.call("search", &json!({"pattern": "val", "path": path})));
        }
        for i in inputs.iter().take(20) {
            let o = aci.call("search", &json!({"pattern": i}));
            assert!(o.starts_with("no match"), "{o}");
        }
        outputs.push(aci.call("view", &json!({"path": "solution.py", "start": 1})));
        outputs.push(aci.call("view", &json!({"path": "problem.md", "start": 1})));
        outputs.push(aci.call("lint", &json!({})));
        for tool in ["test", "pytest", "grade", "bash", "python", "exec", "hint", "rubric"] {
            let o = aci.call(tool, &json!({"command": "python -m pytest"}));
            assert!(o.starts_with("unknown tool"), "{o}");
            outputs.push(o);
        }
        // `run` sees the workspace and the installed library, nothing of the grader: no test file,
        // no reference, no plan in its process or on its disk.
        for code in [
            "import os\nprint(sorted(os.listdir('.')))",
            "import sys\nprint(sorted(m for m in sys.modules if m in ('solution', 'mylibrary', 'reference', 'tests')))",
            "import os\nprint([p for p in ('tests.py', 'reference.py', 'test_cases.json') if os.path.exists(p)])",
            "callable(main)",
        ] {
            let o = aci.call("run", &json!({"code": code}));
            assert!(o.starts_with("the run finished"), "{code}: {o}");
            outputs.push(o);
        }
        assert!(outputs.iter().any(|o| o.contains("['mylibrary', 'solution']")), "{outputs:?}");
        assert!(outputs.iter().any(|o| o.ends_with("stdout:\n[]\n")), "{outputs:?}");
        for o in &outputs {
            for i in &inputs {
                assert!(!o.contains(i.as_str()), "{kind}: a tool output holds the hidden input {i}: {o}");
            }
            assert!(!o.contains("behavioral") && !o.contains("behavioural tests pass"), "{o}");
            assert!(!o.contains("[must]") && !o.contains("PASS"), "a rubric item in a tool's answer: {o}");
        }
        // Submitting ends the session; nothing runs after it, and its answer holds no grade.
        let submitted = aci.call("submit", &json!({}));
        assert!(submitted.starts_with("submitted") && !submitted.contains("PASS"), "{submitted}");
        assert!(aci.call("lint", &json!({})).starts_with("the session has ended"));
        assert!(aci.call("run", &json!({"code": "1"})).starts_with("the session has ended"));
    }
    assert_eq!(ToolName::ALL.len(), 6);
}

#[test]
fn traces_round_trip_through_the_plain_format() {
    let t = task(10, 5);
    for &strategy in Scripted::ALL {
        let aci = agents::run(
            &t,
            strategy,
            Settings::default(),
            std::sync::Arc::new(cabrito_native::run_tool::SandboxRunner::default()),
        );
        let header = plain::Header::new("s-1", strategy.as_str(), &strategy.model(), Some(agents::aci::plain_task(&t)));
        let text = aci.trace(&header, true);
        let mut s = plain::read("s-1.jsonl", &text);
        s.classify();
        assert!(s.problems.is_empty(), "{:?}", s.problems);
        assert_eq!(s.id, "s-1");
        assert_eq!(s.task.dag_id, t.dag_id);
        assert_eq!(s.calls.len(), aci.steps().len());
        for (c, st) in s.calls.iter().zip(aci.steps()) {
            assert_eq!(c.tool, st.tool);
            assert_eq!(c.arguments, st.arguments);
            assert_eq!(c.output.as_deref(), Some(st.output.as_str()));
            assert_eq!(c.success, Some(st.ok));
        }
        // The classifier labels the interface's tools.
        let labels: Vec<&str> = s.calls.iter().map(|c| c.label.as_str()).collect();
        assert!(labels.contains(&"read") && labels.contains(&"summary"), "{labels:?}");
        let turns = aci.turns(true);
        assert_eq!(s.turns.len(), turns.len());
        for (a, b) in s.turns.iter().zip(&turns) {
            assert_eq!(
                (a.input_tokens, a.cached_tokens, a.output_tokens),
                (Some(b.input), Some(b.cached), Some(b.output))
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]
    /// No call, however malformed, panics; each is one step, and the file stays parseable with the gate on.
    #[test]
    fn any_call_is_a_step_and_never_panics(tool in "[a-z]{0,8}", args in any_json(), pick in 0usize..6) {
        let t = task(5, 6);
        let mut aci = Aci::for_task(&t, Settings::default(), std::sync::Arc::new(Unavailable("no runner in this test".into())));
        let tool = if tool.len() % 2 == 0 { ToolName::ALL[pick].as_str().to_string() } else { tool };
        let _ = aci.call(&tool, &args);
        prop_assert_eq!(aci.steps().len(), 1);
        prop_assert!(cabrito_check::program::Program::parse(aci.solution()).is_ok());
    }
}

fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-1e9f64..1e9).prop_map(Value::from),
        "[ -~\\n]{0,30}".prop_map(Value::from),
        Just(Value::from("solution.py")),
        Just(Value::from("def ")),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map(
                prop_oneof![
                    Just("path".to_string()),
                    Just("start".to_string()),
                    Just("end".to_string()),
                    Just("old".to_string()),
                    Just("new".to_string()),
                    Just("pattern".to_string()),
                    Just("from_line".to_string()),
                    Just("code".to_string()),
                    Just("args".to_string()),
                    "[a-z]{1,5}"
                ],
                inner,
                0..5
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}
