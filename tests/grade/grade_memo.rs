//! The harness's memo changes no result: per trial (hashable arguments in C, unhashable ones by
//! value), across trials (functions that cannot depend on the trial), and the harness's own
//! positional calls. Every case runs in CPython through the real pool and sandbox.
#![cfg(not(target_arch = "wasm32"))]
use cabrito_check::grade::{prepare, CallResult, GradeTask, TrialOutcome, Value};
use cabrito_gen::{Axis, Domain, Kind, TaskSpec};
use cabrito_native::runner::{grade, run_program, GradeOptions};

fn task(reference: &str) -> GradeTask {
    GradeTask {
        kind: Kind::AddParameter,
        domain: Domain::Math,
        axis: Axis::Traversal,
        starter: reference.to_string(),
        reference: reference.to_string(),
        key: "grade-memo".into(),
        metadata: serde_json::Value::Null,
    }
}

/// Every trial's outcome of `code` run on `gt`'s plan, with the memo on or off.
fn outcomes(gt: &GradeTask, code: &str, trials: usize, memoize: bool) -> Vec<TrialOutcome> {
    let prep = prepare(gt, trials).expect("plan");
    let defs =
        cabrito_check::grade::plan::top_defs(code).expect("parse").into_iter().map(|d| d.name).collect::<Vec<_>>();
    let mut opts = GradeOptions { trials, ..Default::default() };
    opts.harness.memoize = memoize;
    let out = run_program(&prep, code, &defs, None, &opts);
    assert_eq!(out.status, cabrito_check::grade::RunStatus::Completed, "{}", out.stderr);
    out.trials
}

/// The value every trial's calls of `name` returned.
fn returned(gt: &GradeTask, code: &str, name: &str, trials: usize) -> Vec<Value> {
    let prep = prepare(gt, trials).unwrap();
    let outs = outcomes(gt, code, trials, true);
    let mut got = Vec::new();
    for (plan, out) in prep.plan.trials.iter().zip(&outs) {
        for (call, res) in plan.calls.iter().zip(&out.calls) {
            if call.function == name {
                match res {
                    Some(CallResult::Returned(v)) => got.push(v.clone()),
                    other => panic!("{name} in a trial: {other:?}"),
                }
            }
        }
    }
    assert_eq!(got.len(), trials, "{name} is called once a trial");
    got
}

/// `seq` depends on nothing the trial defines, so its results are kept for the whole run; the list
/// it returns is mutated by its caller, and must not reach the next trial.
#[test]
fn a_mutable_result_is_not_shared_between_trials() {
    let code = "def seq(n: int) -> list:\n    return [n]\n\n\
                def grow(n: int) -> int:\n    xs = seq(2)\n    xs.append(n)\n    return len(xs)\n";
    let got = returned(&task(code), code, "grow", 12);
    assert!(got.iter().all(|v| *v == Value::int(2)), "{got:?}");
}

/// A pure function (the runtime axis's `check`) shared across trials, a function of the trial's
/// stubs beside it: every trial's results equal those of the run without any memo.
#[test]
fn shared_and_per_trial_memos_give_the_unmemoised_results() {
    for domain in [Domain::Math, Domain::String, Domain::Array] {
        for axis in [Axis::Runtime, Axis::Traversal] {
            for seed in [1, 2] {
                let t = cabrito_gen::generate(&TaskSpec::new(Kind::AddParameter, domain, axis, 10, seed)).unwrap();
                let gt = GradeTask::from_task(&t);
                let with = outcomes(&gt, &t.solution_code, 8, true);
                let without = outcomes(&gt, &t.solution_code, 8, false);
                assert_eq!(with, without, "{domain:?} {axis:?} seed {seed}");
            }
        }
    }
}

/// Lists cannot be hashed: such calls are memoised by value, and give what the function returns.
#[test]
fn unhashable_arguments_are_memoised_by_value() {
    let code = "def first(xs: list[float]) -> float:\n    return xs[0] if xs else 0.5\n\n\
                def twice(val: float) -> float:\n    return first([val, 1.0]) + first([val]) + first([])\n";
    let gt = task(code);
    let prep = prepare(&gt, 10).unwrap();
    let got = returned(&gt, code, "twice", 10);
    for (plan, v) in prep.plan.trials.iter().zip(&got) {
        let call = plan.calls.iter().find(|c| c.function == "twice").unwrap();
        let Value::Float(x) = call.args[0].1 else { panic!("{:?}", call.args) };
        assert_eq!(*v, Value::Float(x + x + 0.5));
    }
    assert_eq!(outcomes(&gt, code, 10, true), outcomes(&gt, code, 10, false));
}

/// The harness calls a function positionally only when that binds as the call by name: a candidate
/// that swapped the parameters is still called by name, as the reference's protocol says.
#[test]
fn swapped_parameters_are_still_called_by_name() {
    let reference = "def f(a: float, b: float) -> float:\n    return a - 2.0 * b\n";
    let swapped = "def f(b: float, a: float) -> float:\n    return a - 2.0 * b\n";
    let gt = task(reference);
    let v = grade(&gt, swapped, &GradeOptions { trials: 10, ..Default::default() }, &|_, _| {});
    let behaviour = v.checks.iter().find(|c| c.kind == "behavioral").map(|c| c.outcome);
    assert_eq!(behaviour, Some(cabrito_check::grade::CheckOutcome::Pass), "{}", v.message);
}
