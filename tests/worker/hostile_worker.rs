//! The grading worker (in-process, over a real WebSocket) answers every entry of the hostile corpus,
//! each with a reason, and then still grades a reference solution correctly on the same server.
#![cfg(not(target_arch = "wasm32"))]

use crate::hostile;
use crate::worker_common;

use cabrito_check::protocol::{ClientMessage, ServerMessage};
use futures_util::SinkExt;
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::Message;
use worker_common::*;

const T: Duration = Duration::from_secs(120);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_worker_answers_every_hostile_input_and_keeps_grading() {
    let mut cfg = config();
    // Let the corpus reach the front end (the default cap answers big messages before reading them).
    cfg.limits.max_message_bytes = 8 << 20;
    cfg.limits.job_timeout_seconds = 60.0;
    let addr = start(cfg).await;
    let mut c = connect(addr).await;
    let spec = small_spec(1);
    let started = Instant::now();
    let mut wrong = Vec::new();
    for case in hostile::corpus() {
        let t = Instant::now();
        if std::str::from_utf8(&case.bytes).is_err() {
            // Not text: as a binary frame it gets an error, and the connection stays.
            c.ws.send(Message::binary(case.bytes.clone())).await.expect("send");
            match c.recv(T).await {
                ServerMessage::Error(e) if !e.message.is_empty() => {}
                other => wrong.push(format!("{} (binary): {other:?}", case.name)),
            }
        }
        // As text (what a page would send: undecodable bytes replaced), a grade request.
        c.send(&ClientMessage::grade(case.name.clone(), &spec, case.text(), Some(2))).await;
        let last = c.until_final(&case.name, T).await.pop().expect("a final reply");
        let reason = match &last {
            ServerMessage::Result(r) if !r.passed => r
                .checks
                .iter()
                .find(|k| k.must_have && !k.passed)
                .map(|k| format!("{} (line {:?}): {}", k.id, k.line, k.reason))
                .unwrap_or_default(),
            ServerMessage::Error(e) => format!("error {:?}: {}", e.code, e.message),
            other => format!("unexpected: {other:?}"),
        };
        eprintln!(
            "{:32} {:6.2} s  {}",
            case.name,
            t.elapsed().as_secs_f64(),
            reason.chars().take(100).collect::<String>()
        );
        // A reason is one line a person reads, however big the input.
        if reason.is_empty() || reason.starts_with("unexpected") || reason.len() > 1000 {
            wrong.push(format!("{}: {reason}", case.name));
        }
    }
    eprintln!("corpus answered in {:.1} s", started.elapsed().as_secs_f64());
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // Same server, same and new connections: the reference still passes.
    for client in [&mut c, &mut connect(addr).await] {
        client.send(&ClientMessage::grade("reference", &spec, task(&spec).solution_code, Some(2))).await;
        let last = client.until_final("reference", T).await.pop().expect("a final reply");
        assert!(matches!(&last, ServerMessage::Result(r) if r.passed), "{last:?}");
    }
}
