//! The agents page (`#/agents?<spec>[&strategy=…&window=…]`), a fourth wasm module loaded only when
//! the page opens (it carries the Python parser the interface's lint gate and checks need, and the
//! scripted agents; see [`super::lazy`]):
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

// ---- the app's side ---------------------------------------------------------------------------

#[derive(Properties, PartialEq)]
pub struct HostProps {
    pub spec: TaskSpec,
}

/// Id of the element the module's app is mounted in: a sibling of the app's own root, not inside it.
/// Two Yew apps from two wasm modules must not nest: each brands its root and its elements with
/// ids counted in its own memory, so the outer app, which sees every event first (Yew listens in the
/// capture phase on its root), would take the inner app's elements for its own and run its own
/// listeners on them (a select of the agents page once set the task controls' `n_init`).
pub const PORTAL_ID: &str = "agents-portal";

/// The module's own root after the app's root (made once).
fn portal() -> Result<web_sys::Element, String> {
    let doc = web_sys::window().and_then(|w| w.document()).ok_or("no document")?;
    if let Some(e) = doc.get_element_by_id(PORTAL_ID) {
        return Ok(e);
    }
    let el = doc.create_element("div").map_err(|_| "cannot create the agents page's root")?;
    el.set_id(PORTAL_ID);
    el.set_class_name("page agents-portal");
    let body = doc.body().ok_or("no body")?;
    let after = doc.get_element_by_id(super::ROOT_ID).and_then(|a| a.next_sibling());
    body.insert_before(&el, after.as_ref()).map_err(|_| "cannot place the agents page")?;
    Ok(el)
}

/// Take the page down (the reader left it).
fn close_portal() {
    if let Some(w) = web_sys::window() {
        if let Ok(api) = js_sys::Reflect::get(&w, &MODULE.global.into()) {
            if let Ok(f) = js_sys::Reflect::get(&api, &"unmount".into()) {
                use wasm_bindgen::JsCast;
                if let Ok(f) = f.dyn_into::<js_sys::Function>() {
                    let _ = f.call0(&api);
                }
            }
        }
        if let Some(e) = w.document().and_then(|d| d.get_element_by_id(PORTAL_ID)) {
            e.remove();
        }
    }
}

/// Loads the module, then mounts the page beside the app (again when the spec changes).
#[function_component(AgentsHost)]
pub fn agents_host(p: &HostProps) -> Html {
    let error = use_state(|| None::<String>);
    let mounted = use_state(|| false);
    {
        let (error, mounted) = (error.clone(), mounted.clone());
        use_effect_with(p.spec.clone(), move |_| {
            lazy::ensure_loaded(&MODULE, move |r| {
                match r.and_then(|_| portal()).and_then(|el| lazy::mount(&MODULE, &el, &super::app::current_fragment()))
                {
                    Ok(()) => mounted.set(true),
                    Err(e) => error.set(Some(e)),
                }
            });
        });
    }
    use_effect_with((), |_| close_portal);
    html! {
        <>
            if let Some(e) = &*error {
                <section id="agents-error" class="error" role="alert"><h2>{ "The agents page cannot be shown" }</h2><p>{ e.clone() }</p></section>
            }
            if !*mounted {
                <p id="agents-loading" class="loading">{ "Loading the agents…" }</p>
            }
        </>
    }
}

// ---- the module's side ------------------------------------------------------------------------

#[derive(Properties, PartialEq)]
struct RootProps {
    fragment: AttrValue,
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
            <h1 class="task-title">{ format!("Agents in the loop · {} · {} · n = {} · seed {}", task.spec.kind.label(), task.spec.domain, task.spec.n, task.spec.seed) }</h1>
            <p class="hint">
                { "A scripted agent or you work on this task through five tools — view, search, edit, check (the public checks only) and submit — and pay for every turn. " }
                <a id="back-to-task" href={task.link.clone()}>{ "Back to the task" }</a>
            </p>
            if !problems.is_empty() {
                <p id="page-problems" class="control-error" role="alert">{ problems.join("; ") }</p>
            }
            <div class="tabs" role="tablist">
                { tab_button(Tab::Watch, "tab-watch", "Watch an agent") }
                { tab_button(Tab::Walk, "tab-walk", "Walk it yourself") }
            </div>
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
    static HANDLE: RefCell<Option<yew::AppHandle<AgentsRoot>>> = const { RefCell::new(None) };
}

/// The module's entry: set `window.cabritoAgents = { mount(root, fragment) }`.
pub fn start() {
    lazy::panic_hook("agents page");
    lazy::expose(MODULE.global, |root: web_sys::Element, fragment: String| {
        HANDLE.with(|h| {
            if let Some(old) = h.borrow_mut().take() {
                old.destroy();
            }
            root.set_inner_html("");
            let app = yew::Renderer::<AgentsRoot>::with_root_and_props(root, RootProps { fragment: fragment.into() })
                .render();
            *h.borrow_mut() = Some(app);
        });
    });
    // `unmount()`: destroy the page's app (the host calls it when the reader leaves).
    let unmount = wasm_bindgen::closure::Closure::<dyn Fn()>::new(|| {
        HANDLE.with(|h| {
            if let Some(old) = h.borrow_mut().take() {
                old.destroy();
            }
        })
    });
    if let Some(api) = web_sys::window().and_then(|w| js_sys::Reflect::get(&w, &MODULE.global.into()).ok()) {
        let _ = js_sys::Reflect::set(&api, &"unmount".into(), unmount.as_ref());
    }
    unmount.forget();
    super::files::mark(READY_MARK);
}
