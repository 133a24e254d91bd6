//! A call graph of more than [`CLUSTER_FROM`] functions drawn in clusters (boxes of one role and band
//! of layers that open on a click or Enter), by the lazy `bigraph` module, which answers each state's
//! markup ([`cabrito_gen::graph::bigsvg`]); [`super::graph::drawing`] shows it and handles its events.
//! Lazy for Lighthouse mobile ≥ 90 on the gallery and `n = 25` pages, which never draw one.

use super::app::Shown;
use super::graph::{drawing, Boxes, Handlers};
use super::lazy::{self, Module};
use cabrito_gen::graph::bigsvg;
use cabrito_gen::spec::TaskSpec;
use std::cell::Cell;
use std::collections::BTreeSet;
use std::rc::Rc;
use yew::prelude::*;

pub use cabrito_gen::graph::cluster::CLUSTER_FROM;

/// The module.
pub static MODULE: Module = Module {
    script: "bigraph.js",
    wasm: "./bigraph_bg.wasm",
    global: "cabritoBigraph",
    what: "the clustered call graph's module",
};

thread_local! {
    /// The task view left its rendered mark to the big graph.
    static OWED: Cell<bool> = const { Cell::new(false) };
    /// Why the module did not load (until the next try).
    static FAILED: Cell<Option<String>> = const { Cell::new(None) };
}

/// Whether a task's call graph is drawn in clusters.
pub fn is_big(shown: &Shown) -> bool {
    shown.generated.call_graph().is_some_and(|(g, _)| g.len() > CLUSTER_FROM)
}

/// Start fetching the module (and compiling its wasm) for a spec that will likely have a big graph,
/// before generating it (which holds the main thread: the module's own fetches would only start
/// after it), or for a task that has one ([`lazy::prefetch`]). Starting it (its glue and wasm on the
/// main thread) is left to whoever needs it first: [`Holding`] when the view opens on the graph,
/// else the graph's own effect once the view has rendered, so that the module's start never delays
/// a view that does not show it.
pub fn prefetch(spec: &TaskSpec, shown: Option<&Shown>) {
    let likely = spec.n as usize > CLUSTER_FROM && spec.kind.def().graph().is_some();
    if likely || shown.is_some_and(is_big) {
        lazy::prefetch(&MODULE);
    }
}

/// Time a step (BENCHMARKS: loading the module; its drawing of a state, the request written): a
/// `performance` mark `<name>-start` (`end`: false), then the measure `name` from it (`end`: true).
fn timing(name: &str, end: bool) {
    if let Some(perf) = web_sys::window().and_then(|w| w.performance()) {
        let start = format!("{name}-start");
        let _ = if end { perf.measure_with_start_mark(name, &start).map(drop) } else { perf.mark(&start).map(drop) };
    }
}

fn mark() {
    if let Some(perf) = web_sys::window().and_then(|w| w.performance()) {
        let _ = perf.mark(super::view::TASK_RENDERED_MARK);
    }
}

/// The task view's `cabrito-task-rendered` mark for a new task: now, unless the task's big graph is
/// on show (its panel is the one open) and waits for the module (then the graph sets it once drawn,
/// or once it says it cannot be). A graph in a closed panel is not part of what the page shows: it
/// draws when the module is there, and `cabrito-bigraph-draw` times it.
pub fn mark_rendered(shown: &Shown, graph_on_show: bool) {
    if graph_on_show && is_big(shown) && !lazy::loaded(&MODULE) {
        OWED.set(true);
    } else {
        mark();
    }
}

/// How long a held task ([`Holding`]) waits for the module before its view renders without it (the
/// graph panel then shows its loading line until the module is there).
const HOLD_MS: u32 = 300;

#[derive(Properties, PartialEq)]
pub struct HoldingProps {
    pub spec: TaskSpec,
    /// The graph is the panel the view opens with.
    pub graph_on_show: bool,
    /// Called (once) when the view may render.
    pub on_done: Callback<TaskSpec>,
}

/// A task with a big graph between its generation and its view's first render (the app's
/// `State::held`): a status line, then `on_done` from its effect (which Yew runs on a later turn of
/// the event loop than the long generation); when the view opens on the graph, once the module has
/// started (or failed to), for at most [`HOLD_MS`].
#[function_component(Holding)]
pub fn holding(p: &HoldingProps) -> Html {
    {
        let (on_done, graph) = (p.on_done.clone(), p.graph_on_show);
        use_effect_with(p.spec.clone(), move |spec| {
            let once = Rc::new(Cell::new(false));
            let release = {
                let spec = spec.clone();
                move || {
                    if !once.replace(true) {
                        on_done.emit(spec.clone());
                    }
                }
            };
            if graph && !lazy::loaded(&MODULE) {
                let then = release.clone();
                lazy::ensure_loaded(&MODULE, move |r| {
                    FAILED.set(r.err());
                    then();
                });
                gloo::timers::callback::Timeout::new(HOLD_MS, release).forget();
            } else {
                // Yew gave the browser its turn before this effect (after a generation longer than its
                // 16 ms slice, it yields at the first point where the page is whole): render now.
                release();
            }
        });
    }
    super::view::task_placeholder("task-holding", "Drawing the task…".to_string())
}

#[derive(Properties, PartialEq)]
pub struct BigGraphProps {
    pub shown: Rc<Shown>,
    pub selected: Option<AttrValue>,
    pub on_select: Callback<Option<AttrValue>>,
    #[prop_or_default]
    pub on_hover: Option<Callback<Option<AttrValue>>>,
    pub zoom: f64,
}

/// The cluster the markup names as the selected function's (`data-reveal`).
fn reveal(markup: &str) -> Option<usize> {
    let at = markup.find(" data-reveal=\"")? + 14;
    markup[at..].split('"').next()?.parse().ok()
}

#[function_component(BigCallGraph)]
pub fn big_call_graph(p: &BigGraphProps) -> Html {
    let open = use_state(BTreeSet::<usize>::new);
    let redraw = use_force_update();
    // A new task starts closed; the module loads (again, after a failure) for it.
    {
        let open = open.clone();
        super::view::use_spec_effect(
            &p.shown.spec,
            Box::new(move |_| {
                open.set(BTreeSet::new());
                if !lazy::loaded(&MODULE) {
                    FAILED.take();
                    timing("cabrito-bigraph-load", false);
                    lazy::ensure_loaded(&MODULE, move |r| {
                        timing("cabrito-bigraph-load", true);
                        FAILED.set(r.err());
                        redraw.force_update();
                    });
                }
            }),
        );
    }
    // None while the module loads, then whether it did.
    let load = if lazy::loaded(&MODULE) {
        Some(Ok(()))
    } else {
        // (Taken from its cell, and a copy put back.)
        FAILED.with(|f| f.take().inspect(|e| f.set(Some(e.clone())))).map(Err)
    };
    // The module's drawing of each state (the graph written anew each time: the module keeps the
    // last graph's clustering, and writing it takes a millisecond or two at n = 2,000).
    let answer = use_memo(
        (p.shown.clone(), (*open).clone(), p.selected.clone(), p.zoom.to_bits(), load),
        |(shown, open, selected, zoom, load)| match load {
            None => None,
            Some(Err(e)) => Some(Err(e.clone())),
            Some(Ok(())) => {
                let (g, roles) = shown.generated.call_graph()?;
                let selected = selected.as_ref().and_then(|s| g.index_of(s));
                timing("cabrito-bigraph-draw", false);
                let part = bigsvg::graph_part(g, roles, shown.generated.task.runtime.as_ref());
                let drawn = lazy::call(&MODULE, "draw", &bigsvg::request(f64::from_bits(*zoom), selected, open, &part));
                timing("cabrito-bigraph-draw", true);
                Some(drawn.and_then(|m| if m.starts_with('<') { Ok(AttrValue::from(m)) } else { Err(m) }))
            }
        },
    );
    // The selected function's cluster opens, so its vertex shows; the mark the task view left to the
    // graph is set once it is drawn (or said it cannot be).
    {
        let open = open.clone();
        let cluster = match &*answer {
            Some(Ok(m)) => reveal(m),
            _ => None,
        };
        use_effect_with((p.shown.spec.clone(), answer.is_some(), cluster), move |(_, drawn, cl)| {
            if *drawn && OWED.replace(false) {
                mark();
            }
            if let Some(cl) = *cl {
                if !open.contains(&cl) {
                    let mut next = (*open).clone();
                    next.insert(cl);
                    open.set(next);
                }
            }
        });
    }
    let on_boxes = {
        let open = open.clone();
        Callback::from(move |b: Boxes| {
            open.set(match b {
                Boxes::Toggle(cl) => {
                    let mut next = (*open).clone();
                    if !next.remove(&cl) {
                        next.insert(cl);
                    }
                    next
                }
                Boxes::All(n) => (0..n).collect(),
                Boxes::None => BTreeSet::new(),
            })
        })
    };
    match &*answer {
        None => html! {
            <p id="graph-loading" class="hint" role="status">{ "Drawing the call graph in clusters…" }</p>
        },
        Some(Err(e)) => html! {
            <p id="graph-error" class="error" role="alert">{ format!("The clustered call graph cannot be shown: {e}.") }</p>
        },
        Some(Ok(markup)) => drawing(
            markup.clone(),
            Handlers {
                selected: p.selected.clone(),
                on_select: p.on_select.clone(),
                on_hover: p.on_hover.clone(),
                on_boxes: Some(on_boxes),
            },
        ),
    }
}

/// The module's side: put `draw(request) -> markup or error` on `window.cabritoBigraph`.
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        web_sys::console::error_1(
            &format!("Cabrito's clustered call graph stopped with an internal error: {info}").into(),
        );
    }));
    let cache = std::cell::RefCell::new(None);
    lazy::expose_call(MODULE.global, "draw", move |request| {
        bigsvg::answer(&request, &mut cache.borrow_mut()).unwrap_or_else(|e| e)
    });
}
