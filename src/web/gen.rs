//! The generator's extra parts ([`Extra`]) as a lazy wasm module: the app's first download is built
//! without them (Lighthouse mobile ≥ 90 on the gallery and task pages), and the module makes a task that
//! needs one with the same code, in a Web Worker, sending it back as bytes ([`gen_answer`]).
//! `index.html`'s first script starts that worker at once for a link that needs it ([`EARLY`]).

use super::app::{now, Made, Shown};
use super::files::mark;
use super::lazy::{self, Module};
use crate::playground::branches::{GuardOutcome, StepRow};
use crate::playground::gen_answer;
use cabrito_gen::axes::runtime::guard::GuardCall;
use cabrito_gen::spec::TaskSpec;
use cabrito_gen::task::Extra;
use std::rc::Rc;
use wasm_bindgen::{JsCast, JsValue};
use yew::prelude::*;

/// The module: its glue script and wasm, next to index.html (Trunk's worker outputs keep their names).
pub static MODULE: Module =
    Module { script: "gen.js", wasm: "./gen_bg.wasm", global: "cabritoGen", what: "the generator module" };

/// The part of the generator this build lacks for a spec, if any (checked before anything is
/// generated, so a page can say at once what it waits for).
pub fn missing(spec: &TaskSpec) -> Option<Extra> {
    if cabrito_gen::task::HAS_EXTRAS {
        None
    } else {
        cabrito_gen::task::extra_of(spec)
    }
}

/// Whether the module has loaded (a page that needed it before, in this visit).
pub fn loaded() -> bool {
    lazy::loaded(&MODULE)
}

/// Load the module (once), then call `then`; a failure says which part could not be loaded.
pub fn load(part: Extra, then: impl FnOnce(Result<(), String>) + 'static) {
    lazy::ensure_loaded(&MODULE, move |r| {
        then(r.map_err(|e| format!("{} (a module of its own) could not be loaded: {e}", part.what())))
    });
}

/// The `performance.mark` set on the page when a task is generated and its hand-over starts: for
/// [`show_there`], when the worker's reply arrives on the page; for [`generate`] on the main thread,
/// once the task is generated, before it is written.
pub const HANDOFF_START_MARK: &str = "cabrito-gen-handoff-start";
/// The `performance.measure` from [`HANDOFF_START_MARK`] to the task read in the app.
pub const HANDOFF_MEASURE: &str = "cabrito-gen-handoff";

/// Generate a spec's task in the loaded module, on the main thread (the scale page's rows).
pub fn generate(spec: &TaskSpec) -> Result<Made, String> {
    // The spec as its link writes it, read by the link's parser.
    read(lazy::call_value(&MODULE, "generate", &spec.to_query())?, spec)
}

/// Read the module's answer (bytes) into the app.
fn read(answer: JsValue, spec: &TaskSpec) -> Result<Made, String> {
    let made = match answer.dyn_ref::<js_sys::Uint8Array>() {
        Some(bytes) => gen_answer::read_answer(&bytes.to_vec(), spec),
        None => Err(gen_answer::cannot_read("not bytes".into())),
    };
    if let Some(p) = web_sys::window().and_then(|w| w.performance()) {
        let _ = p.measure_with_start_mark(HANDOFF_MEASURE, HANDOFF_START_MARK);
    }
    made
}

/// What a page waiting for a task from the module is called with.
type Done = Box<dyn FnOnce(Result<Rc<Shown>, String>)>;

/// Generate a spec's task in the module's worker (loading the module first), timed like
/// [`super::app::show`] (from the request to the reply read, not the load): the page's main thread
/// only reads the answer.
pub fn show_there(spec: TaskSpec, part: Extra, done: impl FnOnce(Result<Rc<Shown>, String>) + 'static) {
    there(spec, part, Box::new(done));
}

fn there(spec: TaskSpec, part: Extra, done: Done) {
    load(part, move |r| {
        let start = now();
        let asked = r.and_then(|()| lazy::call_value(&MODULE, "spawn", &spec.to_query()));
        wasm_bindgen_futures::spawn_local(
            async move { done(settled(asked).await.and_then(|a| shown(a, spec, start))) },
        );
    });
}

/// The task page's task from the worker index.html's first script started ([`early`]); if that
/// worker failed (say, the browser refused it), from the module's own ([`there`]). The module is not
/// loaded on the page for it: what needs it later loads it.
fn from_early(spec: TaskSpec, part: Extra, (answer, record): (js_sys::Promise, JsValue), done: Done) {
    wasm_bindgen_futures::spawn_local(async move {
        match settled(Ok(answer.into())).await {
            Ok(bytes) => {
                mark(HANDOFF_START_MARK);
                // As if asked now: what generating took in the worker, not the wait for the app.
                let took = js_sys::Reflect::get(&record, &"took".into()).ok().and_then(|t| t.as_f64());
                done(shown(bytes, spec, now().zip(took).map(|(now, took)| now - took)))
            }
            Err(_) => there(spec, part, done),
        }
    });
}

/// The task read from the module's answer, timed from `start` (when it was asked) to now.
fn shown(bytes: JsValue, spec: TaskSpec, start: Option<f64>) -> Result<Rc<Shown>, String> {
    let generated = read(bytes, &spec)?;
    let millis = match (start, now()) {
        (Some(a), Some(b)) => Some(b - a),
        _ => None,
    };
    Ok(Rc::new(Shown { spec, generated, millis }))
}

/// What a promise settles with (a rejection's reason as text).
async fn settled(promise: Result<JsValue, String>) -> Result<JsValue, String> {
    wasm_bindgen_futures::JsFuture::from(js_sys::Promise::from(promise?))
        .await
        .map_err(|e| e.as_string().unwrap_or_else(|| format!("{e:?}")))
}

/// The global index.html's first script sets when the page opens on a task link whose task this
/// module makes: it starts the module's worker at once, beside the app's own download, and the worker
/// makes the link's task as soon as the module has started, without waiting for the page
/// (`{ query, answer, took }`: the link's query, a promise of the worker's answer, and once it has
/// answered with one, the milliseconds the worker took to make it). The app marks it `taken`.
pub const EARLY: &str = "cabritoEarly";

/// The early answer and its record, if the page opened on `spec`'s link (taken at the first call:
/// the page's first task from the module is its link's).
fn early(spec: &TaskSpec) -> Option<(js_sys::Promise, JsValue)> {
    use crate::playground::route::{parse, Route, TASK_PATH};
    let early = js_sys::Reflect::get(&web_sys::window()?.into(), &EARLY.into()).ok().filter(JsValue::is_object)?;
    let get = |key: &str| js_sys::Reflect::get(&early, &key.into()).ok();
    if get("taken")?.is_truthy() {
        return None;
    }
    let _ = js_sys::Reflect::set(&early, &"taken".into(), &JsValue::TRUE);
    let query = get("query")?.as_string()?;
    match parse(&format!("{TASK_PATH}?{query}")) {
        Route::Task(s) if s == *spec => Some((get("answer")?.dyn_into().ok()?, early)),
        _ => None,
    }
}

/// "Why this branch?" for a `check` call: its outcome and a page of its steps, asked of the loaded
/// module (`web::why`; the call's exact arithmetic belongs to the runtime axis, which it has).
pub fn why(c: &GuardCall, from: u32, count: u32) -> Result<(GuardOutcome, Vec<StepRow>), String> {
    gen_answer::read_why(&lazy::call(&MODULE, "why", &gen_answer::why_request(c, from, count))?)
}

#[derive(Properties, PartialEq)]
pub struct WaitingProps {
    pub spec: TaskSpec,
    pub part: Extra,
    /// The task, or why it cannot be generated.
    pub on_done: Callback<(TaskSpec, Result<Rc<Shown>, String>)>,
}

/// A task page whose spec needs a part of the generator the first download left out: says what it
/// waits for, loads the module, then hands the task to the app; if the module cannot be fetched it
/// says so (the header, the controls and every other page keep working).
#[function_component(Waiting)]
pub fn waiting(p: &WaitingProps) -> Html {
    let failed = use_state(|| None::<String>);
    {
        let (failed, on_done, part) = (failed.clone(), p.on_done.clone(), p.part);
        use_effect_with(p.spec.clone(), move |spec| {
            failed.set(None);
            let spec = spec.clone();
            match early(&spec) {
                Some(e) => from_early(spec.clone(), part, e, Box::new(move |r| on_done.emit((spec, r)))),
                None => load(part, move |r| match r {
                    Err(e) => failed.set(Some(e)),
                    Ok(()) => show_there(spec.clone(), part, move |r| on_done.emit((spec, r))),
                }),
            }
        });
    }
    match &*failed {
        Some(e) => html! {
            <section id="gen-error" class="error" role="alert">
                <h2>{ "This task cannot be shown" }</h2>
                <p>{ e.clone() }</p>
                <p>{ "Other tasks and pages still work; reload the page to try again." }</p>
            </section>
        },
        None => super::view::task_placeholder("gen-loading", format!("Loading {}…", p.part.what())),
    }
}

// ---- the module's side ------------------------------------------------------------------------

/// The module's entry. On the page: set `window.cabritoGen = { generate(spec query), why(call),
/// spawn(spec query) }` ([`gen_answer::answer_bytes`] as a `Uint8Array`, [`gen_answer::why_answer`]:
/// any text gets a task or an error; `spawn` the same answer from the module's worker, as a
/// promise). In the worker `spawn` starts (the same module, its compiled wasm passed on): answer its
/// requests.
pub fn start() {
    if let Ok(scope) = js_sys::global().dyn_into::<web_sys::DedicatedWorkerGlobalScope>() {
        return worker::serve(scope);
    }
    lazy::expose_value(MODULE.global, "generate", |arg: String| answer(&arg, true).into());
    lazy::expose_call(MODULE.global, "why", |arg: String| gen_answer::why_answer(&arg));
    lazy::expose_value(MODULE.global, "spawn", |arg: String| worker::spawn(arg).into());
}

/// A spec query's task (or error) as the module answers; on the page, [`HANDOFF_START_MARK`] once
/// generated.
fn answer(query: &str, on_page: bool) -> js_sys::Uint8Array {
    let made = gen_answer::made_for(query);
    if on_page {
        mark(HANDOFF_START_MARK);
    }
    js_sys::Uint8Array::from(gen_answer::answer_bytes(made).as_slice())
}

/// The generator's worker: the page's `spawn` and the worker's side. Generating a big task would hold
/// the main thread; in the worker, the page only reads the answer.
///
/// ```text
///  page (this module, main thread)                     worker (this module again)
///  spawn(query) ─ new Worker(blob: importScripts(gen.js))
///               ─ postMessage(wasm_bindgen::module()) ► wasm_bindgen({module_or_path}) ─► start():
///  (requests wait in a queue) ◄──────────────────────── "ready"        onmessage = serve
///               ─ [id, query] ─────────────────────────► made_for(query), answer_bytes
///  mark HANDOFF_START_MARK, resolve ◄────────────────── [id, Uint8Array, ms] (its buffer transferred;
///                                                        ms: what making it took, read by index.html)
///  reject every pending request, drop the worker ◄───── any other text (a panic, a failed start)
///                                                        or the worker's error event (a trap)
/// ```
///
/// [`HANDOFF_START_MARK`] is set on the page when the worker's reply arrives (the worker's marks
/// are on a timeline of its own), so [`HANDOFF_MEASURE`] is the reply's arrival to the task read.
/// Without `Worker` (or when the browser refuses to make one) `spawn` generates on the main thread,
/// as `generate` does.
mod worker {
    use super::{answer, mark, HANDOFF_START_MARK, MODULE};
    use js_sys::{Array, Function, Promise, Uint8Array};
    use std::cell::RefCell;
    use std::collections::HashMap;
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::{JsCast, JsValue};
    use web_sys::{DedicatedWorkerGlobalScope, MessageEvent, Worker};

    /// What the worker posts once it listens.
    const READY: &str = "ready";

    // ---- the worker's side ----

    /// Answer every `[id, query]` with `[id, answer bytes, milliseconds it took]` (`[id, text]` for a message
    /// that is not one), after saying [`READY`]; a panic posts its text (the page then drops the worker).
    pub fn serve(scope: DedicatedWorkerGlobalScope) {
        {
            let scope = scope.clone();
            std::panic::set_hook(Box::new(move |info| {
                let why = format!("the generator stopped with an internal error: {info}");
                let _ = scope.post_message(&JsValue::from(why));
            }));
        }
        let reply = scope.clone();
        let onmessage = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
            let data = e.data();
            let id = js_sys::Reflect::get(&data, &0.into()).unwrap_or_default();
            match js_sys::Reflect::get(&data, &1.into()).ok().and_then(|q| q.as_string()) {
                Some(query) => {
                    let start = js_sys::Date::now();
                    let bytes = answer(&query, false);
                    let took = JsValue::from(js_sys::Date::now() - start);
                    let _ =
                        reply.post_message_with_transfer(&Array::of3(&id, &bytes, &took), &Array::of1(&bytes.buffer()));
                }
                None => {
                    let _ = reply.post_message(&Array::of2(&id, &"the request is not [id, spec query]".into()));
                }
            }
        });
        scope.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
        // The handler lives as long as the worker.
        onmessage.forget();
        let _ = scope.post_message(&READY.into());
    }

    // ---- the page's side ----

    #[derive(Default)]
    struct Client {
        /// The worker, once made (dropped when it fails), and its blob URL until it is ready.
        worker: Option<(Worker, String)>,
        ready: bool,
        /// Requests made before the worker was ready.
        queue: Vec<Array>,
        /// Each request's `resolve` and `reject`.
        pending: HashMap<u32, (Function, Function)>,
        next_id: u32,
        /// Which worker the handlers belong to (a failed worker's late messages are ignored).
        generation: u32,
    }

    thread_local! {
        static CLIENT: RefCell<Client> = RefCell::default();
    }

    fn text(e: &JsValue) -> String {
        e.as_string().unwrap_or_else(|| format!("{e:?}"))
    }

    /// A spec query's answer from the worker (made at the first call), as a promise: it resolves with
    /// the `Uint8Array` and rejects with a text saying what failed.
    pub fn spawn(query: String) -> Promise {
        // Without a worker (none in this browser, or it refused to make one): here, on the page.
        let here = |query: &str| Promise::resolve(&JsValue::from(answer(query, true)));
        if !js_sys::Reflect::has(&js_sys::global(), &"Worker".into()).unwrap_or(false) {
            return here(&query);
        }
        if CLIENT.with(|c| c.borrow().worker.is_none()) {
            match new_worker() {
                Ok(made) => CLIENT.with(|c| {
                    let mut c = c.borrow_mut();
                    c.worker = Some(made);
                    c.ready = false;
                }),
                Err(_) => return here(&query),
            }
        }
        let mut settle = None;
        let promise = Promise::new(&mut |resolve, reject| settle = Some((resolve, reject)));
        let (worker, message) = CLIENT.with(|c| {
            let mut c = c.borrow_mut();
            c.next_id = c.next_id.wrapping_add(1);
            let id = c.next_id;
            if let Some(s) = settle.take() {
                c.pending.insert(id, s);
            }
            let message = Array::of2(&id.into(), &query.into());
            if c.ready {
                (c.worker.as_ref().map(|w| w.0.clone()), message)
            } else {
                c.queue.push(message.clone());
                (None, message)
            }
        });
        if let Some(w) = worker {
            if let Err(e) = w.post_message(&message) {
                fail(&format!("a request could not be posted to it ({})", text(&e)));
            }
        }
        promise
    }

    /// The worker, from a blob script that imports the module's glue and starts it with the page's
    /// compiled wasm (its first message): neither is fetched or compiled again.
    fn new_worker() -> Result<(Worker, String), JsValue> {
        let page = web_sys::window().ok_or("no window")?.location().href()?;
        let glue = web_sys::Url::new_with_base(MODULE.script, &page)?.href();
        let script = format!(
            "onmessage = e => {{ onmessage = null; \
               try {{ importScripts({glue:?}); }} catch (x) {{ postMessage('its script could not be loaded: ' + x); return; }} \
               wasm_bindgen({{module_or_path: e.data}}).catch(x => postMessage('it could not start: ' + x)); }};"
        );
        let options = web_sys::BlobPropertyBag::new();
        options.set_type("text/javascript");
        let blob = web_sys::Blob::new_with_str_sequence_and_options(&Array::of1(&script.into()), &options)?;
        let url = web_sys::Url::create_object_url_with_blob(&blob)?;
        let worker = Worker::new(&url)?;
        let generation = CLIENT.with(|c| c.borrow().generation);
        let onmessage = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
            if CLIENT.with(|c| c.borrow().generation) == generation {
                heard(e.data());
            }
        });
        let onerror = Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
            if CLIENT.with(|c| c.borrow().generation) == generation {
                let why = e
                    .dyn_ref::<web_sys::ErrorEvent>()
                    .map(|e| e.message())
                    .filter(|m| !m.is_empty())
                    .unwrap_or_else(|| "it stopped".into());
                fail(&why);
            }
        });
        worker.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
        worker.set_onerror(Some(onerror.as_ref().unchecked_ref()));
        // (A worker's handlers are made once per worker: only a failed worker leaves them behind.)
        onmessage.forget();
        onerror.forget();
        if let Err(e) = worker.post_message(&wasm_bindgen::module()) {
            worker.terminate();
            let _ = web_sys::Url::revoke_object_url(&url);
            return Err(e);
        }
        Ok((worker, url))
    }

    /// A message from the worker: [`READY`], a reply, or why it failed.
    fn heard(data: JsValue) {
        if let Some(said) = data.as_string() {
            if said != READY {
                return fail(&said);
            }
            let (worker, queue) = CLIENT.with(|c| {
                let mut c = c.borrow_mut();
                c.ready = true;
                (c.worker.clone(), std::mem::take(&mut c.queue))
            });
            let worker = worker.map(|(w, url)| {
                let _ = web_sys::Url::revoke_object_url(&url);
                w
            });
            for message in queue {
                if let Some(Err(e)) = worker.as_ref().map(|w| w.post_message(&message)) {
                    return fail(&format!("a request could not be posted to it ({})", text(&e)));
                }
            }
            return;
        }
        let id = js_sys::Reflect::get(&data, &0.into()).ok().and_then(|i| i.as_f64()).unwrap_or(-1.0);
        let answer = js_sys::Reflect::get(&data, &1.into()).unwrap_or_default();
        let Some((resolve, reject)) = CLIENT.with(|c| c.borrow_mut().pending.remove(&(id as u32))) else { return };
        if answer.is_instance_of::<Uint8Array>() {
            mark(HANDOFF_START_MARK);
            let _ = resolve.call1(&JsValue::NULL, &answer);
        } else {
            let _ = reject.call1(&JsValue::NULL, &format!("the generator's worker: {}", text(&answer)).into());
        }
    }

    /// The worker failed: reject every request waiting for it and drop it (the next `spawn` makes
    /// a new one).
    fn fail(why: &str) {
        let (worker, pending) = CLIENT.with(|c| {
            let mut c = c.borrow_mut();
            c.generation = c.generation.wrapping_add(1);
            c.ready = false;
            c.queue.clear();
            (c.worker.take(), std::mem::take(&mut c.pending))
        });
        if let Some((w, url)) = worker {
            w.terminate();
            let _ = web_sys::Url::revoke_object_url(&url);
        }
        let why = JsValue::from(format!("{} failed in its worker: {why}", MODULE.what));
        for (_, (_, reject)) in pending {
            let _ = reject.call1(&JsValue::NULL, &why);
        }
    }
}
