//! Grading merge tasks through the real grader (sandboxed CPython runs): the reference scores 1, the
//! starter behaves like it but fails `difference_blocks` (as in the reference's verdicts), and
//! mutants of the reference fail for the right reason.
#![cfg(not(target_arch = "wasm32"))]

use cabrito_check::grade::{CheckOutcome, GradeTask, Verdict};
use cabrito_gen::{Kind, Task, TaskSpec};
use cabrito_native::runner::{grade, GradeOptions};
use rayon::prelude::*;

fn opts() -> GradeOptions {
    GradeOptions { trials: 10, ..Default::default() }
}

fn spec(n: u32, d: u32, seed: u64) -> TaskSpec {
    TaskSpec { kind: Kind::MergeCodebases, n, d, seed, ..TaskSpec::default() }
}

fn run(task: &Task, code: &str) -> Verdict {
    grade(&GradeTask::from_task(task), code, &opts(), &|_, _| {})
}

fn outcome(v: &Verdict, kind: &str) -> CheckOutcome {
    v.checks.iter().find(|c| c.kind == kind).map(|c| c.outcome).unwrap_or_else(|| panic!("no {kind} in {v:?}"))
}

#[test]
fn reference_passes_and_starter_fails_difference_blocks() {
    let specs: Vec<TaskSpec> = [(5, 1, 0), (10, 1, 1), (25, 2, 2), (50, 3, 3), (200, 1, 4), (200, 10, 5), (1000, 1, 6)]
        .iter()
        .map(|&(n, d, s)| spec(n, d, s))
        .collect();
    let bad: Vec<String> = specs
        .par_iter()
        .flat_map(|s| {
            let task = cabrito_gen::generate(s).unwrap();
            let mut bad = Vec::new();
            let v = run(&task, &task.solution_code);
            if !v.passed {
                bad.push(format!("{s}: the reference fails: {}", v.message));
            }
            let st = run(&task, &task.starter_code);
            let got =
                (st.passed, outcome(&st, "compilation"), outcome(&st, "behavioral"), outcome(&st, "difference_blocks"));
            if got != (false, CheckOutcome::Pass, CheckOutcome::Pass, CheckOutcome::Fail) {
                bad.push(format!("{s}: the starter: {got:?} ({})", st.message));
            }
            bad
        })
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn wrong_raising_looping_and_broken_candidates() {
    let task = cabrito_gen::generate(&spec(25, 2, 7)).unwrap();
    let r = &task.solution_code;
    // A wrong difference: CalculateB's first custom method negated.
    let b = r.find("class CalculateB(").unwrap();
    let ret = b + r[b..].find("        return ").unwrap() + "        return ".len();
    let wrong = format!(
        "{}-({}){}",
        &r[..ret],
        &r[ret..ret + r[ret..].find('\n').unwrap()],
        &r[ret + r[ret..].find('\n').unwrap()..]
    );
    let v = run(&task, &wrong);
    assert_eq!(
        (outcome(&v, "behavioral"), outcome(&v, "difference_blocks")),
        (CheckOutcome::Fail, CheckOutcome::Pass),
        "{}",
        v.message
    );
    let fb = v.functions.iter().find(|f| f.name == "CalculateB").unwrap();
    let first = fb.first_failure.as_ref().unwrap();
    assert!(first.message.starts_with("CalculateB.compute["), "{}", first.message);
    assert_eq!(first.inputs.len(), 10);
    assert!(v.functions.iter().find(|f| f.name == "CalculateA").unwrap().first_failure.is_none());
    assert!(!v.passed && v.message.starts_with("behavioral: "), "{}", v.message);

    // compute() kept in a child: behaves, but fails difference_blocks.
    let kept = r.replacen(
        "class CalculateA(Calculate):\n",
        "class CalculateA(Calculate):\n    def compute(self, *args):\n        return super().compute(*args)\n\n",
        1,
    );
    let v = run(&task, &kept);
    assert_eq!((outcome(&v, "behavioral"), outcome(&v, "difference_blocks")), (CheckOutcome::Pass, CheckOutcome::Fail));
    assert!(v.message.contains("CalculateA.compute (line"), "{}", v.message);

    // An exception anywhere is an error (the reference's rule).
    let raising = r.replacen(
        "    def compute(self, ",
        "    def compute(self, *a):\n        raise ValueError('no')\n\n    def unused(self, ",
        1,
    );
    let v = run(&task, &raising);
    assert_eq!(outcome(&v, "behavioral"), CheckOutcome::Error, "{}", v.message);
    assert!(v.message.contains("ValueError"), "{}", v.message);

    // A loop is stopped by the per-call alarm (the reference's 5 s, scaled down here).
    let looping = r.replacen(
        "    def compute(self, ",
        "    def compute(self, *a):\n        while True:\n            pass\n\n    def unused(self, ",
        1,
    );
    let mut quick = opts();
    quick.harness.call_timeout = 0.2;
    let started = std::time::Instant::now();
    let v = grade(&GradeTask::from_task(&task), &looping, &quick, &|_, _| {});
    assert_eq!(outcome(&v, "behavioral"), CheckOutcome::Error, "{}", v.message);
    assert!(v.message.contains("Timeout"), "{}", v.message);
    assert!(started.elapsed().as_secs() < 20);

    // A syntax error: compilation is an error and the other checks are skipped, as the reference does.
    let v = run(&task, "class Calculate(:\n    pass\n");
    assert_eq!(
        (outcome(&v, "compilation"), outcome(&v, "behavioral"), outcome(&v, "difference_blocks")),
        (CheckOutcome::Error, CheckOutcome::Error, CheckOutcome::Error)
    );
    assert!(v.checks[1].message.contains("skipped because compilation failed"));
    // A file without the classes: behavioural and structure errors, nothing crashes.
    let v = run(&task, "x = 1\n");
    assert_eq!(outcome(&v, "difference_blocks"), CheckOutcome::Error, "{}", v.message);
    assert_eq!(outcome(&v, "behavioral"), CheckOutcome::Error, "{}", v.message);
}
