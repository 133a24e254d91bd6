//! Grading in the task page: paste a solution, see the static rubric at once (computed in the
//! browser by the checker web worker, [`super::checker`], started once the page is idle), and run the
//! hidden tests on the native worker over the WebSocket `/ws` of the server that served the page.
//! Without a worker the page says so and still shows the static verdict. The state is the pure
//! [`Panel`] reducer.

use super::app::Shown;
use super::checker;
use crate::playground::panel::{
    all_functions_pass, failing_functions, Asked, CheckerStatus, Job, Panel, PanelAction, StaticView, WorkerStatus,
};
use crate::playground::requirements::findings;
use cabrito_check::protocol::checker::Request;
use cabrito_check::protocol::{ClientMessage, ServerMessage};
use cabrito_check::RubricItem;
use futures_util::{SinkExt, StreamExt};
use gloo::net::websocket::{futures::WebSocket, Message, State};
use std::rc::Rc;
use web_sys::HtmlTextAreaElement;
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

/// Ask the worker who it is; reports `Connected` or `Absent`.
fn probe(report: Callback<PanelAction>) {
    let Some(url) = worker_url() else {
        report.emit(PanelAction::Worker(WorkerStatus::Absent("this page has no host to reach a worker on".into())));
        return;
    };
    spawn_local(async move {
        let ws = match open(&url).await {
            Ok(ws) => ws,
            Err(e) => {
                report.emit(PanelAction::Worker(WorkerStatus::Absent(e)));
                return;
            }
        };
        let (mut tx, mut rx) = ws.split();
        if tx.send(Message::Text(ClientMessage::hello().to_json())).await.is_err() {
            report.emit(PanelAction::Worker(WorkerStatus::Absent(format!("no worker answers at {url}"))));
            return;
        }
        match rx.next().await {
            Some(Ok(Message::Text(t))) => match ServerMessage::parse(&t) {
                Ok(ServerMessage::Hello(h)) => report.emit(PanelAction::Worker(WorkerStatus::Connected(h))),
                _ => report.emit(PanelAction::Worker(WorkerStatus::Absent(format!(
                    "{url} did not answer as a Cabrito worker"
                )))),
            },
            _ => report.emit(PanelAction::Worker(WorkerStatus::Absent(format!("no worker answers at {url}")))),
        }
        let _ = tx.close().await;
    });
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

#[derive(Properties, PartialEq)]
pub struct GradeProps {
    pub shown: Rc<Shown>,
    /// A solution shared in the link, as the link carries it.
    #[prop_or_default]
    pub solution: Option<String>,
}

/// Paste a solution; the static rubric, and the hidden tests on the worker.
#[function_component(GradePanel)]
pub fn grade_panel(p: &GradeProps) -> Html {
    let state = use_reducer_eq(|| PanelState(Panel::new(checker::status())));
    let panel = &state.0;
    let area = use_node_ref();
    let spec = &p.shown.spec;
    let task = &p.shown.generated.task;
    // The link's solution, read (or why it cannot be).
    let shared = use_memo(p.solution.clone(), |s| s.as_deref().map(super::share::decode_solution));
    {
        // Once the page is idle: the worker is not part of what a first paint shows.
        let dispatcher = state.dispatcher();
        use_effect_with((), move |_| {
            super::lazy::when_idle(Box::new(move || probe(Callback::from(move |a| dispatcher.dispatch(a)))))
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
            let token = checker::listen(Callback::from(move |e| {
                dispatcher.dispatch(match e {
                    checker::Event::Status(s) => PanelAction::Checker(s),
                    checker::Event::Reply(r, at) => PanelAction::CheckerReply(r, at),
                })
            }));
            checker::start_when_idle();
            move || checker::unlisten(token)
        });
    }
    {
        let (dispatcher, shown) = (state.dispatcher(), p.shown.clone());
        use_effect_with((panel.text.clone(), spec.clone()), move |(t, _)| {
            if t.trim().is_empty() {
                dispatcher.dispatch(PanelAction::Asked(None));
            } else {
                let id = checker::next_id();
                dispatcher.dispatch(PanelAction::Asked(Some(Asked { id, at: super::app::now() })));
                checker::check(&Request::for_task(id, &shown.generated.task, t));
            }
        });
    }

    let set_text = {
        let dispatcher = state.dispatcher();
        Callback::from(move |t: String| dispatcher.dispatch(PanelAction::SetText(t)))
    };
    let oninput = {
        let set_text = set_text.clone();
        Callback::from(move |e: InputEvent| {
            let el: HtmlTextAreaElement = e.target_unchecked_into();
            set_text.emit(el.value());
        })
    };
    // A dropped file replaces the answer (dropped text is inserted by the browser itself).
    let ondrop = {
        let set_text = set_text.clone();
        Callback::from(move |e: DragEvent| {
            let Some(file) = e.data_transfer().and_then(|d| d.files()).and_then(|f| f.get(0)) else { return };
            e.prevent_default();
            let set_text = set_text.clone();
            spawn_local(async move {
                let blob = gloo::file::Blob::from(file);
                match gloo::file::futures::read_as_text(&blob).await {
                    Ok(t) => set_text.emit(t),
                    Err(e) => set_text.emit(format!("# the dropped file could not be read: {e}\n")),
                }
            });
        })
    };
    let ondragover = Callback::from(|e: DragEvent| e.prevent_default());
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
        let set_text = set_text.clone();
        Callback::from(move |_: MouseEvent| set_text.emit(code.clone()))
    };
    let run = {
        let text = panel.text.clone();
        let spec = spec.clone();
        let dispatcher = state.dispatcher();
        Rc::new(move || {
            if text.trim().is_empty() {
                return;
            }
            let id = format!("job-{:016x}", super::random_u64());
            let message = ClientMessage::grade(id.clone(), &spec, text.clone(), None).to_json();
            dispatcher.dispatch(PanelAction::JobStarted(id.clone()));
            let d = dispatcher.clone();
            run_job(id, message, Callback::from(move |a| d.dispatch(a)));
        })
    };
    let connected = matches!(panel.worker, WorkerStatus::Connected(_));
    let onclick_run = {
        let run = run.clone();
        Callback::from(move |_: MouseEvent| run())
    };
    let onkeydown = {
        let run = run.clone();
        Callback::from(move |e: KeyboardEvent| {
            if (e.ctrl_key() || e.meta_key()) && e.key() == "Enter" {
                e.prevent_default();
                if connected {
                    run();
                }
            }
        })
    };
    let goto_line = {
        let area = area.clone();
        Callback::from(move |line: usize| {
            if let Some(el) = area.cast::<HtmlTextAreaElement>() {
                let value = el.value();
                let start: usize =
                    value.split_inclusive('\n').take(line.saturating_sub(1)).map(|l| l.encode_utf16().count()).sum();
                let len = value
                    .split_inclusive('\n')
                    .nth(line.saturating_sub(1))
                    .map_or(0, |l| l.trim_end_matches('\n').encode_utf16().count());
                let _ = el.focus();
                let _ = el.set_selection_range(start as u32, (start + len) as u32);
                // Lines are 20 px high (style.css; more in large type): put the target line in the
                // middle of the box, however few lines it shows.
                let line_px = web_sys::window()
                    .and_then(|w| w.get_computed_style(&el).ok().flatten())
                    .and_then(|c| c.get_property_value("line-height").ok())
                    .and_then(|v| v.trim_end_matches("px").parse::<f64>().ok())
                    .map_or(20, |v| v.round() as i32);
                let top = (line as i32 - 1).max(0) * line_px;
                el.set_scroll_top((top - (el.client_height() - line_px).max(0) / 2).max(0));
            }
        })
    };

    let static_view = match panel.static_view() {
        StaticView::Empty => {
            html! { <p class="hint">{ "Paste a solution above: a # === solution.py === file block, a bare file or a unified diff. The static checks run at once, here in the browser." }</p> }
        }
        StaticView::Pending(status) => match status {
            CheckerStatus::Failed(why) => html! {
                <p id="static-pending" class="notice" data-checker="failed">
                    <strong>{ "The static checker could not run here: " }</strong>{ why.clone() }
                    { " The hidden tests below still grade the solution." }
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
            html! {
                <div id="static-verdict" class={classes!("verdict", if passed { "pass" } else { "fail" })} data-passed={passed.to_string()}
                    data-check-ms={ms.map(|m| format!("{m:.2}"))} data-wait-ms={waited.map(|w| format!("{w:.1}"))}>
                    <p>
                        <strong>{ if passed { "Static checks: every must-have passes" } else { "Static checks: some must-haves fail" } }</strong>
                        { format!(" ({how}; checked{took})") }
                    </p>
                    <ul class="rubric">
                        { for items.iter().map(|i: &RubricItem| {
                            let line = i.line.map(|l| {
                                let goto_line = goto_line.clone();
                                html! { <button type="button" class="line-link" data-line={l.to_string()} onclick={Callback::from(move |_: MouseEvent| goto_line.emit(l))}>{ format!("line {l}") }</button> }
                            });
                            // Instruction following: each unmet requirement on its own line, linked to it.
                            let reason = if i.id == "constraint_structure" && !i.passed {
                                html! {
                                    <span class="reason">
                                        <ul class="findings">
                                            { for findings(&i.reason).into_iter().map(|(text, l)| {
                                                let link = l.map(|l| {
                                                    let goto_line = goto_line.clone();
                                                    html! { <button type="button" class="line-link" data-line={l.to_string()} onclick={Callback::from(move |_: MouseEvent| goto_line.emit(l))}>{ format!("line {l}") }</button> }
                                                });
                                                html! { <li class="finding" data-line={l.map(|l| l.to_string())}>{ text }{ for link }</li> }
                                            }) }
                                        </ul>
                                    </span>
                                }
                            } else {
                                html! { <span class="reason">{ i.reason.clone() }{ for line }</span> }
                            };
                            html! {
                                <li class={classes!("item", if i.passed { "pass" } else { "fail" })} data-id={i.id.to_string()} data-passed={i.passed.to_string()} data-must={i.must_have.to_string()}>
                                    <span class="mark" aria-label={if i.passed { "passed" } else { "failed" }}>{ if i.passed { "✓" } else { "✗" } }</span>
                                    <span class="badge">{ if i.must_have { "must" } else { "nice" } }</span>
                                    <span class="title">{ i.title.clone() }</span>
                                    { reason }
                                </li>
                            }
                        }) }
                    </ul>
                </div>
            }
        }
    };

    let worker_view = match &panel.worker {
        WorkerStatus::Probing => html! { <p id="worker-status" class="hint">{ "Looking for a grading worker…" }</p> },
        WorkerStatus::Absent(why) => html! {
            <p id="worker-status" class="notice" data-worker="absent">
                <strong>{ "No grading worker is connected, " }</strong>
                { format!("so the hidden tests cannot run here ({why}). The static verdict above still holds. To run them, start the playground with its worker: bash scripts/serve.sh") }
            </p>
        },
        WorkerStatus::Connected(h) => html! {
            <p id="worker-status" class="hint" data-worker="connected">
                { format!("Worker: {} · {}", h.server, h.isolation) }
            </p>
        },
    };
    let job_view = match &panel.job {
        Job::None => html! {},
        Job::Sent { .. } => html! { <p id="job-status" class="hint">{ "Sent to the worker…" }</p> },
        Job::Running { done, total, stage, .. } => html! {
            <p id="job-status" class="hint">
                { format!("Running the hidden tests: {} {done}/{total}", stage.as_str()) }
                <progress max={total.max(&1).to_string()} value={done.to_string()}></progress>
            </p>
        },
        Job::Failed { failure, message } => html! {
            <div id="hidden-verdict" class="verdict fail" data-passed="error"><p><strong>{ format!("The worker could not grade it ({}): ", failure.as_str()) }</strong>{ message.clone() }</p></div>
        },
        Job::Done(r) => {
            let hidden = r.hidden_passed;
            html! {
                <div id="hidden-verdict" class={classes!("verdict", if r.passed { "pass" } else { "fail" })} data-passed={r.passed.to_string()}
                    data-hidden={hidden.map_or("none".to_string(), |h| h.to_string())}>
                    <p>
                        <strong>{ if r.passed { "Graded: the solution passes (score 1)" } else { "Graded: the solution fails (score 0)" } }</strong>
                        { format!(" · {} · {} trials per function · {:.2} s", r.message, r.trials, r.seconds) }
                    </p>
                    <ul class="functions">
                        { for failing_functions(r).take(20).map(|f| html! {
                            <li class="fail" data-fn={f.name.clone()}>
                                { format!("{}: {} ({} passed, {} failed, {} errors)", f.name, f.status, f.passed, f.failed, f.errored) }
                                { for f.first_failure.as_ref().map(|ff| html! {
                                    <span class="reason">{ format!(" first failure, trial {}: {}", ff.trial, ff.message) }</span>
                                }) }
                            </li>
                        }) }
                    </ul>
                    if all_functions_pass(r) {
                        <p class="hint">{ format!("All {} functions give the reference's outputs.", r.functions.len()) }</p>
                    }
                </div>
            }
        }
    };

    html! {
        <section id="grade" class="panel grade" aria-label="Grade a solution">
            <div class="panel-head">
                <h2>{ "Grade a solution" }</h2>
                <div class="actions">
                    <button id="share-solution" type="button" class="button small ghost" onclick={share} disabled={!panel.has_answer()}
                        title="A link that carries this solution in its fragment (it never reaches a server)">{ "Share with solution" }</button>
                    <button id="use-starter" type="button" class="button small ghost" onclick={fill(task.starter_code.clone())}>{ "Paste the starter" }</button>
                    <button id="use-reference" type="button" class="button small ghost" onclick={fill(task.solution_code.clone())}>{ "Paste the reference" }</button>
                </div>
            </div>
            <textarea id="solution" ref={area} class="solution" spellcheck="false" rows="14"
                placeholder="Paste or drop the solution here (Ctrl/Cmd+Enter runs the hidden tests)"
                value={panel.text.clone()} {oninput} {onkeydown} {ondrop} {ondragover} />
            if let Some(Err(why)) = &*shared {
                <p id="shared-error" class="notice">{ why.clone() }</p>
            }
            if let Some(link) = &panel.share_link {
                <p class="hint">
                    { "Link with this solution (copied): " }
                    <a id="solution-link" href={link.clone()}>{ super::route::shorten(link, 90) }</a>
                </p>
            }
            { static_view }
            <div class="hidden-tests">
                <button id="run-hidden" type="button" class="button" disabled={!panel.can_run()} onclick={onclick_run}>
                    { "Run hidden tests" }
                </button>
                { worker_view }
                { job_view }
            </div>
        </section>
    }
}
