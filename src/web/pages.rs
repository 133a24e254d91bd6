//! Which Yew app draws the page: the app's own (gallery, task page, scale page) or a page module's
//! (Results and Traces, the agents page), one at a time in `#app`. Page modules are lazy for Lighthouse
//! mobile ≥ 90 on the gallery and task pages (their views, readers, Python parser and agents would be in
//! the first download).

use super::app::{current_fragment, App};
use super::lazy::{self, Module};
use super::route::{self, Route};
use std::cell::RefCell;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// A page drawn by an app of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PageModule {
    /// Results and Traces (`src/bin/analysis.rs`).
    Analysis,
    /// The agents page (`src/bin/agents.rs`).
    Agents,
}

impl PageModule {
    fn module(self) -> &'static Module {
        match self {
            PageModule::Analysis => &super::analysis::MODULE,
            PageModule::Agents => &super::agents::MODULE,
        }
    }

    /// The page module that draws a route, if one does.
    fn of(route: &Route) -> Option<PageModule> {
        match route {
            Route::Results | Route::Traces => Some(PageModule::Analysis),
            Route::Agents(_) => Some(PageModule::Agents),
            Route::Gallery | Route::Task(_) | Route::Scale(_) | Route::BadLink { .. } => None,
        }
    }
}

/// What a page module's app is mounted again for when it changes: the view, or the agents page's spec.
fn mount_key(route: &Route) -> String {
    match route {
        Route::Agents(spec) => spec.canonical(),
        Route::Traces => "traces".into(),
        _ => "results".into(),
    }
}

enum Owner {
    Nobody,
    App(yew::AppHandle<App>),
    Module { page: PageModule, key: String },
}

thread_local! {
    static OWNER: RefCell<Owner> = const { RefCell::new(Owner::Nobody) };
}

/// Start: the app draws the page (and hands it to a page module when the link is one's), and from
/// now on the address bar decides which app draws it.
pub fn start() {
    mount_app();
    if let Some(w) = web_sys::window() {
        let follow = Closure::<dyn Fn()>::new(follow);
        let _ = w.add_event_listener_with_callback("hashchange", follow.as_ref().unchecked_ref());
        // The page's own listener, for the page's life.
        follow.forget();
    }
}

/// A new, empty `#app` in place of the old one: the next app starts on an element no app touched.
fn fresh_root() -> Option<web_sys::Element> {
    let doc = web_sys::window()?.document()?;
    let root = doc.create_element("div").ok()?;
    root.set_id(super::ROOT_ID);
    match doc.get_element_by_id(super::ROOT_ID) {
        Some(old) => old.replace_with_with_node_1(&root).ok()?,
        None => doc.body()?.prepend_with_node_1(&root).ok()?,
    }
    Some(root)
}

/// Take down whichever app draws the page.
fn take_down() {
    match OWNER.with(|o| o.replace(Owner::Nobody)) {
        Owner::App(app) => app.destroy(),
        Owner::Module { page, .. } => {
            let _ = lazy::call_value(page.module(), "unmount", "");
        }
        Owner::Nobody => {}
    }
}

/// The app draws the page.
fn mount_app() {
    take_down();
    if let Some(root) = fresh_root() {
        let app = yew::Renderer::<App>::with_root(root).render();
        OWNER.with(|o| *o.borrow_mut() = Owner::App(app));
    }
}

/// The address bar changed. While the app draws the page, it follows on its own; a page module's
/// app is mounted again for another view or spec of its page, or gives the page back.
fn follow() {
    let fragment = current_fragment();
    let route = route::parse(&fragment);
    let key = mount_key(&route);
    let drawn_by = OWNER.with(|o| match &*o.borrow() {
        Owner::Module { page, key } => Some((*page, key.clone())),
        _ => None,
    });
    let Some((page, old_key)) = drawn_by else { return };
    if PageModule::of(&route) != Some(page) {
        return mount_app();
    }
    if key != old_key {
        let mounted = fresh_root()
            .ok_or_else(|| "no page".to_string())
            .and_then(|root| lazy::mount(page.module(), &root, &fragment));
        match mounted {
            Ok(()) => OWNER.with(|o| *o.borrow_mut() = Owner::Module { page, key }),
            Err(_) => mount_app(),
        }
    }
}

/// The page module has loaded: its app takes the page if the address bar still asks for its page.
/// (In a timeout: out of the app's own render and effects, since the app is taken down.)
fn hand_over(page: PageModule) {
    let then = Closure::once_into_js(move || {
        let fragment = current_fragment();
        let route = route::parse(&fragment);
        let by_app = OWNER.with(|o| matches!(&*o.borrow(), Owner::App(_)));
        if PageModule::of(&route) != Some(page) || !by_app {
            return;
        }
        take_down();
        let Some(root) = fresh_root() else { return };
        match lazy::mount(page.module(), &root, &fragment) {
            Ok(()) => OWNER.with(|o| *o.borrow_mut() = Owner::Module { page, key: mount_key(&route) }),
            Err(e) => {
                root.set_text_content(Some(&format!("{} cannot be shown: {e}. Reload the page.", page.module().what)))
            }
        }
    });
    if let Some(w) = web_sys::window() {
        let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(then.unchecked_ref(), 0);
    }
}

#[derive(Properties, PartialEq)]
pub struct PageHostProps {
    pub page: PageModule,
}

/// The app's body for a page module's page while it loads: a loading line, or why it cannot load.
#[function_component(PageHost)]
pub fn page_host(p: &PageHostProps) -> Html {
    let error = use_state(|| None::<String>);
    {
        let error = error.clone();
        use_effect_with(p.page, move |&page| {
            lazy::ensure_loaded(page.module(), move |r| match r {
                Ok(()) => hand_over(page),
                Err(e) => error.set(Some(e)),
            });
        });
    }
    match (p.page, &*error) {
        (PageModule::Analysis, None) => html! { <p class="loading">{ "Loading the results and traces views…" }</p> },
        (PageModule::Analysis, Some(e)) => html! {
            <section id="analysis-error" class="error" role="alert"><h2>{ "This view cannot be shown" }</h2><p>{ e.clone() }</p></section>
        },
        (PageModule::Agents, None) => html! { <p id="agents-loading" class="loading">{ "Loading the agents…" }</p> },
        (PageModule::Agents, Some(e)) => html! {
            <section id="agents-error" class="error" role="alert"><h2>{ "The agents page cannot be shown" }</h2><p>{ e.clone() }</p></section>
        },
    }
}
