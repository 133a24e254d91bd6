//! Non-interference (D12): no tool answer depends on what a workspace does not hold. For every kind
//! and axis, each tool (and each scripted strategy, which acts only through them) is called on a
//! task and again on the same task whose reference solution, hidden tests (its spec's seed) and
//! private record fields are another task's, with the same statement and starter. Every answer, and
//! every job the `run` tool sends to the sandbox, must be byte-identical.
//!
//! Written first against the old interface, this test failed on its `check` tool in 24 of 25 kind ×
//! axis pairs (the static rubric's reasons name the reference's functions).
#![cfg(not(target_arch = "wasm32"))]

use cabrito_agents::aci::{Aci, Runner};
use cabrito_agents::{Settings, Strategy};
use cabrito_check::protocol::run::{Ran, RunJob};
use cabrito_gen::spec::{Axis, Domain, Kind, Support, TaskSpec};
use cabrito_native::run_tool::SandboxRunner;
use rayon::prelude::*;
use serde_json::json;
use std::sync::{Arc, Mutex};

/// The sandbox runner, keeping every job it is sent.
#[derive(Default)]
struct Recording(Mutex<Vec<String>>);

impl Runner for Recording {
    fn run(&self, job: &RunJob) -> Result<Ran, String> {
        self.0.lock().unwrap().push(serde_json::to_string(job).unwrap());
        SandboxRunner::default().run(job)
    }
}

/// `a` with everything but its statement and starter taken from `b`.
fn swapped(a: &cabrito_gen::Task, b: &cabrito_gen::Task) -> cabrito_gen::Task {
    let mut t = b.clone();
    t.prompt = a.prompt.clone();
    t.starter_code = a.starter_code.clone();
    t
}

/// A call of `main` the domain's values can make, and one of the calculators.
fn run_code(t: &cabrito_gen::Task) -> &'static str {
    if t.spec.kind == Kind::MergeCodebases {
        return "print(CalculateA().compute(*range(1, 11)), CalculateB().compute(*range(1, 11)))";
    }
    match t.spec.domain {
        Domain::Math => "main(0.5)",
        Domain::String => "main('ab12')",
        Domain::Array => "import numpy as np\nprint(main(np.array([0.5, -0.25])))",
    }
}

/// Every tool, good calls and refused ones, then every strategy's whole session.
fn answers(t: &cabrito_gen::Task) -> Vec<String> {
    let rec = Arc::new(Recording::default());
    let mut out = Vec::new();
    let mut aci = Aci::for_task(t, Settings::default(), rec.clone());
    let last = t.starter_code.lines().count();
    for (tool, args) in [
        ("view", json!({"path": "solution.py", "start": 1, "end": 100000})),
        ("view", json!({"path": "problem.md", "start": 1})),
        ("view", json!({"path": "reference.py", "start": 1})),
        ("search", json!({"pattern": "def "})),
        ("search", json!({"pattern": "return", "from_line": 5})),
        ("lint", json!({})),
        ("check", json!({})),
        ("run", json!({"code": run_code(t)})),
        ("run", json!({"path": "solution.py", "args": ["0.5"]})),
        ("edit", json!({"path": "solution.py", "start": 1, "end": 1, "new": "def (:"})),
        (
            "edit",
            json!({"path": "solution.py", "start": last, "end": last, "new": format!("{}\n# edited", t.starter_code.lines().last().unwrap_or(""))}),
        ),
        ("lint", json!({"path": "solution.py"})),
        ("run", json!({"code": "import solution\nprint(sorted(n for n in dir(solution) if not n.startswith('_')))"})),
        ("grade", json!({})),
        ("submit", json!({})),
        ("view", json!({"start": 1})),
    ] {
        out.push(format!("{tool} {args}: {}", aci.call(tool, &args)));
    }
    for &s in Strategy::ALL {
        let mut aci = Aci::for_task(t, Settings::default(), rec.clone());
        s.run(&mut aci.tools(), &t.prompt);
        out.extend(aci.steps().iter().map(|st| format!("{s} {} {}: {}", st.tool, st.arguments, st.output)));
        out.push(format!("{s} final solution.py:\n{}", aci.solution()));
    }
    out.extend(rec.0.lock().unwrap().iter().map(|j| format!("job {j}")));
    out
}

/// Every kind × axis it is built for, in a domain that turns with the pair.
fn pairs() -> Vec<(Kind, Axis, Domain)> {
    let mut out = Vec::new();
    for &kind in Kind::ALL {
        let (axes, domains): (Vec<Axis>, Vec<Domain>) = match (kind.def().axes(), kind.def().domains()) {
            (Support::Only(a), Support::Only(d)) => (a.to_vec(), d.to_vec()),
            _ => (vec![Axis::ALL[0]], vec![Domain::ALL[0]]),
        };
        for (i, axis) in axes.into_iter().enumerate() {
            out.push((kind, axis, domains[(i + out.len()) % domains.len()]));
        }
    }
    out
}

#[test]
fn no_tool_answer_depends_on_private_fields() {
    let pairs = pairs();
    assert!(pairs.len() >= 25, "{} kind × axis pairs", pairs.len());
    let results: Vec<Result<usize, String>> = pairs
        .par_iter()
        .map(|&(kind, axis, domain)| {
            let spec = |seed| TaskSpec::new(kind, domain, axis, 10, seed);
            let (a, b) = (cabrito_gen::generate(&spec(1)).unwrap(), cabrito_gen::generate(&spec(2)).unwrap());
            assert_ne!(a.solution_code, b.solution_code, "{kind} {axis}: the swap must change the reference");
            let (x, y) = (answers(&a), answers(&swapped(&a, &b)));
            if x.len() != y.len() {
                return Err(format!("{kind} {axis} {domain}: {} answers against {}", x.len(), y.len()));
            }
            match x.iter().zip(&y).find(|(p, q)| p != q) {
                Some((p, q)) => Err(format!(
                    "{kind} {axis} {domain}:\n  own:     {}\n  swapped: {}",
                    p.chars().take(400).collect::<String>(),
                    q.chars().take(400).collect::<String>()
                )),
                None => Ok(x.len()),
            }
        })
        .collect();
    let differing: Vec<&String> = results.iter().filter_map(|r| r.as_ref().err()).collect();
    assert!(
        differing.is_empty(),
        "{} of {} pairs differ:\n{}",
        differing.len(),
        pairs.len(),
        differing.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n")
    );
    let compared: usize = results.iter().filter_map(|r| r.as_ref().ok()).sum();
    eprintln!("{} kind × axis pairs, {compared} answers compared", pairs.len());
    // Every tool was exercised, and runs did run.
    let t = cabrito_gen::generate(&TaskSpec::new(Kind::DeadCode, Domain::Math, Axis::Traversal, 10, 1)).unwrap();
    let a = answers(&t);
    for tool in ["view", "search", "edit", "lint", "run", "submit"] {
        assert!(a.iter().any(|l| l.starts_with(&format!("{tool} "))), "{tool} not called");
    }
    assert!(
        a.iter().any(|l| l.starts_with("run ") && l.contains("the run finished (exit status 0)\nvalue: ")),
        "{a:?}"
    );
}
