//! The browser checker on the hostile corpus, in headless Chromium: every input gets a reason, and none
//! overflows the wasm stack or hangs. It goes through the entry point the checker worker serves
//! (`web::checker::answer_value`, what `src/bin/checker.rs` answers each message with), structured
//! values in and out as the page sends them. Prints the time each input takes (for BENCHMARKS; never asserted).
//!
//! Run with `cargo test --target wasm32-unknown-unknown --test wasm wasm_hostile:: -- --nocapture`.

#![cfg(target_arch = "wasm32")]

use crate::hostile;

use cabrito::web::checker::{answer_value, read_reply, to_value};
use cabrito_check::protocol::checker::{Reply, Request};
use cabrito_gen::{generate, Axis, Domain, Kind, TaskSpec};
use wasm_bindgen_test::{console_log, wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).expect("a browser window with performance").now()
}

/// The checker's answer to one request, through the values the worker exchanges with the page.
fn check(req: &Request) -> Reply {
    read_reply(answer_value(to_value(req), &|| None))
}

#[wasm_bindgen_test]
fn every_hostile_input_gets_a_reason_in_the_browser() {
    let t = generate(&TaskSpec::new(Kind::AddParameter, Domain::Math, Axis::Traversal, 5, 1)).unwrap();
    let start = now_ms();
    let mut wrong = Vec::new();
    for (i, case) in hostile::corpus().into_iter().enumerate() {
        let t0 = now_ms();
        // A page hands the checker text: undecodable bytes arrive as U+FFFD.
        let req = Request::for_task(i as u64, &t, &case.text());
        let reason = match check(&req) {
            Reply::Verdict { items, .. } => items
                .iter()
                .find(|it| it.must_have && !it.passed)
                .map(|it| format!("{} (line {:?}): {}", it.id, it.line, it.reason))
                .unwrap_or_default(),
            Reply::Unreadable { why, .. } => format!("unreadable: {why}"),
            other => format!("unexpected: {other:?}"),
        };
        console_log!("{:32} {:8.1} ms  {}", case.name, now_ms() - t0, reason.chars().take(100).collect::<String>());
        if reason.is_empty() || reason.starts_with("unexpected") || reason.len() > 1000 {
            wrong.push(format!("{}: {reason}", case.name));
        }
    }
    console_log!("corpus checked in {:.0} ms", now_ms() - start);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
