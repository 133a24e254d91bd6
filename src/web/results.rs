//! The Results view (`#/results`): drop result files or folders and see accuracy against `n` with Wilson
//! intervals, the failing checks, a point's tasks (each opening in the task view) and the comparison of
//! two sets, all from `cabrito_analysis::results` (the code of `cabrito report`). Its state is
//! [`ResultsState`]'s reducer.

use super::app::{navigate, now};
use super::files::{self, Read};
use crate::playground::results_view::{self as rv, Cell, Comparison, ResultsAction, ResultsData, ResultsState};
use crate::playground::sample::{self, Bundle};
use crate::playground::words::count;
use cabrito_analysis::results::frontier::Frontier;
use cabrito_analysis::results::read::{Dataset, FileRole};
use cabrito_analysis::results::runs::format_n;
use cabrito_analysis::results::specs::{SpecFinder, DEFAULT_MAX_SEED};
use cabrito_analysis::results::{
    aggregate,
    aggregate::{all_series, Facet, Filter, Point, Series},
};
use cabrito_analysis::results::{csv, figures, plot, Problem};
use std::cell::RefCell;
use std::collections::BTreeSet;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;
use yew::platform::spawn_local;
use yew::prelude::*;

thread_local! {
    static DATA: RefCell<Rc<ResultsData>> = RefCell::new(Rc::new(ResultsData::default()));
    static FINDER: RefCell<SpecFinder> = RefCell::new(SpecFinder::new(DEFAULT_MAX_SEED));
    /// The built-in sample, once fetched.
    static SAMPLE: RefCell<Option<Bundle>> = const { RefCell::new(None) };
}

fn current() -> Rc<ResultsData> {
    DATA.with(|d| d.borrow().clone())
}

/// Add files to the loaded results (into a new set when asked, or when none is loaded).
fn load(read: Vec<Result<Read, String>>, new_set: bool) -> Rc<ResultsData> {
    let t0 = now();
    let old = DATA.with(|d| d.replace(Rc::new(ResultsData::default())));
    let mut l = if old.sample.is_some() {
        // The reader's own files replace the sample.
        ResultsData { generation: old.generation, ..ResultsData::default() }
    } else {
        Rc::try_unwrap(old).unwrap_or_else(|rc| ResultsData {
            ds: rc.ds.clone(),
            generation: rc.generation,
            read_ms: rc.read_ms,
            sample: None,
        })
    };
    let ok: Vec<&Read> = read.iter().filter_map(|r| r.as_ref().ok()).collect();
    // A set is named after the folder its files came from, else by its number.
    let name = ok
        .first()
        .and_then(|r| r.path.split('/').next().filter(|f| r.path.contains('/') && !f.is_empty()))
        .map(str::to_string)
        .unwrap_or_else(|| format!("set {}", l.ds.sets.len() + 1));
    let set = if ok.is_empty() && !l.ds.sets.is_empty() {
        l.ds.sets.len() - 1
    } else if new_set || l.ds.sets.is_empty() {
        let name = if l.ds.sets.contains(&name) { format!("{name} ({})", l.ds.sets.len() + 1) } else { name };
        l.ds.add_set(&name)
    } else {
        l.ds.sets.len() - 1
    };
    for r in &read {
        match r {
            Ok(f) => l.ds.add_file(set, &f.path, &f.bytes),
            Err(e) => l.ds.problems.push(Problem::file("(drop)", e.clone())),
        }
    }
    // A lone Cabrito result file has no run name: its dag_ids give the axis and n.
    FINDER.with(|f| cabrito_analysis::results::specs::place_unknown(&mut l.ds, &mut f.borrow_mut()));
    l.generation += 1;
    l.read_ms = match (t0, now()) {
        (Some(a), Some(b)) => Some(b - a),
        _ => None,
    };
    let rc = Rc::new(l);
    DATA.with(|d| *d.borrow_mut() = rc.clone());
    files::mark("cabrito-results-read");
    rc
}

/// Show the built-in sample in place of whatever is loaded.
fn load_sample(bundle: &Bundle) -> Rc<ResultsData> {
    DATA.with(|d| {
        let generation = d.borrow().generation;
        *d.borrow_mut() = Rc::new(ResultsData { generation, ..ResultsData::default() });
    });
    let read = bundle.files.iter().map(|(path, bytes)| Ok(Read { path: path.clone(), bytes: bytes.clone() })).collect();
    let rc = load(read, true);
    let mut l = Rc::try_unwrap(rc).unwrap_or_else(|rc| ResultsData {
        ds: rc.ds.clone(),
        generation: rc.generation,
        read_ms: rc.read_ms,
        sample: None,
    });
    l.sample = Some(bundle.about.clone());
    let rc = Rc::new(l);
    DATA.with(|d| *d.borrow_mut() = rc.clone());
    files::mark("cabrito-results-sample");
    rc
}

/// Fetch the sample (once per page) and read it.
async fn fetch_sample() -> Result<Bundle, String> {
    if let Some(b) = SAMPLE.with(|s| s.borrow().clone()) {
        return Ok(b);
    }
    let bytes = files::fetch_bytes(sample::RESULTS_URL, sample::MAX_BUNDLE_BYTES).await?;
    let b = sample::parse(&bytes)?;
    SAMPLE.with(|s| *s.borrow_mut() = Some(b.clone()));
    Ok(b)
}

/// The fragment that opens a result's task, with its answer in the grade box when there is one.
fn task_fragment(ds: &Dataset, i: usize) -> Result<String, String> {
    let r = ds.records.get(i).ok_or("no such result")?;
    let query = ds.link_of(r).or_else(|| {
        FINDER
            .with(|f| f.borrow_mut().find(&r.run, &r.task_set, &r.kind, &r.dag_id, &r.axis, r.n).map(|s| s.to_query()))
    });
    let Some(q) = query else {
        return Err(format!(
            "'{}' is not a task Cabrito generated (its dag_id matches no Cabrito spec of seeds 0–{}), so it cannot be opened here",
            r.name,
            DEFAULT_MAX_SEED - 1
        ));
    };
    let mut frag = format!("#/task?{q}");
    if let Some(a) = ds.answer_of(r) {
        frag.push_str(&format!("&{}={}", super::share::SOLUTION_KEY, super::share::encode_solution(a)));
    }
    Ok(frag)
}

/// The clicked element's point, from its `data-*` attributes.
fn cell_of_click(e: &MouseEvent) -> Option<Cell> {
    let t: web_sys::Element = e.target()?.dyn_into().ok()?;
    let pt = t.closest("circle.pt").ok()??;
    let a = |k: &str| pt.get_attribute(&format!("data-{k}"));
    Some(Cell { series: a("series")?, axis: a("axis")?, kind: a("kind")?, domain: a("domain")?, n: a("n")? })
}

#[derive(Properties, PartialEq)]
pub struct ExportProps {
    pub id: AttrValue,
    pub title: AttrValue,
    pub svg: Rc<String>,
    pub csv: Rc<String>,
}

/// SVG, PNG and CSV buttons for a figure and its table.
#[function_component(ExportButtons)]
pub fn export_buttons(p: &ExportProps) -> Html {
    let svg_click = {
        let (svg, title) = (p.svg.clone(), p.title.clone());
        Callback::from(move |_: MouseEvent| {
            files::download_text(
                &files::file_name(&title, "svg"),
                "image/svg+xml",
                &format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{svg}\n"),
            )
        })
    };
    let png_click = {
        let (svg, title) = (p.svg.clone(), p.title.clone());
        Callback::from(move |_: MouseEvent| files::download_png(&files::file_name(&title, "png"), &svg))
    };
    let csv_click = {
        let (csv, title) = (p.csv.clone(), p.title.clone());
        Callback::from(move |_: MouseEvent| files::download_text(&files::file_name(&title, "csv"), "text/csv", &csv))
    };
    html! {
        <span class="exports">
            <button id={format!("{}-svg", p.id)} type="button" class="button small ghost" onclick={svg_click}>{ "SVG" }</button>
            <button id={format!("{}-png", p.id)} type="button" class="button small ghost" onclick={png_click}>{ "PNG" }</button>
            <button id={format!("{}-csv", p.id)} type="button" class="button small ghost" onclick={csv_click}>{ "CSV" }</button>
        </span>
    }
}

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// Inline SVG made by the core (its text is escaped there).
fn svg_html(svg: &str) -> Html {
    Html::from_html_unchecked(AttrValue::from(svg.to_string()))
}

#[function_component(ResultsView)]
pub fn results_view() -> Html {
    let state = use_reducer(|| View(ResultsState::new(current())));
    let v = &state.0;
    let act = {
        let dispatcher = state.dispatcher();
        Callback::from(move |a: ResultsAction| dispatcher.dispatch(a))
    };
    let plot_ms = use_mut_ref(|| None::<f64>);

    let start_load = {
        let (act, new_set) = (act.clone(), v.new_set);
        Rc::new(move |what: String, fut: files::Reading| {
            let act = act.clone();
            act.emit(ResultsAction::Busy(what));
            spawn_local(async move {
                let read = fut.await;
                act.emit(ResultsAction::Busy(format!("Reading {} files…", read.len())));
                files::yield_now().await;
                act.emit(ResultsAction::Loaded(load(read, new_set)));
            });
        })
    };
    let ondrop = {
        let start_load = start_load.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            let Some(dt) = e.data_transfer() else { return };
            let items = files::take_drop(&dt);
            start_load("Reading the dropped files…".into(), Box::pin(files::read_drop(items)));
        })
    };
    let ondragover = Callback::from(|e: DragEvent| e.prevent_default());
    let onpick = {
        let start_load = start_load.clone();
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            if let Some(list) = input.files().map(|l| files::take_list(&l)) {
                start_load("Reading the chosen files…".into(), Box::pin(files::read_list(list)));
            }
            input.set_value("");
        })
    };
    let clear = act.reform(|_: MouseEvent| {
        DATA.with(|d| {
            let generation = d.borrow().generation + 1;
            *d.borrow_mut() = Rc::new(ResultsData { generation, ..ResultsData::default() });
        });
        ResultsAction::Loaded(current())
    });
    let toggle_new_set = act.reform(|e: Event| {
        let el: HtmlInputElement = e.target_unchecked_into();
        ResultsAction::NewSet(el.checked())
    });

    let data = &v.data;
    let ds = &data.ds;
    let series = all_series(ds);
    // The figures: recomputed when the data, the facet or the shown series change.
    let figs = {
        let plot_ms = plot_ms.clone();
        use_memo((Gen(data.clone()), v.facet, v.hidden.clone()), move |(g, facet, hidden)| {
            let ds = &g.0.ds;
            let t0 = now();
            let filter = Filter {
                series: Some(all_series(ds).into_iter().filter(|s| !hidden.contains(&s.key())).collect()),
                ..Filter::default()
            };
            let points = aggregate::accuracy(ds, *facet, &filter);
            let frontiers = rv::frontiers(ds, hidden);
            let chart = figures::accuracy_chart(ds, &points, *facet, "fig-accuracy");
            let overlays =
                if *facet == Facet::All { figures::frontier_overlays(ds, &chart, &frontiers) } else { Vec::new() };
            let chart = plot::render_with(&chart, &overlays);
            let rates = aggregate::check_failures(ds, &filter);
            let checks = plot::render(&figures::checks_chart(ds, &rates, "fig-checks"));
            let acc_csv = csv::accuracy(ds, &points);
            let checks_csv = csv::checks(ds, &rates);
            if let (Some(a), Some(b)) = (t0, now()) {
                *plot_ms.borrow_mut() = Some(b - a);
            }
            (points, Rc::new(chart), Rc::new(acc_csv), rates, Rc::new(checks), Rc::new(checks_csv), frontiers)
        })
    };
    {
        let generation = data.generation;
        let has = !ds.records.is_empty() || !ds.counts.is_empty();
        use_effect_with((generation, v.facet), move |_| {
            if has {
                files::mark("cabrito-results-plotted");
            }
        });
    }
    let (points, acc_svg, acc_csv, rates, checks_svg, checks_csv, frontiers) = &*figs;

    let onfigclick = {
        let act = act.clone();
        Callback::from(move |e: MouseEvent| {
            if let Some(c) = cell_of_click(&e) {
                act.emit(ResultsAction::Pick(Some(c)));
            }
        })
    };
    let set_facet = {
        let act = act.clone();
        Callback::from(move |e: Event| {
            let el: web_sys::HtmlSelectElement = e.target_unchecked_into();
            if let Some(f) = Facet::parse(&el.value()) {
                act.emit(ResultsAction::Facet(f));
            }
        })
    };
    let open = {
        let act = act.clone();
        Callback::from(move |i: usize| match task_fragment(&current().ds, i) {
            Ok(f) => navigate(&f),
            Err(m) => act.emit(ResultsAction::Note(m)),
        })
    };

    let status = match (&v.busy, ds.records.is_empty() && ds.counts.is_empty()) {
        (Some(b), _) => b.clone(),
        (None, true) => "No results loaded.".to_string(),
        (None, false) => format!(
            "{} and {} from {} in {}; {}; {}{}{}",
            count(ds.records.len(), "task result", "task results"),
            count(ds.counts.len(), "summary row", "summary rows"),
            count(ds.files.iter().filter(|f| f.records > 0).count(), "file", "files"),
            count(ds.sets.len(), "set", "sets"),
            count(series.len(), "model", "models"),
            count(ds.problems.len(), "problem", "problems"),
            data.read_ms.map(|m| format!(" · read in {m:.0} ms")).unwrap_or_default(),
            plot_ms.borrow().map(|m| format!(" · plotted in {m:.0} ms")).unwrap_or_default(),
        ),
    };
    // The paired comparison and the frontier (the code of `cabrito report`).
    let cmp: Rc<Option<Comparison>> =
        use_memo((Gen(data.clone()), v.compare.clone()), |(g, keys)| rv::comparison(&g.0.ds, keys));
    let show_sample = {
        let act = act.clone();
        Callback::from(move |_: MouseEvent| {
            let act = act.clone();
            act.emit(ResultsAction::Busy("Loading the sample…".into()));
            spawn_local(async move {
                match fetch_sample().await {
                    Ok(b) => act.emit(ResultsAction::Loaded(load_sample(&b))),
                    Err(e) => {
                        act.emit(ResultsAction::Loaded(current()));
                        act.emit(ResultsAction::Note(format!(
                            "The sample could not be loaded: {e}. Load your own results instead."
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
                act.emit(ResultsAction::Busy("Loading the sample…".into()));
                spawn_local(async move {
                    let got = fetch_sample().await;
                    if current().generation != 0 {
                        return;
                    }
                    match got {
                        Ok(b) => act.emit(ResultsAction::Loaded(load_sample(&b))),
                        Err(e) => {
                            act.emit(ResultsAction::Loaded(current()));
                            act.emit(ResultsAction::Note(format!(
                                "The sample could not be loaded: {e}. Load your own results instead."
                            )));
                        }
                    }
                });
            }
        });
    }
    let own = ds.problems.len();
    let none_read = !ds.problems.is_empty() && ds.records.is_empty() && ds.counts.is_empty();

    html! {
        <section id="results" class="results" ondrop={ondrop} ondragover={ondragover}>
            <div class="results-head">
                <h1>{ "Results" }</h1>
                if let Some(about) = &data.sample {
                    <p id="results-sample" class="sample-note"><span class="badge-sample">{ "Sample" }</span>{ " " }{ about.clone() }</p>
                }
            </div>
            <div id="results-drop" class="dropzone loadbar" role="group" aria-label="Load your own results">
                <strong>{ if data.sample.is_some() { "Load your own:" } else { "Load results:" } }</strong>
                <label class="button small">{ "choose files" }<input id="results-files" type="file" multiple=true accept=".jsonl,.json,.gz" onchange={onpick.clone()} /></label>
                <label class="button small">{ "choose a folder" }<input id="results-folder" type="file" webkitdirectory=true onchange={onpick} /></label>
                <span class="hint">{ "or drop them on this page" }</span>
                <label class="check"><input id="results-new-set" type="checkbox" checked={v.new_set} onchange={toggle_new_set} />{ " as a new set" }</label>
                <button id="results-clear" type="button" class="button small ghost" onclick={clear}>{ "Clear" }</button>
                if data.sample.is_none() {
                    <button id="results-show-sample" type="button" class="button small ghost" onclick={show_sample}>{ "Show the sample" }</button>
                }
            </div>
            <p id="results-status" class="stats" data-records={ds.records.len().to_string()} data-rows={ds.counts.len().to_string()}
                data-read-ms={data.read_ms.map(|m| format!("{m:.1}"))} data-plot-ms={plot_ms.borrow().map(|m| format!("{m:.1}"))}
                data-busy={v.busy.is_some().to_string()} data-sample={data.sample.is_some().to_string()} aria-live="polite">{ status }</p>
            if let Some(n) = &v.note {
                <p id="results-note" class="error" role="alert">{ n.clone() }</p>
            }
            if none_read && v.busy.is_none() {
                <p id="results-unread" class="error" role="alert">{ format!(
                    "No results were read{}. {}",
                    if ds.files.is_empty() { String::new() } else { format!(" from {}", count(ds.files.len(), "file", "files")) },
                    ds.problems.first().map(|p| format!("First problem ({own} in all, listed below): {p}")).unwrap_or_default()
                ) }</p>
            }
            if !series.is_empty() {
                <div class="results-first">
                    <section id="accuracy" class="panel" aria-label="Accuracy">
                        <div class="panel-head">
                            <h2>{ "Accuracy against n" }</h2>
                            <div class="actions">
                                <label>{ "Split " }
                                    <select id="results-facet" onchange={set_facet}>
                                        { for Facet::ALL.iter().map(|f| html! { <option value={f.as_str()} selected={*f == v.facet}>{ f.label() }</option> }) }
                                    </select>
                                </label>
                                <ExportButtons id="export-accuracy" title="accuracy" svg={acc_svg.clone()} csv={acc_csv.clone()} />
                            </div>
                        </div>
                        { series_toggles(ds, &series, &v.hidden, &act) }
                        <div id="fig-accuracy-wrap" class="figure-wrap" onclick={onfigclick.clone()}>{ svg_html(acc_svg) }</div>
                        <p class="hint">{ "Bars: Wilson 95% intervals. Dashed: each model's logistic fit of success against log n, n50 marked where it crosses 50%. Click a point to list its tasks." }</p>
                    </section>
                    <div class="results-side">
                        { paired_panel(ds, &series, &v.compare, &cmp, &act) }
                        { frontier_panel(ds, frontiers) }
                    </div>
                </div>
                { cell_panel(ds, points, &v.cell, &open, &act) }
                <details class="counts panel">
                    <summary>{ "The counts behind every point" }</summary>
                    { points_table(ds, points, &v.cell, &act) }
                </details>
            }
            { files_and_problems(ds) }
            <details class="about-input">
                <summary>{ "What can be loaded" }</summary>
                <p>{ super::text_with_code("The results of a grid — the reference's result JSONL, the folder `cabrito grade` writes (with `summary.json`), responses and tasks beside them, gzipped or not, several models at once — shown as accuracy against n as in the paper. Everything is computed in this page; nothing is uploaded. The sample is made by `scripts/sample.sh` with `cabrito grid`, `cabrito agent` and `cabrito grade`.") }</p>
            </details>
            if !series.is_empty() {
                <section class="panel" aria-label="Failing checks">
                    <div class="panel-head">
                        <h2>{ "Which checks fail as n grows" }</h2>
                        <ExportButtons id="export-checks" title="checks" svg={checks_svg.clone()} csv={checks_csv.clone()} />
                    </div>
                    <div id="fig-checks-wrap" class="figure-wrap">{ svg_html(checks_svg) }</div>
                    { worst_table(rates) }
                </section>
                { compare_panel(ds, &series, &v.compare, v.facet, &open) }
            }
        </section>
    }
}

/// The paired comparison of two models on the same tasks: the counts, McNemar's exact test, the
/// accuracy difference with its paired bootstrap interval, and per task who solved it.
fn paired_panel(
    ds: &Dataset,
    series: &[Series],
    keys: &[String; 2],
    cmp: &Option<Comparison>,
    act: &Callback<ResultsAction>,
) -> Html {
    let pick = |which: usize| {
        act.reform(move |e: Event| {
            let el: web_sys::HtmlSelectElement = e.target_unchecked_into();
            ResultsAction::Compare(which, el.value())
        })
    };
    let select = |id: &'static str, which: usize, value: &str| {
        html! {
            <select id={id} onchange={pick(which)}>
                <option value="" selected={value.is_empty()}>{ "choose…" }</option>
                { for series.iter().map(|s| html! { <option value={s.key()} selected={s.key() == value}>{ s.name(ds) }</option> }) }
            </select>
        }
    };
    let body = match cmp {
        _ if series.len() < 2 => html! {
            <p class="hint">{ "Load two models (or the same model twice, ticking “as a new set” before the second) to compare them task by task." }</p>
        },
        None => html! { <p class="hint">{ "Choose two different models A and B." }</p> },
        Some(c) => {
            let p = &c.paired;
            let (an, bn) = (c.a.name(ds), c.b.name(ds));
            let p_text = if p.p_value < 1e-3 { format!("{:.1e}", p.p_value) } else { format!("{:.3}", p.p_value) };
            // Per task: the ones only one model solved first.
            let mut rows: Vec<&cabrito_analysis::results::paired::PairedTask> = c.tasks.iter().collect();
            rows.sort_by_key(|t| ds.records[t.a].passed == ds.records[t.b].passed);
            html! {
                <>
                    <p id="paired-summary" class="paired-summary" data-tasks={p.tasks.to_string()} data-only-a={p.only_a.to_string()} data-only-b={p.only_b.to_string()}
                        data-both={p.both.to_string()} data-neither={p.neither.to_string()} data-p={format!("{:e}", p.p_value)} data-diff={format!("{}", p.diff)}
                        data-lo={format!("{}", p.lo)} data-hi={format!("{}", p.hi)}>
                        <span class="big">{ format!("{:+.1} points", p.diff * 100.0) }</span>
                        { format!(" {bn} − {an} ({} vs {}), 95% paired bootstrap interval {:+.1} to {:+.1}.", pct(p.accuracy_b), pct(p.accuracy_a), p.lo * 100.0, p.hi * 100.0) }
                        <br />
                        { format!("Solved by one only: {} by {an}, {} by {bn}; exact McNemar p = {p_text}.", p.only_a, p.only_b) }
                    </p>
                    <table id="paired-table" class="sizes paired-table">
                        <caption>{ format!("{} both were graded on", count(p.tasks, "task", "tasks")) }</caption>
                        <thead><tr><th></th><th>{ "B solved" }</th><th>{ "B failed" }</th></tr></thead>
                        <tbody>
                            <tr><th class="l">{ "A solved" }</th><td>{ p.both }</td><td class="only">{ p.only_a }</td></tr>
                            <tr><th class="l">{ "A failed" }</th><td class="only">{ p.only_b }</td><td>{ p.neither }</td></tr>
                        </tbody>
                    </table>
                    <details id="paired-tasks" class="paired-tasks">
                        <summary>{ format!("Per task: who solved it ({})", p.tasks) }</summary>
                        <ol class="task-list">
                            { for rows.iter().take(SHOWN_TASKS).map(|t| {
                                let (ra, rb) = (&ds.records[t.a], &ds.records[t.b]);
                                let who = match (ra.passed, rb.passed) {
                                    (true, true) => "both".to_string(),
                                    (true, false) => format!("{an} only"),
                                    (false, true) => format!("{bn} only"),
                                    (false, false) => "neither".to_string(),
                                };
                                html! {
                                    <li class="task-row" data-a={ra.passed.to_string()} data-b={rb.passed.to_string()}>
                                        <span class="who">{ who }</span>{ " " }
                                        <code>{ format!("n = {} · {} · {}", format_n(ra.n), ra.kind, ra.dag_id) }</code>
                                    </li>
                                }
                            }) }
                        </ol>
                    </details>
                </>
            }
        }
    };
    html! {
        <section id="paired" class="panel" aria-label="Two models on the same tasks">
            <h2>{ "Two models on the same tasks" }</h2>
            <p class="knobs compare-pick">
                <label class="knob">{ "A " }{ select("compare-a", 0, &keys[0]) }</label>
                <label class="knob">{ "B " }{ select("compare-b", 1, &keys[1]) }</label>
            </p>
            { body }
        </section>
    }
}

/// Per model and axis, where the fitted success falls to 50% (or that it never does).
fn frontier_panel(ds: &Dataset, frontiers: &[Frontier]) -> Html {
    if frontiers.is_empty() {
        return html! {};
    }
    html! {
        <section id="frontier" class="panel" aria-label="Capability frontier">
            <h2>{ "Capability frontier" }</h2>
            <table id="frontier-table" class="sizes">
                <thead><tr><th class="l">{ "model" }</th><th class="l">{ "axis" }</th><th class="l">{ "where success falls to 50%" }</th></tr></thead>
                <tbody>
                    { for frontiers.iter().map(|f| html! {
                        <tr data-model={f.series.model.to_string()} data-axis={f.axis.to_string()} data-crossing={f.crossing.describe()}>
                            <td class="l">{ f.series.name(ds) }</td><td class="l">{ f.axis.to_string() }</td><td class="l">{ f.crossing.describe() }</td>
                        </tr>
                    }) }
                </tbody>
            </table>
            <p class="hint">{ "A logistic fit of success against ln n per model and axis; n50 with its 95% interval (delta method), as in cabrito report." }</p>
        </section>
    }
}

/// The Results view's state in Yew: the pure reducer [`ResultsState::reduce`].
#[derive(Clone)]
struct View(ResultsState);

impl Reducible for View {
    type Action = ResultsAction;

    fn reduce(self: Rc<Self>, action: ResultsAction) -> Rc<Self> {
        Rc::new(View(Rc::unwrap_or_clone(self).0.reduce(action)))
    }
}

/// The loaded data as a memo key: equal when it is the same generation.
struct Gen(Rc<ResultsData>);

impl PartialEq for Gen {
    fn eq(&self, other: &Self) -> bool {
        self.0.generation == other.0.generation
    }
}

fn files_and_problems(ds: &Dataset) -> Html {
    if ds.files.is_empty() {
        return html! {};
    }
    let (answers, links) = ds.answers_and_links();
    let role = |r: FileRole| match r {
        FileRole::Results => "results",
        FileRole::Responses => "responses",
        FileRole::Tasks => "tasks",
        FileRole::Summary => "summary",
        FileRole::Skipped => "skipped",
    };
    html! {
        <details id="results-files-list" class="files">
            <summary>{ format!("{} ({} and {} joined)", count(ds.files.len(), "file", "files"), count(answers, "answer", "answers"), count(links, "task link", "task links")) }</summary>
            <table class="sizes">
                <thead><tr><th>{ "file" }</th><th>{ "set" }</th><th>{ "read as" }</th><th>{ "records" }</th><th>{ "bad lines" }</th></tr></thead>
                <tbody>
                    { for ds.files.iter().take(500).map(|f| html! {
                        <tr><td class="l">{ f.path.clone() }</td><td>{ ds.sets.get(f.set).cloned().unwrap_or_default() }</td><td>{ role(f.role) }</td><td>{ f.records }</td><td>{ f.bad_lines }</td></tr>
                    }) }
                </tbody>
            </table>
            if !ds.problems.is_empty() {
                <ul id="results-problems" class="problems">
                    { for ds.problems.iter().take(200).map(|p| html! { <li>{ p.to_string() }</li> }) }
                </ul>
            }
        </details>
    }
}

fn series_toggles(ds: &Dataset, series: &[Series], hidden: &BTreeSet<String>, act: &Callback<ResultsAction>) -> Html {
    let colours = figures::colours(ds);
    html! {
        <div id="series-toggles" class="series-toggles" role="group" aria-label="Lines shown">
            { for series.iter().enumerate().map(|(i, s)| {
                let key = s.key();
                let on = !hidden.contains(&key);
                let onchange = {
                    let key = key.clone();
                    act.reform(move |_: Event| ResultsAction::ToggleSeries(key.clone()))
                };
                let colour = plot::colour(colours.get(s).copied().unwrap_or(0));
                html! {
                    <label class="check series-toggle">
                        <input id={format!("series-{i}")} type="checkbox" checked={on} {onchange} data-series={key.clone()} />
                        <span class="swatch" style={format!("background:{colour}")}></span>{ s.name(ds) }
                    </label>
                }
            }) }
        </div>
    }
}

fn points_table(ds: &Dataset, points: &[Point], cell: &Option<Cell>, act: &Callback<ResultsAction>) -> Html {
    html! {
        <table id="results-table" class="sizes">
            <thead><tr><th>{ "model" }</th><th>{ "axis" }</th><th>{ "kind" }</th><th>{ "domain" }</th><th>{ "n" }</th><th>{ "tasks" }</th><th>{ "passed" }</th><th>{ "accuracy" }</th><th>{ "Wilson 95%" }</th></tr></thead>
            <tbody>
                { for points.iter().map(|p| {
                    let pick = {
                        let c = Cell::of(p);
                        act.reform(move |()| ResultsAction::Pick(Some(c.clone())))
                    };
                    let onclick = pick.reform(|_: MouseEvent| ());
                    let onkeydown = super::on_activate(pick);
                    let selected = cell.as_ref().is_some_and(|c| c.matches(p));
                    html! {
                        <tr class={classes!("clickable", selected.then_some("selected"))} {onclick} {onkeydown} tabindex="0">
                            <td class="l">{ p.series.name(ds) }</td><td>{ p.axis.to_string() }</td><td>{ p.kind.to_string() }</td><td>{ p.domain.to_string() }</td>
                            <td>{ format_n(p.n) }</td><td>{ p.tasks }</td><td>{ p.passed }</td><td>{ pct(p.accuracy()) }</td><td>{ format!("{} – {}", pct(p.lo), pct(p.hi)) }</td>
                        </tr>
                    }
                }) }
            </tbody>
        </table>
    }
}

/// How many tasks a point's list shows (the CSV has them all).
const SHOWN_TASKS: usize = 200;

fn cell_panel(
    ds: &Dataset,
    points: &[Point],
    cell: &Option<Cell>,
    open: &Callback<usize>,
    act: &Callback<ResultsAction>,
) -> Html {
    let Some(c) = cell else { return html! {} };
    let Some(p) = points.iter().find(|p| c.matches(p)) else { return html! {} };
    let csv_text = Rc::new(csv::tasks(ds, Some(&p.records), ""));
    let save = {
        let csv_text = csv_text.clone();
        Callback::from(move |_: MouseEvent| files::download_text("tasks.csv", "text/csv", &csv_text))
    };
    let close = act.reform(|_: MouseEvent| ResultsAction::Pick(None));
    html! {
        <section id="cell-tasks" class="cell-tasks" data-tasks={p.tasks.to_string()}>
            <div class="panel-head">
                <h3>{ format!("{} · {} · kind {} · domain {} · n = {}: {}/{} passed", p.series.name(ds), p.axis, p.kind, p.domain, format_n(p.n), p.passed, p.tasks) }</h3>
                <div class="actions">
                    <button id="cell-tasks-csv" type="button" class="button small ghost" onclick={save}>{ "CSV" }</button>
                    <button id="cell-tasks-close" type="button" class="button small ghost" onclick={close}>{ "Close" }</button>
                </div>
            </div>
            if p.records.is_empty() {
                <p class="hint">{ "These counts come from a summary.json: there are no per-task records behind them." }</p>
            }
            <ol class="task-list">
                { for p.records.iter().take(SHOWN_TASKS).enumerate().map(|(k, &i)| {
                    let r = &ds.records[i];
                    let onclick = {
                        let open = open.clone();
                        Callback::from(move |_: MouseEvent| open.emit(i))
                    };
                    let failing: Vec<&str> = r.failing_checks().collect();
                    html! {
                        <li class={classes!("task-row", if r.passed { "passed" } else { "failed" })} data-record={i.to_string()}>
                            <span class="verdict">{ if r.passed { "✓" } else { "✗" } }</span>
                            <button id={format!("open-task-{k}")} type="button" class="button small" {onclick} title="Open this task with this model's answer">{ "Open" }</button>
                            <code>{ format!("{} · {} · {}", r.kind, r.domain, r.dag_id) }</code>
                            if !failing.is_empty() { <span class="failing">{ format!(" fails: {}", failing.join(", ")) }</span> }
                            if let Some(m) = &r.message { if !r.passed { <span class="message">{ format!(" — {}", cabrito_analysis::results::input::clip(m, 200)) }</span> } }
                            if ds.answer_of(r).is_some() { <span class="has-answer" title="The answer is loaded: it opens in the grade box">{ " · answer" }</span> }
                        </li>
                    }
                }) }
            </ol>
            if p.records.len() > SHOWN_TASKS {
                <p class="hint">{ format!("… and {} more (all of them in the CSV).", p.records.len() - SHOWN_TASKS) }</p>
            }
        </section>
    }
}

fn worst_table(rates: &[aggregate::CheckRate]) -> Html {
    let worst = aggregate::worst_checks(rates);
    html! {
        <table id="checks-table" class="sizes">
            <thead><tr><th>{ "check" }</th><th>{ "tasks" }</th><th>{ "failed" }</th><th>{ "share" }</th></tr></thead>
            <tbody>
                { for worst.iter().map(|(k, f, t)| html! {
                    <tr><td class="l">{ k.to_string() }</td><td>{ *t }</td><td>{ *f }</td><td>{ pct(if *t == 0 { 0.0 } else { *f as f64 / *t as f64 }) }</td></tr>
                }) }
            </tbody>
        </table>
    }
}

fn compare_panel(ds: &Dataset, series: &[Series], cmp: &[String; 2], facet: Facet, open: &Callback<usize>) -> Html {
    if series.len() < 2 {
        return html! {};
    }
    let [a_key, b_key] = cmp;
    let chosen = match (Series::parse_key(a_key), Series::parse_key(b_key)) {
        (Some(a), Some(b)) if a != b => Some((a, b)),
        _ => None,
    };
    let body = match chosen {
        None => {
            html! { <p class="hint">{ "Choose A and B above: the figure shows B − A per axis and n with Newcombe 95% intervals, and the tasks that flipped." }</p> }
        }
        Some((a, b)) => {
            let pooled = aggregate::compare(ds, &a, &b, Facet::All);
            let cells = aggregate::compare(ds, &a, &b, facet);
            let flips = aggregate::flips(ds, &a, &b);
            let svg = Rc::new(plot::render(&figures::compare_chart(ds, &a, &b, &pooled, "fig-compare")));
            let table_csv = Rc::new(csv::compare(&cells));
            let flips_csv = Rc::new(csv::flips(ds, &flips));
            let save_flips = {
                let f = flips_csv.clone();
                Callback::from(move |_: MouseEvent| files::download_text("flips.csv", "text/csv", &f))
            };
            let up = flips.iter().filter(|f| f.now_passes).count();
            html! {
                <>
                    <div class="panel-head"><span></span><ExportButtons id="export-compare" title="compare" svg={svg.clone()} csv={table_csv} /></div>
                    <div id="fig-compare-wrap" class="figure-wrap">{ svg_html(&svg) }</div>
                    <table id="compare-table" class="sizes">
                        <thead><tr><th>{ "axis" }</th><th>{ "kind" }</th><th>{ "domain" }</th><th>{ "n" }</th><th>{ "A" }</th><th>{ "B" }</th><th>{ "B − A" }</th><th>{ "95%" }</th></tr></thead>
                        <tbody>
                            { for cells.iter().map(|d| html! {
                                <tr><td>{ d.axis.to_string() }</td><td>{ d.kind.to_string() }</td><td>{ d.domain.to_string() }</td><td>{ format_n(d.n) }</td>
                                    <td>{ format!("{}/{}", d.a_passed, d.a_tasks) }</td><td>{ format!("{}/{}", d.b_passed, d.b_tasks) }</td>
                                    <td>{ format!("{:+.1}", d.diff * 100.0) }</td><td>{ format!("{:+.1} to {:+.1}", d.lo * 100.0, d.hi * 100.0) }</td></tr>
                            }) }
                        </tbody>
                    </table>
                    <h3 id="flips-head">{ format!("{} flipped: {up} now pass, {} now fail", count(flips.len(), "task", "tasks"), flips.len() - up) }
                        { " " }<button id="flips-csv" type="button" class="button small ghost" onclick={save_flips}>{ "CSV" }</button></h3>
                    <ol id="flips" class="task-list">
                        { for flips.iter().take(SHOWN_TASKS).map(|f| {
                            let r = &ds.records[f.b];
                            let onclick = { let open = open.clone(); let i = f.b; Callback::from(move |_: MouseEvent| open.emit(i)) };
                            html! {
                                <li class={classes!("task-row", if f.now_passes { "passed" } else { "failed" })}>
                                    <span class="verdict">{ if f.now_passes { "✗ → ✓" } else { "✓ → ✗" } }</span>
                                    <button type="button" class="button small" {onclick}>{ "Open B" }</button>
                                    <code>{ format!("{} · n = {} · {} · {} · {}", r.axis, format_n(r.n), r.kind, r.domain, r.dag_id) }</code>
                                </li>
                            }
                        }) }
                    </ol>
                </>
            }
        }
    };
    html! {
        <section id="compare" class="panel" aria-label="Compare">
            <h2>{ "B − A per axis and n" }</h2>
            { body }
        </section>
    }
}
