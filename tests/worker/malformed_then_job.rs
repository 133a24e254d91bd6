//! `cabrito serve` as a hostile client meets it, over a real socket: after each malformed message
//! (a grade request cut short, the same request as a binary frame, an unknown message type, a
//! 100 MB frame, a frame of NUL bytes, JSON nested 10,000 deep) the worker answers with an error,
//! and a valid job sent next still passes; when the server stops, none of its processes is left.
#![cfg(not(target_arch = "wasm32"))]

use crate::worker_common::*;

use cabrito_check::protocol::{ClientMessage, ServerMessage};
use futures_util::SinkExt;
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;

const T: Duration = Duration::from_secs(120);

/// The processes whose process group is `pgid`.
fn in_group(pgid: i32) -> Vec<i32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else { continue };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { continue };
        let Some(close) = stat.rfind(')') else { continue };
        // state ppid pgrp …
        if stat[close + 1..].split_whitespace().nth(2).and_then(|g| g.parse::<i32>().ok()) == Some(pgid) {
            out.push(pid);
        }
    }
    out
}

/// A valid job that must pass, on this connection.
async fn passes(c: &mut Client, id: &str) {
    let spec = small_spec(2);
    c.send(&ClientMessage::grade(id, &spec, task(&spec).solution_code, Some(2))).await;
    let last = c.until_final(id, T).await.pop();
    assert!(matches!(&last, Some(ServerMessage::Result(r)) if r.passed), "{id}: {last:?}");
}

#[test]
fn cabrito_serve_answers_each_malformed_message_and_grades_the_next_job() {
    let (mut child, _dist, addr) = serve_binary(&[]);
    let pgid = child.id() as i32;
    let rt = tokio::runtime::Runtime::new().unwrap();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        rt.block_on(async {
            let spec = small_spec(2);
            let valid = ClientMessage::grade("x", &spec, task(&spec).solution_code, Some(2)).to_json();
            let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
            let texts: Vec<(&str, String)> = vec![
                ("cut short", valid[..valid.len() / 2].to_string()),
                ("unknown type", r#"{"v":1,"type":"teleport","id":"u"}"#.to_string()),
                ("NUL bytes", "\u{0}".repeat(1000)),
                ("nested 10,000 deep", deep.clone()),
                ("nested inside a grade", valid.replacen("{", &format!(r#"{{"pad":{deep},"#), 1)),
            ];
            let mut c = connect(addr).await;
            for (i, (what, text)) in texts.into_iter().enumerate() {
                c.send_text(text).await;
                let m = c.reply(T).await;
                assert!(matches!(&m, ServerMessage::Error(e) if !e.message.is_empty()), "{what}: {m:?}");
                passes(&mut c, &format!("after-{i}")).await;
            }
            // A valid request as a binary frame: refused, not read.
            c.ws.send(Message::binary(valid.clone().into_bytes())).await.unwrap();
            let m = c.reply(T).await;
            assert!(matches!(&m, ServerMessage::Error(e) if !e.message.is_empty()), "binary: {m:?}");
            passes(&mut c, "after-binary").await;
            // 100 MB in one frame: an error or a closed connection, never a crash; a new
            // connection grades.
            let _ = c.ws.send(Message::text("y".repeat(100 << 20))).await;
            if let Some(m) = c.next(T).await {
                assert!(matches!(&m, ServerMessage::Error(_)), "100 MB: {m:?}");
            }
            let mut c = connect(addr).await;
            passes(&mut c, "after-100MB").await;
            no_python_left(Duration::from_secs(10)).await;
        })
    }));
    // SIGTERM, as a service manager stops it; every process it started goes with it.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    let _ = child.wait();
    let mut left = in_group(pgid);
    for _ in 0..50 {
        if left.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
        left = in_group(pgid);
    }
    for &p in &left {
        unsafe {
            libc::kill(p, libc::SIGKILL);
        }
    }
    if let Err(p) = outcome {
        std::panic::resume_unwind(p);
    }
    assert!(left.is_empty(), "processes of cabrito serve left: {left:?}");
}
