//! Hidden tests in the page when no grading worker is connected. The page plans the runs and computes
//! the verdict with a checker worker of its own (`cabrito_check::protocol::inpage`); each harness run
//! (the reference's, the candidate's) goes to a fresh `pygrade.js` Web Worker (Python with Pyodide,
//! built from `www/pygrade/`), which hands back only the run's raw result lines and is then
//! terminated. Submitted code runs only there, in a scope locked before it runs; every message from
//! such a worker is checked (its kind, its run's id, its fields) and anything else is ignored. Each
//! call has the harness's own time limit (in the worker); a run longer than the page's limit ends its
//! worker and fails. The messages to the grade panel are the
//! worker protocol's own, so the panel reads them as it reads the native worker's.

use crate::playground::panel::{BrowserStatus, PanelAction};
use cabrito_check::protocol::inpage::{BrowserJob, BrowserRun, RunHarness, Step, StepReply, MAX_RUN_OUTPUT_BYTES};
use cabrito_check::protocol::{ErrorCode, ServerMessage};
use gloo::timers::callback::Timeout;
use std::cell::RefCell;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use yew::Callback;

/// The Python worker's script, next to index.html.
pub const SCRIPT: &str = "pygrade.js";
/// The checker worker's script (the same checker as the grade panel's).
const CHECKER_SCRIPT: &str = super::checker::WORKER_SCRIPT;
/// Seconds a run may take once its Python is loaded, unless the page's storage sets
/// [`LIMIT_KEY`] (a number of seconds).
pub const DEFAULT_LIMIT_SECONDS: u32 = 60;
/// The `localStorage` key of the time limit.
pub const LIMIT_KEY: &str = "cabrito-browser-limit-seconds";
/// Python workers kept loaded for the next grade once the page has graded (a reference's and a
/// candidate's run).
const SPARES: usize = 2;
/// The stages of a job's runs, in the order of the plan's bodies.
const STAGES: [&str; 2] = ["reference", "candidate"];

/// One Python worker: used for one run, then terminated.
struct Py {
    serial: u64,
    worker: web_sys::Worker,
    ready: bool,
    /// The run it was given (the index of the job's body), once given one.
    run: Option<usize>,
    /// Whether the body has been posted (then only its result is taken).
    sent: bool,
    limit: Option<Timeout>,
}

/// The page's own checker worker: it plans the runs and reads them into the verdict.
struct Checker {
    worker: web_sys::Worker,
    ready: bool,
    /// Steps (JSON text) made before it was ready.
    queue: Vec<String>,
}

/// The job being graded.
struct Active {
    job: BrowserJob,
    report: Callback<PanelAction>,
    harness: RunHarness,
    bodies: Vec<String>,
    runs: Vec<Option<BrowserRun>>,
}

#[derive(Default)]
struct Grader {
    checker: Option<Checker>,
    pys: Vec<Py>,
    active: Option<Active>,
    next_serial: u64,
}

thread_local! {
    static GRADER: RefCell<Grader> = RefCell::new(Grader::default());
}

fn limit_seconds() -> u32 {
    web_sys::window()
        .and_then(|w| w.local_storage().ok().flatten())
        .and_then(|s| s.get_item(LIMIT_KEY).ok().flatten())
        .and_then(|v| v.trim().parse::<u32>().ok())
        .filter(|s| (1..=3600).contains(s))
        .unwrap_or(DEFAULT_LIMIT_SECONDS)
}

fn server(json: serde_json::Value) -> Option<ServerMessage> {
    ServerMessage::parse(&json.to_string()).ok()
}

fn emit_text(report: &Callback<PanelAction>, text: &str) {
    match ServerMessage::parse(text) {
        Ok(m) => report.emit(PanelAction::Server(m)),
        Err(e) => report
            .emit(PanelAction::Browser(BrowserStatus::Failed(format!("the checker sent an unreadable message: {e}")))),
    }
}

fn error(id: &str, code: ErrorCode, message: String) -> PanelAction {
    PanelAction::Server(ServerMessage::error(Some(id.to_string()), code, message))
}

/// Grade `job` in the page; its messages go to `report` (as `PanelAction::Server`).
pub fn grade(job: &BrowserJob, report: Callback<PanelAction>) {
    let step = match serde_json::to_string(&Step::Plan { job: job.clone() }) {
        Ok(t) => t,
        Err(e) => {
            report.emit(error(&job.id, ErrorCode::Internal, format!("the job cannot be sent: {e}")));
            return;
        }
    };
    // A job still running is dropped, with its Python workers.
    GRADER.with(|g| {
        let mut g = g.borrow_mut();
        g.active = None;
        g.pys.retain(|p| {
            if p.run.is_some() {
                p.worker.terminate();
            }
            p.run.is_none()
        });
    });
    if let Some(m) = server(serde_json::json!({
        "v": 1, "id": job.id, "type": "accepted", "spec": job.spec, "trials": job.trials
    })) {
        report.emit(PanelAction::Server(m));
    }
    let started = GRADER.with(|g| {
        let mut g = g.borrow_mut();
        g.active = Some(Active {
            job: job.clone(),
            report: report.clone(),
            harness: RunHarness::Grade,
            bodies: vec![],
            runs: vec![],
        });
        if g.checker.is_none() {
            g.checker = Some(start_checker()?);
        }
        Ok::<(), String>(())
    });
    if let Err(why) = started {
        end_job(Some(error(&job.id, ErrorCode::Internal, why)));
        return;
    }
    // Python starts downloading while the checker plans.
    let pythons = GRADER.with(|g| {
        let mut g = g.borrow_mut();
        while g.pys.len() < STAGES.len() {
            start_py(&mut g)?;
        }
        Ok::<(), String>(())
    });
    if let Err(why) = pythons {
        report.emit(PanelAction::Browser(BrowserStatus::Failed(why.clone())));
        end_job(Some(error(&job.id, ErrorCode::Internal, why)));
        return;
    }
    send_step(step);
}

/// End the active job: its last message (if any) goes to the panel; the Python workers it used
/// are gone, and fresh ones load for the next grade.
fn end_job(last: Option<PanelAction>) {
    let active = GRADER.with(|g| {
        let mut g = g.borrow_mut();
        g.pys.retain(|p| {
            if p.run.is_some() {
                p.worker.terminate();
            }
            p.run.is_none()
        });
        g.active.take()
    });
    if let (Some(a), Some(last)) = (active, last) {
        a.report.emit(last);
    }
    GRADER.with(|g| {
        let mut g = g.borrow_mut();
        while g.pys.len() < SPARES {
            if start_py(&mut g).is_err() {
                break;
            }
        }
    });
}

fn send_step(step: String) {
    GRADER.with(|g| {
        let mut g = g.borrow_mut();
        let Some(c) = g.checker.as_mut() else { return };
        if c.ready {
            let _ = c.worker.post_message(&JsValue::from_str(&step));
        } else {
            c.queue.push(step);
        }
    });
}

fn field(data: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(data, &key.into()).unwrap_or(JsValue::UNDEFINED)
}

fn start_checker() -> Result<Checker, String> {
    let worker = web_sys::Worker::new(CHECKER_SCRIPT)
        .map_err(|e| format!("the browser refused to start the checker: {}", describe(&e)))?;
    let onmessage = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(|e: web_sys::MessageEvent| on_checker(e.data()));
    let onerror = Closure::<dyn FnMut(web_sys::Event)>::new(|_: web_sys::Event| {
        GRADER.with(|g| g.borrow_mut().checker = None);
        let id = GRADER.with(|g| g.borrow().active.as_ref().map(|a| a.job.id.clone()));
        if let Some(id) = id {
            end_job(Some(error(&id, ErrorCode::Internal, format!("{CHECKER_SCRIPT} did not load or stopped"))));
        }
    });
    worker.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
    worker.set_onerror(Some(onerror.as_ref().unchecked_ref()));
    // The handlers live as long as the checker (one per page).
    onmessage.forget();
    onerror.forget();
    Ok(Checker { worker, ready: false, queue: vec![] })
}

fn on_checker(data: JsValue) {
    if let Some(text) = data.as_string() {
        return on_step_reply(&text);
    }
    match field(&data, "type").as_string().as_deref() {
        Some("ready") => GRADER.with(|g| {
            let mut g = g.borrow_mut();
            if let Some(c) = g.checker.as_mut() {
                c.ready = true;
                for step in c.queue.drain(..) {
                    let _ = c.worker.post_message(&JsValue::from_str(&step));
                }
            }
        }),
        Some("failed") => {
            let why = field(&data, "why").as_string().unwrap_or_else(|| "the checker stopped".into());
            GRADER.with(|g| {
                if let Some(c) = g.borrow_mut().checker.take() {
                    c.worker.terminate();
                }
            });
            let id = GRADER.with(|g| g.borrow().active.as_ref().map(|a| a.job.id.clone()));
            if let Some(id) = id {
                end_job(Some(error(&id, ErrorCode::Internal, why)));
            }
        }
        _ => {}
    }
}

fn on_step_reply(text: &str) {
    let Some((id, report)) = GRADER.with(|g| g.borrow().active.as_ref().map(|a| (a.job.id.clone(), a.report.clone())))
    else {
        return;
    };
    let reply = match serde_json::from_str::<StepReply>(text) {
        Ok(r) => r,
        Err(e) => {
            return end_job(Some(error(&id, ErrorCode::Internal, format!("the checker's answer cannot be read: {e}"))))
        }
    };
    match reply {
        StepReply::Final { id: of, messages, last } if of == id || of.is_empty() => {
            for m in &messages {
                emit_text(&report, m);
            }
            let last = match ServerMessage::parse(&last) {
                Ok(m) => PanelAction::Server(m),
                Err(e) => error(&id, ErrorCode::Internal, format!("the checker's verdict cannot be read: {e}")),
            };
            end_job(Some(last));
        }
        StepReply::Runs { id: of, harness, bodies, messages } if of == id => {
            for m in &messages {
                emit_text(&report, m);
            }
            if bodies.len() != STAGES.len() {
                return end_job(Some(error(
                    &id,
                    ErrorCode::Internal,
                    format!("the checker planned {} runs, not {}", bodies.len(), STAGES.len()),
                )));
            }
            GRADER.with(|g| {
                let mut g = g.borrow_mut();
                let g = &mut *g;
                let Some(a) = g.active.as_mut() else { return };
                a.runs = vec![None; bodies.len()];
                a.harness = harness;
                a.bodies = bodies;
                // Each run to a Python worker of its own (loaded ones first).
                g.pys.sort_by_key(|p| !p.ready);
                for (i, p) in g.pys.iter_mut().take(STAGES.len()).enumerate() {
                    p.run = Some(i);
                }
            });
            let waiting = GRADER.with(|g| g.borrow().pys.iter().filter(|p| p.run.is_some() && !p.ready).count());
            if waiting > 0 {
                report.emit(PanelAction::Browser(BrowserStatus::Loading { loaded: 0, total: 0 }));
            }
            send_ready_runs();
        }
        // An answer to an earlier job.
        _ => {}
    }
}

/// Post its body to every loaded Python worker that has a run, and start its time limit.
fn send_ready_runs() {
    let seconds = limit_seconds();
    GRADER.with(|g| {
        let mut g = g.borrow_mut();
        let g = &mut *g;
        let Some(a) = g.active.as_ref() else { return };
        for p in g.pys.iter_mut().filter(|p| p.ready && !p.sent) {
            let Some(i) = p.run else { continue };
            let Some(body) = a.bodies.get(i) else { continue };
            let message = js_sys::Object::new();
            let _ = js_sys::Reflect::set(&message, &"run".into(), &JsValue::from_str(&run_id(&a.job.id, i)));
            let harness = match a.harness {
                RunHarness::Grade => "grade",
                RunHarness::Merge => "merge",
            };
            let _ = js_sys::Reflect::set(&message, &"harness".into(), &JsValue::from_str(harness));
            let _ = js_sys::Reflect::set(&message, &"body".into(), &JsValue::from_str(body));
            let _ = p.worker.post_message(&message);
            p.sent = true;
            let serial = p.serial;
            p.limit = Some(Timeout::new(seconds * 1000, move || stop_at_limit(serial, seconds)));
        }
    });
}

fn run_id(job: &str, i: usize) -> String {
    format!("{job}/{}", STAGES[i.min(STAGES.len() - 1)])
}

/// A run went past the limit: end its worker (and whatever Python was doing); it fails.
fn stop_at_limit(serial: u64, seconds: u32) {
    let run = BrowserRun {
        output: String::new(),
        error: Some(format!(
            "the run did not finish within {seconds} s in your browser, so Python was stopped (a call that outlasts its own time limit fails this way)"
        )),
        seconds: f64::from(seconds),
        timed_out: Some(f64::from(seconds)),
    };
    finish_run(serial, run, true);
}

/// Run `serial`'s result is in: its worker ends; once every run is in, the checker judges them.
/// `from_limit`: called by the run's own time limit (which then is not dropped while it runs).
fn finish_run(serial: u64, run: BrowserRun, from_limit: bool) {
    let step = GRADER.with(|g| {
        let mut g = g.borrow_mut();
        let g = &mut *g;
        let k = g.pys.iter().position(|p| p.serial == serial)?;
        let mut p = g.pys.remove(k);
        p.worker.terminate();
        if let (Some(limit), true) = (p.limit.take(), from_limit) {
            let _ = limit.forget();
        }
        let a = g.active.as_mut()?;
        let i = p.run?;
        *a.runs.get_mut(i)? = Some(run);
        let done = a.runs.iter().filter(|r| r.is_some()).count();
        if let Some(m) = server(serde_json::json!({
            "v": 1, "id": a.job.id, "type": "progress", "done": 1 + done, "total": 1 + STAGES.len(), "stage": STAGES[i]
        })) {
            a.report.emit(PanelAction::Server(m));
        }
        let runs: Option<Vec<BrowserRun>> = a.runs.iter().cloned().collect();
        serde_json::to_string(&Step::Verdict { job: a.job.clone(), runs: runs? }).ok()
    });
    if let Some(step) = step {
        send_step(step);
    }
}

/// A Python worker stopped or could not start: if it had a run, the job cannot finish.
fn py_failed(serial: u64, why: String) {
    let had_run = GRADER.with(|g| {
        let mut g = g.borrow_mut();
        let k = g.pys.iter().position(|p| p.serial == serial)?;
        let p = g.pys.remove(k);
        p.worker.terminate();
        p.run
    });
    if had_run.is_some() {
        let (id, report) =
            match GRADER.with(|g| g.borrow().active.as_ref().map(|a| (a.job.id.clone(), a.report.clone()))) {
                Some(x) => x,
                None => return,
            };
        report.emit(PanelAction::Browser(BrowserStatus::Failed(why.clone())));
        end_job(Some(error(&id, ErrorCode::Internal, why)));
    }
}

/// A message from Python worker `serial`, checked against what that worker may say now.
fn on_py(serial: u64, data: JsValue) {
    let Some((ready, run, sent)) =
        GRADER.with(|g| g.borrow().pys.iter().find(|p| p.serial == serial).map(|p| (p.ready, p.run, p.sent)))
    else {
        return;
    };
    let report = GRADER.with(|g| g.borrow().active.as_ref().map(|a| a.report.clone()));
    match field(&data, "type").as_string().as_deref() {
        Some("load") if !ready => {
            let n = |k| field(&data, k).as_f64().filter(|x| x.is_finite()).unwrap_or(0.0).max(0.0) as u64;
            if let (Some(report), Some(_)) = (report, run) {
                report.emit(PanelAction::Browser(BrowserStatus::Loading { loaded: n("loaded"), total: n("total") }));
            }
        }
        Some("ready") if !ready => {
            GRADER.with(|g| {
                if let Some(p) = g.borrow_mut().pys.iter_mut().find(|p| p.serial == serial) {
                    p.ready = true;
                }
            });
            if let (Some(report), Some(_)) = (report, run) {
                report.emit(PanelAction::Browser(BrowserStatus::Ready));
            }
            send_ready_runs();
        }
        Some("failed") if !sent => {
            py_failed(serial, field(&data, "why").as_string().unwrap_or_else(|| "Python could not start".into()))
        }
        Some("ran") if sent => {
            let Some(i) = run else { return };
            let Some(job) = GRADER.with(|g| g.borrow().active.as_ref().map(|a| a.job.id.clone())) else { return };
            if field(&data, "run").as_string() != Some(run_id(&job, i)) {
                return;
            }
            let output = field(&data, "output").as_string();
            let error = field(&data, "error");
            let seconds = field(&data, "seconds").as_f64().filter(|s| s.is_finite() && *s >= 0.0);
            let run = match (output, error.is_null(), error.as_string(), seconds) {
                (Some(output), true, _, Some(seconds)) | (Some(output), _, Some(_), Some(seconds))
                    if output.len() <= MAX_RUN_OUTPUT_BYTES =>
                {
                    BrowserRun { output, error: error.as_string(), seconds, timed_out: None }
                }
                // Not what a run hands back: the run failed.
                _ => BrowserRun {
                    output: String::new(),
                    error: Some("the run's result could not be read".into()),
                    seconds: 0.0,
                    timed_out: None,
                },
            };
            finish_run(serial, run, false);
        }
        _ => {}
    }
}

fn describe(e: &JsValue) -> String {
    e.as_string().unwrap_or_else(|| format!("{e:?}"))
}

fn start_py(g: &mut Grader) -> Result<(), String> {
    let opts = web_sys::WorkerOptions::new();
    opts.set_type(web_sys::WorkerType::Module);
    let worker = web_sys::Worker::new_with_options(SCRIPT, &opts)
        .map_err(|e| format!("the browser refused to start Python in the page: {}", describe(&e)))?;
    g.next_serial += 1;
    let serial = g.next_serial;
    let onmessage =
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| on_py(serial, e.data()));
    let onerror = Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
        let why = e
            .dyn_ref::<web_sys::ErrorEvent>()
            .map(|e| e.message())
            .filter(|m| !m.is_empty())
            .unwrap_or_else(|| format!("{SCRIPT} did not load or stopped"));
        py_failed(serial, format!("Python in the page stopped: {why}"));
    });
    worker.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
    worker.set_onerror(Some(onerror.as_ref().unchecked_ref()));
    // The handlers live as long as the page (a few per grade).
    onmessage.forget();
    onerror.forget();
    g.pys.push(Py { serial, worker, ready: false, run: None, sent: false, limit: None });
    Ok(())
}
