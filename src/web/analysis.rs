//! The Results and Traces pages as a module of their own (`src/bin/analysis.rs`), loaded when a
//! reader opens `#/results` or `#/traces` (`web::pages`): its app draws the whole page, header
//! included. It keeps its loaded results and traces while the page lives, so leaving for a task and
//! coming back finds them again.

use super::frame::Frame;
use super::lazy::{self, Module};
use super::route::{self, Route};
use cabrito_gen::TaskSpec;
use std::cell::RefCell;
use wasm_bindgen::JsValue;
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

#[derive(Properties, PartialEq)]
struct PageProps {
    /// The page's fragment (`#/results` or `#/traces`).
    fragment: AttrValue,
}

#[function_component(AnalysisPage)]
fn analysis_page(p: &PageProps) -> Html {
    let traces = route::parse(&p.fragment) == Route::Traces;
    let title = if traces { "Traces · Cabrito" } else { "Results · Cabrito" };
    html! {
        <Frame spec={TaskSpec::default()} title={title}>
            if traces {
                <super::traces::TracesView />
            } else {
                <super::results::ResultsView />
            }
        </Frame>
    }
}

thread_local! {
    static HANDLE: RefCell<Option<yew::AppHandle<AnalysisPage>>> = const { RefCell::new(None) };
}

fn unmount() {
    if let Some(old) = HANDLE.with(|h| h.borrow_mut().take()) {
        old.destroy();
    }
}

/// The module's entry: `window.cabritoAnalysis = { mount(root, fragment), unmount() }`.
pub fn start() {
    lazy::panic_hook("results and traces views");
    lazy::expose(MODULE.global, |root: web_sys::Element, fragment: String| {
        unmount();
        root.set_inner_html("");
        let app =
            yew::Renderer::<AnalysisPage>::with_root_and_props(root, PageProps { fragment: fragment.into() }).render();
        HANDLE.with(|h| *h.borrow_mut() = Some(app));
    });
    lazy::expose_value(MODULE.global, "unmount", |_| {
        unmount();
        JsValue::UNDEFINED
    });
    super::files::mark(READY_MARK);
}
