//! The merge behavioural check (grading.md §6.8), the pure part: the argument vectors, the request
//! the merge harness (`native/merge_harness.py`) reads, and the verdict from the reference's run and
//! the candidate's run. Each program runs in its own sandboxed process (D7); the harness instantiates
//! `CalculateA` and `CalculateB` and calls `compute(*args)` on every vector.
//!
//! As the reference scorer: the vectors are `(1, …, k)` and then random integers in [-5, 5] (`k` is
//! the reference's `compute()` arity); results must be equal as Python `==` sees it (exact integers);
//! five differences stop the check (fail); any exception in either program makes it an error.

use crate::grade::{
    CallResult, CheckOutcome, CheckResult, FirstFailure, FunctionResult, FunctionStatus, GradeTask, RunOutcome, Value,
    Verdict,
};
use crate::program::Program;
use cabrito_gen::graph::sample::between;
use cabrito_gen::rng::stream;
use ruff_python_ast::Stmt;
use serde_json::json;

/// The two classes the check calls, in order.
pub const CLASSES: [&str; 2] = cabrito_gen::kinds::merge_codebases::CLASSES;
/// Differences after which the check stops (the reference's `max_failures`).
pub const MAX_FAILURES: usize = 5;
/// Seconds a class gets to instantiate and compute one vector (the reference's 5 s alarm).
pub const CALL_TIMEOUT: f64 = 5.0;

/// The reference's positional parameters of `compute()`: those of the first of `Calculate`,
/// `CalculateA`, `CalculateB` whose `compute` takes no `*args` (their names, `self` left out).
pub fn compute_params(reference: &str) -> Result<Vec<String>, String> {
    let p = Program::parse(reference)
        .map_err(|e| format!("the reference does not parse (line {}: {})", e.line, e.message))?;
    for class in ["Calculate", CLASSES[0], CLASSES[1]] {
        let Some(c) = p.body().iter().rev().find_map(|s| match s {
            Stmt::ClassDef(c) if c.name.as_str() == class => Some(c),
            _ => None,
        }) else {
            continue;
        };
        let Some(f) = c.body.iter().find_map(|s| match s {
            Stmt::FunctionDef(f) if !f.is_async && f.name.as_str() == "compute" => Some(f),
            _ => None,
        }) else {
            continue;
        };
        if f.parameters.vararg.is_some() {
            continue;
        }
        return Ok(f.parameters.args.iter().map(|a| a.parameter.name.to_string()).filter(|n| n != "self").collect());
    }
    Err("the reference defines no compute() with fixed parameters in Calculate, CalculateA or CalculateB".into())
}

/// The argument vectors: `(1, …, k)`, then `count - 1` vectors of integers in [-5, 5] drawn from the
/// task's key (never from the candidate).
pub fn vectors(key: &str, params: usize, count: usize) -> Vec<Vec<i64>> {
    let mut rng = stream(key, "merge/grade-vectors");
    let mut out = vec![(1..=params as i64).collect::<Vec<_>>()];
    for _ in 1..count.max(1) {
        out.push((0..params).map(|_| between(&mut rng, -5, 5)).collect());
    }
    out
}

/// The merge harness's request: the program and the vectors.
pub fn request(program: &str, vectors: &[Vec<i64>], call_timeout: f64) -> serde_json::Value {
    json!({ "program": program, "classes": CLASSES, "vectors": vectors, "call_timeout": call_timeout })
}

/// Python's `actual == expected` for an int `expected` (what every reference returns): ints by
/// value, bools as 0 and 1, floats when they hold exactly that integer.
pub fn equals_int(actual: &Value, expected: &str) -> bool {
    let norm = |s: &str| if s == "-0" { "0".to_string() } else { s.to_string() };
    match actual {
        Value::Int(i) => i.text == expected,
        Value::Bool(b) => expected == if *b { "1" } else { "0" },
        Value::Float(f) => f.is_finite() && f.fract() == 0.0 && norm(&format!("{f:.0}")) == expected,
        _ => false,
    }
}

fn show(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 120 {
        format!("{}… ({} characters)", s.chars().take(100).collect::<String>(), s.chars().count())
    } else {
        s
    }
}

fn check(kind: &str, outcome: CheckOutcome, message: String, metadata: serde_json::Value) -> CheckResult {
    CheckResult { kind: kind.into(), outcome, message, metadata }
}

/// The behavioural check from the two runs on the same vectors (`names`: the parameters' names).
pub fn behavioural(
    vectors: &[Vec<i64>],
    names: &[String],
    expected: &RunOutcome,
    actual: &RunOutcome,
) -> (CheckResult, Vec<FunctionResult>) {
    let mut results: Vec<FunctionResult> = CLASSES
        .iter()
        .map(|c| FunctionResult {
            name: c.to_string(),
            status: FunctionStatus::Pass,
            passed: 0,
            failed: 0,
            errored: 0,
            first_failure: None,
        })
        .collect();
    let inputs = |v: &[i64]| -> Vec<(String, String)> {
        v.iter()
            .enumerate()
            .map(|(i, x)| (names.get(i).cloned().unwrap_or_else(|| format!("arg{i}")), x.to_string()))
            .collect()
    };
    let mut failures: Vec<serde_json::Value> = Vec::new();
    let mut total = 0;
    let mut passed = 0;
    let setup = |r: &RunOutcome| r.trials.first().and_then(|t| t.setup_error.clone());
    let error = |results: Vec<FunctionResult>, message: String, total: usize, passed: usize| {
        let meta = json!({ "total": total, "passed": passed, "error": message });
        (check("behavioral", CheckOutcome::Error, message, meta), results)
    };
    if let Some(e) = setup(expected) {
        return error(results, format!("the reference raised while loading: {e}"), 0, 0);
    }
    if let Some(e) = setup(actual) {
        for r in &mut results {
            r.status = FunctionStatus::Error;
        }
        return error(results, format!("the candidate raised while loading: {e}"), 0, 0);
    }
    for (t, v) in vectors.iter().enumerate() {
        for (ci, class) in CLASSES.iter().enumerate() {
            total += 1;
            let get = |r: &RunOutcome| r.trials.get(t).and_then(|tr| tr.calls.get(ci)).cloned().flatten();
            let (e, a) = (get(expected), get(actual));
            let fr = &mut results[ci];
            let expected_text = match e {
                Some(CallResult::Returned(Value::Int(i))) => i.text,
                Some(CallResult::Returned(other)) => {
                    return error(
                        results,
                        format!("the reference's {class}.compute returned a {}", other.type_name()),
                        total,
                        passed,
                    )
                }
                Some(CallResult::Raised(err)) => {
                    return error(results, format!("the reference's {class}.compute raised {err}"), total, passed)
                }
                None => {
                    return error(
                        results,
                        format!("the reference gave no result for {class} on vector {t}"),
                        total,
                        passed,
                    )
                }
            };
            match a {
                Some(CallResult::Returned(got)) if equals_int(&got, &expected_text) => {
                    fr.passed += 1;
                    passed += 1;
                }
                Some(CallResult::Returned(got)) => {
                    fr.failed += 1;
                    fr.status = FunctionStatus::Fail;
                    let message = format!(
                        "{class}.compute{:?} returned {} instead of {}",
                        v,
                        show(&got),
                        show(&Value::Int(crate::grade::value::IntValue { text: expected_text.clone() }))
                    );
                    if fr.first_failure.is_none() {
                        fr.first_failure = Some(FirstFailure {
                            trial: t,
                            stub_block: 0,
                            inputs: inputs(v),
                            expected: Some(expected_text.clone()),
                            actual: Some(got.to_string()),
                            message: message.clone(),
                        });
                    }
                    failures.push(json!({ "trial": t, "class_name": class, "inputs": v, "expected": expected_text, "actual": got.to_string() }));
                    if failures.len() >= MAX_FAILURES {
                        return finish(results, failures, total, passed, true);
                    }
                }
                Some(CallResult::Raised(err)) => {
                    fr.errored += 1;
                    fr.status = FunctionStatus::Error;
                    let message = format!("{class}.compute{v:?} raised {err}");
                    fr.first_failure.get_or_insert(FirstFailure {
                        trial: t,
                        stub_block: 0,
                        inputs: inputs(v),
                        expected: Some(expected_text.clone()),
                        actual: None,
                        message: message.clone(),
                    });
                    return error(results, format!("the candidate's {message}"), total, passed);
                }
                None => {
                    fr.errored += 1;
                    fr.status = FunctionStatus::Error;
                    let why = actual.status.describe();
                    return error(
                        results,
                        format!("the candidate gave no result for {class} on vector {t} ({why})"),
                        total,
                        passed,
                    );
                }
            }
        }
    }
    finish(results, failures, total, passed, false)
}

fn finish(
    results: Vec<FunctionResult>,
    failures: Vec<serde_json::Value>,
    total: usize,
    passed: usize,
    stopped: bool,
) -> (CheckResult, Vec<FunctionResult>) {
    let meta = json!({
        "total": total,
        "passed": passed,
        "failed": failures.len(),
        "pass_rate": if total == 0 { 0.0 } else { passed as f64 / total as f64 },
        "failures": failures,
        "stopped_early": stopped,
    });
    if failures.is_empty() {
        (check("behavioral", CheckOutcome::Pass, String::new(), meta), results)
    } else {
        let first =
            results.iter().find_map(|r| r.first_failure.as_ref()).map(|f| f.message.clone()).unwrap_or_default();
        let message = format!(
            "{} of {total} calls differ from the reference{}; first: {first}",
            failures.len(),
            if stopped { " (stopped early)" } else { "" }
        );
        (check("behavioral", CheckOutcome::Fail, message, meta), results)
    }
}

/// A verdict whose every check is an error with `message` (the task cannot be graded, or the
/// reference did not run).
pub fn error_verdict(task: &GradeTask, trials: usize, message: String) -> Verdict {
    let checks = ["compilation", "behavioral", "difference_blocks"]
        .iter()
        .map(|k| check(k, CheckOutcome::Error, message.clone(), json!({})))
        .collect();
    Verdict {
        passed: false,
        kind: task.kind,
        message,
        checks,
        functions: vec![],
        trials,
        candidate_stdout: String::new(),
        candidate_stderr: String::new(),
        seconds: 0.0,
    }
}

/// The verdict of a candidate (grading.md §6.8): `compilation`, then `behavioral` and
/// `difference_blocks` (both errors when the candidate does not compile). `runs` holds the
/// reference's and the candidate's runs on `vectors`; `None` when the candidate was not run.
pub fn verdict(
    task: &GradeTask,
    candidate: &str,
    vectors: &[Vec<i64>],
    names: &[String],
    runs: Option<(&RunOutcome, &RunOutcome)>,
) -> Verdict {
    let compilation = crate::grade::verdict::compilation(candidate);
    let (behavioral, functions, structure) = match (compilation.outcome, runs) {
        (CheckOutcome::Pass, Some((expected, actual))) => {
            let (b, f) = behavioural(vectors, names, expected, actual);
            (b, f, difference_blocks(candidate, &task.reference))
        }
        (CheckOutcome::Pass, None) => (
            check("behavioral", CheckOutcome::Error, "the candidate was not run".into(), json!({})),
            vec![],
            difference_blocks(candidate, &task.reference),
        ),
        _ => {
            let skipped =
                |kind: &str| check(kind, CheckOutcome::Error, "skipped because compilation failed".into(), json!({}));
            (skipped("behavioral"), vec![], skipped("difference_blocks"))
        }
    };
    let checks = vec![compilation, behavioral, structure];
    let passed = crate::grade::verdict::task_passes(task.kind, &checks);
    let message = if passed {
        format!(
            "passed: CalculateA and CalculateB match the reference on {} argument vectors, and the subclasses keep only the differences",
            vectors.len()
        )
    } else {
        checks
            .iter()
            .find(|c| c.outcome != CheckOutcome::Pass)
            .map(|c| format!("{}: {}", c.kind, c.message))
            .unwrap_or_else(|| "failed".into())
    };
    let (stdout, stderr) = runs.map(|(_, a)| (a.stdout.clone(), a.stderr.clone())).unwrap_or_default();
    Verdict {
        passed,
        kind: task.kind,
        message,
        checks,
        functions,
        trials: vectors.len(),
        candidate_stdout: stdout,
        candidate_stderr: stderr,
        seconds: 0.0,
    }
}

/// The `difference_blocks` check as a grading check.
pub fn difference_blocks(candidate: &str, reference: &str) -> CheckResult {
    let v = super::structure::difference_blocks_src(candidate, reference);
    let message = if v.outcome == CheckOutcome::Pass { String::new() } else { v.message() };
    let mut metadata = v.metadata;
    // Cabrito's addition: the line of the first issue (the worker points the page at it).
    if let (Some(line), serde_json::Value::Object(m)) = (v.issues.first().and_then(|i| i.line), &mut metadata) {
        m.insert("line".into(), json!(line));
    }
    check("difference_blocks", v.outcome, message, metadata)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grade::value::IntValue;

    #[test]
    fn python_equality_with_an_int() {
        let int = |s: &str| Value::Int(IntValue { text: s.into() });
        assert!(equals_int(&int("-12"), "-12"));
        assert!(!equals_int(&int("12"), "-12"));
        assert!(equals_int(&Value::Bool(true), "1"));
        assert!(equals_int(&Value::Float(3.0), "3"));
        assert!(equals_int(&Value::Float(-0.0), "0"));
        assert!(!equals_int(&Value::Float(3.5), "3"));
        assert!(equals_int(&Value::Float(1e20), "100000000000000000000"));
        assert!(!equals_int(&Value::Float(f64::NAN), "0"));
        assert!(!equals_int(&Value::Str("3".into()), "3"));
    }

    #[test]
    fn vectors_start_with_one_to_k() {
        let v = vectors("k", 4, 20);
        assert_eq!(v.len(), 20);
        assert_eq!(v[0], [1, 2, 3, 4]);
        assert!(v[1..].iter().flatten().all(|x| (-5..=5).contains(x)));
        assert_eq!(v, vectors("k", 4, 20));
    }
}
