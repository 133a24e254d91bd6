//! Hidden tests in the page when no grading worker is connected: Python (Pyodide) in a module Web
//! Worker, `pygrade.js` (built from `www/pygrade/` by scripts/build_pygrade.mjs), started at the first
//! such run. It answers with the worker protocol's own messages, so the grade panel reads them as it
//! reads the worker's. A run longer than the time limit terminates the Web Worker; the next run starts
//! a fresh one.

use crate::playground::panel::{BrowserStatus, PanelAction};
use cabrito_check::protocol::inpage::BrowserJob;
use cabrito_check::protocol::{ErrorCode, ServerMessage};
use gloo::timers::callback::Timeout;
use std::cell::RefCell;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use yew::Callback;

/// The worker's script, next to index.html.
pub const SCRIPT: &str = "pygrade.js";
/// Seconds a run may take once Python is loaded, unless the page's storage sets
/// [`LIMIT_KEY`] (a number of seconds).
pub const DEFAULT_LIMIT_SECONDS: u32 = 60;
/// The `localStorage` key of the time limit.
pub const LIMIT_KEY: &str = "cabrito-browser-limit-seconds";

struct Grader {
    worker: web_sys::Worker,
    ready: bool,
    /// The job waiting for its final message, with its time limit once it runs.
    job: Option<(String, Option<Timeout>)>,
    report: Callback<PanelAction>,
}

thread_local! {
    static GRADER: RefCell<Option<Grader>> = const { RefCell::new(None) };
}

fn limit_seconds() -> u32 {
    web_sys::window()
        .and_then(|w| w.local_storage().ok().flatten())
        .and_then(|s| s.get_item(LIMIT_KEY).ok().flatten())
        .and_then(|v| v.trim().parse::<u32>().ok())
        .filter(|s| (1..=3600).contains(s))
        .unwrap_or(DEFAULT_LIMIT_SECONDS)
}

/// Grade `job` in the page; its messages go to `report` (as `PanelAction::Server`).
pub fn grade(job: &BrowserJob, report: Callback<PanelAction>) {
    let text = match serde_json::to_string(job) {
        Ok(t) => t,
        Err(e) => {
            report.emit(error(&job.id, ErrorCode::Internal, format!("the job cannot be sent: {e}")));
            return;
        }
    };
    if GRADER.with(|g| g.borrow().is_none()) {
        match start(report.clone()) {
            Ok(g) => GRADER.with(|cell| *cell.borrow_mut() = Some(g)),
            Err(why) => {
                report.emit(PanelAction::Browser(BrowserStatus::Failed(why.clone())));
                report.emit(error(&job.id, ErrorCode::Internal, why));
                return;
            }
        }
    }
    let message = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&message, &"id".into(), &JsValue::from_str(&job.id));
    let _ = js_sys::Reflect::set(&message, &"job".into(), &JsValue::from_str(&text));
    let ready = GRADER.with(|g| {
        let mut g = g.borrow_mut();
        let g = g.as_mut()?;
        g.report = report.clone();
        g.job = Some((job.id.clone(), None));
        let _ = g.worker.post_message(&message);
        Some(g.ready)
    });
    if ready == Some(true) {
        arm_limit();
    }
}

fn error(id: &str, code: ErrorCode, message: String) -> PanelAction {
    PanelAction::Server(ServerMessage::error(Some(id.to_string()), code, message))
}

/// Start the time limit of the pending job (once Python is loaded: the download is not the run).
fn arm_limit() {
    let seconds = limit_seconds();
    GRADER.with(|g| {
        if let Some((_, timer @ None)) = g.borrow_mut().as_mut().and_then(|g| g.job.as_mut()) {
            *timer = Some(Timeout::new(seconds * 1000, move || stop_at_limit(seconds)));
        }
    });
}

/// The job ran past the limit: end the Web Worker (and whatever Python was doing) and say why.
fn stop_at_limit(seconds: u32) {
    let Some(g) = GRADER.with(|g| g.borrow_mut().take()) else { return };
    g.worker.terminate();
    g.report.emit(PanelAction::Browser(BrowserStatus::Idle));
    if let Some((id, _)) = g.job {
        g.report.emit(error(
            &id,
            ErrorCode::Timeout,
            format!(
                "the hidden tests did not finish within {seconds} s in your browser, so Python was stopped (a candidate that never returns fails this way); the next run starts it afresh"
            ),
        ));
    }
}

/// The grader stopped or could not start: drop it, and fail the pending job with `why`.
fn fail(why: String) {
    let Some(g) = GRADER.with(|g| g.borrow_mut().take()) else { return };
    g.worker.terminate();
    g.report.emit(PanelAction::Browser(BrowserStatus::Failed(why.clone())));
    if let Some((id, _)) = g.job {
        g.report.emit(error(&id, ErrorCode::Internal, why));
    }
}

fn field(data: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(data, &key.into()).unwrap_or(JsValue::UNDEFINED)
}

fn on_message(data: JsValue) {
    let kind = field(&data, "type").as_string().unwrap_or_default();
    let report = GRADER.with(|g| g.borrow().as_ref().map(|g| g.report.clone()));
    let Some(report) = report else { return };
    match kind.as_str() {
        "load" => {
            let n = |k| field(&data, k).as_f64().unwrap_or(0.0).max(0.0) as u64;
            report.emit(PanelAction::Browser(BrowserStatus::Loading { loaded: n("loaded"), total: n("total") }));
        }
        "ready" => {
            GRADER.with(|g| {
                if let Some(g) = g.borrow_mut().as_mut() {
                    g.ready = true;
                }
            });
            report.emit(PanelAction::Browser(BrowserStatus::Ready));
            arm_limit();
        }
        "failed" => fail(field(&data, "why").as_string().unwrap_or_else(|| "Python could not start".into())),
        "server" => {
            let Some(text) = field(&data, "json").as_string() else { return };
            let msg = match ServerMessage::parse(&text) {
                Ok(m) => m,
                Err(e) => return fail(format!("the in-page grader sent an unreadable message: {e}")),
            };
            if msg.is_final() {
                // The job is over: its time limit too.
                GRADER.with(|g| {
                    if let Some(g) = g.borrow_mut().as_mut() {
                        if g.job.as_ref().map(|(id, _)| Some(id.as_str())) == Some(msg.id()) {
                            g.job = None;
                        }
                    }
                });
            }
            report.emit(PanelAction::Server(msg));
        }
        _ => {}
    }
}

fn start(report: Callback<PanelAction>) -> Result<Grader, String> {
    let opts = web_sys::WorkerOptions::new();
    opts.set_type(web_sys::WorkerType::Module);
    let worker = web_sys::Worker::new_with_options(SCRIPT, &opts).map_err(|e| {
        format!(
            "the browser refused to start Python in the page: {}",
            e.as_string().unwrap_or_else(|| format!("{e:?}"))
        )
    })?;
    let onmessage = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(|e: web_sys::MessageEvent| on_message(e.data()));
    let onerror = Closure::<dyn FnMut(web_sys::Event)>::new(|e: web_sys::Event| {
        let why = e
            .dyn_ref::<web_sys::ErrorEvent>()
            .map(|e| e.message())
            .filter(|m| !m.is_empty())
            .unwrap_or_else(|| format!("{SCRIPT} did not load or stopped"));
        fail(format!("Python in the page stopped: {why}"));
    });
    worker.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
    worker.set_onerror(Some(onerror.as_ref().unchecked_ref()));
    // The handlers live as long as this worker (a few per page: one each time the limit ends one).
    onmessage.forget();
    onerror.forget();
    report.emit(PanelAction::Browser(BrowserStatus::Loading { loaded: 0, total: 0 }));
    Ok(Grader { worker, ready: false, job: None, report })
}
