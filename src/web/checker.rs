//! The static checker in a web worker (`src/bin/checker.rs`, with the Python parser), started once the
//! grade panel is idle or at the first paste. Messages cross as structured values (`serde-wasm-bindgen`);
//! the checker itself is `cabrito_check::protocol::checker`, tested natively. Requests made before the
//! worker is ready wait in a queue.

pub use cabrito_check::protocol::checker::{Reply, Request};
use std::cell::RefCell;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use yew::Callback;

/// The worker's script, next to index.html (Trunk's loader shim for the `checker` bin).
pub const WORKER_SCRIPT: &str = "checker_loader.js";
/// The `performance.mark` set when the checker has answered Ready.
pub const READY_MARK: &str = "cabrito-checker-ready";

/// `performance.now()` in a worker or a window.
fn worker_now() -> Option<f64> {
    let perf = js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("performance")).ok()?;
    perf.dyn_into::<web_sys::Performance>().ok().map(|p| p.now())
}

// ---- the worker side (the `checker` bin) ----

/// Run as the checker worker: answer every message, after saying Ready.
pub fn serve() {
    let Ok(scope) = js_sys::global().dyn_into::<web_sys::DedicatedWorkerGlobalScope>() else {
        web_sys::console::error_1(&"the Cabrito checker must run in a web worker".into());
        return;
    };
    {
        let scope = scope.clone();
        std::panic::set_hook(Box::new(move |info| {
            let reply = Reply::Failed { why: format!("the checker stopped with an internal error: {info}") };
            let _ = scope.post_message(&to_value(&reply));
        }));
    }
    let reply_scope = scope.clone();
    let onmessage = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
        let _ = reply_scope.post_message(&answer_value(e.data(), &worker_now));
    });
    // Warm up before saying Ready (the page is idle now; a request made meanwhile waits in its queue).
    let _ = cabrito_check::protocol::checker::answer(&cabrito_check::protocol::checker::warm_up());
    scope.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    onmessage.forget();
    let _ = scope.post_message(&to_value(&Reply::Ready));
}

/// A message as a structured value: plain objects (maps too, so the task's `metadata` reads back as
/// JSON), 64-bit integers as BigInts (a seed may not fit a double), `None` as `undefined`.
pub fn to_value<T: serde::Serialize>(value: &T) -> JsValue {
    let serializer = serde_wasm_bindgen::Serializer::new()
        .serialize_maps_as_objects(true)
        .serialize_large_number_types_as_bigints(true);
    value
        .serialize(&serializer)
        .unwrap_or_else(|e| JsValue::from_str(&format!("the checker could not pass on a message: {e}")))
}

/// What the worker answers to one message (any value): the reply as a structured value. The
/// time in the reply (`ms`) starts before the message is read.
pub fn answer_value(data: JsValue, now: &dyn Fn() -> Option<f64>) -> JsValue {
    // A step of hidden tests graded in the page (JSON text, from the in-page grader, `super::inpage`).
    if let Some(text) = data.as_string().filter(|t| cabrito_check::protocol::inpage::is_step(t)) {
        return JsValue::from_str(&cabrito_check::protocol::inpage::answer(&text));
    }
    let start = now();
    let read = serde_wasm_bindgen::from_value::<Request>(data).map_err(|e| e.to_string());
    to_value(&cabrito_check::protocol::checker::answer_timed(read, start, now))
}

/// Read the worker's reply (the page's side); anything that is not one becomes [`Reply::Failed`].
pub fn read_reply(data: JsValue) -> Reply {
    if let Some(text) = data.as_string() {
        return Reply::Failed { why: text };
    }
    serde_wasm_bindgen::from_value(data)
        .unwrap_or_else(|e| Reply::Failed { why: format!("the checker's reply cannot be read: {e}") })
}

// ---- the page side ----

/// The checker as the page sees it (the grade panel's [`CheckerStatus`]).
pub use crate::playground::panel::CheckerStatus as Status;

/// What the page's listener hears.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    Status(Status),
    /// A reply, with `performance.now()` at its arrival.
    Reply(Reply, Option<f64>),
}

struct Client {
    status: Status,
    worker: Option<web_sys::Worker>,
    /// Requests (as structured values) made before Ready.
    queue: Vec<JsValue>,
    listener: Option<(u64, Callback<Event>)>,
    next_listener: u64,
    next_id: u64,
}

thread_local! {
    static CLIENT: RefCell<Client> = const {
        RefCell::new(Client { status: Status::Idle, worker: None, queue: Vec::new(), listener: None, next_listener: 0, next_id: 0 })
    };
}

/// The checker's status now.
pub fn status() -> Status {
    CLIENT.with(|c| c.borrow().status.clone())
}

/// A fresh request id.
pub fn next_id() -> u64 {
    CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        c.next_id += 1;
        c.next_id
    })
}

/// Hear the checker's events (one listener: the grade panel); returns a token for [`unlisten`].
pub fn listen(cb: Callback<Event>) -> u64 {
    CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        c.next_listener += 1;
        let token = c.next_listener;
        c.listener = Some((token, cb));
        token
    })
}

/// Stop hearing, unless another listener has replaced this one.
pub fn unlisten(token: u64) {
    CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        if c.listener.as_ref().is_some_and(|(t, _)| *t == token) {
            c.listener = None;
        }
    })
}

fn emit(event: Event) {
    // Call the listener outside the borrow: it may call back into this module.
    if let Some(cb) = CLIENT.with(|c| c.borrow().listener.as_ref().map(|(_, cb)| cb.clone())) {
        cb.emit(event);
    }
}

fn set_status(status: Status) {
    CLIENT.with(|c| c.borrow_mut().status = status.clone());
    emit(Event::Status(status));
}

/// Start the worker unless it is started (or failed).
pub fn ensure_started() {
    if status() != Status::Idle {
        return;
    }
    let worker = match web_sys::Worker::new(WORKER_SCRIPT) {
        Ok(w) => w,
        Err(e) => {
            let why = e.as_string().unwrap_or_else(|| format!("{e:?}"));
            set_status(Status::Failed(format!("the browser refused to start it: {why}")));
            return;
        }
    };
    let onmessage = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(|e: web_sys::MessageEvent| {
        let at = super::app::now();
        let reply = read_reply(e.data());
        match &reply {
            Reply::Ready => on_ready(),
            Reply::Failed { why } => set_status(Status::Failed(why.clone())),
            _ => emit(Event::Reply(reply, at)),
        }
    });
    let onerror = Closure::<dyn FnMut(web_sys::Event)>::new(|e: web_sys::Event| {
        let why = e
            .dyn_ref::<web_sys::ErrorEvent>()
            .map(|e| e.message())
            .filter(|m| !m.is_empty())
            .unwrap_or_else(|| format!("{WORKER_SCRIPT} did not load"));
        set_status(Status::Failed(why));
    });
    worker.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
    worker.set_onerror(Some(onerror.as_ref().unchecked_ref()));
    // The page keeps one checker for its whole life.
    onmessage.forget();
    onerror.forget();
    CLIENT.with(|c| c.borrow_mut().worker = Some(worker));
    set_status(Status::Loading);
}

fn on_ready() {
    if let Some(perf) = web_sys::window().and_then(|w| w.performance()) {
        let _ = perf.mark(READY_MARK);
    }
    let (worker, queue) = CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        c.status = Status::Ready;
        (c.worker.clone(), std::mem::take(&mut c.queue))
    });
    if let Some(w) = worker {
        for message in queue {
            let _ = w.post_message(&message);
        }
    }
    emit(Event::Status(Status::Ready));
}

/// Check a response (starting the worker if needed); the verdict comes to the listener.
pub fn check(req: &Request) {
    ensure_started();
    let message = to_value(req);
    let worker = CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        match c.status {
            Status::Ready => c.worker.clone(),
            Status::Loading => {
                // Only the newest request matters to the page.
                c.queue.clear();
                c.queue.push(message.clone());
                None
            }
            _ => None,
        }
    });
    if let Some(w) = worker {
        let _ = w.post_message(&message);
    }
}

/// Start the checker once the browser is idle (after the first paint), so that a paste finds it
/// loaded without the first paint waiting for it.
pub fn start_when_idle() {
    if status() != Status::Idle {
        return;
    }
    super::lazy::when_idle(Box::new(ensure_started));
}
