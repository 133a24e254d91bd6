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

use super::lazy::{self, Module};
use std::cell::RefCell;
use yew::prelude::*;

/// The module: its glue script and wasm, next to index.html (Trunk's worker outputs keep their names).
pub static MODULE: Module = Module {
    script: "analysis.js",
    wasm: "./analysis_bg.wasm",
    global: "cabritoAnalysis",
    what: "the Results and Traces module",
};
/// The mark set when the module is ready (for the benchmarks).
pub const READY_MARK: &str = "cabrito-analysis-ready";

// ---- the app's side ---------------------------------------------------------------------------

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
            lazy::ensure_loaded(&MODULE, move |r| {
                let r = r.and_then(|_| match root.cast::<web_sys::Element>() {
                    Some(el) => lazy::mount(&MODULE, &el, &view),
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
    lazy::panic_hook("results and traces views");
    // Its app is mounted inside the app's tree (`#analysis-root`): its subtrees must not share the app's numbers.
    lazy::separate_subtree_ids();
    lazy::expose(MODULE.global, |root: web_sys::Element, view: String| {
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
    super::files::mark(READY_MARK);
}
