//! The worker's second wall: each job grades on a thread of its own with a known, generous stack,
//! and a panic inside one job becomes an `internal` error reply carrying that job's id while the
//! server goes on serving (the same connection and others). The fault is injected through
//! `WorkerConfig::before_job`, which only code building a configuration can set (no flag, no
//! message reaches it).

#![cfg(not(target_arch = "wasm32"))]

use crate::worker_common;

use cabrito_check::protocol::{ClientMessage, ErrorCode, ServerMessage};
use cabrito_native::worker::JobHook;
use std::sync::Arc;
use std::time::Duration;
use worker_common::*;

const T: Duration = Duration::from_secs(60);
const PANIC: &str = "# make this job panic\n";
const DEEP: &str = "# make this job recurse deeply\n";

/// Uses about `frames` KiB of stack.
#[inline(never)]
fn recurse(frames: usize) -> u64 {
    let pad = std::hint::black_box([frames as u8; 1024]);
    if frames == 0 {
        return pad[0] as u64;
    }
    recurse(frames - 1).wrapping_add(std::hint::black_box(pad[17]) as u64)
}

fn faulty_config() -> cabrito_native::worker::WorkerConfig {
    let mut cfg = config();
    cfg.log = false;
    cfg.before_job = Some(JobHook(Arc::new(|req| {
        if req.solution == PANIC {
            panic!("injected fault in job {}", req.id);
        }
        if req.solution == DEEP {
            // 24 MiB of stack: more than any default thread stack (2 MiB for Rust and tokio's
            // blocking pool, 8 MiB for a main thread), well within the job threads' 64 MiB.
            std::hint::black_box(recurse(24 * 1024));
        }
    })));
    cfg
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_job_is_answered_with_internal_and_the_server_keeps_serving() {
    let addr = start(faulty_config()).await;
    let spec = small_spec(4);
    let reference = task(&spec).solution_code;
    let mut a = connect(addr).await;
    let mut b = connect(addr).await;
    a.send(&ClientMessage::grade("boom", &spec, PANIC, Some(2))).await;
    b.send(&ClientMessage::grade("fine", &spec, reference.clone(), Some(2))).await;
    let boom = a.until_final("boom", T).await;
    assert!(matches!(boom.first(), Some(ServerMessage::Accepted(x)) if x.id == "boom"), "{boom:?}");
    let Some(ServerMessage::Error(e)) = boom.last() else { panic!("{boom:?}") };
    assert_eq!((e.code, e.id.as_deref()), (ErrorCode::Internal, Some("boom")));
    assert!(e.message.contains("'boom'") && e.message.contains("injected fault in job boom"), "{}", e.message);
    // The other connection's job, running at the same time, is graded.
    let fine = b.until_final("fine", T).await;
    let Some(ServerMessage::Result(r)) = fine.last() else { panic!("{fine:?}") };
    assert!(r.passed, "{}", r.message);
    // The connection that saw the panic still works, and so does its next job.
    a.hello().await;
    a.send(&ClientMessage::grade("after", &spec, reference, Some(2))).await;
    let after = a.until_final("after", T).await;
    let Some(ServerMessage::Result(r)) = after.last() else { panic!("{after:?}") };
    assert!(r.passed, "{}", r.message);
    // Panics in many jobs at once do not leak slots: a full round of them, then a real grade.
    for i in 0..6 {
        let id = format!("p{i}");
        a.send(&ClientMessage::grade(id.clone(), &spec, PANIC, Some(1))).await;
        let got = a.until_final(&id, T).await;
        assert_eq!(error_code(got.last().unwrap()), Some(ErrorCode::Internal));
    }
    let mut c = connect(addr).await;
    c.send(&ClientMessage::grade("last", &spec, task(&spec).solution_code, Some(1))).await;
    let last = c.until_final("last", T).await;
    assert!(matches!(last.last(), Some(ServerMessage::Result(r)) if r.passed), "{last:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jobs_run_on_threads_with_a_generous_stack() {
    let addr = start(faulty_config()).await;
    let spec = small_spec(5);
    let mut c = connect(addr).await;
    // The hook recurses through 24 MiB of stack before the job grades its (unreadable) solution:
    // on a default-sized thread this would abort the whole test process.
    c.send(&ClientMessage::grade("deep", &spec, DEEP, Some(1))).await;
    let got = c.until_final("deep", T).await;
    let Some(ServerMessage::Result(r)) = got.last() else { panic!("{got:?}") };
    assert!(!r.passed);
}
