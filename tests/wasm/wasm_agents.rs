//! The agents page's console in headless Chromium (D12): for every kind and axis, the console's
//! commands (each tool, good and refused, `run` through the page's path to the grading worker) and
//! the scripted strategies the page runs answer byte for byte the same on a task and on the same
//! task whose reference, hidden tests and private record fields are another task's. With no worker
//! behind the page, `run` says so plainly.
//!
//! The test page has no worker, and Chromium delays each new WebSocket to an address that refused
//! the last ones (seconds apiece after a few dozen), so the worker is asked once and its answer is
//! given to every later `run`, as `console_call` gives it; the job each `run` would send is compared.
//!
//! Run with `cargo test --target wasm32-unknown-unknown --test wasm_agents`.

#![cfg(target_arch = "wasm32")]

use cabrito::web::agents::parts::{console_call, page_runner, worker_run};
use cabrito_agents::aci::{Aci, Ready};
use cabrito_agents::console::{self, Command};
use cabrito_agents::{Settings, Strategy};
use cabrito_check::protocol::run::Ran;
use cabrito_gen::spec::{Axis, Domain, Kind, Support, TaskSpec};
use std::cell::RefCell;
use wasm_bindgen_test::wasm_bindgen_test;

const COMMANDS: &[&str] = &[
    "view 1 400",
    "view problem.md 1 30",
    "view reference.py 1",
    "search def ",
    "lint",
    "run main(0.5)",
    "run solution.py 0.5",
    "edit 1 1\ndef (((",
    "edit\nimport\n---\nimport",
    "check",
    "grade",
    "submit",
    "view 1",
];

fn swapped(a: &cabrito_gen::Task, b: &cabrito_gen::Task) -> cabrito_gen::Task {
    let mut t = b.clone();
    t.prompt = a.prompt.clone();
    t.starter_code = a.starter_code.clone();
    t
}

/// The worker's answer to a `run`, asked through the page's path once per test.
type WorkerAnswer = RefCell<Option<Result<Ran, String>>>;

/// One console call as [`console_call`] makes it, with the worker's answer asked once: a `run`
/// also records the job it would send, so a private field that reached it would show.
async fn call(
    aci: &RefCell<Aci>,
    tool: &str,
    arguments: &serde_json::Value,
    worker: &WorkerAnswer,
    out: &mut Vec<String>,
) -> String {
    if tool != "run" {
        return console_call(aci, tool, arguments).await;
    }
    let Ok(job) = aci.borrow().run_job(arguments) else { return console_call(aci, tool, arguments).await };
    out.push(format!("job {}", serde_json::to_string(&job).expect("a run job serialises")));
    if worker.borrow().is_none() {
        let answer = worker_run(job).await;
        let no_worker = answer.as_ref().is_err_and(|e| e.contains("no grading worker is connected"));
        assert!(no_worker, "the test page has no grading worker, so every run's answer is the same: {answer:?}");
        *worker.borrow_mut() = Some(answer);
    }
    let answer = worker.borrow().clone().expect("asked above");
    aci.borrow_mut().call_with("run", arguments, &Ready(answer))
}

async fn answers(t: &cabrito_gen::Task, worker: &WorkerAnswer) -> Vec<String> {
    let aci = RefCell::new(Aci::for_task(t, Settings::default(), page_runner()));
    let mut out = Vec::new();
    for c in COMMANDS {
        let answer = match console::parse(c) {
            Ok(Command::Call { tool, arguments }) => call(&aci, tool, &arguments, worker, &mut out).await,
            Ok(Command::Help) => "help".into(),
            Err(e) => e,
        };
        out.push(answer);
    }
    for &s in Strategy::ALL {
        let aci = cabrito_agents::run(t, s, Settings::default(), page_runner());
        out.extend(aci.steps().iter().map(|st| format!("{s} {} {}: {}", st.tool, st.arguments, st.output)));
        out.push(aci.solution().to_string());
    }
    out
}

#[wasm_bindgen_test]
async fn console_answers_do_not_depend_on_private_fields() {
    let mut pairs = 0;
    let worker = WorkerAnswer::default();
    for &kind in Kind::ALL {
        let axes: Vec<Axis> = match kind.def().axes() {
            Support::Only(a) => a.to_vec(),
            _ => vec![Axis::ALL[0]],
        };
        for axis in axes {
            let spec = |seed| TaskSpec::new(kind, Domain::Math, axis, 5, seed);
            let (Ok(a), Ok(b)) = (cabrito_gen::generate(&spec(1)), cabrito_gen::generate(&spec(2))) else { continue };
            assert_ne!(a.solution_code, b.solution_code);
            let (x, y) = (answers(&a, &worker).await, answers(&swapped(&a, &b), &worker).await);
            assert_eq!(x.len(), y.len(), "{kind} {axis}");
            for (p, q) in x.iter().zip(&y) {
                assert_eq!(p, q, "{kind} {axis}: an answer depends on the private fields");
            }
            pairs += 1;
        }
    }
    assert!(pairs >= 25, "{pairs} kind × axis pairs");
}

#[wasm_bindgen_test]
async fn run_without_a_worker_says_so() {
    let t = cabrito_gen::generate(&TaskSpec::new(Kind::AddParameter, Domain::Math, Axis::Traversal, 5, 1)).unwrap();
    let aci = RefCell::new(Aci::for_task(&t, Settings::default(), page_runner()));
    let job = aci.borrow().run_job(&serde_json::json!({"code": "main(0.5)"})).unwrap();
    let e = worker_run(job).await.unwrap_err();
    assert!(e.contains("no grading worker is connected") && e.contains("cabrito serve"), "{e}");
    let Ok(Command::Call { tool, arguments }) = console::parse("run main(0.5)") else { panic!("run parses") };
    let out = console_call(&aci, tool, &arguments).await;
    assert!(out.starts_with("run is not available: no grading worker is connected"), "{out}");
    assert!(!aci.borrow().steps().last().unwrap().ok);
    // The session goes on.
    let Ok(Command::Call { tool, arguments }) = console::parse("lint") else { panic!("lint parses") };
    assert_eq!(console_call(&aci, tool, &arguments).await, "solution.py compiles");
}
