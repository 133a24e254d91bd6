//! The generator's extra parts ([`Extra`]: Merge Codebases, variable renaming, the
//! runtime-resolution, instruction-following and comment-copying axes) as a wasm module of their
//! own, so the app's first download carries none of them. The app's wasm is built without the cargo feature `gen-extra` (index.html), so its
//! `generate_full` answers a spec that needs one with an error naming it ([`crate::task::require`]);
//! the page then loads this module (built with every feature, like the CLI) after its first paint,
//! and the module generates the task with the same code and hands it over as one byte buffer
//! (`playground::handover`: what the app keeps of a task, read by hand; `playground::tape`: the
//! answer's `Value` as bytes, a `Uint8Array` across, with no JSON parser in the app), so the page
//! shows the same task byte for byte.
//!
//! ```text
//!  app (first download)                               gen module (src/bin/gen.rs, every feature)
//!  generate_full(spec) ─► Err(needs: Some(extra))
//!  show_there(spec) ── ensure_loaded(MODULE) ───────►  start(): window.cabritoGen = { generate }
//!                   ── call_value("generate", query) ►  made_for(query)
//!  Shown ◄── read_answer_tape(bytes) ◄── Uint8Array ────  answer_tape({ ok: encode(made) } | { error })
//! ```

use super::app::{now, Made, Shown};
use super::lazy::{self, Module};
use crate::axes::runtime::guard::Call;
use crate::playground::branches::{Outcome, StepRow};
use crate::playground::handover;
use crate::spec::TaskSpec;
use crate::task::Extra;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// The module: its glue script and wasm, next to index.html (Trunk's worker outputs keep their names).
pub static MODULE: Module =
    Module { script: "gen.js", wasm: "./gen_bg.wasm", global: "cabritoGen", what: "the generator module" };

/// The part of the generator this build lacks for a spec, if any (checked before anything is
/// generated, so a page can say at once what it waits for).
pub fn missing(spec: &TaskSpec) -> Option<Extra> {
    if crate::task::HAS_EXTRAS {
        None
    } else {
        crate::task::extra_of(spec)
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

/// The `performance.mark` the module sets when it has generated a task and starts handing it over.
pub const HANDOFF_START_MARK: &str = "cabrito-gen-handoff-start";
/// The `performance.measure` from [`HANDOFF_START_MARK`] to the task read in the app (the hand-over's
/// cost: the module writes the task on a tape and copies it out, the app copies it in and reads it).
pub const HANDOFF_MEASURE: &str = "cabrito-gen-handoff";

/// Generate a spec's task in the loaded module.
pub fn generate(spec: &TaskSpec) -> Result<Made, String> {
    // The spec as its link writes it, read by the link's parser; the task back on a tape, one copy
    // into the app's memory.
    let answer = lazy::call_value(&MODULE, "generate", &spec.to_query())?;
    let made = match answer.dyn_ref::<js_sys::Uint8Array>() {
        Some(bytes) => handover::read_answer_tape(&bytes.to_vec(), spec),
        None => Err(handover::cannot_read("not bytes".into())),
    };
    if let Some(p) = web_sys::window().and_then(|w| w.performance()) {
        let _ = p.measure_with_start_mark(HANDOFF_MEASURE, HANDOFF_START_MARK);
    }
    made
}

/// Generate a spec's task in the module (loading it first), timed like [`super::app::show`] (the
/// call only, not the load).
pub fn show_there(spec: TaskSpec, part: Extra, done: impl FnOnce(Result<Rc<Shown>, String>) + 'static) {
    load(part, move |r| {
        done(r.and_then(|()| {
            let start = now();
            let generated = generate(&spec)?;
            let millis = match (start, now()) {
                (Some(a), Some(b)) => Some(b - a),
                _ => None,
            };
            Ok(Rc::new(Shown { spec, generated, millis }))
        }))
    });
}

/// "Why this branch?" for a `check` call: its outcome and a page of its steps, asked of the loaded
/// module. The grade module's why panel calls it (`web::why`): the call's exact arithmetic (big
/// integers) belongs to the runtime axis, which the module has, and the runtime task on the page
/// came from the module, so it is loaded.
pub fn why(c: &Call, from: u32, count: u32) -> Result<(Outcome, Vec<StepRow>), String> {
    handover::read_why(&lazy::call(&MODULE, "why", &handover::why_request(c, from, count))?)
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
            load(part, move |r| match r {
                Err(e) => failed.set(Some(e)),
                Ok(()) => show_there(spec.clone(), part, move |r| on_done.emit((spec, r))),
            });
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

/// The module's entry: set `window.cabritoGen = { generate(spec query), why(call) }`
/// ([`handover::answer_tape`] as a `Uint8Array`, [`handover::why_answer`]: any text gets a task or an
/// error).
pub fn start() {
    lazy::expose_value(MODULE.global, "generate", |arg: String| {
        let made = handover::made_for(&arg);
        if let Some(p) = web_sys::window().and_then(|w| w.performance()) {
            let _ = p.mark(HANDOFF_START_MARK);
        }
        let tape = handover::answer_tape(&made);
        js_sys::Uint8Array::from(tape.as_slice()).into()
    });
    lazy::expose_call(MODULE.global, "why", |arg: String| handover::why_answer(&arg));
}
