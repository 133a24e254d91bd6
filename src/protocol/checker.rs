//! The playground's protocol with its static-checker web worker (pure; the message passing is in
//! `web::checker`, the worker's entry point in `src/bin/checker.rs`).
//!
//! ```text
//! page ── JSON Request {id, kind, domain, starter, reference, response} ──► answer_text()
//! page ◄── JSON Reply::Verdict {id, how, items, ms} | Reply::Unreadable {id, why} | Reply::Failed {why}
//! ```
//!
//! [`answer`] is the whole checker: [`super::report::read_and_check`] on the request's task. Any
//! text is answered: a request that cannot be read gets [`Reply::Failed`] saying why.

use super::report::read_and_check;
use crate::check::{Item, TaskRef};
use crate::{Axis, Domain, Kind};
use serde::{Deserialize, Serialize};

/// Largest request the checker reads, in bytes: a response at the checker's limit plus a large
/// task's starter and reference, escaped.
pub const MAX_REQUEST_BYTES: usize = 16 << 20;

/// One response to check against a task.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Request {
    pub id: u64,
    pub kind: Kind,
    pub domain: Domain,
    /// The task's axis (absent: the first axis).
    #[serde(default = "first_axis")]
    pub axis: Axis,
    pub starter: String,
    pub reference: String,
    /// The task record's `metadata`.
    #[serde(default)]
    pub metadata: serde_json::Value,
    /// The response as pasted: a file block, a bare file or a unified diff.
    pub response: String,
}

impl Request {
    /// The request for a response to a Cabrito task.
    pub fn for_task(id: u64, task: &crate::Task, response: &str) -> Request {
        Request {
            id,
            kind: task.spec.kind,
            domain: task.spec.domain,
            axis: task.spec.axis,
            starter: task.starter_code.clone(),
            reference: task.solution_code.clone(),
            metadata: task.metadata.clone(),
            response: response.to_string(),
        }
    }
}

fn first_axis() -> Axis {
    Axis::ALL[0]
}

/// What the checker says.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Reply {
    /// The worker's handler is installed: requests can be posted.
    Ready,
    /// The rubric of request `id`; `how` says how the response was read; `ms` is the time spent in
    /// the checker (absent without a clock).
    Verdict { id: u64, how: String, items: Vec<Item>, ms: Option<f64> },
    /// Request `id` cannot be read as a solution (the reason is for the user).
    Unreadable { id: u64, why: String },
    /// The checker got a message it cannot read, or stopped with an internal error.
    Failed { why: String },
}

impl Reply {
    /// Do all must-have items pass? (`Rubric::passed`.)
    pub fn passed(items: &[Item]) -> bool {
        items.iter().all(|i| i.passed || !i.must_have)
    }

    /// The reply as JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| r#"{"type":"failed","why":"unserialisable reply"}"#.to_string())
    }

    /// Read a reply (the page's side); text that is not one becomes [`Reply::Failed`].
    pub fn parse(text: &str) -> Reply {
        serde_json::from_str(text)
            .unwrap_or_else(|e| Reply::Failed { why: format!("the checker's reply cannot be read: {e}") })
    }
}

/// The checker itself: read the response, run the rubric (`ms` is left empty).
pub fn answer(req: &Request) -> Reply {
    let task = TaskRef {
        kind: req.kind,
        domain: req.domain,
        axis: req.axis,
        starter: &req.starter,
        reference: &req.reference,
        metadata: &req.metadata,
    };
    match read_and_check(&task, &req.response) {
        Ok(r) => Reply::Verdict { id: req.id, how: r.how, items: r.rubric.items, ms: None },
        Err(e) => Reply::Unreadable { id: req.id, why: e.to_string() },
    }
}

/// The answer to one message's text (JSON), as JSON. `now` is a clock in milliseconds (the
/// browser's `performance.now()`), read before and after to fill `ms`.
pub fn answer_text(text: &str, now: &dyn Fn() -> Option<f64>) -> String {
    if text.len() > MAX_REQUEST_BYTES {
        return Reply::Failed {
            why: format!("the request is {} bytes; the checker reads at most {MAX_REQUEST_BYTES}", text.len()),
        }
        .to_json();
    }
    let start = now();
    let mut reply = match serde_json::from_str::<Request>(text) {
        Ok(req) => answer(&req),
        Err(e) => Reply::Failed { why: format!("the checker cannot read this request: {e}") },
    };
    if let Reply::Verdict { ms, .. } = &mut reply {
        *ms = match (start, now()) {
            (Some(a), Some(b)) => Some(b - a),
            _ => None,
        };
    }
    reply.to_json()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Axis, TaskSpec};
    use std::cell::Cell;

    fn task() -> crate::Task {
        crate::generate(&TaskSpec::new(Kind::DeadCode, Domain::String, Axis::Traversal, 5, 3)).unwrap()
    }

    fn no_clock() -> Option<f64> {
        None
    }

    #[test]
    fn the_reference_passes_and_the_starter_fails_through_json() {
        let t = task();
        let tick = Cell::new(0.0);
        let clock = || {
            tick.set(tick.get() + 2.5);
            Some(tick.get())
        };
        let text = serde_json::to_string(&Request::for_task(7, &t, &t.solution_code)).unwrap();
        let Reply::Verdict { id, how, items, ms } = Reply::parse(&answer_text(&text, &clock)) else { panic!() };
        assert_eq!((id, how.as_str(), ms), (7, "read as bare", Some(2.5)));
        assert!(Reply::passed(&items));
        assert_eq!(items[0].id, "compilation");
        let text = serde_json::to_string(&Request::for_task(8, &t, &t.starter_code)).unwrap();
        let Reply::Verdict { items, .. } = Reply::parse(&answer_text(&text, &no_clock)) else { panic!() };
        assert!(!Reply::passed(&items));
        assert!(items.iter().any(|i| i.id == "function_existence" && !i.passed));
    }

    #[test]
    fn the_same_items_as_the_rubric() {
        let t = task();
        let Reply::Verdict { items, .. } = answer(&Request::for_task(1, &t, &t.starter_code)) else { panic!() };
        assert_eq!(items, crate::check::static_checks(&TaskRef::of(&t), &t.starter_code).items);
    }

    #[test]
    fn an_unreadable_response_says_why() {
        let t = task();
        let bad_diff = "--- a/solution.py\n+++ b/solution.py\n@@ -9000,2 +9000,2 @@\n-nothing\n+here\n";
        match answer(&Request::for_task(3, &t, bad_diff)) {
            Reply::Unreadable { id: 3, why } => assert!(!why.is_empty()),
            other => panic!("{other:?}"),
        }
        assert!(matches!(answer(&Request::for_task(4, &t, "")), Reply::Unreadable { id: 4, .. }));
    }

    #[test]
    fn hostile_requests_get_a_failed_reply() {
        let t = task();
        let good = serde_json::to_value(Request::for_task(1, &t, "x = 1\n")).unwrap();
        let mut cases: Vec<String> = vec![
            String::new(),
            "{".into(),
            "null".into(),
            "[1,2]".into(),
            "\"text\"".into(),
            "{}".into(),
            r#"{"id":-1,"kind":"dead_code","domain":"math","starter":"","reference":"","response":""}"#.into(),
            r#"{"id":1,"kind":"teleport","domain":"math","starter":"","reference":"","response":""}"#.into(),
            r#"{"id":1,"kind":"dead_code","domain":"math","starter":7,"reference":"","response":""}"#.into(),
            format!("{}{}", "[".repeat(100_000), "]".repeat(100_000)),
            format!("{{\"id\":1,\"response\":{}}}", "{\"a\":".repeat(50_000)),
        ];
        let mut wrong = good.clone();
        wrong["response"] = serde_json::json!({"nested": [1, 2]});
        cases.push(wrong.to_string());
        for text in &cases {
            let reply = Reply::parse(&answer_text(text, &no_clock));
            let Reply::Failed { why } = reply else { panic!("{}: {reply:?}", &text[..text.len().min(80)]) };
            assert!(why.starts_with("the checker cannot read this request"), "{why}");
        }
        let huge = "x".repeat(MAX_REQUEST_BYTES + 1);
        assert!(matches!(Reply::parse(&answer_text(&huge, &no_clock)), Reply::Failed { .. }));
    }

    #[test]
    fn hostile_responses_get_an_answer() {
        let t = task();
        let deep = format!("x = {}1\n", "-".repeat(200_000));
        let nested = format!("x = {}1{}\n", "(".repeat(5_000), ")".repeat(5_000));
        let nul = "def f():\n    return 1\0\n".to_string();
        let markers = "# === solution.py ===\n".repeat(10_000);
        let huge = "#".repeat(3 << 20);
        for response in [deep, nested, nul, markers, huge, "\u{feff}x = 1\r\ny = 2\r".into()] {
            match answer(&Request::for_task(9, &t, &response)) {
                Reply::Verdict { items, .. } => assert!(!Reply::passed(&items)),
                Reply::Unreadable { why, .. } => assert!(!why.is_empty()),
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn replies_round_trip_and_garbage_is_a_failure() {
        let r = Reply::Unreadable { id: 2, why: "no".into() };
        assert_eq!(Reply::parse(&r.to_json()), r);
        assert_eq!(Reply::parse(&Reply::Ready.to_json()), Reply::Ready);
        assert!(matches!(Reply::parse("{\"type\":\"verdict\"}"), Reply::Failed { .. }));
        assert!(matches!(Reply::parse("garbage"), Reply::Failed { .. }));
    }
}
