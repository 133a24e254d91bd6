//! The grading worker over a real WebSocket: the protocol, malformed and oversized messages, the
//! Origin allow-list, timeouts, and grades of the reference (passes) and the starter (fails).

#![cfg(not(target_arch = "wasm32"))]

use crate::worker_common;

use cabrito_check::protocol::{CheckSource, ClientMessage, ErrorCode, ServerMessage};
use futures_util::SinkExt;
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::Message;
use worker_common::*;

const T: Duration = Duration::from_secs(20);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hello_announces_the_limits() {
    let mut cfg = config();
    cfg.limits.max_trials = 17;
    cfg.limits.max_jobs_per_connection = 3;
    let addr = start(cfg.clone()).await;
    let mut c = connect(addr).await;
    let h = c.hello().await;
    assert_eq!(h.v, 1);
    assert_eq!(h.server, format!("cabrito {}", env!("CARGO_PKG_VERSION")));
    assert_eq!(h.limits, cfg.limits);
    assert_eq!(h.generator_versions, cabrito_gen::spec::SERVED_VERSIONS.to_vec());
    assert!(h.isolation.contains("each run its own process"), "{}", h.isolation);
    // The raw JSON has the contract's keys.
    c.send_text(r#"{"v":1,"type":"hello"}"#).await;
    let ServerMessage::Hello(again) = c.recv(T).await else { panic!("hello") };
    assert_eq!(again, h);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_is_graded_before_hello() {
    let addr = start(config()).await;
    let mut c = try_connect(addr, None).await.expect("connect");
    let spec = small_spec(3);
    let t = task(&spec);
    // A grade and a cancel before the hello: refused, by id, and the connection stays.
    c.send(&ClientMessage::grade("early", &spec, t.solution_code.clone(), Some(2))).await;
    let m = c.recv(T).await;
    assert_eq!((error_code(&m), m.id()), (Some(ErrorCode::BadRequest), Some("early")), "{m:?}");
    let ServerMessage::Error(e) = &m else { panic!("{m:?}") };
    assert!(e.message.contains("hello first"), "{}", e.message);
    c.send(&ClientMessage::cancel("early")).await;
    let m = c.recv(T).await;
    assert_eq!((error_code(&m), m.id()), (Some(ErrorCode::BadRequest), Some("early")), "{m:?}");
    // After the hello the same job is graded.
    c.hello().await;
    c.send(&ClientMessage::grade("early", &spec, t.solution_code, Some(2))).await;
    let m = c.until_final("early", T).await.pop().unwrap();
    assert!(matches!(&m, ServerMessage::Result(r) if r.passed), "{m:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_messages_get_errors_and_the_connection_stays() {
    let addr = start(config()).await;
    let mut c = connect(addr).await;
    let cases: &[(&str, ErrorCode, Option<&str>)] = &[
        ("{", ErrorCode::BadJson, None),
        ("not json at all", ErrorCode::BadJson, None),
        ("\u{0}\u{1}garbage", ErrorCode::BadJson, None),
        ("[1,2,3]", ErrorCode::BadRequest, None),
        ("42", ErrorCode::BadRequest, None),
        (r#"{"v":1,"type":"dance","id":"d1"}"#, ErrorCode::BadRequest, Some("d1")),
        (r#"{"v":1}"#, ErrorCode::BadRequest, None),
        (r#"{"v":9,"type":"hello"}"#, ErrorCode::BadRequest, None),
        (r#"{"v":1,"type":"grade","id":"g1"}"#, ErrorCode::BadRequest, Some("g1")),
        (
            r#"{"v":1,"type":"grade","id":"g2","spec":"kind=dead_code","solution":""}"#,
            ErrorCode::BadRequest,
            Some("g2"),
        ),
        (
            r#"{"v":1,"type":"grade","id":"g3","spec":{"kind":"teleport"},"solution":""}"#,
            ErrorCode::BadRequest,
            Some("g3"),
        ),
        (r#"{"v":1,"type":"grade","id":"g4","spec":{},"solution":"x","trials":21}"#, ErrorCode::BadRequest, Some("g4")),
        (
            r#"{"v":1,"type":"grade","id":"g5","spec":{},"solution":"x","trials":"many"}"#,
            ErrorCode::BadRequest,
            Some("g5"),
        ),
        (r#"{"v":1,"type":"grade","id":{"x":1},"spec":{},"solution":"x"}"#, ErrorCode::BadRequest, None),
    ];
    for (text, code, id) in cases {
        c.send_text(*text).await;
        let m = c.recv(T).await;
        let ServerMessage::Error(e) = &m else { panic!("{text}: expected an error, got {m:?}") };
        assert_eq!(e.code, *code, "{text}: {}", e.message);
        assert_eq!(e.id.as_deref(), *id, "{text}");
        assert!(!e.message.is_empty());
    }
    // Spec errors read like share-link errors.
    c.send_text(r#"{"v":1,"type":"grade","id":"s","spec":{"kind":"teleport"},"solution":""}"#).await;
    let ServerMessage::Error(e) = c.recv(T).await else { panic!("error") };
    let link = cabrito_gen::TaskSpec::from_pairs([("kind", "teleport")]).unwrap_err().message;
    assert_eq!(e.message, format!("spec: {link}"));
    // Binary frames are refused, not read.
    c.ws.send(Message::binary(vec![0xff, 0x00, 0x7b])).await.unwrap();
    assert_eq!(error_code(&c.recv(T).await), Some(ErrorCode::BadRequest));
    // A cancel of an unknown id says nothing; the connection still answers.
    c.send(&ClientMessage::cancel("never-sent")).await;
    c.hello().await;
}

/// A client that closes gets the closing handshake: the worker's close frame echoes its code, and
/// then the connection ends (a browser's `close` event says `wasClean`, code 1000, not 1006).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_close_is_answered() {
    use tokio_tungstenite::tungstenite::protocol::{frame::coding::CloseCode, CloseFrame};
    let addr = start(config()).await;
    let mut c = connect(addr).await;
    c.hello().await;
    let bye = CloseFrame { code: CloseCode::Normal, reason: "bye".into() };
    c.ws.send(Message::Close(Some(bye))).await.expect("send close");
    let answer = tokio::time::timeout(T, async {
        loop {
            match futures_util::StreamExt::next(&mut c.ws).await {
                Some(Ok(Message::Close(frame))) => return Some(frame),
                Some(Ok(_)) => continue,
                _ => return None,
            }
        }
    })
    .await
    .expect("the worker answers within the time");
    let frame = answer.expect("a close frame, not a dropped connection");
    assert_eq!(frame.map(|f| f.code), Some(CloseCode::Normal));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_messages() {
    let addr = start(config()).await;
    let mut c = connect(addr).await;
    let limit = cabrito_native::worker::config::MAX_MESSAGE_BYTES;
    // Over the limit: too_large, and the connection stays open.
    let big = format!(r#"{{"v":1,"type":"hello","pad":"{}"}}"#, "x".repeat(limit));
    c.send_text(big).await;
    let m = c.recv(T).await;
    assert_eq!(error_code(&m), Some(ErrorCode::TooLarge), "{m:?}");
    c.hello().await;
    // A solution just under the limit is read (and graded).
    let spec = small_spec(1);
    let padding = format!("# {}\n", "p".repeat(limit - 40_000));
    let solution = format!("{padding}{}", task(&spec).solution_code);
    c.send(&ClientMessage::grade("pad", &spec, solution, Some(2))).await;
    let msgs = c.until_final("pad", T).await;
    assert!(matches!(msgs.last(), Some(ServerMessage::Result(r)) if r.passed), "{:?}", msgs.last());
    // Far over the limit: too_large (when the worker gets to say it), then the connection closes.
    let huge = "y".repeat(8 << 20);
    let _ = c.ws.send(Message::text(huge)).await;
    match c.next(T).await {
        None => {}
        Some(m) => {
            assert_eq!(error_code(&m), Some(ErrorCode::TooLarge), "{m:?}");
            assert!(c.next(T).await.is_none(), "the connection must close");
        }
    }
    // The worker keeps serving.
    connect(addr).await.hello().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn origins_are_checked_at_the_upgrade() {
    let mut cfg = config();
    cfg.allowed_origins = vec!["https://class.example".into()];
    let addr = start(cfg).await;
    for bad in ["https://evil.example", "null", "http://localhost.evil.example"] {
        match try_connect(addr, Some(bad)).await {
            Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => {
                assert_eq!(resp.status(), 403, "{bad}");
                let body = String::from_utf8_lossy(resp.body().as_deref().unwrap_or_default()).to_string();
                assert!(body.contains("--allow-origin"), "{body}");
            }
            Err(e) => panic!("{bad}: expected HTTP 403, got {e}"),
            Ok(_) => panic!("{bad}: a forbidden origin was let in"),
        }
    }
    let own = format!("http://{addr}");
    for good in [own.as_str(), "http://localhost:5173", "https://class.example", "HTTPS://CLASS.EXAMPLE"] {
        let mut c = try_connect(addr, Some(good)).await.unwrap_or_else(|e| panic!("{good}: {e}"));
        c.hello().await;
    }
    // Without localhost origins, another local port is refused; the worker's own origin is not.
    let mut cfg = config();
    cfg.allow_localhost = false;
    let addr = start(cfg).await;
    assert!(try_connect(addr, Some("http://localhost:5173")).await.is_err());
    try_connect(addr, Some(&format!("http://{addr}"))).await.expect("same origin").hello().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reference_passes_and_the_starter_fails() {
    let addr = start(config()).await;
    let mut c = connect(addr).await;
    let spec = small_spec(7);
    let t = task(&spec);

    c.send(&ClientMessage::grade("ref", &spec, t.solution_code.clone(), Some(3))).await;
    let msgs = c.until_final("ref", T).await;
    let ServerMessage::Accepted(a) = &msgs[0] else { panic!("accepted first: {:?}", msgs[0]) };
    assert_eq!(a.spec, spec.to_query());
    assert_eq!(a.trials, 3);
    let progress: Vec<(usize, usize, String)> = msgs
        .iter()
        .filter_map(|m| match m {
            ServerMessage::Progress(p) => Some((p.done, p.total, p.stage.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        progress,
        vec![(1, 3, "static".into()), (2, 3, "reference".into()), (3, 3, "candidate".into())],
        "progress"
    );
    let Some(ServerMessage::Result(r)) = msgs.last() else { panic!("result: {:?}", msgs.last()) };
    assert!(r.passed, "{}", r.message);
    assert!(r.static_passed && r.hidden_passed == Some(true));
    assert_eq!(r.format.as_deref(), Some("bare"));
    assert_eq!(r.trials, 3);
    assert!(r.checks.iter().all(|c| c.passed || !c.must_have), "{:?}", r.checks);
    assert!(r.checks.iter().any(|c| c.source == CheckSource::Static && c.id == "compilation"));
    assert!(r.checks.iter().any(|c| c.source == CheckSource::Hidden && c.id == "hidden_tests" && c.passed));
    let tested = cabrito_check::grade::reference_functions(&t.solution_code).unwrap();
    assert_eq!(r.functions.len(), tested.len());
    assert!(r.functions.iter().all(|f| f.status == "pass" && f.passed == 3 && f.first_failure.is_none()));

    // The same solution in the file-block format, and as a diff of the starter.
    let block = format!("# === solution.py ===\n{}", t.solution_code);
    c.send(&ClientMessage::grade("block", &spec, block, Some(2))).await;
    let Some(ServerMessage::Result(r)) = c.until_final("block", T).await.pop() else { panic!("result") };
    assert!(r.passed && r.format.as_deref() == Some("file-block"), "{}", r.message);

    c.send(&ClientMessage::grade("starter", &spec, t.starter_code.clone(), Some(3))).await;
    let msgs = c.until_final("starter", T).await;
    let Some(ServerMessage::Result(r)) = msgs.last() else { panic!("result: {:?}", msgs.last()) };
    assert!(!r.passed);
    assert_eq!(r.hidden_passed, Some(false));
    let hidden = r.checks.iter().find(|c| c.id == "hidden_tests").expect("hidden check");
    assert!(!hidden.passed && !hidden.reason.is_empty());
    let failing: Vec<_> = r.functions.iter().filter(|f| f.status != "pass").collect();
    assert!(!failing.is_empty());
    let ff = failing.iter().find_map(|f| f.first_failure.as_ref()).expect("a first failure");
    assert!(!ff.input.is_empty() && ff.expected.is_some(), "{ff:?}");
    assert_ne!(ff.expected, ff.actual);
    assert!(!r.message.is_empty());

    // A response that cannot be read gets a result that says where.
    c.send(&ClientMessage::grade("nul", &spec, "def f():\n\0\n", None)).await;
    let Some(ServerMessage::Result(r)) = c.until_final("nul", T).await.pop() else { panic!("result") };
    assert!(!r.passed && r.hidden_passed.is_none());
    assert_eq!(r.checks[0].id, "response");
    assert_eq!(r.checks[0].line, Some(2));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ids_caps_and_busy() {
    let mut cfg = config();
    cfg.limits.max_jobs_per_connection = 2;
    cfg.limits.workers = 1;
    cfg.limits.job_timeout_seconds = 4.0;
    let addr = start(cfg).await;
    let mut c = connect(addr).await;
    let spec = small_spec(2);
    // Loops forever and swallows the harness's per-call alarm: only the job timeout ends it.
    let slow = hostile(
        &spec,
        "while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass",
    );
    c.send(&ClientMessage::grade("a", &spec, slow.clone(), Some(2))).await;
    assert!(matches!(c.reply(T).await, ServerMessage::Accepted(_)));
    // The same id while it runs: refused.
    c.send(&ClientMessage::grade("a", &spec, slow.clone(), Some(2))).await;
    let m = c.reply(T).await;
    assert_eq!((error_code(&m), m.id()), (Some(ErrorCode::BadRequest), Some("a")), "{m:?}");
    c.send(&ClientMessage::grade("b", &spec, slow.clone(), Some(2))).await;
    assert!(matches!(c.reply(T).await, ServerMessage::Accepted(_)));
    // A third job on this connection: busy at once.
    c.send(&ClientMessage::grade("c", &spec, slow.clone(), Some(2))).await;
    let m = c.reply(T).await;
    assert_eq!((error_code(&m), m.id()), (Some(ErrorCode::Busy), Some("c")), "{m:?}");
    // Cancel the queued one: it ends at once.
    c.send(&ClientMessage::cancel("b")).await;
    let m = c.until_final("b", T).await.pop().unwrap();
    assert_eq!(error_code(&m), Some(ErrorCode::Cancelled), "{m:?}");
    // The running one times out; the id can then be used again.
    let started = Instant::now();
    let m = c.until_final("a", T).await.pop().unwrap();
    assert_eq!(error_code(&m), Some(ErrorCode::Timeout), "{m:?}");
    assert!(started.elapsed() < Duration::from_secs(6));
    c.send(&ClientMessage::grade("a", &spec, task(&spec).solution_code, Some(2))).await;
    let m = c.until_final("a", Duration::from_secs(30)).await.pop().unwrap();
    assert!(matches!(&m, ServerMessage::Result(r) if r.passed), "{m:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn handshake_and_idle_timeouts_close_quiet_connections() {
    let mut cfg = config();
    cfg.limits.handshake_timeout_seconds = 0.5;
    cfg.limits.idle_timeout_seconds = 1.0;
    let addr = start(cfg).await;
    let mut quiet = try_connect(addr, None).await.expect("connect");
    let started = Instant::now();
    let m = quiet.recv(Duration::from_secs(5)).await;
    assert_eq!(error_code(&m), Some(ErrorCode::Timeout), "{m:?}");
    assert!(started.elapsed() >= Duration::from_millis(450));
    assert!(quiet.next(Duration::from_secs(5)).await.is_none(), "closed after the timeout");

    let mut idle = connect(addr).await;
    idle.hello().await;
    let started = Instant::now();
    let m = idle.recv(Duration::from_secs(5)).await;
    assert_eq!(error_code(&m), Some(ErrorCode::Timeout), "{m:?}");
    assert!(started.elapsed() >= Duration::from_millis(900));
    assert!(idle.next(Duration::from_secs(5)).await.is_none());
}

/// The real binary: `cabrito serve` mounts `/ws`, and its flags set the limits and origins.
#[test]
fn cabrito_serve_mounts_the_worker_with_its_flags() {
    let (mut child, dist, addr) = serve_binary(&[
        "--max-trials",
        "7",
        "--trials",
        "5",
        "--allow-origin",
        "https://class.example",
        "--max-jobs-per-connection",
        "2",
        "--job-timeout",
        "9",
    ]);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        rt.block_on(async {
            let mut c = try_connect(addr, Some("https://class.example")).await.expect("allowed origin");
            let h = c.hello().await;
            assert_eq!((h.limits.max_trials, h.limits.default_trials), (7, 5));
            assert_eq!(h.limits.max_jobs_per_connection, 2);
            assert_eq!(h.limits.job_timeout_seconds, 9.0);
            assert!(try_connect(addr, Some("https://evil.example")).await.is_err());
            // The app is still served next to the worker.
            let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
            use tokio::io::{AsyncReadExt, AsyncWriteExt};
            s.write_all(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").await.unwrap();
            let mut body = String::new();
            s.read_to_string(&mut body).await.unwrap();
            assert!(body.starts_with("HTTP/1.1 200") && body.contains("<title>t</title>"), "{body}");
        })
    }));
    let _ = child.kill();
    let _ = child.wait();
    if let Err(p) = outcome {
        std::panic::resume_unwind(p);
    }
    // A bad flag is a usage error (exit 2) with a one-line reason.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cabrito"))
        .args(["serve", "--addr", "127.0.0.1:0", "--dist"])
        .arg(dist.path())
        .args(["--allow-origin", "class.example"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--allow-origin must be scheme://host"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_connections_are_capped() {
    let mut cfg = config();
    cfg.limits.max_connections = 3;
    let addr = start(cfg).await;
    let mut open = Vec::new();
    for _ in 0..3 {
        let mut c = connect(addr).await;
        c.hello().await;
        open.push(c);
    }
    match try_connect(addr, None).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => assert_eq!(resp.status(), 503),
        Err(e) => panic!("expected HTTP 503, got {e}"),
        Ok(_) => panic!("a fourth connection was let in"),
    }
    // A closed connection frees its slot.
    let mut first = open.remove(0);
    first.ws.close(None).await.unwrap();
    assert!(first.next(T).await.is_none());
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut again = loop {
        match try_connect(addr, None).await {
            Ok(c) => break c,
            Err(e) => {
                assert!(Instant::now() < deadline, "the slot was not freed: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    };
    again.hello().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_record_stands_in_for_the_spec_and_its_code_is_not_trusted() {
    let addr = start(config()).await;
    let mut c = connect(addr).await;
    let spec = small_spec(21);
    let t = task(&spec);
    // A record whose reference was tampered with: the worker regenerates the task from the spec,
    // so the real reference still passes and the tampered one does not.
    let mut record = serde_json::to_value(&t).unwrap();
    let tampered = t.starter_code.clone();
    record["solution_code"] = serde_json::Value::String(tampered.clone());
    for (id, solution, passes) in [("real", t.solution_code.clone(), true), ("tampered", tampered, false)] {
        let msg = serde_json::json!({"v":1,"type":"grade","id":id,"task":record,"solution":solution,"trials":2});
        c.send_text(msg.to_string()).await;
        let m = c.until_final(id, T).await.pop().unwrap();
        let ServerMessage::Result(r) = &m else { panic!("{id}: {m:?}") };
        assert_eq!(r.passed, passes, "{id}: {}", r.message);
        assert_eq!(r.spec, spec.to_query());
    }
}
