//! Grading merge tasks through the real grader (sandboxed CPython runs): the reference scores 1, the
//! starter behaves like it but fails `difference_blocks` (as in the reference's verdicts), and
//! mutants of the reference fail for the right reason.
#![cfg(not(target_arch = "wasm32"))]

use cabrito::grade::{GradeTask, Outcome, Verdict};
use cabrito::native::runner::{grade, GradeOptions};
use cabrito::{Kind, Task, TaskSpec};
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

fn outcome(v: &Verdict, kind: &str) -> Outcome {
    v.checks.iter().find(|c| c.kind == kind).map(|c| c.outcome).unwrap_or_else(|| panic!("no {kind} in {v:?}"))
}

#[test]
fn reference_passes_and_starter_fails_difference_blocks() {
    let specs: Vec<TaskSpec> = [(5, 1, 0), (10, 1, 1), (25, 2, 2), (50, 3, 3), (200, 1, 4), (200, 10, 5)]
        .iter()
        .map(|&(n, d, s)| spec(n, d, s))
        .collect();
    let bad: Vec<String> = specs
        .par_iter()
        .flat_map(|s| {
            let task = cabrito::generate(s).unwrap();
            let mut bad = Vec::new();
            let v = run(&task, &task.solution_code);
            if !v.passed {
                bad.push(format!("{s}: the reference fails: {}", v.message));
            }
            let st = run(&task, &task.starter_code);
            let got =
                (st.passed, outcome(&st, "compilation"), outcome(&st, "behavioral"), outcome(&st, "difference_blocks"));
            if got != (false, Outcome::Pass, Outcome::Pass, Outcome::Fail) {
                bad.push(format!("{s}: the starter: {got:?} ({})", st.message));
            }
            bad
        })
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
