//! Fair scheduling and large tasks on the worker: the largest tasks the app offers (`n = 2,000`)
//! are graded within the worker's default limits, the client is told up front that they will take
//! long, and a small job sent after two of them finishes first instead of waiting behind them.

#![cfg(not(target_arch = "wasm32"))]

use crate::worker_common;

use cabrito_check::protocol::{ClientMessage, ServerMessage};
use cabrito_gen::{Axis, Domain, Kind, TaskSpec};
use cabrito_native::worker::WorkerConfig;
use std::time::{Duration, Instant};
use worker_common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_jobs_are_announced_graded_and_do_not_starve_small_ones() {
    // The worker's own defaults (job timeout, message size, trials), two slots, quiet.
    let mut cfg = WorkerConfig { log: false, ..WorkerConfig::default() };
    cfg.limits.workers = 2;
    let addr = start(cfg).await;
    let big = TaskSpec::new(Kind::AddParameter, Domain::Math, Axis::Traversal, 2000, 7);
    let big2 = TaskSpec::new(Kind::AddReturnValue, Domain::String, Axis::Search, 2000, 8);
    let small = small_spec(9);
    let mut a = connect(addr).await;
    let mut b = connect(addr).await;
    for (id, spec) in [("big1", &big), ("big2", &big2)] {
        a.send(&ClientMessage::grade(id.to_string(), spec, task(spec).solution_code, None)).await;
        match a.reply(Duration::from_secs(10)).await {
            ServerMessage::Accepted(acc) => {
                let est = acc.estimated_seconds.expect("an estimate");
                assert!(est >= 2.0, "{id}: {est}");
                assert!(acc.note.as_deref().is_some_and(|n| n.contains("large task")), "{acc:?}");
            }
            other => panic!("{other:?}"),
        }
    }
    // Read the large jobs' replies as they come.
    let larges = tokio::spawn(async move {
        let mut finals = Vec::new();
        while finals.len() < 2 {
            let m = a.recv(Duration::from_secs(180)).await;
            if m.is_final() {
                finals.push((Instant::now(), m));
            }
        }
        finals
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    b.send(&ClientMessage::grade("small".to_string(), &small, task(&small).solution_code, None)).await;
    let msgs = b.until_final("small", Duration::from_secs(120)).await;
    let small_done = Instant::now();
    match &msgs[0] {
        ServerMessage::Accepted(acc) => {
            assert!(acc.estimated_seconds.is_some_and(|e| e < 1.0) && acc.note.is_none(), "{acc:?}");
            assert_eq!(acc.queued_ahead, Some(0), "nothing is ahead of a small job here");
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(msgs.last(), Some(ServerMessage::Result(r)) if r.passed), "{:?}", msgs.last());
    // Both large jobs pass within the default job timeout, after the small one was done.
    for (at, m) in larges.await.expect("reader") {
        match m {
            ServerMessage::Result(r) => assert!(r.passed, "{}: {}", r.id, r.message),
            other => panic!("{other:?}"),
        }
        assert!(at > small_done, "a large job finished before the small one sent after it");
    }
}
