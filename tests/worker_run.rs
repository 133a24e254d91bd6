//! The worker's `run` message (the browser console's `run` tool) through a real WebSocket client:
//! a healthy run answers with its value and output; hostile runs (a loop, a fork loop, memory, an
//! output flood, the network, signals to the parent) are contained and each answered once with how
//! it ended; a cancelled run answers at once; a malformed run message is refused with its id; the
//! next run on the same connection works and no Python process is left behind. The answers are the
//! ones the native runner gives (the same sandbox, the same text).
//!
//! Its own test crate, one test, because it counts this process's Python processes.

#![cfg(not(target_arch = "wasm32"))]

mod worker_common;

use cabrito_agents::aci::Runner;
use cabrito_check::protocol::run::{Installed, Ran, RunEnd, RunJob, RunTarget};
use cabrito_check::protocol::{ClientMessage, ErrorCode, ServerMessage};
use cabrito_gen::domain::stubs::Library;
use cabrito_gen::Domain;
use cabrito_native::run_tool::SandboxRunner;
use cabrito_native::runner::isolation;
use std::time::{Duration, Instant};
use worker_common::*;

const T: Duration = Duration::from_secs(40);

fn job(code: &str) -> RunJob {
    let spec = small_spec(3);
    RunJob {
        solution: task(&spec).starter_code,
        library: Some(Installed { domain: Domain::Math, library: Library::Plain }),
        target: RunTarget::Code { code: code.into() },
    }
}

/// Send a run and read its one final reply (no `accepted` comes before it).
async fn ran(c: &mut Client, id: &str, code: &str) -> Ran {
    c.send(&ClientMessage::run(id, job(code))).await;
    let msgs = c.until_final(id, T).await;
    assert_eq!(msgs.len(), 1, "{id}: one reply: {msgs:?}");
    match msgs.into_iter().next().unwrap() {
        ServerMessage::Ran(r) => r.ran,
        other => panic!("{id}: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runs_are_contained_answered_once_and_the_next_one_works() {
    assert!(python_descendants().is_empty(), "python processes before the test");
    let addr = start(config()).await;
    let mut c = connect(addr).await;

    let healthy = ran(&mut c, "ok-0", "main(0.5)").await;
    assert_eq!(healthy.end, RunEnd::Finished);
    assert!(healthy.value.is_some(), "{healthy:?}");
    // The worker answers what the native runner answers.
    let native = SandboxRunner::default().run(&job("main(0.5)")).unwrap();
    assert_eq!(native.describe(), healthy.describe());

    let cases: Vec<(&str, &str)> = vec![
        ("loop", "while True:\n    pass"),
        ("forks", "import os\nwhile True:\n    os.fork()"),
        ("memory", "x = [1] * (10 ** 10)"),
        ("flood", "while True:\n    print('goat' * 1000)"),
        ("network", "import socket\nsocket.create_connection(('1.1.1.1', 53), timeout=2)"),
        ("parent", "import os\nos.kill(os.getppid(), 9)"),
        ("group", "import os, signal\nos.killpg(0, signal.SIGKILL)"),
    ];
    for (i, (name, code)) in cases.iter().enumerate() {
        let started = Instant::now();
        let r = ran(&mut c, name, code).await;
        eprintln!("{name}: {:.1} s: {}", started.elapsed().as_secs_f64(), r.describe().lines().next().unwrap_or(""));
        assert!(started.elapsed() < Duration::from_secs(25), "{name}");
        match *name {
            "loop" | "flood" => assert_eq!(r.end, RunEnd::TimedOut { seconds: 10 }, "{name}: {r:?}"),
            "memory" => assert!(r.stderr.contains("MemoryError") || matches!(r.end, RunEnd::Signalled { .. }), "{r:?}"),
            "network" if isolation().network_namespace => assert!(r.stderr.contains("OSError"), "{r:?}"),
            "parent" if isolation().new_uid_per_run => assert!(r.stderr.contains("PermissionError"), "{r:?}"),
            "group" => assert_eq!(r.end, RunEnd::Signalled { signal: 9 }, "{r:?}"),
            _ => {}
        }
        if *name == "flood" {
            assert!(r.stdout_cut && r.stdout.len() <= 16 << 10, "{} bytes", r.stdout.len());
        }
        // The worker is fine, and so is the next run.
        assert_eq!(ran(&mut c, &format!("ok-{}", i + 1), "main(0.5)").await, healthy);
        c.hello().await;
    }

    // A cancelled run answers at once.
    c.send(&ClientMessage::run("stop-me", job("while True:\n    pass"))).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let started = Instant::now();
    c.send(&ClientMessage::cancel("stop-me")).await;
    let msgs = c.until_final("stop-me", T).await;
    assert_eq!(error_code(msgs.last().unwrap()), Some(ErrorCode::Cancelled), "{msgs:?}");
    assert!(started.elapsed() < Duration::from_secs(3));

    // Malformed run messages: refused with their id, the connection stays.
    for (id, text) in [
        ("bad-1", r#"{"v":1,"type":"run","id":"bad-1","target":{"kind":"code","code":"1"}}"#),
        ("bad-2", r#"{"v":1,"type":"run","id":"bad-2","solution":"","target":{"kind":"shell","cmd":"ls"}}"#),
        ("bad-3", r#"{"v":1,"type":"run","id":"bad-3","solution":"","target":{"kind":"code","code":""}}"#),
    ] {
        c.send_text(text).await;
        let m = c.reply(T).await;
        assert_eq!(m.id(), Some(id), "{m:?}");
        assert_eq!(error_code(&m), Some(ErrorCode::BadRequest), "{m:?}");
    }
    assert_eq!(ran(&mut c, "ok-last", "main(0.5)").await, healthy);
    no_python_left(Duration::from_secs(10)).await;
}
