//! The app's state, its actions, and the top component.
//!
//! One state type ([`State`]) changed only through [`Action`]s by a reducer, as in Yew's
//! function_todomvc example. The URL fragment is the source of truth: the controls write a new
//! fragment, the `hashchange` listener turns it into [`Action::Navigate`], and the reducer parses it
//! and generates the task.

use super::route::{self, Route};
use super::view::{BadLinkBanner, Controls, TaskView};
use crate::spec::TaskSpec;
use crate::task::{generate_full, Generated};
use gloo::events::EventListener;
use std::rc::Rc;
use yew::prelude::*;

/// A generated task and how long generation took in this browser.
#[derive(Debug)]
pub struct Shown {
    pub spec: TaskSpec,
    pub generated: Generated,
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
#[derive(Debug, PartialEq)]
pub struct State {
    /// The fragment as read from the address bar.
    pub fragment: String,
    pub route: Route,
    /// The task on screen (the link's, or the nearest valid one for a bad link), or why there is
    /// none.
    pub shown: Result<Rc<Shown>, String>,
}

pub enum Action {
    /// The address bar's fragment changed (or was read at start).
    Navigate(String),
}

impl State {
    pub fn from_fragment(fragment: &str) -> State {
        State::build(fragment, None)
    }

    fn build(fragment: &str, previous: Option<&Rc<Shown>>) -> State {
        let route = route::parse(fragment);
        let spec = match &route {
            Route::Task(s) => s.clone(),
            Route::BadLink { nearest, .. } => nearest.clone(),
        };
        let shown = match previous {
            Some(p) if p.spec == spec => Ok(p.clone()),
            _ => show(&spec),
        };
        State { fragment: fragment.to_string(), route, shown }
    }

    /// The spec the controls edit: the shown task's.
    pub fn spec(&self) -> TaskSpec {
        match &self.route {
            Route::Task(s) => s.clone(),
            Route::BadLink { nearest, .. } => nearest.clone(),
        }
    }
}

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        match action {
            Action::Navigate(fragment) => {
                if fragment == self.fragment {
                    return self;
                }
                Rc::new(State::build(&fragment, self.shown.as_ref().ok()))
            }
        }
    }
}

/// Generate a spec's task, timing it.
pub fn show(spec: &TaskSpec) -> Result<Rc<Shown>, String> {
    let start = now();
    let generated = generate_full(spec).map_err(|e| e.to_string())?;
    let millis = match (start, now()) {
        (Some(a), Some(b)) => Some(b - a),
        _ => None,
    };
    Ok(Rc::new(Shown { spec: spec.clone(), generated, millis }))
}

/// `performance.now()` in milliseconds.
pub fn now() -> Option<f64> {
    web_sys::window().and_then(|w| w.performance()).map(|p| p.now())
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
                EventListener::new(&w, "hashchange", move |_| dispatcher.dispatch(Action::Navigate(current_fragment())))
            });
            move || drop(listener)
        });
    }

    // One title per task.
    {
        let spec = state.spec();
        use_effect_with(spec, |spec| {
            if let Some(doc) = web_sys::window().and_then(|w| w.document()) {
                doc.set_title(&title(spec));
            }
        });
    }

    let on_navigate = Callback::from(|fragment: String| navigate(&fragment));
    let spec = state.spec();

    html! {
        <>
            <header class="topbar">
                <a class="brand" href={route::fragment(&TaskSpec::default())}>{ "Cabrito" }</a>
                <span class="tagline">{ "Cabra coding tasks from random call graphs, generated in your browser" }</span>
            </header>
            <main class="page">
                if let Route::BadLink { message, nearest } = &state.route {
                    <BadLinkBanner message={message.clone()} nearest={nearest.clone()} />
                }
                <Controls spec={spec} on_navigate={on_navigate} />
                {
                    match &state.shown {
                        Ok(shown) => html! { <TaskView shown={shown.clone()} /> },
                        Err(message) => html! {
                            <section id="error" class="error" role="alert">
                                <h2>{ "This task cannot be generated" }</h2>
                                <p id="error-message">{ message.clone() }</p>
                            </section>
                        },
                    }
                }
            </main>
        </>
    }
}
