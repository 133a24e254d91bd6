//! Hostile candidates and clients against the worker: a candidate that loops forever, one that
//! swallows the per-call alarm (only the job timeout ends it), forks, floods output or allocates;
//! cancelling a running job; a client that disconnects mid-job. The worker answers every request
//! once, keeps serving, and leaves no Python process behind.
//!
//! One test, run in sequence, because it counts this process's Python processes.

#![cfg(not(target_arch = "wasm32"))]

mod worker_common;

use cabrito_check::protocol::{ClientMessage, ErrorCode, ServerMessage};
use std::time::{Duration, Instant};
use worker_common::*;

const T: Duration = Duration::from_secs(30);

const SWALLOW_ALARM: &str =
    "while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass";

async fn final_of(c: &mut Client, id: &str) -> ServerMessage {
    let msgs = c.until_final(id, T).await;
    assert!(matches!(msgs[0], ServerMessage::Accepted(_)), "{id}: accepted first: {:?}", msgs[0]);
    let finals = msgs.iter().filter(|m| m.is_final()).count();
    assert_eq!(finals, 1, "{id}: exactly one final reply");
    msgs.last().unwrap().clone()
}

async fn reference_passes(c: &mut Client, id: &str) {
    let spec = small_spec(11);
    c.send(&ClientMessage::grade(id, &spec, task(&spec).solution_code, Some(2))).await;
    let m = final_of(c, id).await;
    assert!(matches!(&m, ServerMessage::Result(r) if r.passed), "{id}: the worker still grades: {m:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_candidates_and_clients() {
    assert!(python_descendants().is_empty(), "python processes before the test");
    let mut cfg = config();
    cfg.limits.job_timeout_seconds = 3.0;
    cfg.limits.workers = 2;
    let addr = start(cfg).await;
    let mut c = connect(addr).await;
    let spec = small_spec(5);

    // A plain infinite loop: the harness's per-call alarm stops it; the candidate fails.
    let started = Instant::now();
    c.send(&ClientMessage::grade("loop", &spec, hostile(&spec, "while True:\n    pass"), Some(2))).await;
    match final_of(&mut c, "loop").await {
        ServerMessage::Result(r) => {
            assert!(!r.passed && r.hidden_passed == Some(false), "{}", r.message);
            let hidden = r.checks.iter().find(|c| c.id == "hidden_tests").expect("hidden tests");
            assert!(hidden.reason.contains("time limit"), "{}", hidden.reason);
        }
        ServerMessage::Error(e) => assert_eq!(e.code, ErrorCode::Timeout, "{}", e.message),
        other => panic!("{other:?}"),
    }
    assert!(started.elapsed() < Duration::from_secs(6), "{:?}", started.elapsed());

    // A loop that swallows the alarm: the job timeout answers, and the worker keeps serving.
    let started = Instant::now();
    c.send(&ClientMessage::grade("swallow", &spec, hostile(&spec, SWALLOW_ALARM), Some(2))).await;
    let m = final_of(&mut c, "swallow").await;
    assert_eq!(error_code(&m), Some(ErrorCode::Timeout), "{m:?}");
    let took = started.elapsed();
    assert!(took >= Duration::from_millis(2900) && took < Duration::from_secs(6), "{took:?}");
    reference_passes(&mut c, "after-swallow").await;

    // Cancel a running job: answered at once.
    c.send(&ClientMessage::grade("cancel-me", &spec, hostile(&spec, SWALLOW_ALARM), Some(2))).await;
    // Wait until it runs (its static checks are done), then cancel.
    loop {
        match c.recv(T).await {
            ServerMessage::Progress(p) if p.id == "cancel-me" && p.stage == "static" => break,
            ServerMessage::Accepted(_) | ServerMessage::Progress(_) => {}
            other => panic!("{other:?}"),
        }
    }
    let asked = Instant::now();
    c.send(&ClientMessage::cancel("cancel-me")).await;
    let m = c.until_final("cancel-me", T).await.pop().unwrap();
    assert_eq!(error_code(&m), Some(ErrorCode::Cancelled), "{m:?}");
    assert!(asked.elapsed() < Duration::from_secs(1), "{:?}", asked.elapsed());
    // Nothing more is said about it, even when its run ends in the background.
    c.send(&ClientMessage::cancel("cancel-me")).await;
    reference_passes(&mut c, "after-cancel").await;

    // Forks, floods of output, memory: failed results, never a crash.
    for (name, body) in [
        ("fork", "import os\nwhile True:\n    try:\n        os.fork()\n    except BaseException:\n        pass"),
        ("print", "while True:\n    print('x' * 100000)"),
        ("alloc", "x = []\nwhile True:\n    x.append(bytearray(10**8))"),
        ("delete", "import shutil, os\nshutil.rmtree('/', ignore_errors=True)\nos._exit(3)"),
        ("exit", "raise SystemExit(0)"),
    ] {
        c.send(&ClientMessage::grade(name, &spec, hostile(&spec, body), Some(2))).await;
        match final_of(&mut c, name).await {
            ServerMessage::Result(r) => {
                assert_eq!(r.hidden_passed, Some(false), "{name}: the hidden tests must fail: {}", r.message);
                // What the candidate printed comes back capped.
                assert!(
                    r.stdout.len() < 4200 && r.stderr.len() < 4200,
                    "{name}: {} {}",
                    r.stdout.len(),
                    r.stderr.len()
                );
            }
            ServerMessage::Error(e) => assert_eq!(e.code, ErrorCode::Timeout, "{name}: {}", e.message),
            other => panic!("{name}: {other:?}"),
        }
        c.hello().await;
    }
    reference_passes(&mut c, "after-hostile").await;

    // A client that disconnects mid-job: the worker keeps serving others.
    let mut gone = connect(addr).await;
    gone.send(&ClientMessage::grade("left", &spec, hostile(&spec, SWALLOW_ALARM), Some(2))).await;
    assert!(matches!(gone.recv(T).await, ServerMessage::Accepted(_)));
    // The count below sees the runs it has to wait for (so it can fail).
    let deadline = Instant::now() + Duration::from_secs(5);
    while python_descendants().is_empty() {
        assert!(Instant::now() < deadline, "the running candidate's python process is not seen");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    drop(gone);
    let mut other = connect(addr).await;
    other.hello().await;
    reference_passes(&mut other, "after-disconnect").await;

    // Every Python process ends: runs are bounded by the job timeout plus one second.
    no_python_left(Duration::from_secs(15)).await;
    c.hello().await;
}
