//! Behavioural grading of merge tasks (grading.md §6.8, D7): the reference and the candidate each run
//! in their own sandboxed Python process (the runner's [`execute`]: a child of the interpreter pool
//! where the machine allows it, else a fresh process) under `merge_harness.py`, which
//! calls `CalculateA().compute(*v)` and `CalculateB().compute(*v)` on every argument vector; the
//! verdict is assembled by the pure [`behaviour`] module. The reference's outputs are cached per
//! task and vectors.

use super::runner::{execute, outcome_from_raw, GradeOptions, Harness};
use cabrito_check::grade::{GradeTask, RunOutcome, RunStatus, Verdict};
use cabrito_check::merge::{behaviour, behaviour::CALL_TIMEOUT};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

/// The harness every merge run executes.
pub const MERGE_HARNESS: &str = include_str!("merge_harness.py");

/// Seconds one class gets per vector: the reference scorer's 5 s at the harness's default call
/// timeout (2 s), scaled with it.
pub fn call_timeout(opts: &GradeOptions) -> f64 {
    opts.harness.call_timeout * CALL_TIMEOUT / cabrito_check::grade::HarnessOptions::default().call_timeout
}

/// Run one program on the vectors.
pub fn run_calculators(program: &str, vectors: &[Vec<i64>], opts: &GradeOptions) -> RunOutcome {
    let req = behaviour::request(program, vectors, call_timeout(opts));
    let body = serde_json::to_vec(&req).unwrap_or_default();
    let raw = execute(Harness::Merge, false, &body, opts, vectors.len() * 2);
    outcome_from_raw(raw, &vec![2; vectors.len()])
}

fn cache() -> &'static Mutex<HashMap<String, Arc<RunOutcome>>> {
    static C: OnceLock<Mutex<HashMap<String, Arc<RunOutcome>>>> = OnceLock::new();
    C.get_or_init(|| Mutex::new(HashMap::new()))
}

/// The reference's outputs on the vectors, from memory or from a run.
fn expected(task: &GradeTask, vectors: &[Vec<i64>], opts: &GradeOptions) -> Arc<RunOutcome> {
    let key = cabrito_gen::rng::hex_id(
        &format!(
            "{}|{}|{}",
            cabrito_gen::rng::hex_id(&task.reference, "reference", 16),
            serde_json::to_string(vectors).unwrap_or_default(),
            cabrito_gen::rng::hex_id(MERGE_HARNESS, "harness", 8)
        ),
        "grade/merge-expected",
        16,
    );
    if let Some(hit) = cache().lock().ok().and_then(|c| c.get(&key).cloned()) {
        return hit;
    }
    let out = Arc::new(run_calculators(&task.reference, vectors, opts));
    if out.status == RunStatus::Completed {
        if let Ok(mut c) = cache().lock() {
            if c.len() >= 256 {
                c.clear();
            }
            c.insert(key, out.clone());
        }
    }
    out
}

/// Grade a candidate of a merge task. `progress(done, total)` as the two runs finish.
pub fn grade(task: &GradeTask, candidate: &str, opts: &GradeOptions, progress: &dyn Fn(usize, usize)) -> Verdict {
    let start = Instant::now();
    let names = match behaviour::compute_params(&task.reference) {
        Ok(n) => n,
        Err(e) => {
            progress(2, 2);
            return behaviour::error_verdict(task, opts.trials, format!("the task cannot be graded: {e}"));
        }
    };
    let vectors = behaviour::vectors(&task.input_key(), names.len(), opts.trials);
    if cabrito_check::grade::verdict::compilation(candidate).outcome != cabrito_check::grade::CheckOutcome::Pass {
        progress(2, 2);
        let mut v = behaviour::verdict(task, candidate, &vectors, &names, None);
        v.seconds = start.elapsed().as_secs_f64();
        return v;
    }
    let (expected, actual) = std::thread::scope(|scope| {
        let cand = scope.spawn(|| run_calculators(candidate, &vectors, opts));
        let expected = expected(task, &vectors, opts);
        progress(1, 2);
        let actual = cand.join().unwrap_or_else(|_| {
            RunOutcome::failed(RunStatus::Protocol { message: "the candidate runner thread failed".into() }, 0, 0)
        });
        (expected, actual)
    });
    progress(2, 2);
    let mut v = if expected.status != RunStatus::Completed {
        behaviour::error_verdict(
            task,
            vectors.len(),
            format!(
                "the reference solution did not run to the end: {}; {}",
                expected.status.describe(),
                expected.stderr.trim()
            ),
        )
    } else {
        behaviour::verdict(task, candidate, &vectors, &names, Some((&expected, &actual)))
    };
    v.seconds = start.elapsed().as_secs_f64();
    v
}
