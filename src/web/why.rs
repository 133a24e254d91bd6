//! "Why this branch?": a runtime task's guard worked out, so a class can see what an agent would have to
//! compute. For a function: the guards on the way to the branch that runs, each with its value; for
//! the chosen guard: each `check` call's start value, its steps a page at a time (10,000 steps are never
//! drawn at once), the final parity against the target, and the XOR of the calls.
//!
//! The panel is never on a first paint (runtime tasks come from the `gen` module, and it opens on a
//! click), so the grade module draws it, as it draws the Diff tab's rows (`code::DiffView`). The app
//! keeps a host element in the Why tab (`view::TaskView`, `#why-root`, hidden while the tab lists the
//! functions) and [`show`]: on each click that opens the panel it hands the grade module the guard,
//! the function and the task ([`handover::why_task`]: the task as the app already writes it for its
//! hash) through `window.cabritoWhy.mount`, loading the module first if the page's idle load has not
//! (saying so in the panel meanwhile), and the `gen` module, which works each call out. The module draws a new panel for each mount; picking another
//! guard and paging are the module's own. What the app must hear back is the panel's Close button
//! (`#why-close`): it listens for clicks on the host itself, since the module's elements are not the
//! app's Yew's.
//!
//! ```text
//!  app (first download)                                 grade module (src/bin/grade.rs)
//!  <div id="why-root" hidden>
//!  show(): ensure_loaded(grade) ─────────────────────►  start(): window.cabritoWhy = { mount }
//!          mount(root, "guard\nfunction\n{task}") ───►  WhyBody in root (a new one each time)
//!                                                          each call's steps: window.cabritoGen.why
//!  a click on #why-root #why-close ─► close (the function list again)
//! ```

use super::lazy::{self, Module};
use crate::playground::handover;
use cabrito_gen::axes::runtime::FunctionBranches;
use cabrito_gen::task::Task;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// Steps shown per page.
pub const PAGE: u32 = 50;

/// The global the grade module puts the panel's `mount(root, task)` on (the module that has it; the
/// app loads it as `grade::MODULE`).
static WHY: Module = Module { global: "cabritoWhy", what: "the why panel", ..super::grade::MODULE };

/// The attribute that marks a host the app listens on.
const HEARD: &str = "data-heard";

/// Put a notice in `el` (the app's loading and error notices, the module's error): a paragraph
/// with the text and, for an error, the panel's Close button.
fn notice(el: &web_sys::Element, error: bool, text: &str) {
    el.set_inner_html(if error {
        r#"<p id="why-error" class="error" role="alert"><span></span> <button id="why-close" type="button" class="button small ghost">Close</button></p>"#
    } else {
        r#"<p id="why-loading" class="hint" role="status"><span></span></p>"#
    });
    if let Ok(Some(span)) = el.query_selector("span") {
        span.set_text_content(Some(text));
    }
}

/// The app's side: open the panel in the host `root` for `function`'s guard (pre-order index) of
/// `task`; `open` is the Why tab's state, which a click on the panel's Close button sets to false.
pub fn show(root: &NodeRef, task: &Task, function: &str, guard: usize, open: UseStateHandle<bool>) {
    let Some(el) = root.cast::<web_sys::Element>() else { return };
    if !el.has_attribute(HEARD) {
        let _ = el.set_attribute(HEARD, "");
        gloo::events::EventListener::new(&el, "click", move |e| {
            let target = e.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok());
            if target.is_some_and(|t| t.closest("#why-close").ok().flatten().is_some()) {
                open.set(false);
            }
        })
        .forget();
    }
    if !lazy::loaded(&super::grade::MODULE) || !lazy::loaded(&super::gen::MODULE) {
        notice(&el, false, "Loading the “why this branch?” panel…");
    }
    let text = handover::why_task(task, function, guard);
    // The panel works each call out with the generator module (`gen::why`), which a task opened by
    // its link never loaded on the page (its worker made the task: `gen::EARLY`).
    lazy::ensure_loaded(&super::gen::MODULE, move |g| {
        lazy::ensure_loaded(&super::grade::MODULE, move |r| {
            if let Err(e) = g.and(r).and_then(|()| lazy::mount(&WHY, &el, &text)) {
                notice(&el, true, &format!("“Why this branch?” cannot be shown: {e}."));
            }
        })
    });
}

// ---- the grade module's side ------------------------------------------------------------------

fn side(v: bool) -> &'static str {
    if v {
        "if"
    } else {
        "else"
    }
}

/// The guards on the way to the running leaf, as (pre-order index, value).
fn path_guards(f: &FunctionBranches) -> Vec<(usize, bool)> {
    let levels = f.path.len() as u32;
    let (mut at, mut out) = (0usize, Vec::new());
    for (i, &v) in f.path.iter().enumerate() {
        out.push((at, v));
        at += if v { 1 } else { 1usize << (levels - 1 - i as u32) };
    }
    out
}

#[derive(Properties, PartialEq)]
pub struct BodyProps {
    /// The function's runtime record, as read by [`handover::why_task_read`] (so every guard the
    /// panel walks is there).
    pub function: Rc<FunctionBranches>,
    /// The guard to explain first (pre-order index).
    pub guard: usize,
}

/// The grade module's panel: the guard worked out, a page of each call's steps at a time.
#[function_component(WhyBody)]
pub fn why_body(p: &BodyProps) -> Html {
    // A new panel is drawn for each mount, so these start from the props.
    let chosen = use_state(|| p.guard);
    let page = use_state(|| 1u32);
    let f = &*p.function;
    let Some(guard) = f.guards.get(*chosen) else { return html! {} };
    let steps = guard.calls.first().map_or(0, |c| c.steps);
    let last_page = steps.div_ceil(PAGE).max(1);
    let go = |to: u32| {
        let page = page.clone();
        Callback::from(move |_: MouseEvent| page.set(to.clamp(1, last_page)))
    };
    let jump = {
        let page = page.clone();
        Callback::from(move |e: Event| {
            let el: HtmlInputElement = e.target_unchecked_into();
            if let Ok(step) = el.value().trim().parse::<u32>() {
                page.set((step.max(1) - 1) / PAGE + 1);
            }
        })
    };
    let from = (*page - 1) * PAGE + 1;
    let on_path = path_guards(f);
    let value_of = |b: bool| if b { "True" } else { "False" };
    html! {
        <section id="why" class="panel why" aria-label="Why this branch?">
            <div class="panel-head">
                <h2>{ format!("Why does {}() run {}?", f.name, f.describe()) }</h2>
                // The app hears a click on it (`show`).
                <button id="why-close" type="button" class="button small ghost">{ "Close" }</button>
            </div>
            <p class="why-path">
                { "On the way to the branch that runs: " }
                { for on_path.iter().map(|&(g, v)| {
                    let (pick, page) = (chosen.clone(), page.clone());
                    let onclick = Callback::from(move |_: MouseEvent| {
                        pick.set(g);
                        page.set(1);
                    });
                    html! {
                        <button type="button" class={classes!("button", "small", "ghost", (g == *chosen).then_some("active"))}
                            data-guard={g.to_string()} {onclick}>
                            { format!("guard {} is {} → {}", g + 1, value_of(v), side(v)) }
                        </button>
                    }
                }) }
            </p>
            <p id="why-guard" class="why-guard">{ super::view::text_el("code", None, guard.source()) }</p>
            { for guard.calls.iter().enumerate().map(|(i, c)| {
                // (Worked out where the runtime generator is: the `gen` module's `why`.)
                let (o, rows) = match super::gen::why(c, from, PAGE) {
                    Ok(w) => w,
                    Err(e) => return html! { <p class="error" data-call={i.to_string()}>{ e }</p> },
                };
                html! {
                    <div class="why-call" data-call={i.to_string()}>
                        <p>
                            { format!("check({}, {}, {}, {}, num_steps={}): start at x = {}; ", c.x, c.a, c.b, c.target, c.steps, c.x) }
                            { format!("an even x becomes x // 2, an odd x becomes {} · x + {}.", c.a, c.b) }
                        </p>
                        <table class="why-steps">
                            <thead><tr>{ super::view::text_el("th", None, "step") }{ super::view::text_el("th", None, "x before") }{ super::view::text_el("th", None, "parity") }{ super::view::text_el("th", None, "then") }</tr></thead>
                            <tbody>
                                { for rows.iter().map(|r| html! {
                                    <tr class={if r.odd { "odd" } else { "even" }}>
                                        <td>{ r.step }</td>
                                        { super::view::text_el("td", Some("value"), r.value.clone()) }
                                        <td>{ if r.odd { "odd" } else { "even" } }</td>
                                        { super::view::text_el("td", None, r.action.clone()) }
                                    </tr>
                                }) }
                            </tbody>
                        </table>
                        <p id={format!("why-result-{i}")} class="why-result">
                            { format!(
                                "After {} steps ({} of them odd; the value reaches {} digits) x = {}, which is {} ({}). The target is {}, so this call returns {}.",
                                c.steps, o.odd_steps, o.most_digits, o.last,
                                if o.parity == 1 { "odd" } else { "even" }, o.parity, c.target, value_of(o.value)
                            ) }
                        </p>
                    </div>
                }
            }) }
            if guard.calls.len() > 1 {
                <p class="why-xor">
                    { format!("The calls are joined by ^ (exclusive or): the guard is {}.", value_of(guard.value)) }
                </p>
            }
            <p class="why-verdict">
                { format!("So the condition is {} and the {} side is taken.", value_of(guard.value), side(guard.value)) }
            </p>
            <nav class="why-pages" aria-label="Steps">
                <button id="why-first" type="button" class="button small ghost" onclick={go(1)} disabled={*page == 1}>{ "First" }</button>
                <button id="why-prev" type="button" class="button small ghost" onclick={go(page.saturating_sub(1))} disabled={*page == 1}>{ "Previous" }</button>
                <span id="why-page">{ format!("steps {}–{} of {}", from, (from + PAGE - 1).min(steps), steps) }</span>
                <button id="why-next" type="button" class="button small ghost" onclick={go(*page + 1)} disabled={*page >= last_page}>{ "Next" }</button>
                <button id="why-last" type="button" class="button small ghost" onclick={go(last_page)} disabled={*page >= last_page}>{ "Last" }</button>
                <label class="knob">{ "go to step " }
                    <input id="why-step" type="number" min="1" max={steps.to_string()} step="1" onchange={jump} />
                </label>
            </nav>
        </section>
    }
}

thread_local! {
    /// The panel's app in the grade module.
    static WHY_APP: std::cell::RefCell<Option<yew::AppHandle<WhyBody>>> = const { std::cell::RefCell::new(None) };
}

/// Draw a new panel in `root` (the last one goes, wherever it was), or say why it cannot be read.
fn draw(root: web_sys::Element, text: &str) {
    WHY_APP.with(|d| {
        if let Some(old) = d.borrow_mut().take() {
            old.destroy();
        }
        root.set_inner_html("");
        match handover::why_task_read(text) {
            Ok((function, guard)) => {
                let props = BodyProps { function: Rc::new(function), guard };
                *d.borrow_mut() = Some(yew::Renderer::<WhyBody>::with_root_and_props(root, props).render());
            }
            Err(e) => notice(&root, true, &e),
        }
    });
}

/// In the grade module's start: put the panel's `mount(root, task)` on `window.cabritoWhy`. Each
/// mount draws a new panel there. Each call's steps come from the `gen` module's `why`: the page
/// loaded that module to make the runtime task it shows.
pub fn expose_why() {
    lazy::expose(WHY.global, |root: web_sys::Element, text: String| draw(root, &text));
}
