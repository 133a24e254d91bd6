//! The playground in the browser (wasm only): a Yew app that reads a task spec from the URL
//! fragment, generates the task and shows it, and the lazily loaded modules' sides.
#![allow(clippy::disallowed_methods, clippy::disallowed_types, clippy::disallowed_macros)] // the shell: the DOM, the browser's clock

pub mod agents;
pub mod analysis;
pub mod app;
pub mod bigraph;
pub mod cards;
pub mod checker;
pub mod code;
pub mod editor;
pub mod files;
pub mod frame;
pub mod gallery;
pub mod gen;
pub mod grade;
pub mod graph;
pub mod inpage;
pub mod keys;
pub mod lazy;
pub mod merge;
pub mod pages;
pub mod results;
pub mod route;
pub mod scale;
pub mod share;
pub mod traces;
pub mod view;
pub mod why;

pub use app::App;

/// Id of the element the app renders into (index.html holds it, with a loading notice).
pub const ROOT_ID: &str = "app";

/// Start the app: install the panic notice, then draw the page in `#app` (`pages`).
pub fn start() {
    yew::set_custom_panic_hook(Box::new(|info| {
        let text = format!("Cabrito stopped with an internal error: {info}");
        web_sys::console::error_1(&text.clone().into());
        show_fatal(&text);
    }));
    // Each in a task of its own: the link's task is generated apart from the wasm's instantiation,
    // and the page's first render apart from both.
    gloo::timers::callback::Timeout::new(0, || {
        app::prepare_first();
        gloo::timers::callback::Timeout::new(0, pages::start).forget();
    })
    .forget();
}

/// A random 64-bit number from the browser's `crypto.getRandomValues` (through `getrandom`), for new
/// seeds and job ids: only the choice is random, never what a seed generates. A browser without
/// Web Crypto (none that runs this app) falls back to `Math.random`.
pub fn random_u64() -> u64 {
    getrandom::u64().unwrap_or_else(|_| (js_sys::Math::random() * 9_007_199_254_740_992.0) as u64)
}

/// Enter or Space on a focused element that is not a button (a table row, a list item made
/// clickable) does what its click does; keys pressed inside its controls are theirs.
pub fn on_activate(action: yew::Callback<()>) -> yew::Callback<web_sys::KeyboardEvent> {
    yew::Callback::from(move |e: web_sys::KeyboardEvent| {
        let own = match (e.target(), e.current_target()) {
            (Some(t), Some(c)) => t == c,
            _ => false,
        };
        if own && (e.key() == "Enter" || e.key() == " ") {
            e.prevent_default();
            action.emit(());
        }
    })
}

/// A text with its `backticked` parts as code (`playground::words::code_spans`).
pub fn text_with_code(text: &str) -> yew::Html {
    use yew::html;
    html! {
        { for crate::playground::words::code_spans(text).into_iter().map(|(code, part)| {
            if code { html! { <code>{ part.to_string() }</code> } } else { html! { { part.to_string() } } }
        }) }
    }
}

/// Put a visible notice at the top of the page, so that even an internal error never leaves a
/// blank page.
fn show_fatal(text: &str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
    let Some(body) = doc.body() else { return };
    if let Ok(el) = doc.create_element("div") {
        el.set_id("fatal");
        el.set_class_name("error fatal");
        el.set_attribute("role", "alert").ok();
        el.set_text_content(Some(&format!(
            "{text}. Reload the page, or open the default task: {}",
            cabrito_gen::task::link(&cabrito_gen::TaskSpec::default())
        )));
        let _ = body.prepend_with_node_1(&el);
    }
}
