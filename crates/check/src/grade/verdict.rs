//! Verdicts: the behavioural check from two runs (grading.md §3.4–§3.6 with D6), the reference's
//! `function_existence` rule (§4.2), the task pass rule (§5.3–§5.5) and Wilson intervals.

use super::outcome::{CallResult, RunOutcome, RunStatus};
use super::plan::Plan;
use super::value::{compare, Comparison, Value};
use crate::existence;
use crate::program::{Program, ProgramError};
use cabrito_gen::spec::{Axis, Kind};
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::collections::BTreeSet;

/// pass / fail / error, as the reference's result records spell them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CheckOutcome {
    Pass,
    Fail,
    Error,
}

/// One check of the suite.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckResult {
    pub kind: String,
    #[serde(rename = "type")]
    pub outcome: CheckOutcome,
    /// One line saying why (empty on a plain pass).
    pub message: String,
    pub metadata: serde_json::Value,
}

/// The first failing (trial, call) of a function.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FirstFailure {
    pub trial: usize,
    /// The stub block of that trial (index into the domain's Cartesian list).
    pub stub_block: usize,
    /// Keyword arguments, rendered as Python values.
    pub inputs: Vec<(String, String)>,
    pub expected: Option<String>,
    pub actual: Option<String>,
    pub message: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FunctionStatus {
    Pass,
    Fail,
    Error,
    /// The function is in the reference but not in the candidate (D6).
    Missing,
}

/// Per-function results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FunctionResult {
    pub name: String,
    pub status: FunctionStatus,
    pub passed: usize,
    pub failed: usize,
    pub errored: usize,
    pub first_failure: Option<FirstFailure>,
}

/// The reference's `function_existence` (grading.md §4.2), by the rule the static rubric uses too
/// ([`crate::existence`]); an error when a program cannot be read.
pub fn function_existence(starter: &str, reference: &str, candidate: &str) -> CheckResult {
    existence_check(starter, reference, &Program::read(candidate))
}

/// [`function_existence`] of a candidate already read.
pub fn existence_check(starter: &str, reference: &str, candidate: &Result<Program, ProgramError>) -> CheckResult {
    let kind = "function_existence";
    let (s, r) = match (Program::read(starter), Program::read(reference)) {
        (Ok(s), Ok(r)) => (s, r),
        (Err(e), _) => return check(kind, CheckOutcome::Error, format!("the starter cannot be read: {e}"), json!({})),
        (_, Err(e)) => {
            return check(kind, CheckOutcome::Error, format!("the reference cannot be read: {e}"), json!({}))
        }
    };
    let c = match candidate {
        Ok(c) => c,
        Err(e) => {
            return check(
                kind,
                CheckOutcome::Error,
                format!("the candidate cannot be read: {e}"),
                json!({"line": e.line}),
            )
        }
    };
    let e = existence::function_existence(&s, &r, c);
    let meta = if e.sets_match() && !e.assignments.is_empty() {
        json!({"global_variables": e.assignments.iter().map(|(n, _)| n).collect::<Vec<_>>(), "line": e.line})
    } else {
        json!({"missing": e.missing, "forbidden": e.forbidden, "extra": e.extra, "line": e.line})
    };
    if e.passed() {
        check(kind, CheckOutcome::Pass, String::new(), meta)
    } else {
        check(kind, CheckOutcome::Fail, e.message(), meta)
    }
}

fn check(kind: &str, outcome: CheckOutcome, message: String, metadata: serde_json::Value) -> CheckResult {
    CheckResult { kind: kind.into(), outcome, message, metadata }
}

fn list<T: std::fmt::Display>(xs: &[T]) -> String {
    const SHOWN: usize = 8;
    let mut s: Vec<String> = xs.iter().take(SHOWN).map(|x| format!("'{x}'")).collect();
    if xs.len() > SHOWN {
        s.push(format!("and {} more", xs.len() - SHOWN));
    }
    s.join(", ")
}

/// `compilation` (grading.md §4.1): what CPython 3.11's `compile()` says of the candidate, by the
/// front end the static rubric uses (an error, not a failure, otherwise).
pub fn compilation(candidate: &str) -> CheckResult {
    compilation_check(&Program::read(candidate))
}

/// [`compilation`] of a candidate already read.
pub fn compilation_check(candidate: &Result<Program, ProgramError>) -> CheckResult {
    let problem = match candidate {
        Ok(p) => p.compile_error(),
        Err(e) => Some(e),
    };
    match problem {
        None => check("compilation", CheckOutcome::Pass, String::new(), json!({})),
        Some(e) => check(
            "compilation",
            CheckOutcome::Error,
            format!("the candidate does not compile: {e}"),
            json!({"line": e.line}),
        ),
    }
}

fn render_inputs(args: &[(String, Value)]) -> Vec<(String, String)> {
    args.iter().map(|(n, v)| (n.clone(), v.to_string())).collect()
}

/// The behavioural check from the reference's run (`expected`) and the candidate's (`actual`)
/// on the same plan. `tested` holds the reference functions present in the candidate; `missing`
/// the ones absent (D6: each is a failure naming it).
pub fn behavioural(
    plan: &Plan,
    tested: &BTreeSet<String>,
    missing: &[String],
    expected: &RunOutcome,
    actual: &RunOutcome,
) -> (CheckResult, Vec<FunctionResult>) {
    let mut results: Vec<FunctionResult> = plan
        .functions
        .iter()
        .map(|f| FunctionResult {
            name: f.name.clone(),
            status: if tested.contains(&f.name) { FunctionStatus::Pass } else { FunctionStatus::Missing },
            passed: 0,
            failed: 0,
            errored: 0,
            first_failure: None,
        })
        .collect();
    let (mut passed, mut failed, mut errored) = (0usize, 0usize, 0usize);
    // Explain missing results once per run: the first absent call is the one that was running.
    let mut actual_gap_seen = false;
    // Results are in plan order: find a call's function by name without a scan (n calls a trial).
    let position: std::collections::HashMap<&str, usize> =
        plan.functions.iter().enumerate().map(|(i, f)| (f.name.as_str(), i)).collect();
    for (t, trial) in plan.trials.iter().enumerate() {
        let exp_trial = expected.trials.get(t);
        let act_trial = actual.trials.get(t);
        for (i, call) in trial.calls.iter().enumerate() {
            let Some(fr) = position.get(call.function.as_str()).and_then(|&k| results.get_mut(k)) else { continue };
            if fr.status == FunctionStatus::Missing {
                continue;
            }
            let exp = exp_trial.and_then(|tr| tr.calls.get(i)).cloned().flatten();
            let act = act_trial.and_then(|tr| tr.calls.get(i)).cloned().flatten();
            // (is_error, message, expected text, actual text)
            let verdict: Option<(bool, String, Option<String>, Option<String>)> =
                if let Some(e) = exp_trial.and_then(|tr| tr.setup_error.as_ref()) {
                    Some((true, format!("the reference raised while loading in this trial: {e}"), None, None))
                } else if let Some(e) = act_trial.and_then(|tr| tr.setup_error.as_ref()) {
                    Some((
                        true,
                        format!("the candidate raised while loading (module code or a default value): {e}"),
                        None,
                        None,
                    ))
                } else {
                    match (exp, act) {
                        (None, _) => {
                            Some((true, format!("no reference result ({})", expected.status.describe()), None, None))
                        }
                        (Some(CallResult::Raised(e)), _) => Some((
                            true,
                            format!("the reference raised {e} on this input"),
                            Some(format!("raises {e}")),
                            None,
                        )),
                        (Some(CallResult::Returned(ev)), None) => {
                            let why = if actual_gap_seen {
                                format!("not run ({})", actual.status.describe())
                            } else {
                                actual_gap_seen = true;
                                match &actual.status {
                                    RunStatus::Completed => "no result".to_string(),
                                    s => format!("no result: {} while this call was running", s.describe()),
                                }
                            };
                            Some((true, why, Some(ev.to_string()), None))
                        }
                        (Some(CallResult::Returned(ev)), Some(CallResult::Raised(e))) => {
                            Some((true, format!("raised {e}"), Some(ev.to_string()), Some(format!("raises {e}"))))
                        }
                        (Some(CallResult::Returned(ev)), Some(CallResult::Returned(av))) => match compare(&av, &ev) {
                            Comparison::Equal => None,
                            Comparison::Differ(m) => {
                                Some((false, format!("wrong result: {m}"), Some(ev.to_string()), Some(av.to_string())))
                            }
                            Comparison::Error(m) => Some((true, m, Some(ev.to_string()), Some(av.to_string()))),
                        },
                    }
                };
            match verdict {
                None => {
                    fr.passed += 1;
                    passed += 1;
                }
                Some((is_error, message, exp_text, act_text)) => {
                    if is_error {
                        fr.errored += 1;
                        errored += 1;
                    } else {
                        fr.failed += 1;
                        failed += 1;
                    }
                    if fr.first_failure.is_none() {
                        fr.first_failure = Some(FirstFailure {
                            trial: t,
                            stub_block: trial.stub_index,
                            inputs: render_inputs(&call.args),
                            expected: exp_text,
                            actual: act_text,
                            message,
                        });
                    }
                }
            }
        }
    }
    for fr in results.iter_mut() {
        if fr.status != FunctionStatus::Missing {
            fr.status = if fr.failed == 0 && fr.errored == 0 {
                FunctionStatus::Pass
            } else if fr.failed > 0 {
                FunctionStatus::Fail
            } else {
                FunctionStatus::Error
            };
        }
    }
    let total = passed + failed + errored;
    let meta = json!({
        "total": total, "passed": passed, "failed": failed, "errored": errored,
        "pass_rate": if total > 0 { passed as f64 / total as f64 } else { 0.0 },
        "trials": plan.trials.len(), "functions_tested": tested.len(), "missing_functions": missing,
        "candidate_run": actual.status.describe(), "reference_run": expected.status.describe(),
    });
    let first_bad = results.iter().find(|r| r.first_failure.is_some());
    let detail = first_bad
        .map(|r| {
            let f = r.first_failure.as_ref().expect("checked");
            format!("'{}' trial {}: {}", r.name, f.trial, f.message)
        })
        .unwrap_or_default();
    let (outcome, message) = if !missing.is_empty() {
        (CheckOutcome::Fail, format!("functions of the reference are missing: {}", list(missing)))
    } else if total == 0 {
        (CheckOutcome::Error, "nothing was tested: the reference has no function to call".to_string())
    } else if failed == 0 && errored == 0 {
        (CheckOutcome::Pass, String::new())
    } else if passed == 0 && failed == 0 {
        (CheckOutcome::Error, format!("{errored} of {total} calls raised or gave no result; first: {detail}"))
    } else {
        (
            CheckOutcome::Fail,
            format!("{} of {total} calls differ from the reference; first: {detail}", failed + errored),
        )
    };
    (check("behavioral", outcome, message, meta), results)
}

/// The check kinds a task must pass (grading.md §5.3): the kind says
/// ([`cabrito_gen::kinds::TaskKind::required_checks`]).
pub fn required_kinds(kind: Kind) -> &'static [&'static str] {
    kind.def().required_checks()
}

/// The check kinds a task on an axis must pass: the kind's, then the axis's
/// ([`cabrito_gen::axes::AxisDef::required_checks`]).
pub fn required_checks(kind: Kind, axis: Axis) -> Vec<&'static str> {
    let mut out = required_kinds(kind).to_vec();
    out.extend(axis.def().required_checks().iter().filter(|c| !out.contains(c)).collect::<Vec<_>>());
    out
}

/// The task pass rule (§5.4): every required kind present and passing.
pub fn task_passes(kind: Kind, checks: &[CheckResult]) -> bool {
    passes(required_kinds(kind), checks)
}

/// The pass rule for a list of required check kinds.
pub fn passes(required: &[&str], checks: &[CheckResult]) -> bool {
    required.iter().all(|k| {
        let of_kind: Vec<&CheckResult> = checks.iter().filter(|c| c.kind == *k).collect();
        !of_kind.is_empty() && of_kind.iter().all(|c| c.outcome == CheckOutcome::Pass)
    })
}

/// The Wilson score interval at 95 % for `successes` out of `n` (`(0, 1)` when `n` is 0).
pub fn wilson(successes: usize, n: usize) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let z = 1.959_963_984_540_054_f64;
    let n_f = n as f64;
    let p = successes as f64 / n_f;
    let denom = 1.0 + z * z / n_f;
    let centre = (p + z * z / (2.0 * n_f)) / denom;
    let half = z * libm::sqrt(p * (1.0 - p) / n_f + z * z / (4.0 * n_f * n_f)) / denom;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_matches_known_values() {
        let (lo, hi) = wilson(20, 20);
        assert!((lo - 0.8389).abs() < 1e-3 && hi == 1.0);
        let (lo, hi) = wilson(5, 10);
        assert!((lo - 0.2366).abs() < 1e-3 && (hi - 0.7634).abs() < 1e-3);
        assert_eq!(wilson(0, 0), (0.0, 1.0));
    }

    #[test]
    fn existence_follows_the_reference_rule() {
        let starter = "def a():\n    pass\n\ndef dead():\n    pass\n\ndef main():\n    a()\n";
        let reference = "def a():\n    pass\n\ndef main():\n    a()\n";
        assert_eq!(function_existence(starter, reference, reference).outcome, CheckOutcome::Pass);
        let r = function_existence(starter, reference, starter);
        assert_eq!(r.outcome, CheckOutcome::Fail);
        assert!(r.message.contains("`dead`") && r.metadata["forbidden"] == json!(["dead"]), "{r:?}");
        let r = function_existence(starter, reference, "def main():\n    a()\n");
        assert!(r.message.contains("missing: `a`"), "{}", r.message);
        let r = function_existence(starter, reference, "X = 1\ndef a():\n    pass\n\ndef main():\n    a()\n");
        assert!(r.message.contains("`X` (line 1)") && r.metadata["global_variables"] == json!(["X"]), "{r:?}");
        let r = function_existence(starter, reference, "def (");
        assert_eq!((r.outcome, r.metadata["line"].clone()), (CheckOutcome::Error, json!(1)));
        // One front end: a candidate too deep for CPython is an error with its line, not a crash.
        let deep = format!("x = {}1\n", "-".repeat(200_000));
        let c = compilation(&deep);
        assert_eq!((c.outcome, c.metadata["line"].clone()), (CheckOutcome::Error, json!(1)));
        assert_eq!(function_existence(starter, reference, &deep).outcome, CheckOutcome::Error);
        // `compile()` refuses what `ast.parse` reads: compilation errs, the function sets are still judged.
        let module_return = format!("{reference}\nreturn 1\n");
        assert_eq!(compilation(&module_return).outcome, CheckOutcome::Error);
        assert_eq!(function_existence(starter, reference, &module_return).outcome, CheckOutcome::Pass);
    }

    #[test]
    fn pass_rule_needs_every_required_kind() {
        let pass = |k: &str| check(k, CheckOutcome::Pass, String::new(), json!({}));
        let fail = |k: &str| check(k, CheckOutcome::Fail, String::new(), json!({}));
        assert!(task_passes(Kind::AddParameter, &[pass("behavioral"), fail("function_existence")]));
        assert!(!task_passes(Kind::DeadCode, &[pass("behavioral"), fail("function_existence")]));
        assert!(!task_passes(Kind::DeadCode, &[pass("behavioral")]));
        // Every kind: all its required checks passing is a pass; any one failing or missing is not.
        for &kind in Kind::ALL {
            let required = required_kinds(kind);
            let all: Vec<CheckResult> = required.iter().map(|k| pass(k)).collect();
            assert!(task_passes(kind, &all), "{kind}");
            for i in 0..required.len() {
                let mut one_fails = all.clone();
                one_fails[i] = fail(required[i]);
                assert!(!task_passes(kind, &one_fails), "{kind}: {} fails", required[i]);
                let mut missing = all.clone();
                missing.remove(i);
                assert!(!task_passes(kind, &missing), "{kind}: {} missing", required[i]);
            }
        }
    }
}
