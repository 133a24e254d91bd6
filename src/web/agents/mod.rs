//! The agents page (`#/agents?<spec>[&strategy=…&window=…]`), a module of its own loaded when the page
//! opens (`web::pages`; it carries the Python parser the interface's lint gate and checks need, and
//! the scripted agents), whose app draws the whole page:
//!
//! - **Watch an agent**: pick a strategy and the interface's settings, then step through its calls
//!   (next, back, play): the call and its output, `solution.py` with the lines the call viewed,
//!   matched or edited, the call graph with the functions it touched, the ledger growing turn by
//!   turn, and at the end the grade (the static rubric here, the hidden tests on the worker).
//! - **Walk it yourself**: the same tools as a small console (`view 40 80`, `search foo`, `edit`,
//!   `lint`, `run f(3)`, `submit`), the same ledger, and the agents' turns beside yours. The grade
//!   comes after submit (before it only as a learner's hints, off by default and labelled).
//!
//! Everything runs in the browser ([`cabrito_agents`]); the console's `run` and the hidden tests go
//! to the grading worker.

pub mod parts;
mod walk;
mod watch;

use super::lazy::{self, Module};
use crate::playground::agents_page::{Page, Tab};
use crate::playground::{route, route::Route};
use cabrito_gen::spec::TaskSpec;
use cabrito_gen::task::Generated;
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// The module: its glue script and wasm, next to index.html.
pub static MODULE: Module =
    Module { script: "agents.js", wasm: "./agents_bg.wasm", global: "cabritoAgents", what: "the agents module" };
/// The mark set when the module is ready.
pub const READY_MARK: &str = "cabrito-agents-ready";

/// A value shared by pointer: equal when it is the same value (for props).
pub struct Shared<T>(pub Rc<T>);

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared(self.0.clone())
    }
}

impl<T> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

// ---- the module's side ------------------------------------------------------------------------

#[derive(Properties, PartialEq)]
struct RootProps {
    fragment: AttrValue,
}

/// The page: the header, the task's controls and the agents.
#[function_component(AgentsPage)]
fn agents_page(p: &RootProps) -> Html {
    let spec = match route::parse(&p.fragment) {
        Route::Agents(s) => s,
        _ => TaskSpec::default(),
    };
    let on_navigate = Callback::from(|fragment: String| super::app::navigate(&fragment));
    html! {
        <super::frame::Frame spec={spec.clone()} title={format!("Agents · {}", super::app::title(&spec))}>
            <super::view::Controls spec={spec} {on_navigate} agents=true />
            <AgentsRoot fragment={p.fragment.clone()} />
        </super::frame::Frame>
    }
}

/// Put the page's keys in the address bar without a new history entry.
fn remember(page: &Page, spec: &TaskSpec) {
    if let Some(w) = web_sys::window() {
        let f = page.fragment(spec);
        if w.location().hash().ok().as_deref() != Some(f.as_str()) {
            let _ = w.location().replace(&f);
        }
    }
}

#[function_component(AgentsRoot)]
fn agents_root(p: &RootProps) -> Html {
    let spec = match route::parse(&p.fragment) {
        Route::Agents(s) => s,
        _ => TaskSpec::default(),
    };
    let (first, problems) = Page::from_fragment(&p.fragment);
    let page = use_state(|| first);
    let generated: Rc<Result<Shared<Generated>, String>> = use_memo(spec.clone(), |s| {
        cabrito_gen::task::generate_full(s).map(|g| Shared(Rc::new(g))).map_err(|e| e.to_string())
    });
    let on_page = {
        let (page, spec) = (page.clone(), spec.clone());
        Callback::from(move |next: Page| {
            remember(&next, &spec);
            page.set(next);
        })
    };
    let g = match &*generated {
        Ok(g) => g.clone(),
        Err(e) => return html! { <section id="agents-error" class="error" role="alert"><p>{ e.clone() }</p></section> },
    };
    let task = &g.0.task;
    let tab_button = |tab: Tab, id: &'static str, label: &'static str| {
        let active = page.tab == tab;
        let (page_now, on_page) = ((*page).clone(), on_page.clone());
        let onclick = Callback::from(move |_: MouseEvent| on_page.emit(Page { tab, ..page_now.clone() }));
        html! { <button {id} type="button" role="tab" class={classes!("tab", active.then_some("active"))} aria-selected={active.to_string()} {onclick}>{ label }</button> }
    };
    html! {
        <section id="agents" class="agents" data-spec={task.spec.canonical()}>
            <div class="agents-top">
                <h1 class="task-title">{ format!("Agents in the loop · {} · {} · n = {} · seed {}", task.spec.kind.label(), task.spec.domain, task.spec.n, task.spec.seed) }</h1>
                <div class="tabs" role="tablist">
                    { tab_button(Tab::Watch, "tab-watch", "Watch an agent") }
                    { tab_button(Tab::Walk, "tab-walk", "Walk it yourself") }
                </div>
                <a id="back-to-task" href={task.link.clone()}>{ "Back to the task" }</a>
            </div>
            <p class="hint agents-lead">
                { format!("An agent, or you, works through the workspace's tools ({}) and pays for every turn: each turn resends the whole conversation.", cabrito_agents::aci::ToolName::ALL.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(", ")) }
            </p>
            if !problems.is_empty() {
                <p id="page-problems" class="control-error" role="alert">{ problems.join("; ") }</p>
            }
            <parts::SettingsBar page={(*page).clone()} on_page={on_page.clone()} />
            if page.tab == Tab::Watch {
                <watch::Watch generated={g.clone()} page={(*page).clone()} on_page={on_page.clone()} />
            } else {
                <walk::Walk generated={g.clone()} page={(*page).clone()} />
            }
        </section>
    }
}

thread_local! {
    static HANDLE: RefCell<Option<yew::AppHandle<AgentsPage>>> = const { RefCell::new(None) };
}

/// The module's entry: set `window.cabritoAgents = { mount(root, fragment), unmount() }`.
pub fn start() {
    lazy::panic_hook("agents page");
    lazy::expose(MODULE.global, |root: web_sys::Element, fragment: String| {
        HANDLE.with(|h| {
            if let Some(old) = h.borrow_mut().take() {
                old.destroy();
            }
            root.set_inner_html("");
            let app = yew::Renderer::<AgentsPage>::with_root_and_props(root, RootProps { fragment: fragment.into() })
                .render();
            *h.borrow_mut() = Some(app);
        });
    });
    // `unmount()`: destroy the page's app (when the reader leaves the page).
    lazy::expose_value(MODULE.global, "unmount", |_| {
        if let Some(old) = HANDLE.with(|h| h.borrow_mut().take()) {
            old.destroy();
        }
        wasm_bindgen::JsValue::UNDEFINED
    });
    super::files::mark(READY_MARK);
}
