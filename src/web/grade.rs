//! Grading in the task page: the answer (edited in "Your solution", [`super::editor`]) gets the static
//! rubric at once (computed in the browser by the checker web worker, [`super::checker`], started once
//! the page is idle), and the hidden tests run on the native worker over the WebSocket `/ws` of the
//! server that served the page. Without a worker, the hidden tests of math and string tasks run in the
//! page itself (Python in a Web Worker, [`super::inpage`]), and the verdict says where it ran.
//! The state is the pure [`Panel`] reducer, held by the task view ([`use_grade`]) so that the editor
//! and the grade panel share one answer.

use super::app::Shown;
use super::checker;
use crate::playground::panel::{
    all_functions_pass, failing_first, failing_functions, isolation_summary, Asked, BrowserStatus, CheckerStatus, Job,
    Panel, PanelAction, Place, StaticView, WorkerStatus,
};
use crate::playground::requirements::findings;
use cabrito_check::protocol::checker::Request;
use cabrito_check::protocol::inpage::{browser_refusal, BrowserJob};
use cabrito_check::protocol::{ClientMessage, ServerMessage};
use cabrito_check::RubricItem;
use futures_util::{SinkExt, StreamExt};
use gloo::net::websocket::{futures::WebSocket, Message, State};
use std::rc::Rc;
use yew::platform::spawn_local;
use yew::prelude::*;

/// The worker's WebSocket URL for this page (same host, `ws:` or `wss:`).
pub fn worker_url() -> Option<String> {
    let loc = web_sys::window()?.location();
    let scheme = if loc.protocol().ok()? == "https:" { "wss" } else { "ws" };
    Some(format!("{scheme}://{}/ws", loc.host().ok()?))
}

/// The panel's state in Yew: the core's pure reducer ([`Panel::reduce`]).
#[derive(Clone, Debug, PartialEq)]
pub struct PanelState(pub Panel);

impl Reducible for PanelState {
    type Action = PanelAction;

    fn reduce(self: Rc<Self>, action: PanelAction) -> Rc<Self> {
        Rc::new(PanelState(Rc::unwrap_or_clone(self).0.reduce(action)))
    }
}

/// Open a WebSocket and wait until it is open. Sending on a socket that failed to connect would
/// log "WebSocket is already in CLOSING or CLOSED state" in the console, so a failed connection
/// is reported here instead.
async fn open(url: &str) -> Result<WebSocket, String> {
    let mut ws = WebSocket::open(url).map_err(|e| e.to_string())?;
    // Ready once the socket is no longer connecting (open, or closed after a failure).
    let ready = std::future::poll_fn(|cx| ws.poll_ready_unpin(cx)).await;
    match (ready, ws.state()) {
        (Ok(()), State::Open) => Ok(ws),
        _ => Err(format!("no worker answers at {url}")),
    }
}

/// Ask the worker who it is: `Connected` or `Absent`, and why.
async fn hello() -> WorkerStatus {
    let Some(url) = worker_url() else {
        return WorkerStatus::Absent("this page has no host to reach a worker on".into());
    };
    let ws = match open(&url).await {
        Ok(ws) => ws,
        Err(e) => return WorkerStatus::Absent(e),
    };
    let (mut tx, mut rx) = ws.split();
    if tx.send(Message::Text(ClientMessage::hello().to_json())).await.is_err() {
        return WorkerStatus::Absent(format!("no worker answers at {url}"));
    }
    let status = match rx.next().await {
        Some(Ok(Message::Text(t))) => match ServerMessage::parse(&t) {
            Ok(ServerMessage::Hello(h)) => WorkerStatus::Connected(h),
            _ => WorkerStatus::Absent(format!("{url} did not answer as a Cabrito worker")),
        },
        _ => WorkerStatus::Absent(format!("no worker answers at {url}")),
    };
    let _ = tx.close().await;
    status
}

/// Ask the worker who it is; reports `Connected` or `Absent`.
fn probe(report: Callback<PanelAction>) {
    spawn_local(async move { report.emit(PanelAction::Worker(hello().await)) });
}

/// Send one grade job on its own connection and report every reply until the final one.
fn run_job(id: String, message: String, report: Callback<PanelAction>) {
    let Some(url) = worker_url() else { return };
    spawn_local(async move {
        let ws = match open(&url).await {
            Ok(ws) => ws,
            Err(e) => {
                report.emit(PanelAction::Lost { id, why: e });
                return;
            }
        };
        let (mut tx, mut rx) = ws.split();
        // The worker grades nothing before the connection's hello (its answer goes to the panel).
        let hello = Message::Text(ClientMessage::hello().to_json());
        if tx.send(hello).await.is_err() || tx.send(Message::Text(message)).await.is_err() {
            report.emit(PanelAction::Lost { id, why: format!("no worker answers at {url}") });
            return;
        }
        while let Some(item) = rx.next().await {
            let Ok(Message::Text(t)) = item else { break };
            match ServerMessage::parse(&t) {
                Ok(msg) => {
                    let last = msg.is_final() && msg.id() == Some(id.as_str());
                    report.emit(PanelAction::Server(msg));
                    if last {
                        let _ = tx.close().await;
                        return;
                    }
                }
                Err(e) => {
                    report.emit(PanelAction::Lost { id, why: e });
                    return;
                }
            }
        }
        report.emit(PanelAction::Lost { id, why: "the worker closed the connection before the result".into() });
    });
}

/// The task page's grading state: the answer, the checker's verdict and the worker's job, with the
/// effects that feed it (the worker's probe, the checker, a new task). `active` is false in the
/// read-only embed, which grades nothing.
#[hook]
pub fn use_grade(
    shown: &Rc<Shown>,
    solution: Option<String>,
    active: bool,
) -> (UseReducerHandle<PanelState>, Option<String>) {
    let state = use_reducer_eq(|| PanelState(Panel::new(checker::status())));
    let spec = &shown.spec;
    // The link's solution, read (or why it cannot be).
    let shared = use_memo(solution, |s| s.as_deref().map(super::share::decode_solution));
    {
        // Once the page is idle: the worker is not part of what a first paint shows.
        let dispatcher = state.dispatcher();
        use_effect_with((), move |_| {
            if active {
                super::lazy::when_idle(Box::new(move || probe(Callback::from(move |a| dispatcher.dispatch(a)))))
            }
        });
    }
    // A new task clears the answer and the job (or starts from the solution in the link).
    {
        let dispatcher = state.dispatcher();
        use_effect_with((spec.clone(), (*shared).clone()), move |(_, shared)| {
            dispatcher.dispatch(PanelAction::NewTask(match shared {
                Some(Ok(s)) => s.clone(),
                _ => String::new(),
            }));
        });
    }
    // The static checker: its status and replies go to the reducer, which shows a reply only when it
    // answers the newest request.
    {
        let dispatcher = state.dispatcher();
        use_effect_with((), move |_| {
            let token = active.then(|| {
                let token = checker::listen(Callback::from(move |e| {
                    dispatcher.dispatch(match e {
                        checker::Event::Status(s) => PanelAction::Checker(s),
                        checker::Event::Reply(r, at) => PanelAction::CheckerReply(r, at),
                    })
                }));
                checker::start_when_idle();
                token
            });
            move || {
                if let Some(t) = token {
                    checker::unlisten(t)
                }
            }
        });
    }
    {
        let (dispatcher, shown) = (state.dispatcher(), shown.clone());
        use_effect_with((state.0.text.clone(), spec.clone()), move |(t, _)| {
            if !active {
                return;
            }
            if t.trim().is_empty() {
                dispatcher.dispatch(PanelAction::Asked(None));
            } else {
                let id = checker::next_id();
                dispatcher.dispatch(PanelAction::Asked(Some(Asked { id, at: super::app::now() })));
                checker::check(&Request::for_task(id, &shown.generated.task, t));
            }
        });
    }
    let shared_error = match &*shared {
        Some(Err(why)) => Some(why.clone()),
        _ => None,
    };
    (state, shared_error)
}

/// Run the answer's hidden tests, when they can run (Ctrl/Cmd+Enter and the button): on the worker,
/// or without one in the page (after asking once more for a worker, which takes over if it is there).
pub fn run_hidden(state: &UseReducerHandle<PanelState>, task: &cabrito_gen::Task) {
    if !state.0.can_run() {
        return;
    }
    let id = format!("job-{:016x}", super::random_u64());
    let message = ClientMessage::grade(id.clone(), &task.spec, state.0.text.clone(), None).to_json();
    let dispatcher = state.dispatcher();
    let report = Callback::from(move |a| dispatcher.dispatch(a));
    match state.0.run_place() {
        Some(Place::Worker) => {
            report.emit(PanelAction::JobStarted(id.clone()));
            run_job(id, message, report);
        }
        Some(Place::Browser) => {
            if browser_refusal(task.spec.kind, task.spec.domain).is_some() {
                return;
            }
            let job = BrowserJob::for_task(id.clone(), task, &state.0.text);
            report.emit(PanelAction::BrowserJobStarted(id.clone()));
            spawn_local(async move {
                match hello().await {
                    w @ WorkerStatus::Connected(_) => {
                        report.emit(PanelAction::Worker(w));
                        report.emit(PanelAction::JobStarted(id.clone()));
                        run_job(id, message, report);
                    }
                    w => {
                        report.emit(PanelAction::Worker(w));
                        super::inpage::grade(&job, report);
                    }
                }
            });
        }
        None => {}
    }
}

#[derive(Properties, PartialEq)]
pub struct GradeProps {
    pub shown: Rc<Shown>,
    /// The task view's grading state ([`use_grade`]).
    pub state: UseReducerHandle<PanelState>,
    /// Why the link's solution cannot be read, if it cannot.
    #[prop_or_default]
    pub shared_error: Option<String>,
    /// A rubric line link: open the editor at this line.
    pub on_goto: Callback<usize>,
    /// Open the editor ("Your solution").
    pub on_edit: Callback<()>,
    /// "Your solution" is on show beside the panel (no button to open it then).
    #[prop_or_default]
    pub editing: bool,
}

/// A rubric item's line link.
fn line_link(l: usize, goto_line: &Callback<usize>) -> Html {
    let goto_line = goto_line.clone();
    html! {
        <button type="button" class="line-link" data-line={l.to_string()} title={format!("Show line {l} in your solution")}
            onclick={Callback::from(move |_: MouseEvent| goto_line.emit(l))}>{ format!("line {l}") }</button>
    }
}

/// One rubric item: its mark, badge, title and reason (with its line).
fn rubric_item(i: &RubricItem, goto_line: &Callback<usize>) -> Html {
    // Instruction following: each unmet requirement on its own line, linked to it.
    let reason = if i.id == "constraint_structure" && !i.passed {
        html! {
            <span class="reason">
                <ul class="findings">
                    { for findings(&i.reason).into_iter().map(|(text, l)| html! {
                        <li class="finding" data-line={l.map(|l| l.to_string())}>
                            { super::view::inline_code(&text) }{ for l.map(|l| line_link(l, goto_line)) }
                        </li>
                    }) }
                </ul>
            </span>
        }
    } else {
        html! { <span class="reason">{ super::view::inline_code(&i.reason) }{ for i.line.map(|l| line_link(l, goto_line)) }</span> }
    };
    html! {
        <li class={classes!("item", if i.passed { "pass" } else { "fail" })} data-id={i.id.to_string()} data-passed={i.passed.to_string()} data-must={i.must_have.to_string()}>
            <span class="mark" aria-label={if i.passed { "passed" } else { "failed" }}>{ if i.passed { "✓" } else { "✗" } }</span>
            <span class="badge">{ if i.must_have { "must" } else { "nice" } }</span>
            <span class="title">{ super::view::inline_code(&i.title) }</span>
            { reason }
        </li>
    }
}

/// The grade panel: the answer's actions, the hidden tests (their button, the worker in one line,
/// their verdict) and the static rubric, failing items first and the passing ones folded.
#[function_component(GradePanel)]
pub fn grade_panel(p: &GradeProps) -> Html {
    let state = &p.state;
    let panel = &state.0;
    let spec = &p.shown.spec;
    let task = &p.shown.generated.task;
    let share = {
        let (text, dispatcher) = (panel.text.clone(), state.dispatcher());
        let spec = spec.clone();
        Callback::from(move |_: MouseEvent| {
            let link = super::view::page_url(&format!(
                "{}&{}={}",
                super::route::fragment(&spec),
                super::share::SOLUTION_KEY,
                super::share::encode_solution(&text)
            ));
            super::code::copy_to_clipboard(&link);
            dispatcher.dispatch(PanelAction::Shared(link));
        })
    };
    let fill = |code: String| {
        let dispatcher = state.dispatcher();
        Callback::from(move |_: MouseEvent| dispatcher.dispatch(PanelAction::SetText(code.clone())))
    };
    let onclick_run = {
        let (state, shown) = (state.clone(), p.shown.clone());
        Callback::from(move |_: MouseEvent| run_hidden(&state, &shown.generated.task))
    };
    let goto_line = p.on_goto.clone();
    // A finished run's verdict comes into view whole: the reader pressed the button to see it (on a
    // phone it lands at the screen's bottom edge, under the button).
    {
        let finished = matches!(panel.job, Job::Done(_) | Job::Failed { .. });
        use_effect_with(finished, |&finished| {
            let verdict =
                web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id("hidden-verdict"));
            if let (true, Some(v)) = (finished, verdict) {
                let how = web_sys::ScrollIntoViewOptions::new();
                how.set_block(web_sys::ScrollLogicalPosition::Nearest);
                v.scroll_into_view_with_scroll_into_view_options(&how);
            }
        });
    }
    // Without a worker: why this task's hidden tests cannot run in the page, if they cannot.
    let refusal = browser_refusal(task.spec.kind, task.spec.domain);
    let can_run = panel.can_run() && !(panel.run_place() == Some(Place::Browser) && refusal.is_some());

    let static_view = match panel.static_view() {
        StaticView::Empty => html! {
            <p id="static-empty" class="hint">
                { "Write your solution in " }
                <button id="grade-edit" type="button" class="link-button" onclick={p.on_edit.reform(|_: MouseEvent| ())}>{ "Your solution" }</button>
                { " (or paste one there: a whole file, a # === solution.py === file block or a unified diff). The static checks run at once, here in the browser." }
            </p>
        },
        StaticView::Pending(status) => match status {
            CheckerStatus::Failed(why) => html! {
                <p id="static-pending" class="notice" data-checker="failed">
                    <strong>{ "The static checker could not run here: " }</strong>{ why.clone() }
                    { " The hidden tests still grade the solution." }
                </p>
            },
            CheckerStatus::Ready => {
                html! { <p id="static-pending" class="hint" data-checker="ready">{ "Checking…" }</p> }
            }
            CheckerStatus::Idle | CheckerStatus::Loading => {
                html! { <p id="static-pending" class="hint" data-checker="loading">{ "Loading the checker…" }</p> }
            }
        },
        StaticView::Unreadable(why) => html! {
            <div id="static-verdict" class="verdict fail" data-passed="false">
                <p><strong>{ "The response cannot be read: " }</strong>{ why.to_string() }</p>
            </div>
        },
        StaticView::Verdict { how, items, passed, ms, waited } => {
            let took = ms.map(|m| format!(" in {m:.1} ms")).unwrap_or_default();
            let (failing, passing) = failing_first(items);
            let musts = failing.iter().filter(|i| i.must_have).count();
            let headline = if passed {
                "Static checks: every must-have passes".to_string()
            } else {
                format!("Static checks: {} failing", cabrito_gen::words::count(musts, "must-have", "must-haves"))
            };
            html! {
                <div id="static-verdict" class={classes!("verdict", if passed { "pass" } else { "fail" })} data-passed={passed.to_string()}
                    data-check-ms={ms.map(|m| format!("{m:.2}"))} data-wait-ms={waited.map(|w| format!("{w:.1}"))}>
                    <p>
                        <strong>{ headline }</strong>
                        <span class="verdict-how" title={format!("The response was {how}; checked{took}")}>{ format!(" · {how}") }</span>
                    </p>
                    if !failing.is_empty() {
                        <ul class="rubric failing">
                            { for failing.iter().map(|i| rubric_item(i, &goto_line)) }
                        </ul>
                    }
                    if !passing.is_empty() {
                        <details id="rubric-passing" class="rubric-passing" open={failing.is_empty()}>
                            <summary>{ format!("{} passing", cabrito_gen::words::count(passing.len(), "item", "items")) }</summary>
                            <ul class="rubric passing">
                                { for passing.iter().map(|i| rubric_item(i, &goto_line)) }
                            </ul>
                        </details>
                    }
                </div>
            }
        }
    };

    // The worker in one line; what isolates a run, and how to start a worker, on demand.
    let worker_view = match &panel.worker {
        WorkerStatus::Probing => {
            html! { <p id="worker-status" class="hint worker-line">{ "worker: looking for one…" }</p> }
        }
        WorkerStatus::Absent(why) => match &refusal {
            Some(needs) => html! {
                <details id="worker-details" class="worker-line" open=true>
                    <summary id="worker-status" data-worker="absent" data-browser="refused">{ "No grading worker is connected, and this task's hidden tests cannot run in the page" }</summary>
                    <p id="browser-refusal" class="hint">{ format!("The {} {needs}. The static verdict still holds. To run them, start the playground with its worker: bash scripts/serve.sh", task.spec.kind.as_str()) }</p>
                </details>
            },
            None => html! {
                <details id="worker-details" class="worker-line">
                    <summary id="worker-status" data-worker="absent" data-browser="yes">{ "No grading worker is connected: the hidden tests run in your browser (Python, downloaded at the first run)" }</summary>
                    <p class="hint">{ format!("{why}. The hidden tests run here with Pyodide, Python in WebAssembly, in a Web Worker of this page: the same harness and 50 trials per function as the worker. A worker that appears later takes over. To grade on a worker: bash scripts/serve.sh") }</p>
                </details>
            },
        },
        WorkerStatus::Connected(h) => html! {
            <details id="worker-details" class="worker-line">
                <summary id="worker-status" data-worker="connected">{ format!("worker: connected, {}", isolation_summary(&h.isolation)) }</summary>
                <p class="hint">{ format!("{} · {}", h.server, h.isolation) }</p>
            </details>
        },
    };
    let place = panel.place;
    // Python's download, the first time the page runs hidden tests itself.
    let loading = match (&panel.browser, place, panel.busy()) {
        (BrowserStatus::Loading { loaded, total }, Place::Browser, true) => {
            let mb = |b: u64| b as f64 / 1_048_576.0;
            html! {
                <p id="python-loading" class="hint">
                    { format!("Loading Python into your browser (once per visit): {:.1} of {:.1} MB ", mb(*loaded), mb((*total).max(*loaded))) }
                    <progress id="python-progress" max={(*total).max(1).to_string()} value={loaded.to_string()}></progress>
                </p>
            }
        }
        _ => html! {},
    };
    let job_view = match &panel.job {
        Job::None => html! {},
        Job::Sent { .. } => html! {
            <p id="job-status" class="hint" data-ran={place.as_str()}>{ match place {
                Place::Worker => "Sent to the worker…",
                Place::Browser => "Starting the hidden tests in your browser…",
            } }</p>
        },
        Job::Running { done, total, stage, .. } => html! {
            <p id="job-status" class="hint" data-ran={place.as_str()}>
                { format!("Running the hidden tests {}: {} {done}/{total}", place.words(), stage.as_str()) }
                <progress max={total.max(&1).to_string()} value={done.to_string()}></progress>
            </p>
        },
        Job::Failed { failure, message } => html! {
            <div id="hidden-verdict" class="verdict fail" data-passed="error" data-ran={place.as_str()} data-failure={failure.as_str()}><p><strong>{ match place {
                Place::Worker => format!("The worker could not grade it ({}): ", failure.as_str()),
                Place::Browser => format!("The hidden tests could not finish in your browser ({}): ", failure.as_str()),
            } }</strong>{ message.clone() }</p></div>
        },
        Job::Done(r) => {
            let hidden = r.hidden_passed;
            let failing: Vec<_> = failing_functions(r).collect();
            let verdict = if r.passed {
                "Hidden tests: the solution passes (score 1)"
            } else {
                "Hidden tests: the solution fails (score 0)"
            };
            let summary = match failing.len() {
                0 if all_functions_pass(r) => {
                    format!(" · all {} functions right · {:.1} s {}", r.functions.len(), r.seconds, place.words())
                }
                0 => format!(" · {:.1} s {}", r.seconds, place.words()),
                k => format!(" · {k} of {} functions fail · {:.1} s {}", r.functions.len(), r.seconds, place.words()),
            };
            // One line; what failed on demand (the static verdict below says why, line by line).
            html! {
                <div id="hidden-verdict" class={classes!("verdict", if r.passed { "pass" } else { "fail" })} data-passed={r.passed.to_string()}
                    data-ran={place.as_str()} data-hidden={hidden.map_or("none".to_string(), |h| h.to_string())}>
                    <details id="hidden-details" class="hidden-details">
                        <summary title={format!("{} trials per function", r.trials)}><strong>{ verdict }</strong><span class="verdict-how">{ summary }</span></summary>
                        <p class="hint">{ super::view::inline_code(&r.message) }</p>
                        if !failing.is_empty() {
                            <ul class="functions">
                                { for failing.iter().take(20).map(|f| html! {
                                    <li class="fail" data-fn={f.name.clone()}>
                                        { format!("{}: {} ({} passed, {} failed, {} errors)", f.name, f.status, f.passed, f.failed, f.errored) }
                                        { for f.first_failure.as_ref().map(|ff| html! {
                                            <span class="reason">{ format!(" first failure, trial {}: {}", ff.trial, ff.message) }</span>
                                        }) }
                                    </li>
                                }) }
                            </ul>
                            if failing.len() > 20 {
                                <p class="hint">{ format!("… and {} more failing functions.", failing.len() - 20) }</p>
                            }
                        }
                    </details>
                </div>
            }
        }
    };

    html! {
        <section id="grade" class="panel grade" aria-label="Grade your solution">
            <div class="panel-head">
                <h2>{ "Grade your solution" }</h2>
                <div class="actions">
                    <button id="run-hidden" type="button" class="button small" disabled={!can_run} onclick={onclick_run}
                        title="Run the task's hidden tests, on the worker or else in your browser (Ctrl/Cmd+Enter in the editor)">
                        { "Run hidden tests" }
                    </button>
                    if !p.editing {
                        <button id="edit-solution" type="button" class="button small ghost" onclick={p.on_edit.reform(|_: MouseEvent| ())}
                            title="Open your solution.py in the code editor, beside this panel">{ "Edit your solution" }</button>
                    }
                    <button id="use-starter" type="button" class="button small ghost" onclick={fill(task.starter_code.clone())}
                        title="Replace your solution with the starter">{ "Paste starter" }</button>
                    <button id="use-reference" type="button" class="button small ghost" onclick={fill(task.solution_code.clone())}
                        title="Replace your solution with the reference solution">{ "Paste reference" }</button>
                </div>
            </div>
            if let Some(why) = &panel.notice {
                <p id="answer-notice" class="notice" role="alert">{ why.clone() }</p>
            }
            if let Some(why) = &p.shared_error {
                <p id="shared-error" class="notice">{ why.clone() }</p>
            }
            if let Some(link) = &panel.share_link {
                <p class="hint share-made">
                    { "Link with this solution (copied): " }
                    <a id="solution-link" href={link.clone()}>{ super::route::shorten(link, 90) }</a>
                </p>
            }
            <div class="hidden-tests">
                { worker_view }
                <button id="share-solution" type="button" class="link-button" onclick={share} disabled={!panel.has_answer()}
                    title="A link that carries this solution in its fragment (it never reaches a server)">{ "Share with solution" }</button>
            </div>
            <div id="verdicts" class="verdicts">
                { loading }
                { job_view }
                { static_view }
            </div>
        </section>
    }
}
