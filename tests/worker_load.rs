//! 50 concurrent connections, each sending several jobs at once, against a worker with a small
//! queue: every accepted request gets exactly one final reply (its result), every other one a
//! `busy` error and nothing else; grades stay right under load; no Python process is left.

#![cfg(not(target_arch = "wasm32"))]

mod worker_common;

use cabrito_check::protocol::{ClientMessage, ErrorCode, ServerMessage};
use std::collections::HashMap;
use std::time::Duration;
use worker_common::*;

const CONNECTIONS: usize = 50;
const JOBS_PER_CONNECTION: usize = 5;
const QUEUE: usize = 100;
const PER_CONNECTION: usize = 4;

#[derive(Default, Debug)]
struct Seen {
    accepted: usize,
    progress: usize,
    finals: Vec<ServerMessage>,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_connections_each_sending_several_jobs() {
    assert!(python_descendants().is_empty(), "python processes before the test");
    let mut cfg = config();
    cfg.limits.workers = 2;
    cfg.limits.max_queued_jobs = QUEUE;
    cfg.limits.max_jobs_per_connection = PER_CONNECTION;
    cfg.log = false;
    let addr = start(cfg).await;
    let specs: Vec<_> = (0..4).map(|s| small_spec(100 + s)).collect();
    let tasks: Vec<_> = specs.iter().map(task).collect();

    let mut clients = Vec::new();
    for _ in 0..CONNECTIONS {
        clients.push(connect(addr).await);
    }
    let mut handles = Vec::new();
    for (ci, mut c) in clients.into_iter().enumerate() {
        let specs = specs.clone();
        let codes: Vec<(String, String)> =
            tasks.iter().map(|t| (t.solution_code.clone(), t.starter_code.clone())).collect();
        handles.push(tokio::spawn(async move {
            // Every job is sent before any reply is read.
            let mut want: HashMap<String, bool> = HashMap::new();
            for j in 0..JOBS_PER_CONNECTION {
                let k = (ci + j) % specs.len();
                let reference = j % 2 == 0;
                let code = if reference { &codes[k].0 } else { &codes[k].1 };
                let id = format!("c{ci}-j{j}");
                c.send(&ClientMessage::grade(id.clone(), &specs[k], code.clone(), Some(2))).await;
                want.insert(id, reference);
            }
            let mut seen: HashMap<String, Seen> = HashMap::new();
            while seen.values().map(|s| s.finals.len()).sum::<usize>() < JOBS_PER_CONNECTION {
                let m = c.recv(Duration::from_secs(90)).await;
                let id = m.id().expect("every reply here names its request").to_string();
                assert!(want.contains_key(&id), "a reply to an unknown id {id}");
                let s = seen.entry(id.clone()).or_default();
                assert!(s.finals.is_empty(), "{id}: a message after its final reply: {m:?}");
                match &m {
                    ServerMessage::Accepted(_) => s.accepted += 1,
                    ServerMessage::Progress(_) => {
                        assert_eq!(s.accepted, 1, "{id}: progress before accepted");
                        s.progress += 1;
                    }
                    _ => s.finals.push(m),
                }
            }
            // Nothing more comes for these jobs: the next message is the reply to hello.
            c.hello().await;
            (want, seen)
        }));
    }
    let (mut accepted, mut busy, mut passed, mut failed) = (0, 0, 0, 0);
    for h in handles {
        let (want, seen) = h.await.expect("client task");
        assert_eq!(seen.len(), JOBS_PER_CONNECTION, "every request got a reply");
        for (id, s) in seen {
            assert_eq!(s.finals.len(), 1, "{id}: exactly one final reply");
            match (&s.finals[0], s.accepted) {
                (ServerMessage::Result(r), 1) => {
                    accepted += 1;
                    assert_eq!(s.progress, 3, "{id}: static, reference and candidate progress");
                    assert_eq!(r.passed, want[&id], "{id}: {}", r.message);
                    if r.passed {
                        passed += 1
                    } else {
                        failed += 1
                    }
                }
                (ServerMessage::Error(e), 0) => {
                    assert_eq!(e.code, ErrorCode::Busy, "{id}: {}", e.message);
                    busy += 1;
                }
                (other, n) => panic!("{id}: accepted {n} times, then {other:?}"),
            }
        }
    }
    eprintln!("accepted {accepted} ({passed} passed, {failed} failed), busy {busy}");
    assert_eq!(accepted + busy, CONNECTIONS * JOBS_PER_CONNECTION);
    // A refusal means the queue or the connection was full, so at least the queue's worth ran.
    assert!(accepted >= QUEUE, "accepted {accepted}");
    assert!(busy > 0, "more jobs than the queue holds were sent at once");
    assert!(passed > 0 && failed > 0);
    // Afterwards the worker grades as before, and every Python process has ended.
    let mut c = connect(addr).await;
    c.send(&ClientMessage::grade("after", &specs[0], tasks[0].solution_code.clone(), Some(2))).await;
    let m = c.until_final("after", Duration::from_secs(30)).await.pop().unwrap();
    assert!(matches!(&m, ServerMessage::Result(r) if r.passed), "{m:?}");
    no_python_left(Duration::from_secs(10)).await;
}
