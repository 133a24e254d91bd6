//! The app: one [`State`] changed by [`AppAction`]s, and its top component. The URL fragment is the
//! source of truth: the controls write a new fragment, the `hashchange` listener turns it into
//! [`AppAction::Navigate`], and the reducer parses it and generates the task.

use super::frame::Frame;
use super::pages::{PageHost, PageModule};
use super::route::{self, Route};
use super::scale::ScaleView;
use super::view::{bad_link_banner, page_url, Controls, Gallery, TaskView};
pub use crate::playground::gen_answer::{Drawn, Made};
use cabrito_gen::spec::TaskSpec;
use cabrito_gen::task::{generate_full, Extra};
use gloo::events::EventListener;
use std::rc::Rc;
use yew::prelude::*;

/// A generated task and how long generation took in this browser.
#[derive(Debug)]
pub struct Shown {
    pub spec: TaskSpec,
    pub generated: Made,
    /// Milliseconds spent in `generate_full`, from `performance.now()` (absent without a window).
    pub millis: Option<f64>,
}

impl PartialEq for Shown {
    fn eq(&self, other: &Self) -> bool {
        // Generation is deterministic: the same spec is the same task.
        self.spec == other.spec
    }
}

/// Everything the page shows.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    /// The fragment as read from the address bar.
    pub fragment: String,
    pub route: Route,
    /// The task on screen (the link's, or the nearest valid one for a bad link), or why there is
    /// none; `None` on the gallery.
    pub shown: Option<Result<Rc<Shown>, String>>,
    /// The read-only embed (`?embed=1`): no controls, no header.
    pub embed: bool,
    /// A solution shared in the link ("share with solution"), as the link carries it: the grade
    /// module reads it (or says why it cannot).
    pub solution: Option<String>,
    /// The task's spec needs a part of the generator the first download left out, which is loading
    /// (`web::gen`); `shown` is `None` meanwhile.
    pub waiting: Option<Extra>,
    /// A task with a big call graph, just generated here, waits for [`AppAction::Release`] before its
    /// view renders ([`super::bigraph::Holding`]): generating and rendering it are then two tasks
    /// of the browser, not one long one, and the clustered graph's module, fetched meanwhile,
    /// starts between them, so the graph draws in the view's first render.
    pub held: bool,
}

pub enum AppAction {
    /// The address bar's fragment changed (or was read at start).
    Navigate(String),
    /// The generator module generated the task a page waited for (or could not).
    Generated(TaskSpec, Result<Rc<Shown>, String>),
    /// The held task ([`State::held`]) may render now.
    Release(TaskSpec),
}

impl State {
    pub fn from_fragment(fragment: &str) -> State {
        State::build(fragment, None)
    }

    fn build(fragment: &str, previous: Option<&Rc<Shown>>) -> State {
        let route = route::parse(fragment);
        let mut waiting = None;
        let mut held = false;
        let shown = match &route {
            Route::Gallery | Route::Scale(_) | Route::Results | Route::Traces | Route::Agents(_) => None,
            Route::Task(spec) | Route::BadLink { nearest: spec, .. } => match previous {
                Some(p) if &p.spec == spec => Some(Ok(p.clone())),
                _ => {
                    // A big graph's module is fetched while the task is generated.
                    super::bigraph::prefetch(spec, None);
                    match take_first(spec).map_or_else(|| show_here(spec), Ok) {
                        Ok(r) => {
                            held = held_first(&r);
                            Some(r)
                        }
                        Err(part) => {
                            waiting = Some(part);
                            None
                        }
                    }
                }
            },
        };
        let embed = route::embed_requested(&current_search(), fragment);
        let solution = super::share::solution_param(fragment);
        State { fragment: fragment.to_string(), route, shown, embed, solution, waiting, held }
    }

    /// The spec the controls edit: the shown task's (the default one on the gallery).
    pub fn spec(&self) -> TaskSpec {
        match &self.route {
            Route::Gallery | Route::Results | Route::Traces => TaskSpec::default(),
            Route::Task(s) | Route::Scale(s) | Route::Agents(s) => s.clone(),
            Route::BadLink { nearest, .. } => nearest.clone(),
        }
    }
}

impl Reducible for State {
    type Action = AppAction;

    fn reduce(self: Rc<Self>, action: AppAction) -> Rc<Self> {
        match action {
            AppAction::Navigate(fragment) => {
                if fragment == self.fragment {
                    return self;
                }
                let previous = match &self.shown {
                    Some(Ok(p)) => Some(p),
                    _ => None,
                };
                Rc::new(State::build(&fragment, previous))
            }
            AppAction::Generated(spec, result) => {
                // Only for the page still waiting for that task.
                if self.waiting.is_none() || self.spec() != spec {
                    return self;
                }
                // The page is the same (its fragment, embed and solution); only the task arrived, and a
                // big one is held for a turn like one generated here.
                Rc::new(State { waiting: None, held: held_first(&result), shown: Some(result), ..(*self).clone() })
            }
            AppAction::Release(spec) => {
                if !self.held || self.spec() != spec {
                    return self;
                }
                Rc::new(State { held: false, ..(*self).clone() })
            }
        }
    }
}

/// Whether a task just generated is held for a turn before its view renders ([`State::held`]): when
/// its call graph is drawn in clusters.
fn held_first(generated: &Result<Rc<Shown>, String>) -> bool {
    matches!(generated, Ok(s) if super::bigraph::is_big(s))
}

/// A spec and what generating it here gave.
type FirstTask = (TaskSpec, Result<Rc<Shown>, String>);

thread_local! {
    /// The task the page opened on, made in a task of the browser's own before the app's first render
    /// ([`prepare_first`]), which takes it.
    static FIRST: std::cell::RefCell<Option<FirstTask>> = const { std::cell::RefCell::new(None) };
}

/// Generate the task the address bar links to now, so that the app's first render only draws it:
/// one long task of a throttled phone's main thread becomes two shorter ones. A link whose task
/// needs the generator's other module is left to the app.
pub fn prepare_first() {
    if let Route::Task(spec) | Route::BadLink { nearest: spec, .. } = route::parse(&current_fragment()) {
        super::bigraph::prefetch(&spec, None);
        if let Ok(made) = show_here(&spec) {
            FIRST.with(|f| *f.borrow_mut() = Some((spec, made)));
        }
    }
}

/// The task [`prepare_first`] made, if it is `spec`'s (taken either way).
fn take_first(spec: &TaskSpec) -> Option<Result<Rc<Shown>, String>> {
    FIRST.with(|f| f.borrow_mut().take()).filter(|(s, _)| s == spec).map(|(_, made)| made)
}

/// Generate a spec's task here, timing it; `Err` names the part of the generator this build left
/// out that the spec needs (`web::gen` loads it).
pub fn show_here(spec: &TaskSpec) -> Result<Result<Rc<Shown>, String>, Extra> {
    if let Some(part) = super::gen::missing(spec) {
        // Say so before generating anything, unless the spec is invalid anyway.
        if spec.validate().is_ok() {
            return Err(part);
        }
    }
    match timed(spec) {
        Err(cabrito_gen::spec::SpecError { needs: Some(part), .. }) => Err(part),
        r => Ok(r.map_err(|e| e.to_string())),
    }
}

/// Generate a spec's task, timing it.
pub fn show(spec: &TaskSpec) -> Result<Rc<Shown>, String> {
    timed(spec).map_err(|e| e.to_string())
}

fn timed(spec: &TaskSpec) -> Result<Rc<Shown>, cabrito_gen::spec::SpecError> {
    let start = now();
    let perf = web_sys::window().and_then(|w| w.performance());
    if let Some(p) = &perf {
        let _ = p.mark("cabrito-generate-start");
    }
    let generated = generate_full(spec);
    // BENCHMARKS: generation's share of the time to a task view.
    if let Some(p) = &perf {
        let _ = p.measure_with_start_mark("cabrito-generate", "cabrito-generate-start");
    }
    let generated = Made::from(generated?);
    let millis = match (start, now()) {
        (Some(a), Some(b)) => Some(b - a),
        _ => None,
    };
    let shown = Shown { spec: spec.clone(), generated, millis };
    super::bigraph::prefetch(spec, Some(&shown));
    Ok(Rc::new(shown))
}

/// `performance.now()` in milliseconds.
pub fn now() -> Option<f64> {
    web_sys::window().and_then(|w| w.performance()).map(|p| p.now())
}

/// The page's query (`?…` before the fragment, or empty).
pub fn current_search() -> String {
    web_sys::window().and_then(|w| w.location().search().ok()).unwrap_or_default()
}

/// The current fragment of the address bar (`#…`, or empty).
pub fn current_fragment() -> String {
    web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default()
}

/// Point the address bar at a fragment; the `hashchange` listener does the rest.
pub fn navigate(fragment: &str) {
    if let Some(w) = web_sys::window() {
        let _ = w.location().set_hash(fragment.strip_prefix('#').unwrap_or(fragment));
    }
}

/// The page title of a spec.
pub fn title(spec: &TaskSpec) -> String {
    format!("{} · {} · n={} · seed {} · Cabrito", spec.kind.label(), spec.domain, spec.n, spec.seed)
}

#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(|| State::from_fragment(&current_fragment()));

    // Follow the address bar.
    {
        let dispatcher = state.dispatcher();
        use_effect_with((), move |_| {
            let listener = web_sys::window().map(|w| {
                EventListener::new(&w, "hashchange", move |_| {
                    dispatcher.dispatch(AppAction::Navigate(current_fragment()))
                })
            });
            move || drop(listener)
        });
    }

    // One title per page.
    let page_title = match &state.route {
        Route::Gallery => "Cabrito: Cabra coding tasks in your browser".to_string(),
        Route::Results => "Results · Cabrito".to_string(),
        Route::Traces => "Traces · Cabrito".to_string(),
        Route::Agents(s) => format!("Agents · {}", title(s)),
        _ => title(&state.spec()),
    };

    let on_navigate = Callback::from(|fragment: String| navigate(&fragment));
    let spec = state.spec();
    let on_generated = {
        let dispatcher = state.dispatcher();
        Callback::from(move |(spec, r)| dispatcher.dispatch(AppAction::Generated(spec, r)))
    };
    let on_release = {
        let dispatcher = state.dispatcher();
        Callback::from(move |spec| dispatcher.dispatch(AppAction::Release(spec)))
    };
    let body = match &state.shown {
        None if state.waiting.is_some() => {
            let part = state.waiting.unwrap_or(Extra::Runtime);
            html! { <super::gen::Waiting spec={spec.clone()} part={part} on_done={on_generated} /> }
        }
        None if matches!(state.route, Route::Scale(_)) => html! { <ScaleView spec={spec.clone()} /> },
        None if matches!(state.route, Route::Results | Route::Traces) => {
            html! { <PageHost page={PageModule::Analysis} /> }
        }
        None if matches!(state.route, Route::Agents(_)) => html! { <PageHost page={PageModule::Agents} /> },
        None => html! { <Gallery /> },
        Some(Ok(shown)) if state.held => {
            let asked = route::panel_in(&state.fragment).and_then(Result::ok);
            let panels = super::view::task_panels(shown, state.embed);
            let graph_on_show = super::view::panel_on_show(&panels, asked) == route::SidePanel::Graph;
            html! { <super::bigraph::Holding spec={spec.clone()} {graph_on_show} on_done={on_release} /> }
        }
        Some(Ok(shown)) => {
            html! { <TaskView shown={shown.clone()} embed={state.embed} solution={state.solution.clone()} panel={route::panel_in(&state.fragment)} /> }
        }
        Some(Err(message)) => html! {
            <section id="generate-error" class="error" role="alert">
                { super::view::text_el("h2", None, "This task cannot be generated") }
                { super::view::text_el("p", None, message.clone()) }
            </section>
        },
    };

    if state.embed {
        let full = page_url(&route::fragment(&spec));
        return html! {
            <Frame spec={spec.clone()} title={page_title} embed=true>
                <p class="embed-bar">
                    <a href={full} target="_blank" rel="noopener">{ "Open in Cabrito ↗" }</a>
                </p>
                if let Route::BadLink { message, nearest } = &state.route {
                    { bad_link_banner(message, nearest) }
                }
                { body }
            </Frame>
        };
    }

    html! {
        <Frame spec={spec.clone()} title={page_title}>
            if let Route::BadLink { message, nearest } = &state.route {
                { bad_link_banner(message, nearest) }
            }
            if !matches!(state.route, Route::Gallery | Route::Results | Route::Traces) {
                <Controls spec={spec} on_navigate={on_navigate} scale={matches!(state.route, Route::Scale(_))} agents={matches!(state.route, Route::Agents(_))} />
            }
            { body }
        </Frame>
    }
}
