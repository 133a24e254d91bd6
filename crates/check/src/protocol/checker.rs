//! The playground's protocol with its static-checker web worker (pure; the message passing is in
//! `web::checker`, the worker's entry point in `src/bin/checker.rs`).
//!
//! ```text
//! page ── Request {id, kind, domain, axis, starter, reference, metadata, response} ──► answer_timed()
//! page ◄── Reply::Verdict {id, how, items, ms} | Reply::Unreadable {id, why} | Reply::Failed {why}
//! ```
//!
//! Both travel as structured values (`serde-wasm-bindgen` in `web::checker`), not JSON text: the
//! browser copies them between the threads. [`answer`] is the whole checker:
//! [`super::report::read_and_check`] on the request's task. Any message is answered: one that is
//! not a request gets [`Reply::Failed`] saying why.

use super::report::read_and_check;
use crate::{RubricItem, TaskRef};
use cabrito_gen::{Axis, Domain, Kind};
use serde::{Deserialize, Serialize};

/// Largest request the checker reads, in bytes of its texts: a response at the checker's limit plus
/// a large task's starter and reference.
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
    pub fn for_task(id: u64, task: &cabrito_gen::Task, response: &str) -> Request {
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
    Verdict { id: u64, how: String, items: Vec<RubricItem>, ms: Option<f64> },
    /// Request `id` cannot be read as a solution (the reason is for the user).
    Unreadable { id: u64, why: String },
    /// The checker got a message it cannot read, or stopped with an internal error.
    Failed { why: String },
}

impl Reply {
    /// Do all must-have items pass? (`Rubric::passed`.)
    pub fn passed(items: &[RubricItem]) -> bool {
        items.iter().all(|i| i.passed || !i.must_have)
    }

    /// The reply to a message that is not a request (`why` says what is wrong with it).
    pub fn unreadable_request(why: impl std::fmt::Display) -> Reply {
        Reply::Failed { why: format!("the checker cannot read this request: {why}") }
    }
}

impl Request {
    /// The bytes of the request's texts (what [`MAX_REQUEST_BYTES`] bounds).
    pub fn bytes(&self) -> usize {
        self.starter.len() + self.reference.len() + self.response.len()
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

/// A request the worker answers to itself once its wasm has loaded, before it says Ready (the
/// answer is dropped). The browser optimises wasm functions only after they have run a while, so an
/// `n = 200`-sized diff checked first has the tokenizer, parser and rubric optimised before the
/// user's first paste.
pub fn warm_up() -> Request {
    const FUNCTIONS: usize = 200;
    let program = |extra: bool| {
        let mut s = String::from("from mylibrary import mult\n\n");
        for i in 0..FUNCTIONS {
            let (params, call) = if extra { (", mult: int = 2", ", mult") } else { ("", "") };
            let next = if i + 1 < FUNCTIONS { format!("f{}(val{call}) + ", i + 1) } else { String::new() };
            s.push_str(&format!(
                "def f{i}(val: int{params}) -> int:\n    x = {next}val * {i}\n    return (x, 1)[0]\n\n"
            ));
        }
        s.push_str("def main():\n    print(f0(3))\n");
        s
    };
    let (starter, reference) = (program(false), program(true));
    let response = similar::TextDiff::from_lines(&starter, &reference)
        .unified_diff()
        .header("a/solution.py", "b/solution.py")
        .to_string();
    Request {
        id: 0,
        kind: Kind::AddParameter,
        domain: Domain::Math,
        axis: first_axis(),
        starter,
        reference,
        metadata: serde_json::Value::Null,
        response,
    }
}

/// The answer to one message, as the worker gives it: the request as read from the message (or why
/// it could not be read), a size check, then [`answer`]. `now` is a clock in milliseconds (the
/// browser's `performance.now()`) and `start` its reading when the message arrived, so `ms` counts
/// reading the message too.
pub fn answer_timed(read: Result<Request, String>, start: Option<f64>, now: &dyn Fn() -> Option<f64>) -> Reply {
    let req = match read {
        Ok(req) => req,
        Err(why) => return Reply::unreadable_request(why),
    };
    if req.bytes() > MAX_REQUEST_BYTES {
        return Reply::Failed {
            why: format!("the request is {} bytes; the checker reads at most {MAX_REQUEST_BYTES}", req.bytes()),
        };
    }
    let mut reply = answer(&req);
    if let Reply::Verdict { ms, .. } = &mut reply {
        *ms = match (start, now()) {
            (Some(a), Some(b)) => Some(b - a),
            _ => None,
        };
    }
    reply
}

#[cfg(test)]
mod tests {
    use super::*;
    use cabrito_gen::{Axis, TaskSpec};
    use std::cell::Cell;

    fn task() -> cabrito_gen::Task {
        cabrito_gen::generate(&TaskSpec::new(Kind::DeadCode, Domain::String, Axis::Traversal, 5, 3)).unwrap()
    }

    fn no_clock() -> Option<f64> {
        None
    }

    #[test]
    fn the_reference_passes_and_the_starter_fails() {
        let t = task();
        let tick = Cell::new(0.0);
        let clock = || {
            tick.set(tick.get() + 2.5);
            Some(tick.get())
        };
        let reply = answer_timed(Ok(Request::for_task(7, &t, &t.solution_code)), Some(0.0), &clock);
        let Reply::Verdict { id, how, items, ms } = reply else { panic!() };
        assert_eq!((id, how.as_str(), ms), (7, "read as bare", Some(2.5)));
        assert!(Reply::passed(&items));
        assert_eq!(items[0].id, "compilation");
        let Reply::Verdict { items, ms, .. } =
            answer_timed(Ok(Request::for_task(8, &t, &t.starter_code)), None, &no_clock)
        else {
            panic!()
        };
        assert_eq!(ms, None);
        assert!(!Reply::passed(&items));
        assert!(items.iter().any(|i| i.id == "function_existence" && !i.passed));
    }

    #[test]
    fn the_same_items_as_the_rubric() {
        let t = task();
        let Reply::Verdict { items, .. } = answer(&Request::for_task(1, &t, &t.starter_code)) else { panic!() };
        assert_eq!(items, crate::static_checks(&TaskRef::of(&t), &t.starter_code).items);
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
    fn unreadable_and_oversized_requests_get_a_failed_reply() {
        // (Messages of every wrong shape, as the browser passes them, are in tests/wasm_app.rs.)
        let Reply::Failed { why } = answer_timed(Err("missing field `kind`".into()), Some(1.0), &no_clock) else {
            panic!()
        };
        assert_eq!(why, "the checker cannot read this request: missing field `kind`");
        let t = task();
        let huge = Request::for_task(1, &t, &"x".repeat(MAX_REQUEST_BYTES));
        let Reply::Failed { why } = answer_timed(Ok(huge), None, &no_clock) else { panic!() };
        assert!(why.contains("the checker reads at most"), "{why}");
    }

    #[test]
    fn the_warm_up_request_is_a_full_check() {
        let Reply::Verdict { how, items, .. } = answer(&warm_up()) else { panic!() };
        assert!(how.contains("diff"), "{how}");
        assert!(items.len() > 3 && items[0].passed, "{items:?}");
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
}
