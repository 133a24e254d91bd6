//! The grader on generated tasks: every kind × domain × axis, several seeds and sizes. The
//! reference scores 1, the starter 0 (for the reason the reference's verdicts give), the
//! reference as a unified diff scores 1, and small wrong edits of the reference (mutants) fail for
//! the right reason.
#![cfg(not(target_arch = "wasm32"))]

use cabrito_check::grade::plan::top_defs;
use cabrito_check::grade::{CheckOutcome, FunctionStatus, GradeTask, Verdict};
use cabrito_gen::{Axis, Domain, Kind, Task, TaskSpec};
use cabrito_native::runner::{grade, GradeOptions};
use rayon::prelude::*;

fn opts() -> GradeOptions {
    // Few trials keep the suite fast; the mutants below differ on almost every input.
    GradeOptions { trials: 4, ..Default::default() }
}

fn run(task: &Task, code: &str) -> Verdict {
    grade(&GradeTask::from_task(task), code, &opts(), &|_, _| {})
}

fn check_outcome(v: &Verdict, kind: &str) -> CheckOutcome {
    v.checks.iter().find(|c| c.kind == kind).map(|c| c.outcome).expect("check present")
}

fn specs() -> Vec<TaskSpec> {
    let mut out = Vec::new();
    for &axis in Axis::ALL {
        for &domain in Domain::ALL {
            // The call-graph kinds built along the axis (merge has its own: tests/grade/merge_grade.rs).
            for &kind in Kind::ALL.iter().filter(|k| k.def().graph().is_some() && k.def().axes().allows(&axis)) {
                for (n, seed) in [(5, 0), (5, 1), (if axis == Axis::Traversal { 25 } else { 50 }, 2)] {
                    let spec = TaskSpec::new(kind, domain, axis, n, seed);
                    if spec.validate().is_ok() {
                        out.push(spec);
                    }
                }
            }
        }
    }
    out
}

#[test]
fn reference_passes_and_starter_fails_everywhere() {
    let failures: Vec<String> = specs()
        .par_iter()
        .flat_map(|spec| {
            let task = cabrito_gen::generate(spec).expect("generates");
            let mut bad = Vec::new();
            let v = run(&task, &task.solution_code);
            if !v.passed {
                bad.push(format!("{spec:?}: the reference fails: {}", v.message));
            }
            let s = run(&task, &task.starter_code);
            if s.passed {
                bad.push(format!("{spec:?}: the starter passes"));
            }
            // The reason matches the reference's verdicts: dead code behaves the same but keeps
            // dead functions; renaming behaves the same but fails `renames`; every other kind
            // behaves differently.
            let (beh, exist) = (check_outcome(&s, "behavioral"), check_outcome(&s, "function_existence"));
            let expected = if spec.kind == Kind::DeadCode {
                (CheckOutcome::Pass, CheckOutcome::Fail)
            } else if spec.kind == Kind::VariableRenaming {
                (CheckOutcome::Pass, CheckOutcome::Pass)
            } else {
                (CheckOutcome::Fail, CheckOutcome::Pass)
            };
            if spec.kind == Kind::VariableRenaming && check_outcome(&s, "renames") != CheckOutcome::Fail {
                bad.push(format!("{spec:?}: the starter does not fail renames: {}", s.message));
            }
            if (beh, exist) != expected {
                bad.push(format!("{spec:?}: starter checks {beh:?}/{exist:?}, expected {expected:?}: {}", s.message));
            }
            // Instruction following also requires the requirement lines: the starter has none.
            if spec.axis.def().instructions() {
                let (r, st) = (check_outcome(&v, "constraint_structure"), check_outcome(&s, "constraint_structure"));
                if (r, st) != (CheckOutcome::Pass, CheckOutcome::Fail) {
                    bad.push(format!("{spec:?}: constraint_structure {r:?} (reference) / {st:?} (starter)"));
                }
            }
            bad
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn reference_as_a_unified_diff_passes() {
    let failures: Vec<String> = Kind::ALL
        .par_iter()
        .flat_map(|&kind| {
            let task =
                cabrito_gen::generate(&TaskSpec::new(kind, Domain::Math, Axis::Traversal, 5, 7)).expect("generates");
            let diff = similar::TextDiff::from_lines(&task.starter_code, &task.solution_code)
                .unified_diff()
                .header("solution.py", "solution.py")
                .to_string();
            let response = format!("Here is my change.\n\n```diff\n{diff}```\n");
            match cabrito_check::response::parse_response(&response, &task.starter_code) {
                Err(e) => vec![format!("{kind}: the diff does not read: {e}")],
                Ok(c) => {
                    let v = run(&task, &c.code);
                    if v.passed {
                        vec![]
                    } else {
                        vec![format!("{kind}: the diffed reference fails: {}", v.message)]
                    }
                }
            }
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ------------------------------------------------------------------------------------------------
// Mutants.

/// The source of `name`'s def in `code`.
fn def_source(code: &str, name: &str) -> String {
    top_defs(code).unwrap().into_iter().rev().find(|d| d.name == name).map(|d| d.source).expect("def exists")
}

fn replace_def(code: &str, name: &str, new: &str) -> String {
    code.replacen(&def_source(code, name), new, 1)
}

fn role(task: &Task, r: &str) -> Vec<String> {
    task.roles.iter().filter(|(_, v)| v.as_str() == r).map(|(k, _)| k.clone()).collect()
}

/// Wrap the last `return E` of a def as `return WRAP(E)`.
fn wrap_return(src: &str, wrap: impl Fn(&str) -> String) -> String {
    let i = src.rfind("return ").expect("a return");
    let expr = src[i + 7..].trim_end();
    format!("{}return {}\n", &src[..i], wrap(expr))
}

fn param(d: Domain) -> &'static str {
    if d == Domain::String {
        "prefix"
    } else {
        "mult"
    }
}

/// The grader must fail `code`, with `culprit` (if given) among the failing functions and the
/// failing check being `check`.
fn expect_failure(task: &Task, what: &str, code: &str, check: &str, culprit: Option<&str>) -> Option<String> {
    let v = run(task, code);
    let spec = &task.spec;
    if v.passed {
        return Some(format!("{spec:?}: mutant '{what}' passes"));
    }
    if check_outcome(&v, check) == CheckOutcome::Pass {
        return Some(format!("{spec:?}: mutant '{what}' fails, but not on {check}: {}", v.message));
    }
    if let Some(c) = culprit {
        let f = v.functions.iter().find(|f| f.name == c);
        if !f.is_some_and(|f| f.status != FunctionStatus::Pass) {
            return Some(format!("{spec:?}: mutant '{what}': '{c}' is not among the failing functions: {}", v.message));
        }
    }
    None
}

fn mutants(task: &Task) -> Vec<Option<String>> {
    let code = &task.solution_code;
    let d = task.spec.domain;
    let p = param(d);
    let mut out = Vec::new();
    // An empty file, and an unused extra helper, and a helper that a function relies on.
    out.push(expect_failure(task, "empty file", "", "behavioral", None));
    let program = cabrito_check::program::Program::read(code).unwrap();
    let tested = cabrito_check::grade::plan::functions_to_test(&program, task.spec.kind.def().grades_main()).unwrap();
    let used_helper = {
        let victim = tested[0].name.clone();
        let src = def_source(code, &victim);
        let renamed = src.replacen(&format!("def {victim}("), &format!("def {victim}_impl("), 1);
        let params = tested[0].params.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>().join(", ");
        let wrapper = format!("def {victim}({params}):\n    return {victim}_impl({params})\n");
        let without = replace_def(code, &victim, &wrapper);
        (format!("{without}\n\n{renamed}"), victim)
    };
    out.push(expect_failure(task, "extra helper a function calls", &used_helper.0, "behavioral", Some(&used_helper.1)));
    match task.spec.kind {
        Kind::DeadCode => {
            // One live function removed.
            let live = role(task, "untouched");
            let victim = live
                .iter()
                .find(|n| code.contains(&format!("{n}(val)")) && !n.is_empty())
                .expect("a called live function");
            let removed = code.replacen(&def_source(code, victim), "", 1);
            out.push(expect_failure(task, "live function removed", &removed, "function_existence", Some(victim)));
            // One dead function left.
            let dead = role(task, "dead");
            let kept = format!("{code}\n\n{}", def_source(&task.starter_code, &dead[0]));
            out.push(expect_failure(task, "dead function left", &kept, "function_existence", None));
            // An unused extra helper.
            out.push(expect_failure(
                task,
                "extra helper",
                &format!("{code}\n\ndef zz_helper(val):\n    return val\n"),
                "function_existence",
                None,
            ));
        }
        Kind::AddParameter => {
            // A missing `mult=mult` in a caller inside the edit graph.
            let needle = format!(", {p}={p}");
            let caller = task
                .edit_set
                .iter()
                .find(|n| def_source(code, n).contains(&needle))
                .expect("a caller passes the parameter")
                .clone();
            let src = def_source(code, &caller);
            out.push(expect_failure(
                task,
                "missing mult=mult",
                &replace_def(code, &caller, &src.replacen(&needle, "", 1)),
                "behavioral",
                Some(&caller),
            ));
            // An intermediate function that applies the parameter too.
            let mid =
                task.edit_set.iter().find(|n| def_source(code, n).contains(&needle)).expect("an intermediate").clone();
            let src = def_source(code, &mid);
            let wrapped =
                wrap_return(
                    &src,
                    |e| if d == Domain::String { format!("{p} + ({e})") } else { format!("{p} * ({e})") },
                );
            out.push(expect_failure(
                task,
                "multiplied intermediate",
                &replace_def(code, &mid, &wrapped),
                "behavioral",
                Some(&mid),
            ));
        }
        Kind::AddReturnValue => {
            // The sink's string not returned up: one intermediate returns only the value.
            let sink = role(task, "sink");
            let mid =
                task.edit_set.iter().find(|n| !sink.contains(n) && def_source(code, n).contains("-> tuple")).cloned();
            if let Some(mid) = mid {
                let src = def_source(code, &mid);
                let dropped = wrap_return(&src, |e| format!("({e})[0]"));
                out.push(expect_failure(
                    task,
                    "string dropped",
                    &replace_def(code, &mid, &dropped),
                    "behavioral",
                    Some(&mid),
                ));
            }
        }
        Kind::CacheFunction => {
            // slow() called at a higher ancestor: the LCA takes `temp` instead of calling slow().
            let lca = role(task, "lca").pop().expect("an lca");
            let src = def_source(code, &lca);
            let line = src.lines().find(|l| l.contains("= slow()")).expect("the lca calls slow()").to_string();
            let ann =
                line.split(':').nth(1).and_then(|s| s.split('=').next()).map(str::trim).unwrap_or("float").to_string();
            let default = if d == Domain::String { "''" } else { "0.0" };
            let new_src = src.replacen(&format!("{line}\n"), "", 1);
            let sig_old = new_src.lines().next().unwrap().to_string();
            let val_ty = sig_old.split("val: ").nth(1).and_then(|s| s.split(')').next()).unwrap_or("float").to_string();
            let ret = sig_old.split("->").nth(1).unwrap_or(" float:").to_string();
            let sig_new = format!("def {lca}(val: {val_ty}, temp: {ann}={default}) ->{ret}");
            let new_src = new_src.replacen(&sig_old, &sig_new, 1);
            let mut mutated = replace_def(code, &lca, &new_src);
            mutated = mutated.replace(&format!("{lca}(val)"), &format!("{lca}(val, slow())"));
            out.push(expect_failure(task, "slow() at a higher ancestor", &mutated, "behavioral", Some(&lca)));
        }
        Kind::ExtractHelper => {
            // The helper moved too deep: the NCD's first callee computes it instead.
            let ncd = role(task, "ncd").pop().expect("an ncd");
            let src = def_source(code, &ncd);
            let helper_line = src.lines().find(|l| l.contains("= get_")).expect("the ncd calls the helper").to_string();
            let call_line = src.lines().find(|l| l.contains("_val = ") && l.contains("(val)")).map(str::to_string);
            if let Some(call_line) = call_line {
                let callee =
                    call_line.trim().split(" = ").nth(1).and_then(|c| c.split('(').next()).unwrap().to_string();
                let var = call_line.trim().split(" = ").next().unwrap().to_string();
                let new_ncd = src.replacen(&format!("{helper_line}\n"), "", 1).replacen(
                    &call_line,
                    &call_line.replacen(&var, &format!("{var}, {p}"), 1),
                    1,
                );
                let callee_src = def_source(code, &callee);
                let mut lines: Vec<String> = callee_src.lines().map(str::to_string).collect();
                lines.insert(1, helper_line.clone());
                let new_callee = wrap_return(&(lines.join("\n") + "\n"), |e| format!("({e}, {p})"));
                let mutated = replace_def(&replace_def(code, &ncd, &new_ncd), &callee, &new_callee);
                out.push(expect_failure(task, "helper moved too deep", &mutated, "behavioral", Some(&callee)));
            }
        }
        Kind::VariableRenaming => {
            // The first rename left out at its last use: that line reads a name no longer defined.
            let (old, new) = {
                let r = task.metadata["renames"][0].as_array().unwrap();
                (r[0].as_str().unwrap().to_string(), r[1].as_str().unwrap().to_string())
            };
            let last_use = code.rfind(&format!(" {new}")).expect("a use of the new name");
            let mutated = format!("{}{old}{}", &code[..last_use + 1], &code[last_use + 1 + new.len()..]);
            out.push(expect_failure(task, "one use not renamed", &mutated, "renames", Some("main")));
        }
        Kind::MergeCodebases => unreachable!("merge mutants: tests/grade/merge_grade.rs"),
    }
    out
}

#[test]
fn mutants_fail_for_the_right_reason() {
    let mut specs = Vec::new();
    for &domain in Domain::ALL {
        for &kind in Kind::ALL.iter().filter(|&&k| k != Kind::MergeCodebases) {
            for (axis, n, seed) in [(Axis::Traversal, 6, 11), (Axis::Search, 10, 12), (Axis::Comment, 4, 13)] {
                let spec = TaskSpec::new(kind, domain, axis, n, seed);
                if spec.validate().is_ok() {
                    specs.push(spec);
                }
            }
        }
    }
    let results: Vec<Option<String>> =
        specs.par_iter().flat_map(|s| mutants(&cabrito_gen::generate(s).expect("generates"))).collect();
    let tried = results.len();
    let failures: Vec<String> = results.into_iter().flatten().collect();
    eprintln!("{tried} mutants graded");
    assert!(tried >= specs.len() * 3, "too few mutants were built ({tried})");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_file_block_marker_with_no_content_is_not_a_solution() {
    let task = cabrito_gen::generate(&TaskSpec::new(Kind::AddParameter, Domain::Math, Axis::Traversal, 5, 0)).unwrap();
    match cabrito_check::response::parse_response("# === solution.py ===\n", &task.starter_code) {
        Err(e) => assert!(!e.message.is_empty()),
        Ok(c) => {
            let v = run(&task, &c.code);
            assert!(!v.passed, "an empty file block passes");
            assert!(v.message.contains("missing"), "{}", v.message);
        }
    }
}

#[test]
fn a_syntax_error_is_an_error_naming_the_line() {
    let task = cabrito_gen::generate(&TaskSpec::new(Kind::AddParameter, Domain::Math, Axis::Traversal, 5, 0)).unwrap();
    let v = run(&task, "import math\n\ndef f(:\n    pass\n");
    assert!(!v.passed);
    assert_eq!(check_outcome(&v, "compilation"), CheckOutcome::Error);
    assert!(v.message.contains("line 3"), "{}", v.message);
}
