//! The Results and Traces views, loaded lazily.
//!
//! ```text
//!  app (first download)                               analysis module (src/bin/analysis.rs)
//!  AnalysisHost renders <div id="analysis-root">
//!    ensure_loaded() ── <script src=analysis.js> ──►  start(): window.cabritoAnalysis = { mount }
//!                    ── wasm_bindgen(analysis_bg.wasm)
//!    mount(root, "results" | "traces") ───────────►  a Yew app (ResultsView or TracesView) in root
//! ```
//!
//! The module keeps its loaded results and traces (thread-locals in its own memory) while the page
//! lives, so leaving for a task and coming back finds them again. Opening a task sets the address
//! bar's fragment, which the app follows.

use std::cell::RefCell;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use yew::prelude::*;

/// The module's glue script and wasm, next to index.html (Trunk's worker outputs keep their names).
pub const SCRIPT: &str = "analysis.js";
pub const WASM: &str = "./analysis_bg.wasm";
/// The global the module sets when it is ready.
const GLOBAL: &str = "cabritoAnalysis";
/// The mark set when the module is ready (for the benchmarks).
pub const READY_MARK: &str = "cabrito-analysis-ready";

// ---- the app's side ---------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq)]
enum Load {
    NotStarted,
    Loading,
    Ready,
    Failed,
}

/// Called once the module has loaded (or failed to).
type Waiter = Box<dyn FnOnce(Result<(), String>)>;

thread_local! {
    static LOAD: RefCell<Load> = const { RefCell::new(Load::NotStarted) };
    static WAITING: RefCell<Vec<Waiter>> = RefCell::new(Vec::new());
}

fn finish(r: Result<(), String>) {
    LOAD.with(|l| *l.borrow_mut() = if r.is_ok() { Load::Ready } else { Load::Failed });
    let waiting: Vec<_> = WAITING.with(|w| w.borrow_mut().drain(..).collect());
    for f in waiting {
        f(r.clone());
    }
}

/// Load the module once, then call `then` (at once if it is loaded).
fn ensure_loaded(then: impl FnOnce(Result<(), String>) + 'static) {
    let state = LOAD.with(|l| *l.borrow());
    match state {
        Load::Ready => return then(Ok(())),
        Load::Failed => {
            // Try again: the network may be back.
            LOAD.with(|l| *l.borrow_mut() = Load::NotStarted);
        }
        _ => {}
    }
    WAITING.with(|w| w.borrow_mut().push(Box::new(then)));
    if LOAD.with(|l| *l.borrow()) == Load::Loading {
        return;
    }
    LOAD.with(|l| *l.borrow_mut() = Load::Loading);
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return finish(Err("no document".into())) };
    let Ok(script) = doc.create_element("script") else { return finish(Err("cannot create a script".into())) };
    let _ = script.set_attribute("src", SCRIPT);
    let onload = Closure::once_into_js(move || {
        // The no-modules glue declares `wasm_bindgen` in the global scope.
        let start = js_sys::Function::new_no_args(&format!("return wasm_bindgen('{WASM}')"));
        let promise = match start.call0(&JsValue::NULL).map(|p| p.dyn_into::<js_sys::Promise>()) {
            Ok(Ok(p)) => p,
            _ => return finish(Err("the Results and Traces module did not start".into())),
        };
        wasm_bindgen_futures::spawn_local(async move {
            match wasm_bindgen_futures::JsFuture::from(promise).await {
                Ok(_) => finish(Ok(())),
                Err(e) => finish(Err(format!(
                    "the Results and Traces module failed to load: {}",
                    e.as_string().unwrap_or_else(|| format!("{e:?}"))
                ))),
            }
        });
    });
    let onerror = Closure::once_into_js(|| finish(Err(format!("{SCRIPT} could not be fetched"))));
    let _ = script.add_event_listener_with_callback("load", onload.unchecked_ref());
    let _ = script.add_event_listener_with_callback("error", onerror.unchecked_ref());
    if let Some(body) = doc.body() {
        let _ = body.append_child(&script);
    }
}

fn mount(root: &web_sys::Element, view: &str) -> Result<(), String> {
    let window = web_sys::window().ok_or("no window")?;
    let api = js_sys::Reflect::get(&window, &GLOBAL.into()).map_err(|_| "the module has no API")?;
    let f: js_sys::Function = js_sys::Reflect::get(&api, &"mount".into())
        .ok()
        .and_then(|f| f.dyn_into().ok())
        .ok_or("the module has no mount()")?;
    f.call2(&api, root, &JsValue::from_str(view)).map(|_| ()).map_err(|e| format!("mount failed: {e:?}"))
}

#[derive(Properties, PartialEq)]
pub struct HostProps {
    /// `results` or `traces`.
    pub view: AttrValue,
}

/// Where the lazily loaded view goes; loads the module, then mounts the view into itself.
#[function_component(AnalysisHost)]
pub fn analysis_host(p: &HostProps) -> Html {
    let root = use_node_ref();
    let error = use_state(|| None::<String>);
    {
        let (root, error) = (root.clone(), error.clone());
        use_effect_with(p.view.clone(), move |view| {
            let view = view.to_string();
            ensure_loaded(move |r| {
                let r = r.and_then(|_| match root.cast::<web_sys::Element>() {
                    Some(el) => mount(&el, &view),
                    // The reader already left the page.
                    None => Ok(()),
                });
                if let Err(e) = r {
                    error.set(Some(e));
                }
            });
        });
    }
    html! {
        <>
            if let Some(e) = &*error {
                <section id="analysis-error" class="error" role="alert"><h2>{ "This view cannot be shown" }</h2><p>{ e.clone() }</p></section>
            }
            <div id="analysis-root" ref={root} data-view={p.view.clone()}>
                <p class="loading">{ "Loading the results and traces views…" }</p>
            </div>
        </>
    }
}

// ---- the module's side ------------------------------------------------------------------------

#[derive(Properties, PartialEq)]
struct RootProps {
    view: AttrValue,
}

#[function_component(AnalysisRoot)]
fn analysis_root(p: &RootProps) -> Html {
    if p.view == "traces" {
        html! { <super::traces::TracesView /> }
    } else {
        html! { <super::results::ResultsView /> }
    }
}

thread_local! {
    static HANDLE: RefCell<Option<yew::AppHandle<AnalysisRoot>>> = const { RefCell::new(None) };
}

/// The module's entry: set `window.cabritoAnalysis = { mount(root, view) }`.
pub fn start() {
    yew::set_custom_panic_hook(Box::new(|info| {
        let text = format!("Cabrito's results and traces views stopped with an internal error: {info}");
        web_sys::console::error_1(&text.clone().into());
        if let Some(doc) = web_sys::window().and_then(|w| w.document()) {
            if let (Some(body), Ok(el)) = (doc.body(), doc.create_element("div")) {
                el.set_id("fatal");
                el.set_class_name("error fatal");
                el.set_text_content(Some(&format!("{text}. Reload the page.")));
                let _ = body.prepend_with_node_1(&el);
            }
        }
    }));
    let mount = Closure::<dyn Fn(web_sys::Element, String)>::new(|root: web_sys::Element, view: String| {
        HANDLE.with(|h| {
            if let Some(old) = h.borrow_mut().take() {
                old.destroy();
            }
            root.set_inner_html("");
            let app =
                yew::Renderer::<AnalysisRoot>::with_root_and_props(root, RootProps { view: view.into() }).render();
            *h.borrow_mut() = Some(app);
        });
    });
    let api = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&api, &"mount".into(), mount.as_ref());
    mount.forget();
    if let Some(w) = web_sys::window() {
        let _ = js_sys::Reflect::set(&w, &GLOBAL.into(), &api);
    }
    super::files::mark(READY_MARK);
}
