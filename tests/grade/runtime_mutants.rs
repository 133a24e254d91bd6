//! Mutants of runtime references (issue 8): an edit placed in a branch that never runs, or an edit the
//! running branch needs left out, fails `branch_placement` for the right function and line, in the
//! static rubric (what the browser runs) and through the real grader (where the behavioural check
//! still passes for an edit that never runs).
#![cfg(not(target_arch = "wasm32"))]

use cabrito_check::grade::{CheckOutcome, GradeTask};
use cabrito_check::rubric::{static_checks, TaskRef};
use cabrito_gen::task::generate_full;
use cabrito_gen::{
    python,
    python::{Module, Stmt},
};
use cabrito_gen::{Axis, Domain, Kind, TaskSpec};
use cabrito_native::runner::{grade, GradeOptions};
use rayon::prelude::*;

/// The leaf bodies of a body, left to right.
fn leaves(body: &mut Vec<Stmt>) -> Vec<&mut Vec<Stmt>> {
    if let [Stmt::If { .. }] = body.as_slice() {
        let Some(Stmt::If { body, orelse, .. }) = body.first_mut() else { unreachable!() };
        let mut out = leaves(body);
        out.extend(leaves(orelse));
        return out;
    }
    vec![body]
}

/// The 1-based line where leaf `leaf` of a two-branch function `name` starts in printed code.
fn leaf_line(code: &str, name: &str, leaf: usize) -> usize {
    let lines: Vec<&str> = code.lines().collect();
    let def = lines.iter().position(|l| l.starts_with(&format!("def {name}("))).expect("the function");
    let header =
        if leaf == 0 { def + 1 } else { def + lines[def..].iter().position(|l| *l == "    else:").expect("an else") };
    header + 2
}

struct Mutant {
    name: String,
    code: String,
    line: usize,
    /// The mutant behaves as the reference (its edit is in a branch that never runs).
    same_behaviour: bool,
}

fn function<'a>(m: &'a mut Module, name: &str) -> &'a mut python::Function {
    m.functions.iter_mut().find(|f| f.name == name).expect("the function")
}

/// For a two-branch runtime task: (1) the reference with one edited function's running leaf copied
/// into its leaf that never runs; (2) the reference with one edited function's running leaf back as in
/// the starter. For dead code, (1) a live function's running call turned into `val`, (2) a call to a
/// deleted function left in a branch that never runs.
fn mutants(spec: &TaskSpec) -> Vec<Mutant> {
    let gen = generate_full(spec).unwrap();
    let (_, built) = gen.call_graph().unwrap();
    let rec = gen.task.runtime.as_ref().unwrap();
    let mut out = Vec::new();
    for f in &rec.functions {
        let (running, idle) = (f.leaf, 1 - f.leaf);
        let Some(starter_fn) = built.starter.functions.iter().find(|x| x.name == f.name) else { continue };
        let Some(reference_fn) = built.reference.functions.iter().find(|x| x.name == f.name) else { continue };
        if starter_fn == reference_fn && spec.kind != Kind::DeadCode {
            continue;
        }
        let mut starter_body = starter_fn.body.clone();
        let mut reference_body = reference_fn.body.clone();
        let (s_leaves, r_leaves) = (leaves(&mut starter_body), leaves(&mut reference_body));
        if spec.kind == Kind::DeadCode {
            // (1) A running call of a live function becomes `val` (the function stays in the reference).
            let call = r_leaves[running].iter().position(|s| matches!(s, Stmt::Assign { .. }));
            if let Some(i) = call {
                let mut m = built.reference.clone();
                let body = &mut function(&mut m, &f.name).body;
                if let Stmt::Assign { value, .. } = &mut leaves(body)[running][i] {
                    *value = python::Expr::name("val");
                }
                let code = python::module(&m);
                let line = leaf_line(&code, &f.name, running);
                out.push(Mutant { name: f.name.clone(), code, line, same_behaviour: false });
            }
            // (2) A leftover call to a deleted function kept where nothing runs.
            if s_leaves[idle] != r_leaves[idle] {
                let mut m = built.reference.clone();
                leaves(&mut function(&mut m, &f.name).body)[idle].clone_from(s_leaves[idle]);
                // The call names a function that no longer exists, but it never runs.
                let code = python::module(&m);
                let line = leaf_line(&code, &f.name, idle);
                out.push(Mutant { name: f.name.clone(), code, line, same_behaviour: true });
            }
        } else {
            // (1) The running edit copied where nothing runs.
            if r_leaves[running] != r_leaves[idle] && s_leaves[idle] == r_leaves[idle] {
                let mut m = built.reference.clone();
                let copy = r_leaves[running].clone();
                *leaves(&mut function(&mut m, &f.name).body)[idle] = copy;
                let code = python::module(&m);
                let line = leaf_line(&code, &f.name, idle);
                out.push(Mutant { name: f.name.clone(), code, line, same_behaviour: true });
            }
            // (2) The running edit left out.
            if s_leaves[running] != r_leaves[running] {
                let mut m = built.reference.clone();
                leaves(&mut function(&mut m, &f.name).body)[running].clone_from(s_leaves[running]);
                let code = python::module(&m);
                let line = leaf_line(&code, &f.name, running);
                out.push(Mutant { name: f.name.clone(), code, line, same_behaviour: false });
            }
        }
    }
    out
}

fn specs() -> Vec<TaskSpec> {
    let mut out = Vec::new();
    for &kind in Kind::ALL.iter().filter(|k| k.def().axes().allows(&Axis::Runtime)) {
        for &domain in Domain::ALL {
            for seed in [2u64, 9, 40] {
                out.push(TaskSpec::new(kind, domain, Axis::Runtime, 25 + seed as u32, seed));
            }
        }
    }
    out
}

#[test]
fn mutants_fail_branch_placement_at_their_function_and_line() {
    let mut checked = 0;
    for spec in specs() {
        let t = cabrito_gen::generate(&spec).unwrap();
        let task = TaskRef::of(&t);
        assert!(static_checks(&task, &t.solution_code).passed(), "{spec}: the reference fails");
        for m in mutants(&spec) {
            let r = static_checks(&task, &m.code);
            let item = r.item("branch_placement").expect("the runtime rubric has branch_placement");
            assert!(item.must_have && !item.passed, "{spec} `{}`: the mutant passes branch placement", m.name);
            assert!(item.reason.starts_with(&format!("`{}`:", m.name)), "{spec}: {}", item.reason);
            assert_eq!(item.line, Some(m.line), "{spec} `{}`: {}\n{}", m.name, item.reason, m.code);
            assert!(item.reason.contains(&format!("(line {})", m.line)), "{}", item.reason);
            if m.same_behaviour && spec.kind != Kind::DeadCode {
                assert!(item.reason.contains("it never runs"), "{}", item.reason);
            }
            checked += 1;
        }
    }
    assert!(checked > 100, "{checked} mutants");
}

#[test]
fn the_grader_fails_mutants_on_branch_placement() {
    let opts = GradeOptions { trials: 3, ..Default::default() };
    let failures: Vec<String> = specs()
        .par_iter()
        .filter(|s| s.seed == 9)
        .flat_map(|spec| {
            let t = cabrito_gen::generate(spec).unwrap();
            let gt = GradeTask::from_task(&t);
            let mut bad = Vec::new();
            let v = grade(&gt, &t.solution_code, &opts, &|_, _| {});
            if !v.passed {
                bad.push(format!("{spec}: the reference fails: {}", v.message));
            }
            for m in mutants(spec).into_iter().take(4) {
                let v = grade(&gt, &m.code, &opts, &|_, _| {});
                let check = |k: &str| v.checks.iter().find(|c| c.kind == k).map(|c| c.outcome);
                if v.passed || check("branch_placement") != Some(CheckOutcome::Fail) {
                    bad.push(format!("{spec} `{}`: {:?} {}", m.name, check("branch_placement"), v.message));
                }
                let line = v.checks.iter().find(|c| c.kind == "branch_placement").map(|c| c.metadata["line"].clone());
                if line != Some(serde_json::json!(m.line)) {
                    bad.push(format!("{spec} `{}`: line {line:?}, expected {}", m.name, m.line));
                }
                if m.same_behaviour
                    && (check("behavioral") != Some(CheckOutcome::Pass)
                        || check("function_existence") != Some(CheckOutcome::Pass))
                {
                    bad.push(format!("{spec} `{}`: an edit that never runs changed behaviour: {}", m.name, v.message));
                }
            }
            bad
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
