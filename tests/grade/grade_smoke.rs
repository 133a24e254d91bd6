#![cfg(not(target_arch = "wasm32"))]
use cabrito_check::grade::GradeTask;
use cabrito_gen::{Axis, Domain, Kind, TaskSpec};
use cabrito_native::runner::{grade, run_program, GradeOptions};
use std::time::Instant;

#[test]
fn smoke() {
    let t = cabrito_gen::generate(&TaskSpec::new(Kind::AddParameter, Domain::Array, Axis::Search, 200, 1)).unwrap();
    let gt = GradeTask::from_task(&t);
    for memo in [true, false] {
        let mut opts = GradeOptions { trials: 10, ..Default::default() };
        opts.harness.memoize = memo;
        let s = Instant::now();
        let prep = cabrito_check::grade::prepare(&gt, 10).unwrap();
        let p = s.elapsed();
        let req = cabrito_check::grade::request(
            &prep.plan,
            &prep.reference_program,
            &prep.reference_defs,
            None,
            &opts.harness,
        );
        let body = serde_json::to_vec(&req).unwrap();
        let r = s.elapsed();
        let out = run_program(&prep, &prep.reference_program, &prep.reference_defs, None, &opts);
        eprintln!(
            "memo {memo}: prep {:?} req {:?} ({} bytes) run {:.2}s total {:?} {:?}",
            p,
            r,
            body.len(),
            out.seconds,
            s.elapsed(),
            out.status
        );
        let v = grade(&gt, &t.solution_code, &opts, &|_, _| {});
        eprintln!("grade {:.2}", v.seconds);
    }
}
