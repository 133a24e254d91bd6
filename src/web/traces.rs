//! The Traces view (`#/traces`): drop agent traces and see each session as a timeline of labelled
//! tool calls (labels correctable and exported), its usage, the task beside it with the functions each
//! call touched, and figure 3 and table 2 over many sessions, all from `cabrito_analysis::traces`. Its
//! state is [`TracesState`]'s reducer.

use super::app::{now, show, Shown};
use super::files::{self, Read};
use crate::playground::sample::{self, Bundle};
use crate::playground::traces_view::{Corrections, TracesAction, TracesData, TracesState, PAGE};
use crate::playground::words::count;
use cabrito_analysis::results::input::{clip, Problem};
use cabrito_analysis::results::plot;
use cabrito_analysis::traces::figures as tf;
use cabrito_analysis::traces::join::{sessions_of_responses, TaskIndex};
use cabrito_analysis::traces::touch::{spans, touched};
use cabrito_analysis::traces::{read_trace, Label, Session, ToolCall};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;
use web_sys::HtmlInputElement;
use yew::platform::spawn_local;
use yew::prelude::*;

thread_local! {
    static DATA: RefCell<Rc<TracesData>> = RefCell::new(Rc::new(TracesData::default()));
    /// The hand corrections, kept while the page lives like the data.
    static FIXES: RefCell<Rc<Corrections>> = RefCell::new(Rc::default());
    static FINDER: RefCell<cabrito_analysis::results::specs::SpecFinder> =
        RefCell::new(cabrito_analysis::results::specs::SpecFinder::new(cabrito_analysis::results::specs::DEFAULT_MAX_SEED));
    /// The built-in sample, once fetched.
    static SAMPLE: RefCell<Option<Bundle>> = const { RefCell::new(None) };
}

fn current() -> Rc<TracesData> {
    DATA.with(|d| d.borrow().clone())
}

fn is_responses(path: &str) -> bool {
    path.starts_with("responses/") || path.contains("/responses/")
}

fn is_tasks(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    path.starts_with("tasks/")
        || path.contains("/tasks/")
        || name.starts_with("tasks.jsonl")
        || name.starts_with("tasks-")
}

/// The action that shows what [`load`] made: the sample, or the reader's files in its place,
/// replace the sessions; more files add to them.
fn loaded(replaced: bool, data: Rc<TracesData>) -> TracesAction {
    if replaced {
        TracesAction::Replaced(data)
    } else {
        TracesAction::Loaded(data)
    }
}

/// Fetch the sample (once per page) and read it.
async fn fetch_sample() -> Result<Bundle, String> {
    if let Some(b) = SAMPLE.with(|s| s.borrow().clone()) {
        return Ok(b);
    }
    let bytes = files::fetch_bytes(sample::TRACES_URL, sample::MAX_BUNDLE_BYTES).await?;
    let b = sample::parse(&bytes)?;
    SAMPLE.with(|s| *s.borrow_mut() = Some(b.clone()));
    Ok(b)
}

/// Show the built-in sample in place of whatever is loaded.
fn load_sample(bundle: &Bundle) -> Rc<TracesData> {
    DATA.with(|d| {
        let generation = d.borrow().generation;
        *d.borrow_mut() = Rc::new(TracesData { generation, ..TracesData::default() });
    });
    let read = bundle.files.iter().map(|(path, bytes)| Ok(Read { path: path.clone(), bytes: bytes.clone() })).collect();
    let (rc, _) = load(read);
    let mut l = Rc::try_unwrap(rc).unwrap_or_else(|rc| TracesData {
        sessions: rc.sessions.clone(),
        problems: rc.problems.clone(),
        generation: rc.generation,
        label_ms: rc.label_ms,
        sample: None,
    });
    l.sample = Some(bundle.about.clone());
    let rc = Rc::new(l);
    DATA.with(|d| *d.borrow_mut() = rc.clone());
    files::mark("cabrito-traces-sample");
    rc
}

/// Add files: traces are read and labelled; responses and task files join sessions to tasks. The
/// reader's files replace the sample (the flag says so).
fn load(read: Vec<Result<Read, String>>) -> (Rc<TracesData>, bool) {
    let old = DATA.with(|d| d.replace(Rc::new(TracesData::default())));
    let replaced = old.sample.is_some();
    let mut l = if replaced {
        TracesData { generation: old.generation, ..TracesData::default() }
    } else {
        Rc::try_unwrap(old).unwrap_or_else(|rc| TracesData {
            sessions: rc.sessions.clone(),
            problems: rc.problems.clone(),
            generation: rc.generation,
            label_ms: rc.label_ms,
            sample: None,
        })
    };
    let mut joins = Vec::new();
    let mut tasks = TaskIndex::default();
    let t0 = now();
    for r in read {
        let f = match r {
            Ok(f) => f,
            Err(e) => {
                l.problems.push(Problem::file("(drop)", e));
                continue;
            }
        };
        if is_responses(&f.path) || is_tasks(&f.path) {
            match cabrito_analysis::results::input::text_of(&f.path, &f.bytes) {
                Ok((text, _)) if is_responses(&f.path) => {
                    joins.extend(sessions_of_responses(&f.path, &text, &mut l.problems))
                }
                Ok((text, _)) => tasks.add_file(&f.path, &text, &mut l.problems),
                Err(p) => l.problems.push(p),
            }
            continue;
        }
        match read_trace(&f.path, &f.bytes) {
            Ok(s) if s.calls.is_empty() && s.turns.is_empty() => {
                l.problems.push(Problem::file(&f.path, "holds no tool call; not a trace?"))
            }
            Ok(s) => {
                l.problems.extend(s.problems.iter().cloned());
                l.sessions.push(s);
            }
            Err(p) => l.problems.push(p),
        }
    }
    let ms = match (t0, now()) {
        (Some(a), Some(b)) => Some(b - a),
        _ => None,
    };
    for s in l.sessions.iter_mut() {
        if let Some(j) = joins.iter().find(|j| j.session_id == s.id) {
            if s.task.run.is_empty() {
                s.task = j.task.clone();
            }
            if !j.model.is_empty() {
                s.model = j.model.clone();
            }
        }
        if !s.task.dag_id.is_empty() && !tasks.is_empty() {
            if let Some(note) = tasks.complete(&mut s.task) {
                l.problems.push(Problem::file(&s.path, note));
            }
        }
        // A Cabrito task is found from its dag_id, so the task can sit beside the timeline.
        if s.task.link.is_none() && !s.task.dag_id.is_empty() {
            let t = &s.task;
            s.task.link = FINDER
                .with(|f| f.borrow_mut().find(&t.run, &t.task_set, &t.task_type, &t.dag_id, "", None))
                .map(|spec| spec.to_query());
        }
    }
    l.label_ms = ms;
    l.generation += 1;
    let rc = Rc::new(l);
    DATA.with(|d| *d.borrow_mut() = rc.clone());
    files::mark("cabrito-traces-labelled");
    (rc, replaced)
}

fn label_of(fixes: &Corrections, si: usize, c: &ToolCall) -> Label {
    fixes.get(&(si, c.index)).copied().unwrap_or_else(|| c.effective_label())
}

/// The sessions with the hand corrections applied (for the figures and the export).
fn corrected(data: &TracesData, fixes: &Corrections) -> Vec<Session> {
    let mut v = data.sessions.clone();
    for ((si, ci), l) in fixes {
        if let Some(c) = v.get_mut(*si).and_then(|s| s.calls.get_mut(*ci)) {
            c.given_label = Some(*l);
        }
    }
    v
}

/// The corrected calls as the reference's label records (§8.5), `reason` saying so.
pub fn corrections_jsonl(data: &TracesData, fixes: &Corrections) -> String {
    let fixed = corrected(data, fixes);
    let mut out = String::new();
    for (si, ci) in fixes.keys() {
        let Some(s) = fixed.get(*si) else { continue };
        let recs = tf::label_records(s);
        if let Some(mut r) = recs.into_iter().nth(*ci) {
            let rule_label = s.calls.get(*ci).map(|c| c.label.as_str()).unwrap_or("");
            r["reason"] = serde_json::Value::String(format!("corrected by hand (the rules said {rule_label})"));
            r["rule_label"] = serde_json::Value::String(rule_label.to_string());
            out.push_str(&r.to_string());
            out.push('\n');
        }
    }
    out
}

fn label_colour(l: Label) -> &'static str {
    plot::colour(Label::ALL.iter().position(|x| *x == l).unwrap_or(0))
}

/// One line saying what a call's arguments are.
fn summary(c: &ToolCall) -> String {
    let a = cabrito_analysis::traces::classify::arguments(&c.arguments);
    let pick = [
        "command",
        "cmd",
        "pattern",
        "path",
        "file_path",
        "filePath",
        "query",
        "summary",
        "intent",
        "todos",
        "input",
        "prompt",
    ]
    .iter()
    .find_map(|k| a.get(*k).map(|v| (k, v)));
    let text = match pick {
        Some((_, serde_json::Value::String(s))) => s.clone(),
        Some((_, serde_json::Value::Array(parts))) => parts
            .iter()
            .map(|p| p.as_str().map(str::to_string).unwrap_or_else(|| p.to_string()))
            .collect::<Vec<_>>()
            .join(" "),
        Some((_, v)) => v.to_string(),
        None => a.to_string(),
    };
    let mut extra = String::new();
    if let Some(r) = a.get("view_range") {
        extra = format!(" {r}");
    } else if let (Some(s), Some(e)) = (a.get("start"), a.get("end")) {
        extra = format!(" [{s}, {e}]");
    }
    clip(&format!("{}{extra}", text.replace('\n', " ⏎ ")), 180)
}

fn tokens(x: Option<f64>) -> String {
    match x {
        Some(v) if v >= 10_000.0 => format!("{:.1}k", v / 1000.0),
        Some(v) if v.fract() == 0.0 => format!("{}", v as i64),
        Some(v) => format!("{v:.1}"),
        None => "–".into(),
    }
}

/// The Traces view's state in Yew: the pure reducer [`TracesState::reduce`].
#[derive(Clone)]
struct View(TracesState);

impl Reducible for View {
    type Action = TracesAction;

    fn reduce(self: Rc<Self>, action: TracesAction) -> Rc<Self> {
        Rc::new(View(Rc::unwrap_or_clone(self).0.reduce(action)))
    }
}

#[function_component(TracesView)]
pub fn traces_view() -> Html {
    let state = use_reducer(|| View(TracesState::new(current(), FIXES.with(|f| f.borrow().clone()))));
    let v = &state.0;
    let act = {
        let dispatcher = state.dispatcher();
        Callback::from(move |a: TracesAction| dispatcher.dispatch(a))
    };
    // The corrections outlive the view (a task opened from a session, then back).
    {
        let fixes = v.fixes.clone();
        use_effect_with(fixes, |f| FIXES.with(|x| *x.borrow_mut() = f.clone()));
    }
    let start_load = {
        let act = act.clone();
        Rc::new(move |what: String, fut: files::Reading| {
            let act = act.clone();
            act.emit(TracesAction::Busy(what));
            spawn_local(async move {
                let read = fut.await;
                act.emit(TracesAction::Busy(format!("Reading and labelling {}…", count(read.len(), "file", "files"))));
                files::yield_now().await;
                let (data, replaced) = load(read);
                act.emit(loaded(replaced, data));
            });
        })
    };
    let ondrop = {
        let start_load = start_load.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            let Some(dt) = e.data_transfer() else { return };
            let items = files::take_drop(&dt);
            start_load("Reading the dropped traces…".into(), Box::pin(files::read_drop(items)));
        })
    };
    let ondragover = Callback::from(|e: DragEvent| e.prevent_default());
    let onpick = {
        let start_load = start_load.clone();
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            if let Some(list) = input.files().map(|l| files::take_list(&l)) {
                start_load("Reading the chosen traces…".into(), Box::pin(files::read_list(list)));
            }
            input.set_value("");
        })
    };
    let clear = act.reform(|_: MouseEvent| {
        DATA.with(|d| {
            let generation = d.borrow().generation + 1;
            *d.borrow_mut() = Rc::new(TracesData { generation, ..TracesData::default() });
        });
        TracesAction::Cleared(current())
    });
    let fix =
        act.reform(|(session, call, label): (usize, usize, Option<Label>)| TracesAction::Fix { session, call, label });
    let export = {
        let (data, fixes) = (v.data.clone(), v.fixes.clone());
        Callback::from(move |_: MouseEvent| {
            files::download_text("label-corrections.jsonl", "application/x-ndjson", &corrections_jsonl(&data, &fixes))
        })
    };
    let export_all = {
        let (data, fixes) = (v.data.clone(), v.fixes.clone());
        Callback::from(move |_: MouseEvent| {
            let fixed = corrected(&data, &fixes);
            let text: String = fixed.iter().flat_map(tf::label_records).map(|r| format!("{r}\n")).collect();
            files::download_text("labels.jsonl", "application/x-ndjson", &text)
        })
    };
    let data = &v.data;
    let fixes = &v.fixes;
    // Figure 3 and table 2 over every loaded session (corrections applied).
    let figs = use_memo((data.generation, (**fixes).clone()), {
        let data = data.clone();
        move |(_, fixes)| {
            let fixed = corrected(&data, fixes);
            let refs: Vec<&Session> = fixed.iter().collect();
            let points = tf::figure3(&refs);
            let (calls, toks) = tf::figure3_charts(&points);
            let rows = tf::table2(&refs);
            (
                Rc::new(plot::render(&calls)),
                Rc::new(plot::render(&toks)),
                Rc::new(plot::render_bars(&tf::table2_chart(&rows))),
                Rc::new(tf::figure3_csv(&points)),
                Rc::new(tf::table2_csv(&rows)),
                points.iter().filter(|p| p.n.is_some()).count(),
            )
        }
    });
    let (calls_svg, tokens_svg, labels_svg, fig3_csv, t2_csv, placed) = &*figs;
    let n_calls: usize = data.sessions.iter().map(|s| s.calls.len()).sum();
    let status = match &v.busy {
        Some(b) => b.clone(),
        None if data.sessions.is_empty() => "No traces loaded.".into(),
        None => format!(
            "{}, {} labelled{}; {}; {}",
            count(data.sessions.len(), "session", "sessions"),
            count(n_calls, "tool call", "tool calls"),
            data.label_ms.map(|m| format!(" in {m:.0} ms")).unwrap_or_default(),
            count(data.problems.len(), "problem", "problems"),
            count(fixes.len(), "correction", "corrections")
        ),
    };
    let show_sample = {
        let act = act.clone();
        Callback::from(move |_: MouseEvent| {
            let act = act.clone();
            act.emit(TracesAction::Busy("Loading the sample…".into()));
            spawn_local(async move {
                match fetch_sample().await {
                    Ok(b) => act.emit(TracesAction::Replaced(load_sample(&b))),
                    Err(e) => {
                        act.emit(TracesAction::Loaded(current()));
                        act.emit(TracesAction::Note(format!(
                            "The sample could not be loaded: {e}. Load your own traces instead."
                        )));
                    }
                }
            });
        })
    };
    // The first visit opens on the sample (unless the reader loads or clears first).
    {
        let act = act.clone();
        use_effect_with((), move |_| {
            if current().generation == 0 {
                act.emit(TracesAction::Busy("Loading the sample…".into()));
                spawn_local(async move {
                    let got = fetch_sample().await;
                    if current().generation != 0 {
                        return;
                    }
                    match got {
                        Ok(b) => act.emit(TracesAction::Replaced(load_sample(&b))),
                        Err(e) => {
                            act.emit(TracesAction::Loaded(current()));
                            act.emit(TracesAction::Note(format!(
                                "The sample could not be loaded: {e}. Load your own traces instead."
                            )));
                        }
                    }
                });
            }
        });
    }
    let none_read = v.busy.is_none() && data.sessions.is_empty() && !data.problems.is_empty();
    html! {
        <section id="traces" class="traces" ondrop={ondrop} ondragover={ondragover}>
            <div class="results-head">
                <h1>{ "Traces" }</h1>
                if let Some(about) = &data.sample {
                    <p id="traces-sample" class="sample-note"><span class="badge-sample">{ "Sample" }</span>{ " " }{ about.clone() }</p>
                }
            </div>
            <div id="traces-drop" class="dropzone loadbar" role="group" aria-label="Load your own traces">
                <strong>{ if data.sample.is_some() { "Load your own:" } else { "Load traces:" } }</strong>
                <label class="button small">{ "choose files" }<input id="traces-files" type="file" multiple=true accept=".jsonl,.json,.gz" onchange={onpick.clone()} /></label>
                <label class="button small">{ "choose a folder" }<input id="traces-folder" type="file" webkitdirectory=true onchange={onpick} /></label>
                <span class="hint">{ "or drop them on this page" }</span>
                <button id="traces-clear" type="button" class="button small ghost" onclick={clear}>{ "Clear" }</button>
                if data.sample.is_none() {
                    <button id="traces-show-sample" type="button" class="button small ghost" onclick={show_sample}>{ "Show the sample" }</button>
                }
                <details class="about-input">
                    <summary>{ "What can be loaded" }</summary>
                    <p>{ super::text_with_code("Copilot `events.jsonl` (a session folder, or a folder of them with the responses that name them) or Cabrito's plain traces (`cabrito agent` writes them). Each session becomes a timeline of labelled tool calls; the labels come from offline rules in this page, and nothing is uploaded.") }</p>
                </details>
            </div>
            <p id="traces-status" class="stats" data-sessions={data.sessions.len().to_string()} data-calls={n_calls.to_string()}
                data-label-ms={data.label_ms.map(|m| format!("{m:.1}"))} data-busy={v.busy.is_some().to_string()} data-sample={data.sample.is_some().to_string()} aria-live="polite">{ status }</p>
            if let Some(n) = &v.note {
                <p id="traces-note" class="error" role="alert">{ n.clone() }</p>
            }
            if none_read {
                <p id="traces-unread" class="error" role="alert">{ format!(
                    "No trace was read. {}",
                    data.problems.first().map(|p| format!("First problem ({} in all, listed below): {p}", data.problems.len())).unwrap_or_default()
                ) }</p>
            }
            if !data.problems.is_empty() {
                <details id="traces-problems" class="files"><summary>{ count(data.problems.len(), "problem", "problems") }</summary>
                    <ul class="problems">{ for data.problems.iter().take(200).map(|p| html! { <li>{ p.to_string() }</li> }) }</ul></details>
            }
            if !data.sessions.is_empty() {
                <div class="sessions-wrap">{ sessions_table(data, fixes, v.selected, &act) }</div>
                if let Some(si) = v.selected {
                    if let Some(s) = data.sessions.get(si) {
                        <SessionView key={format!("{}-{si}", data.generation)} index={si} session={Rc::new(s.clone())} fixes={fixes.clone()} on_fix={fix.clone()}
                            shown={v.shown} picked={v.picked} cumulative={v.cumulative} link={v.link.clone()} act={act.clone()} />
                    }
                }
                <p class="actions">
                    <button id="export-corrections" type="button" class="button small" onclick={export} disabled={fixes.is_empty()}>{ format!("Export {}", count(fixes.len(), "correction", "corrections")) }</button>
                    { " " }
                    <button id="export-labels" type="button" class="button small ghost" onclick={export_all}>{ "Export every label (JSONL)" }</button>
                </p>
                <section class="panel" aria-label="Figure 3 and table 2">
                    <div class="panel-head"><h2>{ "Many traces: tool calls and tokens per label group against n" }</h2>
                        <super::results::ExportButtons id="export-calls" title="tool calls per label" svg={calls_svg.clone()} csv={fig3_csv.clone()} /></div>
                    if *placed == 0 {
                        <p class="hint">{ "No session is placed on an axis and n yet: drop the responses that name them (or plain traces whose header names their task) to plot figure 3." }</p>
                    }
                    <div id="fig-calls-wrap" class="figure-wrap">{ Html::from_html_unchecked(AttrValue::from((**calls_svg).clone())) }</div>
                    <div class="panel-head"><span></span><super::results::ExportButtons id="export-tokens" title="output tokens per label" svg={tokens_svg.clone()} csv={fig3_csv.clone()} /></div>
                    <div id="fig-tokens-wrap" class="figure-wrap">{ Html::from_html_unchecked(AttrValue::from((**tokens_svg).clone())) }</div>
                    <div class="panel-head"><h3>{ "Table 2: the distribution of labels" }</h3><super::results::ExportButtons id="export-labels-fig" title="labels" svg={labels_svg.clone()} csv={t2_csv.clone()} /></div>
                    <div id="fig-labels-wrap" class="figure-wrap">{ Html::from_html_unchecked(AttrValue::from((**labels_svg).clone())) }</div>
                </section>
            }
        </section>
    }
}

fn sessions_table(
    data: &TracesData,
    fixes: &Corrections,
    selected: Option<usize>,
    act: &Callback<TracesAction>,
) -> Html {
    html! {
        <table id="sessions" class="sizes sessions">
            <thead><tr><th>{ "session" }</th><th>{ "model" }</th><th>{ "task" }</th><th>{ "axis · n" }</th><th>{ "calls" }</th><th>{ "labels" }</th></tr></thead>
            <tbody>
                { for data.sessions.iter().enumerate().take(1000).map(|(si, s)| {
                    let pick = act.reform(move |()| TracesAction::Select(si));
                    let (onclick, onkeydown) = (pick.reform(|_: MouseEvent| ()), super::on_activate(pick));
                    let p = tf::place(s);
                    let mut counts: BTreeMap<Label, usize> = BTreeMap::new();
                    for c in &s.calls { *counts.entry(label_of(fixes, si, c)).or_default() += 1; }
                    html! {
                        <tr id={format!("session-{si}")} class={classes!("clickable", (selected == Some(si)).then_some("selected"))} {onclick} {onkeydown} tabindex="0">
                            <td class="l"><code>{ clip(&s.id, 40) }</code></td>
                            <td class="l">{ p.model.clone() }</td>
                            <td class="l">{ if s.task.task_type.is_empty() { "?".to_string() } else { format!("{} · {}", s.task.task_type, cabrito_analysis::results::runs::domain_of(&s.task.task_set)) } }</td>
                            <td>{ format!("{} · {}", p.axis, cabrito_analysis::results::runs::format_n(p.n)) }</td>
                            <td>{ s.calls.len() }</td>
                            <td class="l">{ for counts.iter().map(|(l, n)| html! {
                                <span class="chip" style={format!("border-color:{}", label_colour(*l))}>{ format!("{l} {n}") }</span>
                            }) }</td>
                        </tr>
                    }
                }) }
            </tbody>
        </table>
    }
}

#[derive(Properties, PartialEq)]
struct SessionProps {
    index: usize,
    session: Rc<Session>,
    fixes: Rc<Corrections>,
    on_fix: Callback<(usize, usize, Option<Label>)>,
    /// The timeline's calls on show, the call picked, and whether the calls up to it are marked.
    shown: usize,
    picked: Option<usize>,
    cumulative: bool,
    /// The session's task link (its own, or typed).
    link: Option<String>,
    act: Callback<TracesAction>,
}

#[function_component(SessionView)]
fn session_view(p: &SessionProps) -> Html {
    let s = &p.session;
    let (shown, picked, cumulative, act) = (p.shown, p.picked, p.cumulative, &p.act);
    let task: Rc<Option<Result<Rc<Shown>, String>>> = use_memo(p.link.clone(), |l| {
        l.as_ref().map(|q| {
            let q = cabrito_analysis::results::read::link_query(q);
            let pairs: Vec<(String, String)> =
                super::route::split_query(&q)?.into_iter().filter(|(k, _)| k != super::share::SOLUTION_KEY).collect();
            let spec = cabrito_gen::TaskSpec::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
                .map_err(|e| e.to_string())?;
            show(&spec)
        })
    });
    let si = p.index;
    let u = &s.usage;
    let place = tf::place(s);
    let calls = &s.calls;
    // The functions to highlight: the picked call's, or every call's up to it.
    let marked: BTreeSet<String> = match (&*task, picked) {
        (Some(Ok(t)), Some(ci)) => {
            let code = &t.generated.task.starter_code;
            let sp = spans(code);
            let range: Vec<&ToolCall> =
                if cumulative { calls.iter().take(ci + 1).collect() } else { calls.get(ci).into_iter().collect() };
            range.into_iter().flat_map(|c| touched(c, code, &sp)).collect()
        }
        _ => BTreeSet::new(),
    };
    let set_link = act.reform(|_: MouseEvent| TracesAction::AttachLink);
    let on_link_input = act.reform(|e: InputEvent| {
        let el: HtmlInputElement = e.target_unchecked_into();
        TracesAction::LinkText(el.value())
    });
    let toggle_cumulative = act.reform(|e: Event| {
        let el: HtmlInputElement = e.target_unchecked_into();
        TracesAction::Cumulative(el.checked())
    });
    let more = act.reform(|_: MouseEvent| TracesAction::ShowMore);
    let call_row = |c: &ToolCall| -> Html {
        let label = label_of(&p.fixes, si, c);
        let fixed = p.fixes.contains_key(&(si, c.index));
        let ci = c.index;
        let onchange = {
            let on_fix = p.on_fix.clone();
            let rule = c.effective_label();
            Callback::from(move |e: Event| {
                let el: web_sys::HtmlSelectElement = e.target_unchecked_into();
                let l = Label::parse(&el.value());
                on_fix.emit((si, ci, l.filter(|l| *l != rule)));
            })
        };
        let onclick = {
            let act = act.clone();
            Callback::from(move |e: MouseEvent| {
                // Clicks on the label menu and the folds do not pick the call.
                let inner = e
                    .target()
                    .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
                    .and_then(|el| el.closest("select, summary, details").ok().flatten());
                if inner.is_none() {
                    act.emit(TracesAction::PickCall(ci));
                }
            })
        };
        let onkeydown = super::on_activate(act.reform(move |()| TracesAction::PickCall(ci)));
        let args_pretty = serde_json::to_string_pretty(&c.arguments).unwrap_or_default();
        let out_lines = c.output.as_deref().map_or(0, |o| o.lines().count());
        html! {
            <li id={format!("call-{ci}")} class={classes!("call", format!("label-{label}"), (picked == Some(ci)).then_some("picked"), fixed.then_some("corrected"))}
                data-label={label.as_str()} data-rule-label={c.label.as_str()} data-index={ci.to_string()} {onclick} {onkeydown} tabindex="0">
                <div class="call-head">
                    <select id={format!("label-{ci}")} class="label-select" style={format!("border-color:{}", label_colour(label))} onchange={onchange} title={format!("rule: {}", c.rule)} aria-label="label">
                        { for Label::ALL.iter().map(|l| html! { <option value={l.as_str()} selected={*l == label}>{ l.as_str() }</option> }) }
                    </select>
                    <code class="tool">{ c.tool.clone() }</code>
                    <span class="call-summary">{ summary(c) }</span>
                    <span class="call-tokens" title="output tokens of its turn divided among the turn's calls (§8.6)">{ format!("{} tok", tokens(c.output_tokens)) }</span>
                    if c.success == Some(false) { <span class="bad">{ " failed" }</span> }
                </div>
                <div class="call-rule">{ format!("#{ci} · {}{}", c.rule, if fixed { " · corrected by hand" } else { "" }) }</div>
                <details class="fold"><summary>{ "arguments" }</summary><pre>{ clip(&args_pretty, 20_000) }</pre></details>
                if let Some(o) = &c.output {
                    <details class="fold"><summary>{ format!("output ({})", count(out_lines, "line", "lines")) }</summary><pre>{ clip(o, 20_000) }</pre></details>
                }
            </li>
        }
    };
    // Turns, each with its calls, up to the page limit.
    let mut remaining = shown;
    let turns = s.turns.iter().map_while(|t| {
        if remaining == 0 {
            return None;
        }
        let take = t.calls.len().min(remaining);
        remaining -= take;
        Some(html! {
            <li class="turn" data-turn={t.index.to_string()}>
                <div class="turn-head">
                    <strong>{ format!("Turn {}", t.index) }</strong>
                    <span class="muted">{ format!(" · input {} · cached {} · output {}", tokens(t.input_tokens), tokens(t.cached_tokens), tokens(t.output_tokens)) }</span>
                </div>
                if !t.reasoning.is_empty() { <details class="fold"><summary>{ "reasoning" }</summary><pre>{ clip(&t.reasoning, 8000) }</pre></details> }
                if !t.content.is_empty() { <p class="turn-content">{ clip(&t.content, 2000) }</p> }
                <ol class="calls">{ for t.calls.iter().take(take).filter_map(|&ci| calls.get(ci)).map(call_row) }</ol>
            </li>
        })
    });
    let task_panel = match &*task {
        None => html! {
            <div class="attach">
                <p class="hint">{ "This session's task is not known as a Cabrito task. Paste its share link to see the task beside the timeline:" }</p>
                <input id="trace-task-link" type="text" placeholder="#/task?v=1&kind=…" oninput={on_link_input} />
                <button id="trace-task-attach" type="button" class="button small" onclick={set_link}>{ "Show the task" }</button>
            </div>
        },
        Some(Err(e)) => html! { <p class="error">{ format!("The task link cannot be opened: {e}") }</p> },
        Some(Ok(t)) => html! { <TaskBeside shown={t.clone()} marked={Rc::new(marked.clone())} /> },
    };
    html! {
        <section id="session" class="panel session" data-session={s.id.clone()}>
            <div class="panel-head">
                <h2>{ format!("Session {}", clip(&s.id, 60)) }</h2>
                <span class="muted">{ format!("{} · {} n = {} · {} in {}", if s.model.is_empty() { &s.agent } else { &s.model }, place.axis, cabrito_analysis::results::runs::format_n(place.n), count(calls.len(), "call", "calls"), count(s.turns.len(), "turn", "turns")) }</span>
            </div>
            <dl id="usage" class="usage">
                <dt>{ "input" }</dt><dd>{ tokens(u.input_tokens) }</dd>
                <dt>{ "cache read" }</dt><dd>{ tokens(u.cache_read_tokens) }</dd>
                <dt>{ "cache write" }</dt><dd>{ tokens(u.cache_write_tokens) }</dd>
                <dt>{ "output" }</dt><dd>{ tokens(u.output_tokens) }</dd>
                <dt>{ "total" }</dt><dd>{ tokens(u.total_tokens) }</dd>
                <dt>{ "AIU" }</dt><dd>{ u.total_aiu().map(|a| format!("{a:.2}")).unwrap_or_else(|| "–".into()) }</dd>
                <dt>{ "premium requests" }</dt><dd>{ tokens(u.total_premium_requests) }</dd>
                <dt>{ "from" }</dt><dd>{ format!("{} / {}", u.usage_source, u.token_usage_source) }</dd>
            </dl>
            // The ledger of the session's turns (cabrito_agents::ledger), when they carry input figures.
            if s.turns.iter().any(|t| t.input_tokens.is_some()) {
                <p id="trace-ledger" class="hint">{ format!("Ledger: {}", cabrito_agents::ledger::Ledger::of(&cabrito_agents::ledger::turns_of(s), cabrito_agents::ledger::Prices::default()).summary()) }</p>
            }
            <div class="touched-bar">
                <label class="check"><input id="trace-cumulative" type="checkbox" checked={cumulative} onchange={toggle_cumulative} />{ " every call up to the picked one" }</label>
                <p id="touched" class="hint" data-functions={marked.iter().cloned().collect::<Vec<_>>().join(",")}>
                    { match picked {
                        None => "Click a call to see the functions it looked at or changed.".to_string(),
                        Some(ci) if marked.is_empty() => format!("Call #{ci} touched no function of the task."),
                        Some(ci) => format!("Call #{ci}: {}", marked.iter().cloned().collect::<Vec<_>>().join(", ")),
                    } }
                </p>
            </div>
            <div class="trace-grid">
                <div class="timeline-col">
                    <ol id="timeline" class="timeline">{ for turns }</ol>
                    if calls.len() > shown {
                        <button id="timeline-more" type="button" class="button small" onclick={more}>{ format!("Show {} more calls (of {})", PAGE.min(calls.len() - shown), calls.len() - shown) }</button>
                    }
                </div>
                <div id="trace-task" class="task-col">
                    { task_panel }
                </div>
            </div>
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct BesideProps {
    shown: Rc<Shown>,
    marked: Rc<BTreeSet<String>>,
}

/// The task next to the timeline: its call graph and its starter code, the marked functions lit.
#[function_component(TaskBeside)]
fn task_beside(p: &BesideProps) -> Html {
    let g = &p.shown.generated;
    let placed = use_memo(p.shown.clone(), |s| s.generated.call_graph().map(|(cg, _)| super::graph::place(cg)));
    // Kinds not made from a call graph have no graph to draw: the code alone is shown.
    let graph = match (g.call_graph(), &*placed) {
        (Some((cg, _)), Some(placed)) => {
            let lit = |v: usize| p.marked.contains(cg.name(v));
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
                    <g class={classes!("vertex", lit(v).then_some("touched"))} id={format!("tv-{name}")} data-name={name.clone()} transform={format!("translate({:.1},{:.1})", x - 29.0, y - 13.0)}>
                        <rect width="58" height="26" rx="6" />
                        <text x="29" y="17" text-anchor="middle">{ name }</text>
                    </g>
                }
            });
            html! {
                <div class="graph-scroll">
                    <svg id="trace-graph" class="call-graph trace-graph" viewBox={format!("0 0 {w:.0} {h:.0}")} width={format!("{w:.0}")} height={format!("{h:.0}")} style="max-width: 100%; height: auto;" role="img" aria-label="the task's call graph">
                        <g class="edges">{ for edges }</g>
                        <g class="vertices">{ for vertices }</g>
                    </svg>
                </div>
            }
        }
        _ => html! {},
    };
    let code = &g.task.starter_code;
    let sp = spans(code);
    let owner: Vec<Option<&str>> = {
        let mut o = vec![None; code.lines().count()];
        for s in &sp {
            for slot in o.iter_mut().take(s.end).skip(s.start.saturating_sub(1)) {
                *slot = Some(s.name.as_str());
            }
        }
        o
    };
    html! {
        <div class="task-beside" data-spec={g.task.spec.canonical()}>
            <p class="muted"><a href={g.task.link.clone()}>{ format!("{} · {} · n = {} · seed {}", g.task.spec.kind.label(), g.task.spec.domain, g.task.spec.n, g.task.spec.seed) }</a></p>
            { graph }
            <pre id="trace-code" class="code"><code>
                { for code.split_inclusive('\n').zip(owner).map(|(line, f)| {
                    let on = f.is_some_and(|f| p.marked.contains(f));
                    let body = line.strip_suffix('\n').unwrap_or(line);
                    html! {
                        <span class={classes!("line", on.then_some("touched"))} data-fn={f.map(str::to_string)}>
                            { for super::code::tokens(body).into_iter().map(|(class, text)| if class.is_empty() { html! { { text } } } else { html! { <span class={class}>{ text }</span> } }) }
                            { if line.ends_with('\n') { "\n" } else { "" } }
                        </span>
                    }
                }) }
            </code></pre>
        </div>
    }
}
