//! Pieces both tabs use: the settings bar (from [`SETTINGS`]), the code with each line's mark, the
//! call graph with the touched functions lit, the ledger, and the grade (static here, hidden tests
//! on the worker; after submit), and the console's `run` on the worker.

use super::Shared;
use crate::playground::agents_page::Page;
use cabrito_agents::aci::{Aci, Ready};
use cabrito_agents::ledger::{Ledger, Prices};
use cabrito_agents::replay::Mark;
use cabrito_agents::settings::{Input, SETTINGS};
use cabrito_check::protocol::run::{Ran, RunJob};
use cabrito_check::protocol::{ClientMessage, ServerMessage};
use cabrito_check::rubric::{static_checks, TaskRef};
use cabrito_gen::task::Generated;
use futures_util::{SinkExt, StreamExt};
use gloo::net::websocket::{futures::WebSocket, Message, State};
use std::collections::BTreeSet;
use std::rc::Rc;
use web_sys::HtmlInputElement;
use yew::platform::spawn_local;
use yew::prelude::*;

// ---- settings -----------------------------------------------------------------------------------

#[derive(Properties, PartialEq)]
pub struct SettingsProps {
    pub page: Page,
    pub on_page: Callback<Page>,
}

/// One control per setting of the interface, then the price table and prompt caching.
#[function_component(SettingsBar)]
pub fn settings_bar(p: &SettingsProps) -> Html {
    let error = use_state(|| None::<String>);
    let controls = SETTINGS.iter().map(|s| {
        let id = format!("setting-{}", s.key);
        let value = (s.get)(&p.page.settings);
        let (page, on_page, error) = (p.page.clone(), p.on_page.clone(), error.clone());
        let apply = move |v: String| {
            let mut next = page.clone();
            match (s.set)(&mut next.settings, &v) {
                Ok(()) => {
                    error.set(None);
                    on_page.emit(next);
                }
                Err(e) => error.set(Some(e)),
            }
        };
        let input = match s.input {
            Input::Number { min, max } => {
                let onchange = Callback::from(move |e: Event| apply(e.target_unchecked_into::<HtmlInputElement>().value()));
                html! { <input id={id.clone()} type="number" min={min.to_string()} max={max.to_string()} step="1" value={value} title={s.help} {onchange} /> }
            }
            Input::Switch => {
                let onchange = Callback::from(move |e: Event| {
                    apply(if e.target_unchecked_into::<HtmlInputElement>().checked() { "on".into() } else { "off".into() })
                });
                html! { <input id={id.clone()} type="checkbox" checked={value == "on"} title={s.help} {onchange} /> }
            }
            Input::Paths => {
                let onchange = Callback::from(move |e: Event| apply(e.target_unchecked_into::<HtmlInputElement>().value()));
                html! { <input id={id.clone()} type="text" value={value} title={s.help} {onchange} /> }
            }
        };
        html! {
            <label class="knob" for={id.clone()}>
                <span class="knob-label">{ s.label }</span>
                { input }
                <span class="knob-help">{ s.help }</span>
            </label>
        }
    });
    let price = |which: usize, label: &'static str, id: &'static str| {
        let (page, on_page, error) = (p.page.clone(), p.on_page.clone(), error.clone());
        let pr = p.page.prices;
        let value = [pr.input, pr.cached_input, pr.output][which];
        let onchange = Callback::from(move |e: Event| {
            let v = e.target_unchecked_into::<HtmlInputElement>().value();
            let mut parts = [page.prices.input, page.prices.cached_input, page.prices.output].map(|x| x.to_string());
            parts[which] = v;
            match Prices::parse(&parts.join(",")) {
                Ok(prices) => {
                    error.set(None);
                    on_page.emit(Page { prices, ..page.clone() });
                }
                Err(e) => error.set(Some(e)),
            }
        });
        html! {
            <label class="knob" for={id}>
                <span class="knob-label">{ label }</span>
                <input {id} type="number" min="0" step="0.01" value={value.to_string()} {onchange} />
                <span class="knob-help">{ "$ per million tokens" }</span>
            </label>
        }
    };
    let caching = {
        let (page, on_page) = (p.page.clone(), p.on_page.clone());
        Callback::from(move |e: Event| {
            let on = e.target_unchecked_into::<HtmlInputElement>().checked();
            on_page.emit(Page { caching: on, ..page.clone() });
        })
    };
    // One line saying what is set; the controls one click away.
    let set_now = SETTINGS
        .iter()
        .map(|s| format!("{} {}", s.label.to_lowercase(), (s.get)(&p.page.settings)))
        .chain([
            format!("${}/{}/{} per M tokens", p.page.prices.input, p.page.prices.cached_input, p.page.prices.output),
            format!("prompt cache {}", if p.page.caching { "on" } else { "off" }),
        ])
        .collect::<Vec<_>>()
        .join(" · ");
    html! {
        <details class="controls agent-settings" aria-label="Interface settings and prices" open={error.is_some()}>
            <summary><span class="knob-label">{ "Interface and prices: " }</span><span id="settings-now" class="hint">{ set_now }</span></summary>
            <div class="knobs">
                { for controls }
                { price(0, "Input", "price-input") }
                { price(1, "Cached input", "price-cached") }
                { price(2, "Output", "price-output") }
                <label class="knob" for="setting-cache">
                    <span class="knob-label">{ "Prompt cache" }</span>
                    <input id="setting-cache" type="checkbox" checked={p.page.caching} onchange={caching} />
                    <span class="knob-help">{ "the previous turn's input is read from a cache" }</span>
                </label>
            </div>
            if let Some(e) = &*error {
                <p id="settings-error" class="control-error" role="alert">{ e.clone() }</p>
            }
        </details>
    }
}

// ---- code ---------------------------------------------------------------------------------------

#[derive(Properties, PartialEq)]
pub struct CodeProps {
    pub id: AttrValue,
    pub code: AttrValue,
    pub marks: Rc<Vec<Mark>>,
}

/// `solution.py` with line numbers, highlighting and each line's mark; the first marked line is
/// scrolled into view.
#[function_component(CodePane)]
pub fn code_pane(p: &CodeProps) -> Html {
    let pre = use_node_ref();
    {
        let pre = pre.clone();
        use_effect_with((p.code.clone(), p.marks.clone()), move |_| {
            if let Some(el) = pre.cast::<web_sys::Element>() {
                if let Ok(Some(first)) = el.query_selector(".line.viewed, .line.matched, .line.edited") {
                    use wasm_bindgen::JsCast;
                    if let Some(h) = first.dyn_ref::<web_sys::HtmlElement>() {
                        el.set_scroll_top((h.offset_top() - 40).max(0));
                    }
                }
            }
        });
    }
    html! {
        <pre id={p.id.clone()} class="code agent-code" ref={pre}><code>
            { for p.code.split_inclusive('\n').enumerate().map(|(i, line)| {
                let m = p.marks.get(i).copied().unwrap_or(Mark::None);
                let body = line.strip_suffix('\n').unwrap_or(line);
                html! {
                    <span class={classes!("line", (m != Mark::None).then_some(m.class()))} data-line={(i + 1).to_string()}>
                        { for super::super::code::tokens(body).into_iter().map(|(class, text)| if class.is_empty() { html! { { text } } } else { html! { <span class={class}>{ text }</span> } }) }
                        { if line.ends_with('\n') { "\n" } else { "" } }
                    </span>
                }
            }) }
        </code></pre>
    }
}

// ---- call graph -----------------------------------------------------------------------------------

#[derive(Properties, PartialEq)]
pub struct GraphProps {
    pub generated: Shared<Generated>,
    pub lit: Rc<BTreeSet<String>>,
}

/// The task's call graph, the functions a call touched lit.
#[function_component(GraphPane)]
pub fn graph_pane(p: &GraphProps) -> Html {
    let placed = use_memo(p.generated.clone(), |g| g.0.call_graph().map(|(cg, _)| super::super::graph::place(cg)));
    let (Some((cg, _)), Some(placed)) = (p.generated.0.call_graph(), &*placed) else {
        return html! { <p class="hint">{ "This kind has no call graph to draw." }</p> };
    };
    let lit = |v: usize| p.lit.contains(cg.name(v));
    let (w, h) = (placed.width, placed.height);
    let edges = cg.edges().into_iter().map(|(a, b)| {
        let (x1, y1) = placed.centre[a];
        let (x2, y2) = placed.centre[b];
        html! { <line class={classes!("edge", (lit(a) && lit(b)).then_some("edge-lit"))} x1={format!("{x1:.1}")} y1={format!("{:.1}", y1 + 13.0)} x2={format!("{x2:.1}")} y2={format!("{:.1}", y2 - 13.0)} /> }
    });
    let vertices = (0..cg.len()).map(|v| {
        let (x, y) = placed.centre[v];
        let name = cg.name(v).to_string();
        html! {
            <g class={classes!("vertex", lit(v).then_some("touched"))} data-name={name.clone()} transform={format!("translate({:.1},{:.1})", x - 29.0, y - 13.0)}>
                <rect width="58" height="26" rx="6" />
                <text x="29" y="17" text-anchor="middle">{ name }</text>
            </g>
        }
    });
    html! {
        <div class="graph-scroll">
            <svg id="agent-graph" class="call-graph trace-graph" viewBox={format!("0 0 {w:.0} {h:.0}")} width={format!("{w:.0}")} height={format!("{h:.0}")} style="max-width: 100%; height: auto;" role="img" aria-label="the task's call graph">
                <g class="edges">{ for edges }</g>
                <g class="vertices">{ for vertices }</g>
            </svg>
        </div>
    }
}

// ---- ledger -------------------------------------------------------------------------------------

#[derive(Properties, PartialEq)]
pub struct LedgerProps {
    pub id: AttrValue,
    pub ledger: Rc<Ledger>,
    /// What each turn did.
    pub labels: Rc<Vec<String>>,
}

fn k(x: f64) -> String {
    if x >= 10_000.0 {
        format!("{:.1}k", x / 1000.0)
    } else {
        format!("{x:.0}")
    }
}

/// The ledger: the last turns, the totals, and the closed form beside the measured input.
#[function_component(LedgerTable)]
pub fn ledger_table(p: &LedgerProps) -> Html {
    let l = &p.ledger;
    const SHOWN: usize = 6;
    let skip = l.rows.len().saturating_sub(SHOWN);
    let closed = match l.closed_form {
        Some(cf) => format!(
            "closed form P·T + g·T(T−1)/2 = {} (P = {}, g = {:.0}, T = {}) beside the measured Σ input = {}",
            k(cf.value),
            k(cf.p),
            cf.g,
            cf.turns,
            k(l.total.input)
        ),
        None => "no turn yet".into(),
    };
    html! {
        <div id={p.id.clone()} class="ledger">
            <div class="ledger-scroll">
            <table class="ledger-table">
                <thead><tr>
                    <th title="the turn">{ "turn" }</th><th title="the call the agent made">{ "call" }</th>
                    <th title="input tokens of the turn">{ "input" }</th><th title="of which read from the prompt cache">{ "cached" }</th>
                    <th title="output tokens">{ "output" }</th><th title="the turn's cost in dollars">{ "$" }</th>
                    <th title="input tokens so far">{ "Σ input" }</th><th title="dollars so far">{ "Σ $" }</th>
                </tr></thead>
                <tbody>
                    if skip > 0 {
                        <tr class="muted"><td colspan="8">{ format!("… {} earlier", crate::playground::words::count(skip, "turn", "turns")) }</td></tr>
                    }
                    { for l.rows.iter().skip(skip).map(|r| html! {
                        <tr>
                            <td>{ r.turn + 1 }</td>
                            <td class="mono">{ p.labels.get(r.turn).cloned().unwrap_or_default() }</td>
                            <td>{ k(r.tokens.input) }</td>
                            <td>{ k(r.tokens.cached) }</td>
                            <td>{ k(r.tokens.output) }</td>
                            <td>{ format!("{:.4}", r.cost) }</td>
                            <td>{ k(r.input_so_far) }</td>
                            <td>{ format!("{:.4}", r.cost_so_far) }</td>
                        </tr>
                    }) }
                </tbody>
            </table>
            </div>
            <p class="ledger-total" data-turns={l.rows.len().to_string()} data-input={format!("{:.0}", l.total.input)} data-output={format!("{:.0}", l.total.output)} data-cost={format!("{:.6}", l.cost)}>
                { format!(
                    "{} · {} input tokens ({} cached) · {} output tokens · ${:.4} (${:.4} without the cache)",
                    crate::playground::words::count(l.rows.len(), "turn", "turns"), k(l.total.input), k(l.total.cached), k(l.total.output), l.cost, l.cost_without_cache
                ) }
            </p>
            <p class="hint closed-form">{ closed }</p>
        </div>
    }
}

// ---- grade --------------------------------------------------------------------------------------

#[derive(Properties, PartialEq)]
pub struct GradeProps {
    pub generated: Shared<Generated>,
    /// The final `solution.py`.
    pub solution: AttrValue,
    /// Whether the session ended (submitted).
    pub submitted: bool,
    /// A learner asked for hints: the rubric's reasons before submitting, labelled as hints.
    #[prop_or_default]
    pub hints: bool,
}

#[derive(Clone, PartialEq)]
enum Hidden {
    Idle,
    Running(String),
    Done(bool, String),
    Failed(String),
}

async fn hidden_tests(spec: cabrito_gen::TaskSpec, response: String) -> Result<(bool, String), String> {
    let url = super::super::grade::worker_url().ok_or("this page has no host to reach a worker on")?;
    let mut ws = WebSocket::open(&url).map_err(|e| e.to_string())?;
    let ready = std::future::poll_fn(|cx| ws.poll_ready_unpin(cx)).await;
    if !(ready.is_ok() && matches!(ws.state(), State::Open)) {
        return Err(format!("no worker answers at {url}"));
    }
    let (mut tx, mut rx) = ws.split();
    let id = format!("agent-{:016x}", super::super::random_u64());
    // The worker grades nothing before the connection's hello.
    tx.send(Message::Text(ClientMessage::hello().to_json()))
        .await
        .map_err(|_| format!("no worker answers at {url}"))?;
    tx.send(Message::Text(ClientMessage::grade(id.clone(), &spec, response, None).to_json()))
        .await
        .map_err(|_| format!("no worker answers at {url}"))?;
    while let Some(item) = rx.next().await {
        let Ok(Message::Text(t)) = item else { break };
        match ServerMessage::parse(&t)? {
            ServerMessage::Result(r) if r.id == id => {
                let _ = tx.close().await;
                return Ok((r.hidden_passed.unwrap_or(false), r.message));
            }
            ServerMessage::Error(e) if e.id.as_deref() == Some(id.as_str()) => return Err(e.message),
            _ => {}
        }
    }
    Err("the worker closed the connection before the result".into())
}

/// The console's `run`: the job on the grading worker (the same sandbox as grading), its answer or
/// why there is none (no worker connected, the worker refused).
pub async fn worker_run(job: RunJob) -> Result<Ran, String> {
    let no_worker = |url: &str| {
        format!("no grading worker is connected (none answers at {url}); start one with `cabrito serve`, which runs the console's code in its sandbox")
    };
    let url = super::super::grade::worker_url().ok_or("this page has no host to reach a grading worker on")?;
    let mut ws = WebSocket::open(&url).map_err(|_| no_worker(&url))?;
    let ready = std::future::poll_fn(|cx| ws.poll_ready_unpin(cx)).await;
    if !(ready.is_ok() && matches!(ws.state(), State::Open)) {
        return Err(no_worker(&url));
    }
    let (mut tx, mut rx) = ws.split();
    let id = format!("run-{:016x}", super::super::random_u64());
    tx.send(Message::Text(ClientMessage::hello().to_json())).await.map_err(|_| no_worker(&url))?;
    tx.send(Message::Text(ClientMessage::run(id.clone(), job).to_json())).await.map_err(|_| no_worker(&url))?;
    while let Some(item) = rx.next().await {
        let Ok(Message::Text(t)) = item else { break };
        match ServerMessage::parse(&t)? {
            ServerMessage::Ran(r) if r.id == id => {
                let _ = tx.close().await;
                return Ok(r.ran);
            }
            ServerMessage::Error(e) if e.id.as_deref() == Some(id.as_str()) => {
                return Err(format!("the worker refused the run ({}): {}", e.code, e.message))
            }
            _ => {}
        }
    }
    Err("the worker closed the connection before the run ended".into())
}

/// The runner of the page's own sessions: the page runs no code itself; the console's `run` goes
/// to the grading worker ([`console_call`]), and a strategy watched here is told it cannot run.
pub fn page_runner() -> std::sync::Arc<dyn cabrito_agents::aci::Runner> {
    std::sync::Arc::new(cabrito_agents::aci::Unavailable(
        "the agents page runs no code itself; its console's run goes to the grading worker, and `cabrito agent` runs the strategies with the sandbox".into(),
    ))
}

/// One console call as the page makes it: a well-formed `run` goes to the grading worker first and
/// its answer (or why there is none) makes the call; every other tool answers at once.
pub async fn console_call(session: &std::cell::RefCell<Aci>, tool: &str, arguments: &serde_json::Value) -> String {
    if tool == "run" {
        let job = session.borrow().run_job(arguments);
        if let Ok(job) = job {
            let answer = worker_run(job).await;
            return session.borrow_mut().call_with("run", arguments, &Ready(answer));
        }
    }
    session.borrow_mut().call(tool, arguments)
}

/// The grade of the final `solution.py`: the static rubric (computed here) and the hidden tests
/// (on the worker, on request), shown once the session is submitted; before, only as a learner's
/// labelled hints (the rubric's reasons, never the hidden tests).
#[function_component(GradeBox)]
pub fn grade_box(p: &GradeProps) -> Html {
    let task = &p.generated.0.task;
    let rubric =
        use_memo((p.generated.clone(), p.solution.clone()), |(g, s)| static_checks(&TaskRef::of(&g.0.task), s));
    let hidden = use_state(|| Hidden::Idle);
    {
        let hidden = hidden.clone();
        use_effect_with(p.solution.clone(), move |_| hidden.set(Hidden::Idle));
    }
    let run = {
        let (hidden, spec, solution) = (hidden.clone(), task.spec.clone(), p.solution.clone());
        Callback::from(move |_: MouseEvent| {
            let (hidden, spec) = (hidden.clone(), spec.clone());
            let response = format!("# === solution.py ===\n{solution}");
            hidden.set(Hidden::Running("running the hidden tests on the worker…".into()));
            spawn_local(async move {
                hidden.set(match hidden_tests(spec, response).await {
                    Ok((passed, message)) => Hidden::Done(passed, message),
                    Err(e) => Hidden::Failed(e),
                });
            });
        })
    };
    let failing: Vec<_> = rubric.failed_must_haves().collect();
    if !p.submitted && !p.hints {
        // No oracle in the loop (D12): the grade comes after the episode.
        return html! {
            <section id="final-grade" class="panel grade-box" aria-label="Grade">
                <h2>{ "The grade" }</h2>
                <p id="grade-after-submit" class="hint">{ "The rubric and the hidden tests grade solution.py once you submit. While you work, lint and run are what a workspace tells you." }</p>
            </section>
        };
    }
    let title = if p.submitted {
        "The grade of the submitted solution.py"
    } else {
        "Hints: the rubric's reasons for solution.py as it is (not a fair run; nothing is recorded)"
    };
    html! {
        <section id="final-grade" class={classes!("panel", "grade-box", (!p.submitted).then_some("hints"))} aria-label="Grade">
            <h2>{ title }</h2>
            <p id="static-verdict" data-passed={rubric.passed().to_string()} class={classes!("verdict", if rubric.passed() { "pass" } else { "fail" })}>
                { if rubric.passed() { "Static rubric: every must-have passes.".to_string() } else { format!("Static rubric: {} {}.", crate::playground::words::count(failing.len(), "must-have item", "must-have items"), if failing.len() == 1 { "fails" } else { "fail" }) } }
            </p>
            <ul class="rubric-items">
                { for failing.iter().map(|i| html! { <li class="fail"><code>{ i.id.to_string() }</code>{ ": " }{ super::super::text_with_code(&i.reason) }</li> }) }
            </ul>
            if p.submitted {
                <button id="run-hidden" type="button" class="button" onclick={run} disabled={matches!(*hidden, Hidden::Running(_))}>{ "Run the hidden tests (worker)" }</button>
            }
            { match &*hidden {
                Hidden::Idle => html! {},
                Hidden::Running(m) => html! { <p id="hidden-verdict" class="hint">{ m.clone() }</p> },
                Hidden::Done(ok, m) => html! { <p id="hidden-verdict" data-passed={ok.to_string()} class={classes!("verdict", if *ok { "pass" } else { "fail" })}>{ format!("Hidden tests: {}. {m}", if *ok { "pass" } else { "fail" }) }</p> },
                Hidden::Failed(e) => html! { <p id="hidden-verdict" class="error" data-passed="">{ format!("No hidden-test verdict: {e}. The static verdict above still holds.") }</p> },
            } }
        </section>
    }
}
