//! Wasm modules the app loads when a page needs them (the Results and Traces pages and the agents
//! page: `pages.rs`; the generator's extra parts: `gen.rs`; the clustered call graph: `bigraph.rs`).
//! Trunk builds each from index.html's `data-type="worker"` link for its no-modules glue, which the
//! app runs in a function of its own (two modules' glue each declare `wasm_bindgen`), and the
//! module's start function puts its calls on `window` (`mount`, `generate`, `draw`…).
//! Also the page's timing helpers ([`when_idle`], [`next_frame`], [`after_paint`], [`use_painted`]).

use std::cell::RefCell;
use std::collections::HashMap;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

/// A lazily loaded module.
pub struct Module {
    /// Its glue script, next to index.html (Trunk's worker outputs keep their names).
    pub script: &'static str,
    /// Its wasm, relative to the page.
    pub wasm: &'static str,
    /// The global its start function sets.
    pub global: &'static str,
    /// What it is, for messages ("the Results and Traces module").
    pub what: &'static str,
}

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
    static STATE: RefCell<HashMap<&'static str, (Load, Vec<Waiter>)>> = RefCell::new(HashMap::new());
    /// The glue's response and the compiled wasm of the modules [`prefetch`] started.
    static EARLY: RefCell<HashMap<&'static str, (js_sys::Promise, js_sys::Promise)>> = RefCell::new(HashMap::new());
}

/// Start fetching a module's glue, and fetching and compiling its wasm (off the main thread), at once:
/// before a long task on the main thread (generating a big task), which would hold back
/// [`ensure_loaded`]'s own fetches until it ends. The next `ensure_loaded` takes them.
pub fn prefetch(m: &'static Module) {
    if state(m) != Load::NotStarted || EARLY.with(|e| e.borrow().contains_key(m.global)) {
        return;
    }
    let Some(w) = web_sys::window() else { return };
    let wasm = js_sys::WebAssembly::compile_streaming(&w.fetch_with_str(m.wasm));
    EARLY.with(|e| e.borrow_mut().insert(m.global, (w.fetch_with_str(m.script), wasm)));
}

fn state(m: &Module) -> Load {
    STATE.with(|s| s.borrow().get(m.global).map_or(Load::NotStarted, |e| e.0))
}

fn set_state(m: &Module, l: Load) {
    STATE.with(|s| s.borrow_mut().entry(m.global).or_insert((Load::NotStarted, Vec::new())).0 = l);
}

fn finish(m: &'static Module, r: Result<(), String>) {
    set_state(m, if r.is_ok() { Load::Ready } else { Load::Failed });
    let waiting: Vec<Waiter> =
        STATE.with(|s| s.borrow_mut().get_mut(m.global).map(|e| e.1.drain(..).collect()).unwrap_or_default());
    for f in waiting {
        f(r.clone());
    }
}

/// Whether the module has loaded (so asking for it costs nothing).
pub fn loaded(m: &Module) -> bool {
    state(m) == Load::Ready
}

/// Load the module once, then call `then` (at once if it is loaded).
pub fn ensure_loaded(m: &'static Module, then: impl FnOnce(Result<(), String>) + 'static) {
    match state(m) {
        Load::Ready => return then(Ok(())),
        // Try again: the network may be back.
        Load::Failed => set_state(m, Load::NotStarted),
        _ => {}
    }
    STATE.with(|s| s.borrow_mut().entry(m.global).or_insert((Load::NotStarted, Vec::new())).1.push(Box::new(then)));
    if state(m) == Load::Loading {
        return;
    }
    set_state(m, Load::Loading);
    let Some(window) = web_sys::window() else { return finish(m, Err("no window".into())) };
    // The glue's response and the wasm (its address, or its compiled module when prefetched).
    let (glue, wasm): (js_sys::Promise, JsValue) = match EARLY.with(|e| e.borrow_mut().remove(m.global)) {
        Some((glue, wasm)) => (glue, wasm.into()),
        None => (window.fetch_with_str(m.script), m.wasm.into()),
    };
    wasm_bindgen_futures::spawn_local(async move {
        let glue = match fetch_text(glue).await {
            Ok(g) => g,
            Err(e) => return finish(m, Err(format!("{} could not be fetched ({e})", m.script))),
        };
        // The no-modules glue declares `let wasm_bindgen` at its top level: run as a page script, a
        // second module's glue would clash with the first's (a page may load several), so it runs in
        // a function of its own, which starts the module's wasm.
        let start =
            js_sys::Function::new_with_args("w", &format!("{glue}\n;return wasm_bindgen({{module_or_path: w}});"));
        let promise = match start.call1(&JsValue::NULL, &wasm).map(|p| p.dyn_into::<js_sys::Promise>()) {
            Ok(Ok(p)) => p,
            _ => return finish(m, Err(format!("{} did not start", m.what))),
        };
        match wasm_bindgen_futures::JsFuture::from(promise).await {
            Ok(_) => finish(m, Ok(())),
            Err(e) => finish(
                m,
                Err(format!("{} failed to load: {}", m.what, e.as_string().unwrap_or_else(|| format!("{e:?}")))),
            ),
        }
    });
}

/// The text of a `fetch`'s response.
async fn fetch_text(response: js_sys::Promise) -> Result<String, String> {
    use wasm_bindgen_futures::JsFuture;
    let said = |e: JsValue| e.as_string().unwrap_or_else(|| format!("{e:?}"));
    let r: web_sys::Response = JsFuture::from(response).await.map_err(said)?.dyn_into().map_err(|_| "no response")?;
    if !r.ok() {
        return Err(format!("HTTP {}", r.status()));
    }
    JsFuture::from(r.text().map_err(said)?).await.map_err(said)?.as_string().ok_or_else(|| "no text".to_string())
}

/// Run `f` once the browser is idle (after the first paint), or in 200 ms without `requestIdleCallback`:
/// work the page does not need to be on screen and usable.
pub fn when_idle(f: Box<dyn FnOnce()>) {
    let Some(window) = web_sys::window() else { return };
    let f = Closure::once_into_js(f);
    if window.request_idle_callback(f.unchecked_ref()).is_err() {
        let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(f.unchecked_ref(), 200);
    }
}

/// Run `f` at the browser's next animation frame: after the current task (a render and its
/// effects), just before that frame's style and layout. What `f` reads of the layout is then the
/// layout the frame needs anyway, made once; read in a render's effects, it would be made there,
/// synchronously, inside the render's task.
pub fn next_frame(f: Box<dyn FnOnce()>) {
    if let Some(window) = web_sys::window() {
        let _ = window.request_animation_frame(Closure::once_into_js(f).unchecked_ref());
    }
}

/// Run `f` just after the browser's next paint: a timeout set from an animation frame runs after
/// that frame's paint.
pub fn after_paint(f: Box<dyn FnOnce()>) {
    next_frame(Box::new(move || {
        if let Some(window) = web_sys::window() {
            let f = Closure::once_into_js(f);
            let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(f.unchecked_ref(), 0);
        }
    }));
}

/// False in a component's first render, true from the render after the browser has painted it: a view
/// draws what a reader sees first and the rest in a later task, so no single task holds the page long.
#[yew::hook]
pub fn use_painted() -> bool {
    use_painted_after(1)
}

/// False until the browser has painted the component `paints` times (each later paint a task of its
/// own): what is drawn after a first screenful is spread over several tasks.
#[yew::hook]
pub fn use_painted_after(paints: u32) -> bool {
    let painted = yew::use_state_eq(|| false);
    {
        let painted = painted.clone();
        yew::use_effect_with((), move |_| after_paints(paints, Box::new(move || painted.set(true))));
    }
    *painted
}

/// Run `f` after the browser's next `n` paints.
fn after_paints(n: u32, f: Box<dyn FnOnce()>) {
    if n <= 1 {
        after_paint(f)
    } else {
        after_paint(Box::new(move || after_paints(n - 1, f)))
    }
}

/// Call the loaded module's `mount(root, arg)`.
pub fn mount(m: &Module, root: &web_sys::Element, arg: &str) -> Result<(), String> {
    let window = web_sys::window().ok_or("no window")?;
    let api = js_sys::Reflect::get(&window, &m.global.into()).map_err(|_| "the module has no API")?;
    let f: js_sys::Function = js_sys::Reflect::get(&api, &"mount".into())
        .ok()
        .and_then(|f| f.dyn_into().ok())
        .ok_or("the module has no mount()")?;
    f.call2(&api, root, &JsValue::from_str(arg)).map(|_| ()).map_err(|e| format!("mount failed: {e:?}"))
}

/// The module's side: put `mount(root, arg)` on `window[global]`.
pub fn expose(global: &str, mount: impl Fn(web_sys::Element, String) + 'static) {
    // (Its arguments are checked here: page script may call it with anything, and a value that is not
    // text, passed where wasm-bindgen expects text, traps inside the module.)
    let mount = Closure::<dyn Fn(JsValue, JsValue) -> Result<(), JsValue>>::new(move |root: JsValue, arg: JsValue| {
        match (root.dyn_into::<web_sys::Element>(), arg.as_string()) {
            (Ok(root), Some(arg)) => {
                mount(root, arg);
                Ok(())
            }
            (Err(_), _) => Err(JsValue::from_str("mount(root, arg): root is not an element")),
            (_, None) => Err(JsValue::from_str("mount(root, arg): arg is not text")),
        }
    });
    let api = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&api, &"mount".into(), mount.as_ref());
    mount.forget();
    if let Some(w) = web_sys::window() {
        let _ = js_sys::Reflect::set(&w, &global.into(), &api);
    }
}

/// Call the loaded module's function `name(arg)` and take its answer as it is: a structured value
/// (the `gen` module's `generate`: a `Uint8Array`, read by `playground::tape`).
pub fn call_value(m: &Module, name: &str, arg: &str) -> Result<JsValue, String> {
    let window = web_sys::window().ok_or("no window")?;
    let api = js_sys::Reflect::get(&window, &m.global.into()).map_err(|_| "the module has no API")?;
    let f: js_sys::Function = js_sys::Reflect::get(&api, &name.into())
        .ok()
        .and_then(|f| f.dyn_into().ok())
        .ok_or_else(|| format!("{} has no {name}()", m.what))?;
    f.call1(&api, &JsValue::from_str(arg)).map_err(|e| format!("{name}() failed: {e:?}"))
}

/// Call the loaded module's function `name(arg)`, which answers with text (the `gen` module's `why`).
pub fn call(m: &Module, name: &str, arg: &str) -> Result<String, String> {
    call_value(m, name, arg)?.as_string().ok_or_else(|| format!("{name}() did not answer with text"))
}

/// The module's side of [`call_value`]: put `name(arg) -> value` on `window[global]` (next to a
/// `mount` [`expose`] put there, if any).
pub fn expose_value(global: &str, name: &str, f: impl Fn(String) -> JsValue + 'static) {
    let Some(w) = web_sys::window() else { return };
    let api = js_sys::Reflect::get(&w, &global.into())
        .ok()
        .filter(|a| a.is_object())
        .unwrap_or_else(|| js_sys::Object::new().into());
    // (A value that is not text, passed where wasm-bindgen expects text, would trap inside the module:
    // page script may call this with anything, so the argument is checked here.)
    let name_for = name.to_string();
    let f = Closure::<dyn Fn(JsValue) -> Result<JsValue, JsValue>>::new(move |arg: JsValue| match arg.as_string() {
        Some(arg) => Ok(f(arg)),
        None => Err(JsValue::from_str(&format!("{name_for}(arg): arg is not text"))),
    });
    let _ = js_sys::Reflect::set(&api, &name.into(), f.as_ref());
    f.forget();
    let _ = js_sys::Reflect::set(&w, &global.into(), &api);
}

/// The module's side of [`call`]: put `name(arg) -> text` on `window[global]`.
pub fn expose_call(global: &str, name: &str, f: impl Fn(String) -> String + 'static) {
    expose_value(global, name, move |arg| JsValue::from(f(arg)));
}

/// Show a module's internal error on the page (its panic hook).
pub fn panic_hook(what: &'static str) {
    yew::set_custom_panic_hook(Box::new(move |info| {
        let text = format!("Cabrito's {what} stopped with an internal error: {info}");
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
}
